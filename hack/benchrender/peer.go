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

// peerKustomize is the kustomize release built on the same
// sigs.k8s.io/kustomize/api version as siteops (v0.21.0; see go.mod), so
// that both build the overlays with the same kustomize.
const peerKustomize = "sigs.k8s.io/kustomize/kustomize/v5@v5.8.0"

// installTimeout bounds go install of the peer.
const installTimeout = 10 * time.Minute

// findKustomize returns the kustomize binary to compare with, or "" (and
// says why) when there is none: the one given, else kustomize on PATH,
// else the pinned release, installed into the user cache on first use.
func findKustomize(ctx context.Context, flagValue string, stderr io.Writer) string {
	switch flagValue {
	case "none":
		return ""
	case "":
	default:
		p, err := exec.LookPath(flagValue)
		if err != nil {
			fmt.Fprintf(stderr, "kustomize %s not found (%v): measuring siteops only\n", flagValue, err)
			return ""
		}
		return p
	}
	if p, err := exec.LookPath("kustomize"); err == nil {
		fmt.Fprintf(stderr, "comparing with %s (on PATH)\n", p)
		return p
	}
	cache, err := os.UserCacheDir()
	if err != nil {
		fmt.Fprintf(stderr, "kustomize is not on PATH and there is no cache directory to install it into (%v): measuring siteops only\n", err)
		return ""
	}
	dir := filepath.Join(cache, "siteops", "bench", "kustomize-v5.8.0")
	bin := filepath.Join(dir, "kustomize")
	if _, err := os.Stat(bin); err == nil {
		fmt.Fprintf(stderr, "comparing with %s (%s)\n", bin, peerKustomize)
		return bin
	}
	fmt.Fprintf(stderr, "kustomize is not on PATH: installing %s into %s\n", peerKustomize, dir)
	ctx, cancel := context.WithTimeout(ctx, installTimeout)
	defer cancel()
	cmd := exec.CommandContext(ctx, "go", "install", peerKustomize)
	cmd.Env = append(os.Environ(), "GOBIN="+dir)
	cmd.Stdout, cmd.Stderr = stderr, stderr
	cmd.WaitDelay = 5 * time.Second
	if err := cmd.Run(); err != nil {
		fmt.Fprintf(stderr, "could not install %s (%v): measuring siteops only\n", peerKustomize, err)
		return ""
	}
	return bin
}
