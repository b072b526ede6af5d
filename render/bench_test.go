package render_test

import (
	"context"
	"os"
	"path/filepath"
	"testing"

	"github.com/siteops/siteops/hack/fleetgen/gen"
	"github.com/siteops/siteops/render"
	"github.com/siteops/siteops/sites"
)

// BenchmarkRenderSite measures rendering and encoding one site of each
// shape with a 20-file extra-manifest set; loading is not included.
func BenchmarkRenderSite(b *testing.B) {
	for _, shape := range []gen.Shape{gen.ShapeSNO, gen.ShapeHA} {
		b.Run(string(shape), func(b *testing.B) {
			dir := b.TempDir()
			if _, err := gen.Generate(dir, gen.Config{Sites: 64, Shape: shape, Manifests: 20, Seed: 1}); err != nil {
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
			fleet, err := sites.Load(context.Background(), root.FS(), []string{"."})
			if err != nil || fleet.Problems.HasErrors() {
				b.Fatalf("load: %v %v", err, fleet.Problems)
			}
			r := render.New(render.WithDefaultManifests(md))
			enc, _ := render.NewEncoder(render.FormatYAML)
			var bytes int
			b.ReportAllocs()
			b.ResetTimer()
			for i := 0; i < b.N; i++ {
				res := r.RenderEncoded(fleet.Sites[i%len(fleet.Sites)], enc)
				if res.Bundle == nil {
					b.Fatal(res.Problems)
				}
				bytes += len(res.Encoded)
			}
			b.ReportMetric(float64(b.N)/b.Elapsed().Seconds(), "sites/s")
			b.ReportMetric(float64(bytes)/float64(b.N), "B/site")
		})
	}
}

// BenchmarkLoad measures decoding SiteConfig files into sites.
func BenchmarkLoad(b *testing.B) {
	dir := b.TempDir()
	const n = 200
	if _, err := gen.Generate(dir, gen.Config{Sites: n, Shape: gen.ShapeMixed, Manifests: 20, Seed: 1}); err != nil {
		b.Fatal(err)
	}
	root, err := os.OpenRoot(dir)
	if err != nil {
		b.Fatal(err)
	}
	defer root.Close()
	b.ReportAllocs()
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		fleet, err := sites.Load(context.Background(), root.FS(), []string{"."}, sites.WithWorkers(1))
		if err != nil || len(fleet.Sites) != n {
			b.Fatalf("load: %v, %d sites", err, len(fleet.Sites))
		}
	}
	b.ReportMetric(float64(b.N*n)/b.Elapsed().Seconds(), "sites/s")
}
