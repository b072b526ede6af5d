package main

import (
	"bytes"
	"encoding/json"
	"math"
	"testing"
	"time"

	"github.com/siteops/siteops/hack/fleetgen/gen"
)

func TestParseSpecs(t *testing.T) {
	got, err := parseSpecs("sno:3500@60,ha:10@max")
	if err != nil {
		t.Fatal(err)
	}
	want := []spec{{gen.ShapeSNO, 3500, 60}, {gen.ShapeHA, 10, 0}}
	if len(got) != 2 || got[0] != want[0] || got[1] != want[1] {
		t.Errorf("%v", got)
	}
	for _, bad := range []string{"sno:10", "sno:x@max", "box:10@max", "sno:10@-1", "sno:0@max"} {
		if _, err := parseSpecs(bad); err == nil {
			t.Errorf("%q accepted", bad)
		}
	}
}

// A small fleet goes through the whole measurement: rendered, applied,
// every site installed.
func TestRunChild(t *testing.T) {
	dir := t.TempDir()
	if _, err := gen.Generate(dir, gen.Config{Sites: 4, Shape: gen.ShapeMixed, Layout: gen.LayoutFiles, Manifests: 3, Seed: 7}); err != nil {
		t.Fatal(err)
	}
	var out bytes.Buffer
	if err := runChild(dir, t.TempDir(), math.Inf(1), true, 2*time.Minute, &out, nil); err != nil {
		t.Fatal(err)
	}
	var r result
	if err := json.Unmarshal(out.Bytes(), &r); err != nil {
		t.Fatalf("%q: %v", out.String(), err)
	}
	if r.Sites != 4 || r.Failed != 0 || r.VirtualMin < 30 {
		t.Errorf("%+v", r)
	}
}

func TestParseSize(t *testing.T) {
	for _, tc := range []struct {
		in   string
		want int64
		bad  bool
	}{
		{"", 0, false},
		{"3GiB", 3 << 30, false},
		{"3500MiB", 3500 << 20, false},
		{"512KiB", 512 << 10, false},
		{"4096B", 4096, false},
		{"3758096384", 3758096384, false},
		{"3GB", 0, true},
		{"-1GiB", 0, true},
		{"0", 0, true},
		{"GiB", 0, true},
		{"99999999999GiB", 0, true},
	} {
		got, err := parseSize(tc.in)
		if tc.bad != (err != nil) || got != tc.want {
			t.Errorf("parseSize(%q) = %d, %v", tc.in, got, err)
		}
	}
}
