package main

import (
	"context"
	"io"
	"time"

	"github.com/siteops/siteops/hack/internal/benchutil"
)

// conftestPeer is the peer the comparison runs when none is on PATH; a cold
// install takes about three minutes on two cores.
var conftestPeer = benchutil.Peer{
	Name:    "conftest",
	Module:  "github.com/open-policy-agent/conftest",
	Version: "v0.71.1",
	Timeout: 20 * time.Minute,
}

// findConftest resolves -conftest auto (benchutil.Peer.Find).
func findConftest(ctx context.Context, stderr io.Writer) string {
	return conftestPeer.Find(ctx, stderr)
}
