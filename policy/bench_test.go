package policy

import (
	"context"
	"os"
	"path/filepath"
	"runtime"
	"syscall"
	"testing"
	"time"

	"github.com/open-policy-agent/opa/v1/ast"

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
	fleet, bundles := benchFleet(b, n)
	ctx := context.Background()
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

// BenchmarkEvaluate measures one OPA evaluation per site of the same
// generated fleet, from the site's input document (built beforehand) to the
// rule results, on one goroutine, in CPU time per evaluation:
//
//   - "empty-query" binds an empty set and reads nothing: what any
//     evaluation costs (query set-up, the input handed over, the result
//     read back);
//   - "one-rule" evaluates one rule that reads one field of the site and
//     finds nothing: the floor of one evaluation of a policy per site;
//   - "library" evaluates the built-in rules that read only their site, as
//     siteops check does for every site (with internal/irvm);
//   - "library-topdown" evaluates them with OPA's topdown evaluator.
func BenchmarkEvaluate(b *testing.B) {
	ctx := context.Background()
	dir := b.TempDir()
	empty := "package main\n\ndeny contains msg if {\n\tinput.site.name == \"\"\n\tmsg := \"a site without a name\"\n}\n"
	if err := os.WriteFile(filepath.Join(dir, "empty.rego"), []byte(empty), 0o644); err != nil {
		b.Fatal(err)
	}
	withRule, err := Load(ctx, WithUserPolicies(dir))
	if err != nil {
		b.Fatal(err)
	}
	td, err := Load(ctx, withTopdown())
	if err != nil {
		b.Fatal(err)
	}
	e, inputs := benchInputs(b)
	benchEvaluations(b, inputs, []evaluation{
		{"empty-query", e, query{body: ast.MustParseBody("r0 = set()")}, true},
		{"one-rule", withRule, query{body: ast.MustParseBody("r0 = [x | x := data.main.deny[_]]")}, false},
		{"library", e, e.local, true},
		{"library-topdown", td, td.local, false},
	})
}

// BenchmarkEvaluateRules measures, as BenchmarkEvaluate does, each
// built-in rule that reads only its site evaluated alone (with the
// helpers it uses): which rules cost the most per site.
func BenchmarkEvaluateRules(b *testing.B) {
	e, inputs := benchInputs(b)
	var evals []evaluation
	for _, r := range e.local.rules {
		evals = append(evals, evaluation{r.ID, e, query{body: ast.NewBody(ast.Equality.Expr(ast.VarTerm("r0"), ast.NewTerm(r.ref)))}, true})
	}
	benchEvaluations(b, inputs, evals)
}

// evaluation is one query of an engine, measured as a sub-benchmark.
type evaluation struct {
	name string
	e    *Engine
	q    query
	ir   bool // run by internal/irvm, as siteops check runs the library
}

// benchInputs loads the built-in library and builds the input documents
// of a generated 1,000-site fleet.
func benchInputs(b *testing.B) (*Engine, []ast.Value) {
	fleet, bundles := benchFleet(b, 1000)
	e, err := Load(context.Background())
	if err != nil {
		b.Fatal(err)
	}
	inputs := make([]ast.Value, len(fleet.Sites))
	for i, s := range fleet.Sites {
		inputs[i] = newView(s, bundles[s.Name], e.needs.discovery).value(nil, e.needs.positions)
	}
	return e, inputs
}

// benchEvaluations runs each evaluation over the inputs in turn and
// reports its CPU time per evaluation.
func benchEvaluations(b *testing.B, inputs []ast.Value, evals []evaluation) {
	ctx := context.Background()
	for _, ev := range evals {
		b.Run(ev.name, func(b *testing.B) {
			pq, _, err := ev.e.prepare(ctx, ev.q, ast.NewObject(), ev.ir)
			if err != nil {
				b.Fatal(err)
			}
			runtime.GC()
			b.ResetTimer()
			cpu0 := processCPU()
			for i := range b.N {
				rs, err := ev.e.eval(ctx, &pq, inputs[i%len(inputs)])
				if err != nil || len(rs) != 1 {
					b.Fatalf("evaluate: %v, %d results", err, len(rs))
				}
			}
			b.ReportMetric(float64((processCPU()-cpu0).Nanoseconds())/1e3/float64(b.N), "cpu-µs/eval")
		})
	}
}

// benchFleet generates, loads and renders a fleet of n sites (one in four
// HA, the rest SNO, 20 extra manifests each).
func benchFleet(b testing.TB, n int) (*sites.Fleet, map[string]*render.Bundle) {
	b.Helper()
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
	fleet, err := sites.Load(context.Background(), root.FS(), []string{"."})
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
	return fleet, bundles
}

// processCPU is the user and system time the process has used.
func processCPU() time.Duration {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		return 0
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}
