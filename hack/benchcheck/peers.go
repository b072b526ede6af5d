package main

import (
	"context"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"time"
)

// The conftest the comparison runs when none is on PATH: this version,
// installed with the Go toolchain into the user's cache directory (outside
// the repository), once.
const (
	conftestModule  = "github.com/open-policy-agent/conftest"
	conftestVersion = "v0.71.1"
	// conftestInstallTimeout bounds a cold `go install` (about three
	// minutes on two cores).
	conftestInstallTimeout = 20 * time.Minute
)

// conftestCacheDir is where conftest is installed:
// $XDG_CACHE_HOME/siteops/bench/conftest-<version> (~/.cache/...), or
// $SITEOPS_BENCH_CACHE/conftest-<version> when that is set.
func conftestCacheDir() (string, error) {
	base := os.Getenv("SITEOPS_BENCH_CACHE")
	if base == "" {
		d, err := os.UserCacheDir()
		if err != nil {
			return "", fmt.Errorf("cache directory: %w (set SITEOPS_BENCH_CACHE)", err)
		}
		base = filepath.Join(d, "siteops", "bench")
	}
	return filepath.Join(base, "conftest-"+conftestVersion), nil
}

// findConftest resolves -conftest auto: conftest on PATH, else the one in
// the cache, else it installs it there. It returns "" (and says why on
// stderr) when there is none and it cannot be installed: the benchmark
// then measures siteops check alone.
func findConftest(ctx context.Context, stderr io.Writer) string {
	if p, err := exec.LookPath("conftest"); err == nil {
		if abs, err := filepath.Abs(p); err == nil {
			return abs
		}
	}
	dir, err := conftestCacheDir()
	if err != nil {
		fmt.Fprintf(stderr, "conftest is not on PATH and cannot be installed: %v; measuring siteops check only\n", err)
		return ""
	}
	bin := filepath.Join(dir, "conftest")
	if _, err := os.Stat(bin); err == nil {
		return bin
	}
	fmt.Fprintf(stderr, "conftest is not on PATH: installing %s@%s into %s (go install)\n", conftestModule, conftestVersion, dir)
	ictx, cancel := context.WithTimeout(ctx, conftestInstallTimeout)
	defer cancel()
	cmd := exec.CommandContext(ictx, "go", "install", conftestModule+"@"+conftestVersion)
	cmd.Env = append(os.Environ(), "GOBIN="+dir)
	if out, err := cmd.CombinedOutput(); err != nil {
		tail := out
		if len(tail) > 2048 {
			tail = tail[len(tail)-2048:]
		}
		fmt.Fprintf(stderr, "installing conftest failed (%v): measuring siteops check only\n%s\n", err, tail)
		return ""
	}
	return bin
}
