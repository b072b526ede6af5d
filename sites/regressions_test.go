package sites

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"strings"
	"testing"
	"testing/fstest"
	"time"
)

// An anchor used inside itself in a free-form map is a problem; following
// it would recurse until memory runs out.
func TestAliasCycle(t *testing.T) {
	tests := []struct{ name, src string }{
		{"nodeNetwork.config", v1Doc(cluster("c1", "nodes:\n- hostName: n0\n  nodeNetwork:\n    config: &c {b: *c}\n"))},
		{"userData in a list", v1Doc(cluster("c1", "nodes:\n- hostName: n0\n  userData:\n    l: &l [*l]\n"))},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			sites, problems := decodeFile("f.yaml", []byte(tt.src), decodeOptions{})
			if len(sites) != 0 || !problems.HasErrors() {
				t.Fatalf("want an error problem and no site")
			}
		})
	}
	t.Run("DecodeManifest", func(t *testing.T) {
		if _, err := DecodeManifest("m.yaml", []byte("a: &a {b: *a}\n")); err == nil {
			t.Fatal("want an error")
		}
	})
}

// A deep chain of anchors, each using the one before (no cycle): 80000
// anchors, a 2.6 MB file under the size limit, must stop at the nesting
// limit instead of building paths whose total size is quadratic in depth.
func TestDeepAliasChain(t *testing.T) {
	var b strings.Builder
	b.WriteString("anchors:\n  x0: &a0 {k: v}\n")
	const n = 80000
	for i := 1; i <= n; i++ {
		fmt.Fprintf(&b, "  x%d: &a%d {k: *a%d}\n", i, i, i-1)
	}
	src := b.String() + v1Doc(cluster("c1", fmt.Sprintf("nodes:\n- hostName: n0\n  nodeNetwork:\n    config: *a%d\n", n)))
	start := time.Now()
	_, problems := decodeFile("f.yaml", []byte(src), decodeOptions{})
	if d := time.Since(start); d > 5*time.Second {
		t.Errorf("took %v", d)
	}
	if !problems.HasErrors() {
		t.Errorf("want a problem about nesting depth")
	}
}

// The alias budget bounds a whole file, not each document: 200 bomb
// documents must not cost 200 budgets.
func TestAliasBudgetPerFile(t *testing.T) {
	one := billionLaughs("bomb", 9, 10)
	src := strings.Repeat("---\n"+one, 200)
	start := time.Now()
	decodeFile("f.yaml", []byte(src), decodeOptions{})
	if d := time.Since(start); d > time.Second {
		t.Errorf("%d bytes took %v; the budget should bound a whole file", len(src), d)
	}
}

// One wrong type gives one error, not a second, misleading one.
func TestOneErrorPerMistake(t *testing.T) {
	for _, src := range []string{
		v1Doc(cluster("c1", "nodes: {a: b}\n")),
		siteConfigText("ran.openshift.io/v1", imageSetSpec) + "    c1: {}\n",
	} {
		_, problems := decodeFile("f.yaml", []byte(src), decodeOptions{})
		if n := len(only(problems, SeverityError)); n != 1 {
			t.Errorf("%d errors for one mistake:\n%s", n, problemList(problems))
		}
	}
}

// YAML merge keys are merged as yaml.v3 (the generator's parser) merges
// them, at every level and in free-form maps.
func TestMergeKeys(t *testing.T) {
	src := v1Doc(cluster("c1", "nodes:\n- &m {hostName: m0, bmcAddress: ipmi://x, bootMode: legacy}\n- <<: *m\n  hostName: m1\n- <<: *m\n  hostName: m2\n"))
	sites, problems := decodeFile("f.yaml", []byte(src), decodeOptions{})
	if len(sites) == 1 {
		if n := sites[0].Cluster.Nodes[1]; n.BmcAddress != "ipmi://x" || n.BootMode != "legacy" {
			t.Errorf("merged node = %+v; yaml.v3 gives bmcAddress ipmi://x, bootMode legacy (problems:\n%s)", n, problemList(problems))
		}
	}
	src = v1Doc(cluster("c1", "nodes:\n- hostName: n0\n  userData:\n    <<: {a: 1}\n    b: 2\n"))
	sites, problems = decodeFile("f.yaml", []byte(src), decodeOptions{})
	if len(sites) == 1 {
		if _, literal := sites[0].Cluster.Nodes[0].UserData["<<"]; literal && len(problems) == 0 {
			t.Errorf(`userData kept a literal "<<" key without a problem: %v`, sites[0].Cluster.Nodes[0].UserData)
		}
	}
	if m, err := DecodeManifest("m.yaml", []byte("<<: {a: 1}\nb: 2\n")); err == nil {
		if _, literal := m["<<"]; literal {
			t.Errorf(`DecodeManifest kept a literal "<<" key: %v`, m)
		}
	}
}

// Syntax problems from the parser (not the scanner) name the line the
// broken construct starts on: yaml.v3 prints it counted from 0.
func TestSyntaxErrorLine(t *testing.T) {
	tests := []struct {
		src  string
		line int
	}{
		{"kind: SiteConfig\nspec: [unclosed\n", 2},
		{"kind: SiteConfig\nspec:\n  a: b\n c: d\n", 4},
		{"kind: SiteConfig\nspec: *nope\n", 2},
	}
	for _, tt := range tests {
		_, problems := decodeFile("f.yaml", []byte(tt.src), decodeOptions{})
		if len(problems) != 1 || problems[0].Pos.Line != tt.line {
			t.Errorf("%q: %s, want line %d", tt.src, problemList(problems), tt.line)
		}
	}
}

// Remote and absolute kustomization entries are refused, resources as
// well as generators.
func TestKustomizationRemoteAndAbsoluteEntries(t *testing.T) {
	fsys := mapFS(map[string]string{
		"k/kustomization.yaml": "resources:\n- https://github.com/org/repo//base?ref=v1\n",
		"good/good.yaml":       siteFile("good"),
	})
	f := load(t, fsys, []string{"k", "good"})
	if len(f.Problems) != 1 || !strings.Contains(f.Problems[0].Message, "remote location") {
		t.Errorf("remote resource: want one 'remote location' problem, got:\n%s", problemList(f.Problems))
	}
	fsys["k/kustomization.yaml"].Data = []byte("generators:\n- /good/good.yaml\n")
	f = load(t, fsys, []string{"k"})
	if len(f.Problems) != 1 || !strings.Contains(f.Problems[0].Message, "absolute path") {
		t.Errorf("absolute generator: want an 'absolute path' problem, got:\n%s", problemList(f.Problems))
	}
}

// A file or directory many sites refer to is read once, even when sites
// resolve it at the same moment.
func TestReadOnceWithWorkers(t *testing.T) {
	files := map[string]string{"shared/manifests/01-a.yaml": "kind: MachineConfig\n"}
	for i := range 100 {
		files[fmt.Sprintf("sites/s%03d.yaml", i)] = siteFileWith(fmt.Sprintf("site-%03d", i), "extraManifests:\n  searchPaths: [shared/manifests]\n"+oneNode("n0"))
	}
	fsys := &countingFS{FS: slowFS{mapFS(files)}, opened: map[string]int{}}
	load(t, fsys, []string{"sites"}, WithWorkers(4))
	if n := fsys.opened["shared/manifests/01-a.yaml"]; n != 1 {
		t.Fatalf("shared/manifests/01-a.yaml opened %d times, want 1", n)
	}
}

// slowFS makes reading the shared directory take a while, as on a network
// file system, so that concurrent sites overlap.
type slowFS struct{ fs.FS }

func (s slowFS) Open(name string) (fs.File, error) {
	if strings.HasPrefix(name, "shared/") {
		time.Sleep(20 * time.Millisecond)
	}
	return s.FS.Open(name)
}

// Problem.Err keeps the underlying error, so errors.Is finds fs.ErrNotExist
// and fs.ErrPermission.
func TestProblemErrWraps(t *testing.T) {
	fsys := denyFS{FS: mapFS(map[string]string{
		"secret/s.yaml": siteFile("s"),
		"r.yaml":        siteFileWith("r", "crTemplates:\n  InfraEnv: missing.yaml\n"+oneNode("n0")),
	}), denied: "secret/"}
	f := load(t, fsys, []string{".", "nope"})
	for _, want := range []struct {
		part string
		err  error
	}{{"permission denied", fs.ErrPermission}, {"missing.yaml does not exist", fs.ErrNotExist}, {"nope does not exist", fs.ErrNotExist}} {
		p := problemMatching(t, f.Problems, want.part)
		if !errors.Is(p, want.err) {
			t.Errorf("%s: errors.Is(problem, %v) = false", p.Error(), want.err)
		}
	}
}

// A kustomization that reaches itself through resources: or generators:
// is a problem, not an endless recursion.
func TestKustomizationCycle(t *testing.T) {
	for _, k := range []map[string]string{
		{"a/kustomization.yaml": "resources: [.]\n"},
		{"a/kustomization.yaml": "generators: [./]\n"},
		{"a/kustomization.yaml": "resources: [../b]\n", "b/kustomization.yaml": "resources: [../a]\n"},
	} {
		k["good/good.yaml"] = siteFile("good")
		f := load(t, mapFS(k), []string{"a", "good"})
		wantSites(t, f.Sites, "good")
		problemMatching(t, f.Problems, "a/kustomization.yaml")
	}
}

// A document with the SiteConfig apiVersion but a missing or misspelt kind
// is read, with a warning: the generator never checks kind, and skipping it
// silently would drop the site from the output.
func TestKindMissingOrMisspelt(t *testing.T) {
	for _, kind := range []string{"", "kind: Siteconfig\n"} {
		src := strings.Replace(v1Doc(goodCluster("c1")), "kind: SiteConfig\n", kind, 1)
		sites, problems := decodeFile("f.yaml", []byte(src), decodeOptions{})
		wantSites(t, sites, "c1")
		p := problemMatching(t, problems, "read as a SiteConfig because of its apiVersion")
		if p.Severity != SeverityWarning || p.Field != "kind" {
			t.Errorf("%s: severity %s field %s", p.Error(), p.Severity, p.Field)
		}
	}
}

// TestUnprintableClusterNamesAreRefused: a cluster name becomes a
// namespace, a status file name and a log field, so a name with a control
// or invisible character in it is refused with the field's
// position, never printed raw, and the other sites of the file load.
func TestUnprintableClusterNamesAreRefused(t *testing.T) {
	tests := []struct{ name, clusterName string }{
		{"escape", `"a\x1b[31mred"`},
		{"newline", `"a\nb"`},
		{"tab", `"a\tb"`},
		{"bidirectional override", `"a\u202eb"`},
		{"NUL", `"a\0b"`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			file := "apiVersion: ran.openshift.io/v1\nkind: SiteConfig\nmetadata:\n  name: \"m\\x1b\"\nspec:\n" +
				"  baseDomain: example.com\n  pullSecretRef: {name: ps}\n  clusterImageSetNameRef: img\n  clusters:\n" +
				"    - clusterName: good\n      nodes: [{hostName: h0, bmcAddress: \"redfish://192.0.2.1/x\", bmcCredentialsName: {name: b}, bootMACAddress: \"02:00:00:00:00:01\"}]\n" +
				"    - clusterName: " + tt.clusterName + "\n      nodes: [{hostName: h1, bmcAddress: \"redfish://192.0.2.2/x\", bmcCredentialsName: {name: b}, bootMACAddress: \"02:00:00:00:00:02\"}]\n"
			ci := "apiVersion: siteconfig.open-cluster-management.io/v1alpha1\nkind: ClusterInstance\nmetadata: {name: x, namespace: x}\nspec:\n  clusterName: " + tt.clusterName + "\n"
			for _, tc := range []struct{ file, data, field string }{
				{"sc.yaml", file, "spec.clusters[1].clusterName"},
				{"ci.yaml", ci, "spec.clusterName"},
			} {
				fleet, err := Load(context.Background(), fstest.MapFS{tc.file: {Data: []byte(tc.data)}}, []string{"."})
				if err != nil {
					t.Fatal(err)
				}
				var found bool
				for _, p := range fleet.Problems {
					if strings.ContainsAny(p.Site+p.Error(), "\x1b\n\t\u202e\x00") {
						t.Errorf("%s: a problem prints the raw name: %q", tc.file, p.Error())
					}
					if p.Field == tc.field && strings.Contains(p.Message, "DNS-1123 label") && p.Pos.Line > 0 {
						found = true
					}
				}
				if !found {
					t.Errorf("%s: no problem at %s with its line:\n%v", tc.file, tc.field, fleet.Problems)
				}
				for _, s := range fleet.Sites {
					if s.Name != "good" {
						t.Errorf("%s: site %q loaded", tc.file, s.Name)
					}
				}
				if tc.file == "sc.yaml" && len(fleet.Sites) != 1 {
					t.Errorf("the good cluster of the file did not load: %d sites", len(fleet.Sites))
				}
			}
		})
	}
}
