package reconciler

import (
	"maps"
	"os"
	"slices"
	"strings"
	"testing"
)

func TestPlanReloadsWhatAPathConcerns(t *testing.T) {
	dir := mixedFleet(t)
	l := New(nil, nil, WithPolicy(builtinPolicy(t)))
	full := newWork()
	full.full = true
	res := indexLoad(t, l, os.DirFS(dir), full)
	if len(res.problems) > 0 {
		t.Fatalf("the fleet has problems: %v", res.problems)
	}
	names := slices.Sorted(maps.Keys(l.ix.sites))
	want := []string{"fenwick-3n-01", "granite-ha-01", "heron-sno-01", "kestrel-3n-01", "marlow-sno-01", "osprey-sno-01", "plover-sno-01", "tidewater-ds-01", "wren-sno-01"}
	if !slices.Equal(names, want) {
		t.Fatalf("sites = %v, want %v", names, want)
	}

	type plan struct {
		full           bool
		files          []string
		kustomizations []string
		generated      map[string][]string
	}
	tests := []struct {
		name    string
		changed []string
		want    plan
	}{
		{"a generator file reloads its site alone", []string{"ztp/marlow-sno.yaml"},
			plan{generated: map[string][]string{"ztp": {"ztp/marlow-sno.yaml"}}}},
		{"a file a generator site refers to reloads that site", []string{"ztp/bios/granite-compute.bios.yaml"},
			plan{generated: map[string][]string{"ztp": {"ztp/granite-ha.yaml"}}}},
		{"the kustomization of generators rebuilds its unit", []string{"ztp/kustomization.yaml"},
			plan{kustomizations: []string{"ztp"}}},
		{"a kustomization file kustomize probed for rebuilds the unit", []string{"kust/overlays/heron/Kustomization"},
			plan{kustomizations: []string{"kust"}}},
		{"an overlay's patch rebuilds the kustomize tree", []string{"kust/overlays/heron/patch.yaml"},
			plan{kustomizations: []string{"kust"}}},
		{"a base rebuilds the kustomize tree", []string{"kust/base/clusterinstance.yaml"},
			plan{kustomizations: []string{"kust"}}},
		{"a plain site file reloads that file", []string{"plain/fenwick-compact.yaml"},
			plan{files: []string{"plain/fenwick-compact.yaml"}}},
		{"a new YAML file is a new unit", []string{"plain/new.yaml"},
			plan{files: []string{"plain/new.yaml"}}},
		{"a file in an extra-manifest directory reloads the sites that use it and itself", []string{"manifests/wren/02-new.yaml"},
			plan{files: []string{"manifests/wren/02-new.yaml", "plain/wren.yaml"}}},
		{"a new kustomization outside every unit changes the units", []string{"regions/kustomization.yaml"},
			plan{full: true}},
		{"a unit's kustomization rebuilds it with its generator sites", []string{"ztp/kustomization.yaml", "ztp/marlow-sno.yaml"},
			plan{kustomizations: []string{"ztp"}}},
		{"files no build reads change nothing", []string{"kust/README.md", "ztp/README.md", "kust/overlays/notes.txt"}, plan{}},
		{"the status directory and dot folders change nothing", []string{"status/marlow-sno-01.yaml", ".github/workflows/check.yaml", "plain/.hidden.yaml"}, plan{}},
		{"a file that is not YAML outside every unit changes nothing", []string{"docs/notes.md"}, plan{}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			w := l.ix.plan(tt.changed)
			got := plan{full: w.full, files: slices.Sorted(maps.Keys(w.files)), kustomizations: slices.Sorted(maps.Keys(w.kustomizations))}
			for d, fs := range w.generated {
				if got.generated == nil {
					got.generated = map[string][]string{}
				}
				got.generated[d] = slices.Sorted(maps.Keys(fs))
			}
			if got.full != tt.want.full || !slices.Equal(got.files, tt.want.files) ||
				!slices.Equal(got.kustomizations, tt.want.kustomizations) || !equalGenerated(got.generated, tt.want.generated) {
				t.Errorf("plan(%v) = %+v, want %+v", tt.changed, got, tt.want)
			}
		})
	}
}

func equalGenerated(a, b map[string][]string) bool {
	return maps.EqualFunc(a, b, func(x, y []string) bool { return slices.Equal(x, y) })
}

// siteView is what the index says of a site, for comparisons.
type siteView struct {
	unit, source, generator, hash string
	deps                          []string
}

func viewOf(ix *index) map[string]siteView {
	out := map[string]siteView{}
	for name, r := range ix.sites {
		out[name] = siteView{unit: r.unit, source: r.source, generator: r.generator, hash: r.hash, deps: r.deps}
	}
	return out
}

func TestIncrementalLoadEqualsFullLoad(t *testing.T) {
	pol := builtinPolicy(t)
	tests := []struct {
		name   string
		mutate func(t *testing.T, dir string) []string
		broken bool // the change leaves a problem
	}{
		{"a generator site changes", func(t *testing.T, dir string) []string {
			replaceIn(t, dir, "ztp/marlow-sno.yaml", "marlow.example.net", "marlow.example.org")
			return []string{"ztp/marlow-sno.yaml"}
		}, false},
		{"a BIOS profile changes", func(t *testing.T, dir string) []string {
			appendTo(t, dir, "ztp/bios/granite-compute.bios.yaml", "# tuned\n")
			return []string{"ztp/bios/granite-compute.bios.yaml"}
		}, false},
		{"a kustomize base changes", func(t *testing.T, dir string) []string {
			replaceIn(t, dir, "kust/base/clusterinstance.yaml", "baseDomain: edge.example.net", "baseDomain: edge.example.org")
			return []string{"kust/base/clusterinstance.yaml"}
		}, false},
		{"a plain site is renamed", func(t *testing.T, dir string) []string {
			replaceIn(t, dir, "plain/wren.yaml", "clusterName: wren-sno-01", "clusterName: wren-sno-02")
			return []string{"plain/wren.yaml"}
		}, false},
		{"a generator site is removed", func(t *testing.T, dir string) []string {
			os.Remove(dir + "/ztp/kestrel-compact.yaml")
			replaceIn(t, dir, "ztp/kustomization.yaml", "  - kestrel-compact.yaml\n", "")
			return []string{"ztp/kestrel-compact.yaml", "ztp/kustomization.yaml"}
		}, false},
		{"a plain site is added and an extra manifest too", func(t *testing.T, dir string) []string {
			data, _ := os.ReadFile(dir + "/plain/wren.yaml")
			finch := strings.NewReplacer("wren", "finch", "0a:5e:00:71", "0a:5e:00:72").Replace(string(data))
			writeFile(t, dir, "plain/finch.yaml", strings.Replace(finch, "manifests/finch", "manifests/wren", 1))
			writeFile(t, dir, "manifests/wren/02-cm.yaml", "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: more\n  namespace: default\n")
			return []string{"plain/finch.yaml", "manifests/wren/02-cm.yaml"}
		}, false},
		{"a new kustomize tree appears", func(t *testing.T, dir string) []string {
			copyTree(t, "../examples/kustomize", dir+"/more", "heron-sno-01", "egret-sno-01", "osprey-sno-01", "ibis-sno-01", "plover-sno-01", "tern-sno-01")
			return []string{"more/kustomization.yaml", "more/base/clusterinstance.yaml"}
		}, false},
		{"a plain file stops parsing", func(t *testing.T, dir string) []string {
			writeFile(t, dir, "plain/fenwick-compact.yaml", "apiVersion: siteconfig.open-cluster-management.io/v1alpha1\nkind: ClusterInstance\nspec: [\n")
			return []string{"plain/fenwick-compact.yaml"}
		}, true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			dir := mixedFleet(t)
			full := func() *work { w := newWork(); w.full = true; return w }
			inc := New(nil, nil, WithPolicy(pol))
			indexLoad(t, inc, os.DirFS(dir), full())
			changed := tt.mutate(t, dir)
			res := indexLoad(t, inc, os.DirFS(dir), inc.ix.plan(changed))
			if len(res.problems) > 0 != tt.broken {
				t.Errorf("problems of the incremental load: %v", res.problems)
			}
			loaded := map[string]bool{}
			for _, lo := range res.sites {
				loaded[lo.rec.name] = true
			}
			for name := range res.covered {
				if !loaded[name] {
					inc.ix.drop(name)
				}
			}
			fresh := New(nil, nil, WithPolicy(pol))
			indexLoad(t, fresh, os.DirFS(dir), full())
			got, want := viewOf(inc.ix), viewOf(fresh.ix)
			if !maps.EqualFunc(got, want, func(a, b siteView) bool {
				return a.unit == b.unit && a.source == b.source && a.generator == b.generator && a.hash == b.hash && slices.Equal(a.deps, b.deps)
			}) {
				t.Errorf("after an incremental load:\n%v\nafter a full load:\n%v", got, want)
			}
			if !maps.EqualFunc(inc.ix.kustomizations, fresh.ix.kustomizations, func(a, b map[string]struct{}) bool { return maps.Equal(a, b) }) {
				t.Errorf("kustomization reads differ:\n%v\n%v", inc.ix.kustomizations, fresh.ix.kustomizations)
			}
		})
	}
}

func replaceIn(t *testing.T, dir, p, old, new string) {
	t.Helper()
	data, err := os.ReadFile(dir + "/" + p)
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(string(data), old) {
		t.Fatalf("%s does not contain %q", p, old)
	}
	writeFile(t, dir, p, strings.Replace(string(data), old, new, 1))
}

func appendTo(t *testing.T, dir, p, text string) {
	t.Helper()
	data, err := os.ReadFile(dir + "/" + p)
	if err != nil {
		t.Fatal(err)
	}
	writeFile(t, dir, p, string(data)+text)
}
