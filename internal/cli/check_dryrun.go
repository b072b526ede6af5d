package cli

import (
	"context"

	"github.com/spf13/pflag"

	"github.com/siteops/siteops/engine/hub"
	"github.com/siteops/siteops/render"
	"github.com/siteops/siteops/sites"
)

// dryRunFlags choose the hub of `check --server-dry-run`.
type dryRunFlags struct {
	enabled bool
	hub     engineFlags
}

func (f *dryRunFlags) register(fl *pflag.FlagSet) {
	fl.BoolVar(&f.enabled, "server-dry-run", false, "also apply every rendered object to a hub with dryRun=All (its CRD schemas and admission; nothing is stored); a refusal is a finding of its site")
	fl.StringVar(&f.hub.kubeconfig, "kubeconfig", "", "with --server-dry-run: kubeconfig of the hub (default $KUBECONFIG or ~/.kube/config)")
	fl.StringVar(&f.hub.kubeContext, "context", "", "with --server-dry-run: kubeconfig context to use")
}

// open connects to the hub, or returns nil without --server-dry-run.
func (f *dryRunFlags) open() (*hub.DryRunner, error) {
	if !f.enabled {
		return nil, nil
	}
	cfg, err := hubConfig(&f.hub)
	if err != nil {
		return nil, err
	}
	return hub.NewDryRunner(cfg, hub.WithRateLimit(2*hub.DefaultQPS, 2*hub.DefaultBurst))
}

// dryRunProblems dry-runs a site's bundle and turns each refusal into a
// problem of the site.
func dryRunProblems(ctx context.Context, dry *hub.DryRunner, s *sites.Site, b *render.Bundle) sites.Problems {
	if dry == nil || b == nil {
		return nil
	}
	refused, err := dry.Check(ctx, b)
	var out sites.Problems
	for _, p := range refused {
		out = append(out, s.Problem(s.FieldPath(""), "the hub refuses %s in a server-side dry run: %v", p.Object, p.Err))
	}
	if err != nil {
		out = append(out, s.Problem(s.FieldPath(""), "server-side dry run: %v", err))
	}
	return out
}
