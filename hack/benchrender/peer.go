package main

import (
	"context"
	"fmt"
	"io"
	"os/exec"
	"time"

	"github.com/siteops/siteops/hack/internal/benchutil"
)

// kustomizePeer is the release built on the same sigs.k8s.io/kustomize/api
// version as siteops (v0.21.0; see go.mod), so that both build the
// overlays with the same kustomize.
var kustomizePeer = benchutil.Peer{
	Name:    "kustomize",
	Module:  "sigs.k8s.io/kustomize/kustomize/v5",
	Version: "v5.8.0",
	Timeout: 10 * time.Minute,
}

// findKustomize returns the kustomize binary to compare with, or "" (and
// says why) when there is none: the one -kustomize names, none for
// "none", else kustomize on PATH or the pinned release (benchutil.Peer.Find).
func findKustomize(ctx context.Context, flagValue string, stderr io.Writer) string {
	switch flagValue {
	case "none":
		return ""
	case "":
		return kustomizePeer.Find(ctx, stderr)
	}
	p, err := exec.LookPath(flagValue)
	if err != nil {
		fmt.Fprintf(stderr, "kustomize %s not found (%v): measuring siteops only\n", flagValue, err)
		return ""
	}
	return p
}
