package main

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// The test binary doubles as a fake siteops: with fakeEnv set it checks
// that it got exactly the documented render command line, writes some
// output and exits with the code in fakeExitEnv.
const (
	fakeEnv     = "BENCHRENDER_FAKE_SITEOPS"
	fakeExitEnv = "BENCHRENDER_FAKE_EXIT"
)

func TestMain(m *testing.M) {
	if os.Getenv(fakeEnv) == "1" {
		os.Exit(fakeSiteops(os.Args[1:]))
	}
	os.Exit(m.Run())
}

func fakeSiteops(args []string) int {
	if len(args) != 8 || args[0] != "render" || args[1] != "--root" || args[3] != "--extra-manifests-dir" ||
		args[4] != filepath.Join(args[2], "extra-manifests") || args[5] != args[2] || args[6] != "-o" || args[7] != "yaml" {
		fmt.Fprintf(os.Stderr, "unexpected arguments %q\n", args)
		return 64
	}
	if _, err := os.Stat(filepath.Join(args[2], "kustomization.yaml")); err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 65
	}
	fmt.Print(strings.Repeat("---\nkind: Namespace\n", 1000))
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
		wantErr  error
		wantCell string
	}{
		{name: "render succeeds", exit: "0", wantCell: "  0"},
		{name: "render fails", exit: "3", wantErr: errRunFailed, wantCell: "  3"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Setenv(fakeEnv, "1")
			t.Setenv(fakeExitEnv, tt.exit)
			var out, errOut bytes.Buffer
			err := run(context.Background(), []string{
				"-bin", os.Args[0], "-sizes", "3", "-shapes", "sno,ha", "-runs", "2", "-manifests", "4",
				"-work", t.TempDir(),
			}, &out, &errOut)
			if !errors.Is(err, tt.wantErr) {
				t.Fatalf("run: %v, want %v\nstderr:\n%s", err, tt.wantErr, errOut.String())
			}
			lines := strings.Split(strings.TrimSpace(out.String()), "\n")
			if len(lines) != 3 {
				t.Fatalf("table has %d lines, want header + 2:\n%s", len(lines), out.String())
			}
			for _, l := range lines[1:] {
				if !strings.HasSuffix(strings.TrimRight(l, " "), tt.wantCell) {
					t.Errorf("row %q does not end in exit code %q", l, strings.TrimSpace(tt.wantCell))
				}
			}
			if tt.exit == "0" && !strings.Contains(out.String(), "0.0") {
				t.Errorf("table shows no output size:\n%s", out.String())
			}
		})
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
		b, m := bestMedian(ds)
		if b != time.Duration(tt.best) || m != time.Duration(tt.med) {
			t.Errorf("bestMedian(%v) = %d, %d; want %d, %d", tt.in, b, m, tt.best, tt.med)
		}
	}
}
