package benchutil

import (
	"context"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"time"
)

// Peer is a tool a benchmark compares siteops with (conftest, kustomize):
// the one on PATH, else a pinned release installed with the Go toolchain
// into the user's cache directory (outside the repository), once.
type Peer struct {
	Name    string        // the binary's name: conftest
	Module  string        // the package go install builds
	Version string        // the pinned release: v0.71.1
	Timeout time.Duration // bounds a cold go install
}

// CacheDir is where the pinned release is installed:
// $SITEOPS_BENCH_CACHE/<name>-<version> when that is set, else
// $XDG_CACHE_HOME/siteops/bench/<name>-<version> (~/.cache/...).
func (p Peer) CacheDir() (string, error) {
	base := os.Getenv("SITEOPS_BENCH_CACHE")
	if base == "" {
		d, err := os.UserCacheDir()
		if err != nil {
			return "", fmt.Errorf("cache directory: %w (set SITEOPS_BENCH_CACHE)", err)
		}
		base = filepath.Join(d, "siteops", "bench")
	}
	return filepath.Join(base, p.Name+"-"+p.Version), nil
}

// Find returns the peer on PATH, else the one in the cache, else it
// installs it there. It returns "" (and says why on stderr) when there is
// none and it cannot be installed: the benchmark then measures siteops
// alone.
func (p Peer) Find(ctx context.Context, stderr io.Writer) string {
	if path, err := exec.LookPath(p.Name); err == nil {
		if abs, err := filepath.Abs(path); err == nil {
			fmt.Fprintf(stderr, "comparing with %s (on PATH)\n", abs)
			return abs
		}
	}
	dir, err := p.CacheDir()
	if err != nil {
		fmt.Fprintf(stderr, "%s is not on PATH and cannot be installed: %v; measuring siteops only\n", p.Name, err)
		return ""
	}
	bin := filepath.Join(dir, p.Name)
	if _, err := os.Stat(bin); err == nil {
		fmt.Fprintf(stderr, "comparing with %s (%s@%s)\n", bin, p.Module, p.Version)
		return bin
	}
	fmt.Fprintf(stderr, "%s is not on PATH: installing %s@%s into %s (go install)\n", p.Name, p.Module, p.Version, dir)
	ictx, cancel := context.WithTimeout(ctx, p.Timeout)
	defer cancel()
	cmd := exec.CommandContext(ictx, "go", "install", p.Module+"@"+p.Version)
	cmd.Env = append(os.Environ(), "GOBIN="+dir)
	cmd.WaitDelay = 5 * time.Second
	if out, err := cmd.CombinedOutput(); err != nil {
		tail := out
		if len(tail) > 2048 {
			tail = tail[len(tail)-2048:]
		}
		fmt.Fprintf(stderr, "installing %s failed (%v): measuring siteops only\n%s\n", p.Name, err, tail)
		return ""
	}
	return bin
}
