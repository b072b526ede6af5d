package main

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

func TestParseFloor(t *testing.T) {
	out := []byte(`goos: linux
BenchmarkEvaluate/empty-query-2         	    3000	      4592 ns/op	         3.346 cpu-µs/eval
BenchmarkEvaluate/one-rule-2            	    3000	     26926 ns/op	         9.389 cpu-µs/eval
BenchmarkEvaluate/library               	    3000	   1011261 ns/op	       622.3 cpu-µs/eval
BenchmarkCheck-2   	       1	5104036104 ns/op	      1288 cpu-µs/site
BenchmarkEvaluate/broken-2   3000   1 ns/op   x cpu-µs/eval
ok  	github.com/siteops/siteops/policy	7.213s
`)
	got := parseFloor(out)
	want := []floorFigure{{"empty-query", 3.346}, {"one-rule", 9.389}, {"library", 622.3}}
	if len(got) != len(want) {
		t.Fatalf("got %v, want %v", got, want)
	}
	for i := range want {
		if got[i] != want[i] {
			t.Errorf("figure %d: %v, want %v", i, got[i], want[i])
		}
	}
	var b bytes.Buffer
	printFloor(&b, got)
	if line := b.String(); !strings.Contains(line, "one rule that finds nothing (the floor per site) 9.4 µs") || !strings.Contains(line, "the built-in library 622.3 µs") {
		t.Errorf("printed %q", line)
	}
}

func TestPrintTarget(t *testing.T) {
	rows := []row{
		{size: 1000, tool: "siteops check", walls: []time.Duration{time.Second}, cpus: []time.Duration{time.Second}},
		{size: 10000, tool: "conftest", walls: []time.Duration{time.Minute}, cpus: []time.Duration{time.Minute}},
		{size: 10000, tool: "siteops check", walls: []time.Duration{5 * time.Second, 3 * time.Second, 3500 * time.Millisecond}, cpus: []time.Duration{6 * time.Second}},
	}
	var b bytes.Buffer
	printTarget(&b, rows)
	want := "10000 mixed sites (one in four HA): siteops check 3.50 s wall (median; best 3.00 s), 6.00 s CPU: target under 4s wall met\n"
	if b.String() != want {
		t.Errorf("printed %q, want %q", b.String(), want)
	}
	rows[2].walls = []time.Duration{5 * time.Second}
	b.Reset()
	printTarget(&b, rows)
	if !strings.HasSuffix(b.String(), "not met\n") {
		t.Errorf("printed %q", b.String())
	}
}

// TestFindConftest resolves -conftest auto from PATH and from the cache,
// without installing anything.
func TestFindConftest(t *testing.T) {
	cache := t.TempDir()
	t.Setenv("SITEOPS_BENCH_CACHE", cache)
	onPath := t.TempDir()
	fake := filepath.Join(onPath, "conftest")
	if err := os.WriteFile(fake, []byte("#!/bin/sh\n"), 0o755); err != nil {
		t.Fatal(err)
	}
	t.Setenv("PATH", onPath)
	if got := findConftest(t.Context(), &bytes.Buffer{}); got != fake {
		t.Errorf("with conftest on PATH: %q, want %q", got, fake)
	}
	dir, err := conftestPeer.CacheDir()
	if err != nil {
		t.Fatal(err)
	}
	if want := filepath.Join(cache, "conftest-"+conftestPeer.Version); dir != want {
		t.Errorf("cache directory %q, want %q", dir, want)
	}
	cached := filepath.Join(dir, "conftest")
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(cached, []byte("#!/bin/sh\n"), 0o755); err != nil {
		t.Fatal(err)
	}
	t.Setenv("PATH", t.TempDir())
	if got := findConftest(t.Context(), &bytes.Buffer{}); got != cached {
		t.Errorf("with conftest in the cache: %q, want %q", got, cached)
	}
}
