package policy

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"testing"

	"github.com/siteops/siteops/hack/fleetgen/gen"
	"github.com/siteops/siteops/policy/report"
	"github.com/siteops/siteops/render"
	"github.com/siteops/siteops/sites"
)

// withTopdown evaluates with OPA's topdown evaluator only.
func withTopdown() Option { return func(o *options) { o.topdown = true } }

// TestEvaluatorsAgree checks fleets with the built-in library (and the
// example user policies) run by internal/irvm and by topdown, and run by
// internal/irvm on RenderTyped's bundles as siteops check renders them:
// the reports must be the same, finding for finding. The fleets are every rule's
// fixtures, the example fleet, and generated fleets of every shape.
func TestEvaluatorsAgree(t *testing.T) {
	ctx := context.Background()
	load := func(opts ...Option) *Engine {
		e, err := Load(ctx, append(opts, WithUserPolicies("../examples/policies"))...)
		if err != nil {
			t.Fatal(err)
		}
		return e
	}
	ir, td := load(), load(withTopdown())
	if _, err := ir.Start(ctx); err != nil {
		t.Fatal(err)
	}
	if !ir.localQuery.ir {
		t.Fatal("the library is not run by internal/irvm")
	}
	type fleet struct {
		name  string
		dir   string
		opts  []CheckOption
		paths []string
		r     *render.Renderer
	}
	var fleets []fleet
	for _, rule := range fixtureDirs(t) {
		dir := filepath.Join("rules/testdata", rule)
		for _, f := range []string{"bad.yaml", "good.yaml"} {
			fleets = append(fleets, fleet{name: rule + "/" + f, dir: dir, opts: changeFixture(t, dir), paths: []string{f}, r: render.New()})
		}
	}
	md, err := sites.ReadManifestDir(os.DirFS("../examples/extra-manifests"), ".")
	if err != nil {
		t.Fatal(err)
	}
	fleets = append(fleets, fleet{name: "examples", dir: "../examples/fleet", paths: []string{"."}, r: render.New(render.WithDefaultManifests(md))})
	for _, shape := range []gen.Shape{gen.ShapeSNO, gen.ShapeHA, gen.ShapeMixed} {
		dir := t.TempDir()
		if _, err := gen.Generate(dir, gen.Config{Sites: 60, Shape: shape, Layout: gen.LayoutFiles, Manifests: 2, Seed: 7}); err != nil {
			t.Fatal(err)
		}
		fleets = append(fleets, fleet{name: "generated " + string(shape), dir: dir, paths: []string{"."}, r: render.New()})
	}
	for _, f := range fleets {
		t.Run(f.name, func(t *testing.T) {
			fl, bundles := loadAndRender(t, f.dir, f.r, f.paths...)
			want := checkWith(t, td, fl, bundles, f.opts)
			if got := checkWith(t, ir, fl, bundles, f.opts); got != want {
				t.Errorf("internal/irvm reports\n%s\ntopdown reports\n%s", got, want)
			}
			// siteops check renders with RenderTyped: the objects the
			// rules read are built from their typed form.
			typed := map[string]*render.Bundle{}
			for _, s := range fl.Sites {
				typed[s.Name], _ = f.r.RenderTyped(s)
			}
			if got := checkWith(t, ir, fl, typed, f.opts); got != want {
				t.Errorf("with RenderTyped's bundles, internal/irvm reports\n%s\ntopdown reports\n%s", got, want)
			}
		})
	}
}

// checkWith checks a fleet and gives the report as JSON.
func checkWith(t *testing.T, e *Engine, fl *sites.Fleet, bundles map[string]*render.Bundle, opts []CheckOption) string {
	t.Helper()
	rep, err := e.Check(context.Background(), fl, bundles, opts...)
	if err != nil {
		t.Fatal(err)
	}
	return reportJSON(t, rep)
}

func reportJSON(t *testing.T, rep *report.Report) string {
	t.Helper()
	b, err := json.MarshalIndent(rep.Findings, "", " ")
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}
