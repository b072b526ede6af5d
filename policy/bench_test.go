package policy

import (
	"context"
	"os"
	"path/filepath"
	"syscall"
	"testing"
	"time"

	"github.com/siteops/siteops/hack/fleetgen/gen"
	"github.com/siteops/siteops/render"
	"github.com/siteops/siteops/sites"
)

// BenchmarkCheck measures checking a generated fleet of 1,000 sites (one
// in four HA, the rest SNO, 20 extra manifests each) with the built-in
// library: the fleet index, the per-site input documents and the
// evaluations, on all CPUs. Loading and rendering are done once, outside
// the measurement, as siteops check hands the engine what render holds.
func BenchmarkCheck(b *testing.B) {
	const n = 1000
	dir := b.TempDir()
	if _, err := gen.Generate(dir, gen.Config{Sites: n, Shape: gen.ShapeMixed, Layout: gen.LayoutFiles, Manifests: 20, Seed: 1}); err != nil {
		b.Fatal(err)
	}
	root, err := os.OpenRoot(dir)
	if err != nil {
		b.Fatal(err)
	}
	defer root.Close()
	md, err := sites.ReadManifestDir(os.DirFS(filepath.Join(dir, gen.ExtraManifestsDir)), ".")
	if err != nil {
		b.Fatal(err)
	}
	ctx := context.Background()
	fleet, err := sites.Load(ctx, root.FS(), []string{"."})
	if err != nil || fleet.Problems.HasErrors() || len(fleet.Sites) != n {
		b.Fatalf("load: %v, %d sites, %v", err, len(fleet.Sites), fleet.Problems)
	}
	r := render.New(render.WithDefaultManifests(md))
	bundles := make(map[string]*render.Bundle, n)
	for _, s := range fleet.Sites {
		bundle, problems := r.Render(s)
		if bundle == nil {
			b.Fatal(problems)
		}
		bundles[s.Name] = bundle
	}
	e, err := Load(ctx)
	if err != nil {
		b.Fatal(err)
	}
	b.ReportAllocs()
	b.ResetTimer()
	cpu0 := processCPU()
	for range b.N {
		rep, err := e.Check(ctx, fleet, bundles)
		if err != nil {
			b.Fatal(err)
		}
		if rep.Count("deny") > 0 {
			b.Fatalf("a generated fleet has deny findings: %v", rep.Findings[0])
		}
	}
	b.ReportMetric(float64(b.N*n)/b.Elapsed().Seconds(), "sites/s")
	// CPU time is steadier than wall time on a shared machine.
	b.ReportMetric(float64((processCPU()-cpu0).Microseconds())/float64(b.N*n), "cpu-µs/site")
}

// processCPU is the user and system time the process has used.
func processCPU() time.Duration {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		return 0
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}
