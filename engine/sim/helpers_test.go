package sim

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"sort"
	"testing"
	"time"

	"github.com/siteops/siteops/engine"
	"github.com/siteops/siteops/render"
	"github.com/siteops/siteops/sites"
)

// repoRoot is the module root, two directories up.
const repoRoot = "../.."

// renderDir loads and renders every site under a directory of the
// repository, with the example extra-manifest set.
func renderDir(t testing.TB, dir string) map[string]*render.Bundle {
	t.Helper()
	fleet, err := sites.Load(context.Background(), os.DirFS(repoRoot), []string{dir})
	if err != nil {
		t.Fatalf("load %s: %v", dir, err)
	}
	if fleet.Problems.HasErrors() {
		t.Fatalf("load %s: %v", dir, fleet.Problems)
	}
	md, err := sites.ReadManifestDir(os.DirFS(filepath.Join(repoRoot, "examples/extra-manifests")), ".")
	if err != nil {
		t.Fatal(err)
	}
	r := render.New(render.WithDefaultManifests(md))
	out := map[string]*render.Bundle{}
	for _, s := range fleet.Sites {
		b, ps := r.Render(s)
		if ps.HasErrors() || b == nil {
			t.Fatalf("render %s: %v", s.Name, ps)
		}
		out[b.Site] = b
	}
	return out
}

// newStepped starts a stepped engine in a temporary directory.
func newStepped(t testing.TB, opts Options) *Engine {
	t.Helper()
	opts.Stepped = true
	return newEngine(t, opts)
}

// newEngine starts an engine, in a temporary directory unless opts names
// one, and closes it when the test ends.
func newEngine(t testing.TB, opts Options) *Engine {
	t.Helper()
	if opts.StateDir == "" {
		opts.StateDir = t.TempDir()
	}
	e, err := New(context.Background(), opts)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { e.Close() })
	return e
}

func apply(t testing.TB, e *Engine, b *render.Bundle, rev string) {
	t.Helper()
	if err := e.Apply(context.Background(), b, rev); err != nil {
		t.Fatalf("apply %s: %v", b.Site, err)
	}
}

func status(t testing.TB, e *Engine, site string) engine.SiteStatus {
	t.Helper()
	st, err := e.Status(context.Background(), site)
	if err != nil {
		t.Fatalf("status %s: %v", site, err)
	}
	return st
}

// runUntil advances the clock in steps until cond holds, failing after
// limit of virtual time.
func runUntil(t testing.TB, e *Engine, step, limit time.Duration, cond func() bool) time.Duration {
	t.Helper()
	for elapsed := time.Duration(0); elapsed <= limit; elapsed += step {
		if err := e.Advance(context.Background(), step); err != nil {
			t.Fatal(err)
		}
		if cond() {
			return elapsed + step
		}
	}
	t.Fatalf("condition not reached within %v of virtual time", limit)
	return 0
}

func dump(t testing.TB, st engine.SiteStatus) string {
	t.Helper()
	b, _ := json.MarshalIndent(st, "", "  ")
	return string(b)
}

func sortedSites(m map[string]*render.Bundle) []string {
	var out []string
	for k := range m {
		out = append(out, k)
	}
	sort.Strings(out)
	return out
}
