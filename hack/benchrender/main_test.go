package main

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/siteops/siteops/hack/fleetgen/gen"
	"github.com/siteops/siteops/hack/internal/benchutil"
)

// The test binary doubles as a fake siteops: with fakeEnv set it checks
// that it got exactly the documented render command line, writes some
// output and exits with the code in fakeExitEnv.
const (
	fakeEnv     = "BENCHRENDER_FAKE_SITEOPS"
	fakeExitEnv = "BENCHRENDER_FAKE_EXIT"
	// fakeSilentEnv makes the fake print nothing, like a siteops that
	// finds no site in a layout it cannot read.
	fakeSilentEnv = "BENCHRENDER_FAKE_SILENT"
)

func TestMain(m *testing.M) {
	if os.Getenv(fakeEnv) == "1" {
		os.Exit(fakeSiteops(os.Args[1:]))
	}
	os.Exit(m.Run())
}

func fakeSiteops(args []string) int {
	if len(args) == 2 && args[0] == "build" {
		// The kustomize peer, on an overlays fleet.
		if _, err := os.Stat(filepath.Join(args[1], "kustomization.yaml")); err != nil {
			fmt.Fprintln(os.Stderr, err)
			return 66
		}
		fmt.Print(strings.Repeat("---\nkind: ClusterInstance\n", 1000))
		return 0
	}
	if len(args) != 8 || args[0] != "render" || args[1] != "--root" || args[3] != "--extra-manifests-dir" ||
		args[4] != filepath.Join(args[2], "extra-manifests") || args[5] != args[2] || args[6] != "-o" || args[7] != "yaml" {
		fmt.Fprintf(os.Stderr, "unexpected arguments %q\n", args)
		return 64
	}
	// A files fleet is a plain directory; the other layouts are
	// kustomizations.
	_, err := os.Stat(filepath.Join(args[2], "kustomization.yaml"))
	if files := strings.HasPrefix(filepath.Base(args[2]), "files-"); files != (err != nil) {
		fmt.Fprintf(os.Stderr, "%s: files layout %v, kustomization: %v\n", args[2], files, err)
		return 65
	}
	if os.Getenv(fakeSilentEnv) != "1" {
		fmt.Print(strings.Repeat("---\nkind: Namespace\n", 1000))
	}
	if code := os.Getenv(fakeExitEnv); code != "" && code != "0" {
		fmt.Fprintln(os.Stderr, "fake render failure")
		return 3
	}
	return 0
}

func TestRun(t *testing.T) {
	tests := []struct {
		name     string
		exit     string
		silent   bool
		layouts  []string // -layouts, none for the default
		wantErr  error
		wantCell string
		wantRows []string // the LAYOUT and SHAPE cells, in order
		// wantRatios is the number of lines comparing with kustomize.
		wantRatios int
	}{
		{name: "render succeeds", exit: "0", wantCell: "  0", wantRows: []string{"files sno", "files ha"}},
		{name: "render fails", exit: "3", wantErr: errRunFailed, wantCell: "  3", wantRows: []string{"files sno", "files ha"}},
		{name: "render prints nothing", exit: "0", silent: true, wantCell: "0 (no output)", wantRows: []string{"files sno", "files ha"}},
		{
			name: "every layout", exit: "0", wantCell: "  0",
			layouts: []string{"-layouts", "files,generators, overlays,files/clusterinstance", "-kustomize", os.Args[0]},
			wantRows: []string{
				"files sno", "generators sno", "overlays sno", "overlays:kustomize-build sno", "files/clusterinstance sno",
				"files ha", "generators ha", "overlays ha", "overlays:kustomize-build ha", "files/clusterinstance ha",
			},
			wantRatios: 2,
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Setenv(fakeEnv, "1")
			t.Setenv(fakeExitEnv, tt.exit)
			if tt.silent {
				t.Setenv(fakeSilentEnv, "1")
			}
			var out, errOut bytes.Buffer
			args := append([]string{
				"-bin", os.Args[0], "-sizes", "3", "-shapes", "sno,ha", "-runs", "2", "-manifests", "4",
				"-work", t.TempDir(),
			}, tt.layouts...)
			err := run(context.Background(), args, &out, &errOut)
			if !errors.Is(err, tt.wantErr) {
				t.Fatalf("run: %v, want %v\nstderr:\n%s", err, tt.wantErr, errOut.String())
			}
			lines := strings.Split(strings.TrimSpace(out.String()), "\n")
			var ratios []string
			for len(lines) > 0 && strings.Contains(lines[len(lines)-1], "kustomize build by CPU") {
				ratios = append(ratios, lines[len(lines)-1])
				lines = lines[:len(lines)-1]
			}
			if len(ratios) != tt.wantRatios {
				t.Errorf("%d lines compare with kustomize, want %d:\n%s", len(ratios), tt.wantRatios, out.String())
			}
			if len(lines) != 1+len(tt.wantRows) {
				t.Fatalf("table has %d lines, want header + %d:\n%s", len(lines), len(tt.wantRows), out.String())
			}
			if h := strings.Fields(lines[0]); len(h) < 3 || h[0] != "SIZE" || h[1] != "LAYOUT" || h[2] != "SHAPE" {
				t.Errorf("header %q", lines[0])
			}
			for i, l := range lines[1:] {
				if f := strings.Fields(l); len(f) < 3 || f[1]+" "+f[2] != tt.wantRows[i] {
					t.Errorf("row %d %q, want layout and shape %q", i, l, tt.wantRows[i])
				}
			}
			for _, l := range lines[1:] {
				if !strings.HasSuffix(strings.TrimRight(l, " "), tt.wantCell) {
					t.Errorf("row %q does not end in exit code %q", l, strings.TrimSpace(tt.wantCell))
				}
			}
			if tt.exit == "0" && !tt.silent && !strings.Contains(out.String(), "0.0") {
				t.Errorf("table shows no output size:\n%s", out.String())
			}
		})
	}
}

func TestParseFlagsLayouts(t *testing.T) {
	for _, bad := range []string{"tree", "files,files", "generators/clusterinstance", "overlays/siteconfig", "files/v3", ""} {
		if _, err := parseFlags([]string{"-bin", "x", "-layouts", bad}, io.Discard); err == nil {
			t.Errorf("-layouts %q accepted", bad)
		}
	}
	if _, err := parseFlags([]string{"-bin", "x", "-layouts", "overlays", "-sizes", fmt.Sprint(gen.MaxSites)}, io.Discard); err == nil {
		t.Errorf("overlays of MaxSites sites accepted")
	}
	cfg, err := parseFlags([]string{"-bin", "x"}, io.Discard)
	if err != nil || len(cfg.layouts) != 1 || cfg.layouts[0].String() != "files" {
		t.Errorf("default layouts %v (%v), want files", cfg.layouts, err)
	}
}

func TestBestMedian(t *testing.T) {
	for _, tt := range []struct {
		in        []int
		best, med int
	}{
		{[]int{5}, 5, 5},
		{[]int{9, 1, 5}, 1, 5},
		{[]int{4, 2, 8, 6}, 2, 5},
	} {
		var ds []time.Duration
		for _, v := range tt.in {
			ds = append(ds, time.Duration(v))
		}
		b, m := benchutil.BestMedian(ds)
		if b != time.Duration(tt.best) || m != time.Duration(tt.med) {
			t.Errorf("benchutil.BestMedian(%v) = %d, %d; want %d, %d", tt.in, b, m, tt.best, tt.med)
		}
	}
}
