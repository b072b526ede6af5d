package gen

import (
	"bytes"
	"fmt"
	"io/fs"
	"maps"
	"os"
	"os/exec"
	"path"
	"path/filepath"
	"reflect"
	"slices"
	"strconv"
	"strings"
	"testing"

	"gopkg.in/yaml.v3"
)

// The tests here read the generated fleets back: every file parses as
// YAML, every kustomization refers to files that exist inside the fleet,
// names and MACs are unique, and an overlay with its patch applied (by a
// small applier below, and by kubectl's kustomize when it is installed)
// is exactly the ClusterInstance FormatClusterInstance writes for the site.

// layoutCases are the layout/format combinations Generate accepts.
var layoutCases = []Config{
	{Layout: LayoutFiles, Format: FormatSiteConfig},
	{Layout: LayoutFiles, Format: FormatClusterInstance},
	{Layout: LayoutGenerators, Format: FormatSiteConfig},
	{Layout: LayoutOverlays, Format: FormatClusterInstance},
}

func caseName(c Config) string { return string(c.Layout) + "-" + string(c.Format) }

func TestLayouts(t *testing.T) {
	const n = 2*SitesPerRegion + 7 // three regions, the last one partial
	for _, lc := range layoutCases {
		t.Run(caseName(lc), func(t *testing.T) {
			t.Parallel()
			cfg := lc
			cfg.Sites, cfg.Shape, cfg.Manifests, cfg.Seed = n, ShapeMixed, 2, 11
			dir := t.TempDir()
			st, err := Generate(dir, cfg)
			if err != nil {
				t.Fatal(err)
			}
			if st.SNO+st.HA != n || st.SNO == 0 || st.HA == 0 || len(st.Files) != n || len(st.Names) != n {
				t.Fatalf("stats: %d sno, %d ha, %d files, %d names", st.SNO, st.HA, len(st.Files), len(st.Names))
			}
			// Every YAML file of the fleet parses.
			err = filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
				if err == nil && !d.IsDir() && strings.HasSuffix(p, ".yaml") {
					var v any
					readYAML(t, p, &v)
				}
				return err
			})
			if err != nil {
				t.Fatal(err)
			}
			checkKustomizations(t, dir, cfg, st)

			var docs []map[string]any
			switch cfg.Layout {
			case LayoutOverlays:
				docs = buildOverlays(t, dir, st)
			default:
				for _, f := range st.Files {
					var doc map[string]any
					readYAML(t, filepath.Join(dir, f), &doc)
					docs = append(docs, doc)
				}
			}
			checkUnique(t, docs, st.Nodes)
			for i, doc := range docs {
				if got := clusterOf(doc)["clusterName"]; got != st.Names[i] {
					t.Errorf("%s: cluster %v, want %s", st.Files[i], got, st.Names[i])
				}
			}
			if cfg.Format == FormatClusterInstance {
				// The ClusterInstance of every site, files or overlay, is
				// the one appendClusterInstance writes.
				for i, doc := range docs {
					want := expectedClusterInstance(t, cfg, i)
					if !reflect.DeepEqual(doc, want) {
						t.Errorf("%s: built ClusterInstance differs from the expected one:\n got %v\nwant %v", st.Files[i], doc, want)
					}
				}
			}
		})
	}
}

// TestOverlaysKubectl builds an overlays fleet with the kustomize of
// kubectl, if installed, and compares it with the expected
// ClusterInstances: it checks that the applier of these tests patches the
// way kustomize does.
func TestOverlaysKubectl(t *testing.T) {
	if testing.Short() {
		t.Skip("runs kubectl")
	}
	kubectl, err := exec.LookPath("kubectl")
	if err != nil {
		t.Skip("kubectl not installed")
	}
	dir := t.TempDir()
	cfg := Config{Sites: SitesPerRegion + 4, Shape: ShapeMixed, Layout: LayoutOverlays, Seed: 4}
	st, err := Generate(dir, cfg)
	if err != nil {
		t.Fatal(err)
	}
	var stderr bytes.Buffer
	cmd := exec.Command(kubectl, "kustomize", dir)
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("kubectl kustomize: %v\n%s", err, stderr.String())
	}
	got := map[string]any{}
	dec := yaml.NewDecoder(bytes.NewReader(out))
	for {
		var doc map[string]any
		if err := dec.Decode(&doc); err != nil {
			break
		}
		got[clusterOf(doc)["clusterName"].(string)] = doc
	}
	if len(got) != cfg.Sites {
		t.Fatalf("kustomize built %d ClusterInstances, want %d", len(got), cfg.Sites)
	}
	for i, name := range st.Names {
		if want := expectedClusterInstance(t, cfg, i); !reflect.DeepEqual(got[name], want) {
			t.Errorf("%s: kustomize built\n%v\nwant\n%v", name, got[name], want)
		}
	}
}

// TestLayoutsDeterministic checks that a seed gives the same bytes in
// every layout, whatever order the workers write in.
func TestLayoutsDeterministic(t *testing.T) {
	for _, lc := range layoutCases {
		t.Run(caseName(lc), func(t *testing.T) {
			t.Parallel()
			cfg := lc
			cfg.Sites, cfg.Shape, cfg.Manifests, cfg.Seed = 60, ShapeMixed, 3, 42
			a, b := t.TempDir(), t.TempDir()
			for _, d := range []string{a, b} {
				if _, err := Generate(d, cfg); err != nil {
					t.Fatal(err)
				}
			}
			if x, y := treeBytes(t, a), treeBytes(t, b); !maps.EqualFunc(x, y, bytes.Equal) {
				t.Errorf("two runs with the same seed differ")
			}
		})
	}
}

// TestShapesAcrossLayouts checks that the seed picks the same shapes in
// every layout, so that benchmarks of different layouts compare the same
// fleet.
func TestShapesAcrossLayouts(t *testing.T) {
	var names [][]string
	for _, lc := range layoutCases {
		cfg := lc
		cfg.Sites, cfg.Shape, cfg.Seed = 30, ShapeMixed, 8
		st, err := Generate(t.TempDir(), cfg)
		if err != nil {
			t.Fatal(err)
		}
		names = append(names, st.Names)
	}
	for i := 1; i < len(names); i++ {
		if !slices.Equal(names[0], names[i]) {
			t.Errorf("%s names %v, %s names %v", caseName(layoutCases[0]), names[0], caseName(layoutCases[i]), names[i])
		}
	}
}

// TestFilesLayoutRemovesKustomization checks that a files fleet written
// over a generators fleet is not read through the old kustomization.
func TestFilesLayoutRemovesKustomization(t *testing.T) {
	dir := t.TempDir()
	if _, err := Generate(dir, Config{Sites: 2, Shape: ShapeSNO}); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(filepath.Join(dir, kustomizationFile)); err != nil {
		t.Fatalf("zero Config layout wrote no kustomization: %v", err)
	}
	if _, err := Generate(dir, Config{Sites: 2, Shape: ShapeSNO, Layout: LayoutFiles}); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(filepath.Join(dir, kustomizationFile)); err == nil {
		t.Errorf("files layout left kustomization.yaml in place")
	}
}

func TestLayoutConfigValidate(t *testing.T) {
	for _, c := range []Config{
		{Sites: 1, Shape: ShapeSNO, Layout: "tree"},
		{Sites: 1, Shape: ShapeSNO, Format: "v2"},
		{Sites: 1, Shape: ShapeSNO, Layout: LayoutGenerators, Format: FormatClusterInstance},
		{Sites: 1, Shape: ShapeSNO, Layout: LayoutOverlays, Format: FormatSiteConfig},
		{Sites: MaxSites, Shape: ShapeSNO, Layout: LayoutOverlays},
	} {
		if err := c.validate(); err == nil {
			t.Errorf("validate(%+v) = nil, want an error", c)
		}
	}
	for _, c := range []Config{
		{Sites: 1, Shape: ShapeSNO},
		{Sites: 1, Shape: ShapeSNO, Layout: LayoutFiles, Format: FormatClusterInstance},
		{Sites: 1, Shape: ShapeSNO, Layout: LayoutOverlays},
	} {
		if err := c.validate(); err != nil {
			t.Errorf("validate(%+v) = %v, want nil", c, err)
		}
	}
}

// kustomization is the part of a kustomization file the tests read.
type kustomization struct {
	Namespace  string   `yaml:"namespace"`
	Resources  []string `yaml:"resources"`
	Generators []string `yaml:"generators"`
	Patches    []struct {
		Path   string            `yaml:"path"`
		Target map[string]string `yaml:"target"`
	} `yaml:"patches"`
}

// checkKustomizations checks the kustomization files of a fleet: the ones
// reachable from the top are exactly the ones Generate reported; every
// entry names a file or directory that exists inside the fleet; a
// directory entry holds a kustomization; patch files lie in the
// kustomization's own directory (kustomize's root-only load restriction);
// and each overlay patches a ClusterInstance its base defines.
func checkKustomizations(t *testing.T, dir string, cfg Config, st Stats) {
	t.Helper()
	top := filepath.Join(dir, kustomizationFile)
	if cfg.Layout == LayoutFiles {
		if _, err := os.Stat(top); err == nil {
			t.Errorf("files layout has a kustomization.yaml")
		}
		if len(st.Kustomizations) != 0 {
			t.Errorf("files layout reports kustomizations %v", st.Kustomizations)
		}
		return
	}
	reached := map[string]bool{}
	var visit func(rel string)
	visit = func(rel string) {
		file := path.Join(rel, kustomizationFile)
		if reached[file] {
			// Bases are shared; anything else listed twice would define
			// its ClusterInstance twice.
			if !strings.HasPrefix(file, baseDir+"/") {
				t.Errorf("%s reached twice", file)
			}
			return
		}
		reached[file] = true
		var k kustomization
		readYAML(t, filepath.Join(dir, filepath.FromSlash(file)), &k)
		for _, g := range k.Generators {
			p := path.Join(rel, g)
			if !inside(p) || !isFile(dir, p) {
				t.Errorf("%s: generators entry %s is not a file in the fleet", file, g)
			}
		}
		for _, r := range k.Resources {
			p := path.Join(rel, r)
			switch {
			case !inside(p):
				t.Errorf("%s: resources entry %s leaves the fleet", file, r)
			case isFile(dir, p):
				if path.Dir(p) != rel {
					t.Errorf("%s: resource file %s is outside the kustomization directory", file, r)
				}
			case isFile(dir, path.Join(p, kustomizationFile)):
				visit(p)
			default:
				t.Errorf("%s: resources entry %s is neither a file nor a kustomization directory", file, r)
			}
		}
		for _, pt := range k.Patches {
			if p := path.Join(rel, pt.Path); path.Dir(p) != rel || !isFile(dir, p) {
				t.Errorf("%s: patch %s is not a file in the kustomization directory", file, pt.Path)
			}
			if pt.Target["kind"] != "ClusterInstance" || pt.Target["name"] == "" {
				t.Errorf("%s: patch target %v", file, pt.Target)
			}
		}
	}
	visit(".")
	want := map[string]bool{}
	for _, k := range st.Kustomizations {
		want[path.Clean(k)] = true
	}
	if !maps.Equal(reached, want) {
		t.Errorf("reachable kustomizations %v, reported %v", slices.Sorted(maps.Keys(reached)), slices.Sorted(maps.Keys(want)))
	}
	if cfg.Layout == LayoutOverlays {
		regions := (cfg.Sites + SitesPerRegion - 1) / SitesPerRegion
		if got := len(st.Kustomizations) - cfg.Sites; got < 1+regions+1 || got > 1+regions+2 {
			t.Errorf("%d kustomizations besides the overlays, want top + %d regions + 1 or 2 bases", got, regions)
		}
	}
}

func inside(p string) bool { return p != ".." && !strings.HasPrefix(p, "../") && !path.IsAbs(p) }

func isFile(dir, rel string) bool {
	st, err := os.Stat(filepath.Join(dir, filepath.FromSlash(rel)))
	return err == nil && st.Mode().IsRegular()
}

// buildOverlays applies each site overlay to its base the way kustomize
// does for a kind it has no schema for, and returns the ClusterInstances
// in site order.
func buildOverlays(t *testing.T, dir string, st Stats) []map[string]any {
	t.Helper()
	var docs []map[string]any
	for _, rel := range st.Files {
		var k kustomization
		readYAML(t, filepath.Join(dir, rel, kustomizationFile), &k)
		if len(k.Resources) != 1 || len(k.Patches) != 1 {
			t.Fatalf("%s: %d resources and %d patches, want 1 each", rel, len(k.Resources), len(k.Patches))
		}
		var doc map[string]any
		readYAML(t, filepath.Join(dir, rel, k.Resources[0], baseResource), &doc)
		if name := doc["metadata"].(map[string]any)["name"]; name != k.Patches[0].Target["name"] {
			t.Fatalf("%s: patch targets %s, base defines %v", rel, k.Patches[0].Target["name"], name)
		}
		var patch any
		readYAML(t, filepath.Join(dir, rel, k.Patches[0].Path), &patch)
		switch p := patch.(type) {
		case []any:
			for _, op := range p {
				applyReplace(t, doc, op.(map[string]any))
			}
		case map[string]any:
			doc = mergePatch(doc, p).(map[string]any)
		default:
			t.Fatalf("%s: patch is a %T", rel, patch)
		}
		doc["metadata"].(map[string]any)["namespace"] = k.Namespace
		docs = append(docs, doc)
	}
	return docs
}

// mergePatch merges patch into base: maps key by key, anything else
// (lists included: ClusterInstance has no merge keys) replaced.
func mergePatch(base, patch any) any {
	bm, ok1 := base.(map[string]any)
	pm, ok2 := patch.(map[string]any)
	if !ok1 || !ok2 {
		return patch
	}
	for k, v := range pm {
		bm[k] = mergePatch(bm[k], v)
	}
	return bm
}

// applyReplace applies one JSON 6902 replace operation; the target must
// exist, as RFC 6902 requires for replace.
func applyReplace(t *testing.T, doc map[string]any, op map[string]any) {
	t.Helper()
	if op["op"] != "replace" {
		t.Fatalf("operation %v", op)
	}
	ptr := op["path"].(string)
	keys := strings.Split(strings.TrimPrefix(ptr, "/"), "/")
	var cur any = doc
	for i, k := range keys {
		k = strings.NewReplacer("~1", "/", "~0", "~").Replace(k)
		last := i == len(keys)-1
		switch c := cur.(type) {
		case map[string]any:
			if _, ok := c[k]; !ok {
				t.Fatalf("replace %s: no key %q", ptr, k)
			}
			if last {
				c[k] = op["value"]
			}
			cur = c[k]
		case []any:
			n, err := strconv.Atoi(k)
			if err != nil || n < 0 || n >= len(c) {
				t.Fatalf("replace %s: no index %q", ptr, k)
			}
			if last {
				c[n] = op["value"]
			}
			cur = c[n]
		default:
			t.Fatalf("replace %s: %q under a %T", ptr, k, cur)
		}
	}
}

// expectedClusterInstance is the ClusterInstance FormatClusterInstance
// writes for site i of cfg.
func expectedClusterInstance(t *testing.T, cfg Config, i int) map[string]any {
	t.Helper()
	var doc map[string]any
	if err := yaml.Unmarshal(appendClusterInstance(nil, newSite(cfg.withDefaults(), i), cfg.Seed), &doc); err != nil {
		t.Fatal(err)
	}
	return doc
}

// clusterOf returns the cluster of a SiteConfig (spec.clusters[0]) or a
// ClusterInstance (spec).
func clusterOf(doc map[string]any) map[string]any {
	spec, _ := doc["spec"].(map[string]any)
	if cs, ok := spec["clusters"].([]any); ok && len(cs) == 1 {
		c, _ := cs[0].(map[string]any)
		return c
	}
	return spec
}

// checkUnique checks that cluster names, host names, boot MACs, BMC
// addresses and node IPs never repeat, and that each node's nmstate
// interface carries its boot MAC.
func checkUnique(t *testing.T, docs []map[string]any, wantNodes int) {
	t.Helper()
	seen := map[string]string{}
	add := func(kind, v, owner string) {
		if v == "" {
			t.Errorf("%s: empty %s", owner, kind)
			return
		}
		if prev, ok := seen[kind+" "+v]; ok {
			t.Errorf("%s: %s %s already used by %s", owner, kind, v, prev)
		}
		seen[kind+" "+v] = owner
	}
	nodes := 0
	for _, doc := range docs {
		c := clusterOf(doc)
		name, _ := c["clusterName"].(string)
		add("cluster name", name, name)
		for _, n := range c["nodes"].([]any) {
			nodes++
			node := n.(map[string]any)
			host := fmt.Sprint(node["hostName"])
			add("host", host, name)
			mac := fmt.Sprint(node["bootMACAddress"])
			add("boot MAC", mac, host)
			add("BMC", fmt.Sprint(node["bmcAddress"]), host)
			nn := node["nodeNetwork"].(map[string]any)
			if got := fmt.Sprint(nn["interfaces"].([]any)[0].(map[string]any)["macAddress"]); got != mac {
				t.Errorf("%s: nmstate interface MAC %s, boot MAC %s", host, got, mac)
			}
			iface := nn["config"].(map[string]any)["interfaces"].([]any)[0].(map[string]any)
			ip := iface["ipv4"].(map[string]any)["address"].([]any)[0].(map[string]any)["ip"]
			add("node IP", fmt.Sprint(ip), host)
		}
	}
	if nodes != wantNodes {
		t.Errorf("%d nodes, want %d", nodes, wantNodes)
	}
}

// treeBytes reads every file under dir, keyed by relative path.
func treeBytes(t *testing.T, dir string) map[string][]byte {
	t.Helper()
	m := map[string][]byte{}
	err := filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		b, err := os.ReadFile(p)
		rel, _ := filepath.Rel(dir, p)
		m[rel] = b
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	return m
}

func readYAML(t *testing.T, p string, v any) {
	t.Helper()
	b, err := os.ReadFile(p)
	if err != nil {
		t.Fatal(err)
	}
	if err := yaml.Unmarshal(b, v); err != nil {
		t.Fatalf("parse %s: %v", p, err)
	}
}
