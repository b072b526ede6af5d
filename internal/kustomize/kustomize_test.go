package kustomize

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
)

// overlayTree is a base of a ClusterInstance, a SiteConfig and a Secret,
// and an overlay patching them with strategic-merge and JSON6902 patches.
func overlayTree() map[string]string {
	return map[string]string{
		"base/kustomization.yaml":   kust("resources:\n- clusterinstance.yaml\n- siteconfig.yaml\n- secret.yaml\n"),
		"base/clusterinstance.yaml": ciBase,
		"base/siteconfig.yaml":      scBase,
		"base/secret.yaml":          secretDoc,
		"sites/site-1/kustomization.yaml": kust(`resources:
- ../../base
patches:
- path: ci-patch.yaml
- target:
    kind: ClusterInstance
    name: base
  patch: |-
    - op: replace
      path: /spec/nodes/0/bootMACAddress
      value: "0c:42:a1:00:00:01"
    - op: add
      path: /spec/apiVIPs
      value: ["10.1.0.5"]
- patch: |-
    apiVersion: ran.openshift.io/v1
    kind: SiteConfig
    metadata:
      name: base
      namespace: base
    spec:
      clusterImageSetNameRef: img-4.17
- target:
    kind: SiteConfig
  patch: |-
    - op: replace
      path: /spec/clusters/0/nodes/0/bootMACAddress
      value: "0c:42:a1:00:00:02"
`),
		"sites/site-1/ci-patch.yaml": `apiVersion: siteconfig.open-cluster-management.io/v1alpha1
kind: ClusterInstance
metadata:
  name: base
  namespace: base
spec:
  clusterName: site-1
  baseDomain: site-1.example.com
`,
	}
}

func TestBuildPatches(t *testing.T) {
	r := mustBuild(t, overlayTree(), "sites/site-1")
	tests := []struct {
		name string
		kind string
		path string
		want any
	}{
		{"strategic merge on ClusterInstance", "ClusterInstance", "spec.clusterName", "site-1"},
		{"strategic merge keeps other fields", "ClusterInstance", "spec.clusterImageSetNameRef", "img-4.16"},
		{"JSON6902 replace on ClusterInstance", "ClusterInstance", "spec.nodes.0.bootMACAddress", "0c:42:a1:00:00:01"},
		{"JSON6902 add on ClusterInstance", "ClusterInstance", "spec.apiVIPs.0", "10.1.0.5"},
		{"strategic merge on SiteConfig", "SiteConfig", "spec.clusterImageSetNameRef", "img-4.17"},
		{"JSON6902 on SiteConfig", "SiteConfig", "spec.clusters.0.nodes.0.bootMACAddress", "0c:42:a1:00:00:02"},
		{"unpatched document", "Secret", "data.username", "dXNlcg=="},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			name := "base"
			if tt.kind == "Secret" {
				name = "bmc-secret"
			}
			d := find(t, r, tt.kind, name)
			if got := get(t, d.Data, tt.path); !reflect.DeepEqual(got, tt.want) {
				t.Errorf("%s = %v, want %v", tt.path, got, tt.want)
			}
		})
	}
}

func TestBuildMatchesKustomize(t *testing.T) {
	files := overlayTree()
	files["base/multi.yaml"] = `# leading comment
apiVersion: v1
kind: ConfigMap
metadata:
  name: one
  annotations:
    keep: "yes"
    number: "1"
data:
  a: "1"
---
apiVersion: v1
kind: ConfigMap
metadata:
  name: two
  annotations: {}
data:
  b: |
    literal
---
# only a comment
---
{"apiVersion": "v1", "kind": "ConfigMap", "metadata": {"name": "three"}, "data": {"c": "3"}}
`
	files["base/list.yaml"] = `apiVersion: v1
kind: List
items:
- apiVersion: v1
  kind: ConfigMap
  metadata:
    name: four
- apiVersion: v1
  kind: ConfigMap
  metadata:
    name: five
    annotations:
      config.kubernetes.io/local-config: "true"
`
	files["base/kustomization.yaml"] = kust("resources:\n- clusterinstance.yaml\n- siteconfig.yaml\n- secret.yaml\n- multi.yaml\n- list.yaml\n")
	files["prefixed/kustomization.yaml"] = kust("resources:\n- ../base\nnamePrefix: p-\ncommonLabels:\n  site: one\ncommonAnnotations:\n  note: x\n")
	files["region/kustomization.yaml"] = kust("resources:\n- ../sites/site-1\n- other\n")
	files["region/other/kustomization.yaml"] = kust("resources:\n- ../../base/secret.yaml\n")
	files["region/other/kustomization.yaml"] = kust("resources:\n- cm.yaml\nnameSuffix: -x\n")
	files["region/other/cm.yaml"] = "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: other\n"
	files["generated/kustomization.yaml"] = kust("resources:\n- ../base\nconfigMapGenerator:\n- name: gen\n  literals:\n  - a=b\n")
	files["namespaced/kustomization.yaml"] = kust(`resources:
- ../base
namespace: site-1
patches:
- patch: |-
    apiVersion: siteconfig.open-cluster-management.io/v1alpha1
    kind: ClusterInstance
    metadata:
      name: base
      namespace: site-1
    spec:
      clusterName: site-1
`)
	files["meta/kustomization.yaml"] = kust("resources:\n- ../sites/site-1\n- ../region/other\nbuildMetadata:\n- originAnnotations\n- transformerAnnotations\n")
	files["managed/kustomization.yaml"] = kust("resources:\n- ../base\nbuildMetadata:\n- managedByLabel\n")
	files["sorted/kustomization.yaml"] = kust("resources:\n- ../base\nsortOptions:\n  order: legacy\n")
	files["sorted-composite/kustomization.yaml"] = kust("resources:\n- ../region/other\n- ../sorted\n")
	root := writeTree(t, files)
	fsys := rootFS(t, root)
	tests := []struct {
		name string
		dir  string
		how  buildPath
	}{
		{"namespace set before the overlay's patches", "namespaced", byNative},
		{"origin and transformer annotations asked for", "meta", byKrusty},
		{"managed-by label asked for", "managed", byKrusty},
		{"sort options", "sorted", byKrusty},
		{"sort options of a directory inside another are ignored", "sorted-composite", byNative},
		{"flat base", "base", byFiles},
		{"overlay with patches", "sites/site-1", byNative},
		{"name prefix and common labels", "prefixed", byNative},
		{"composite of overlays", "region", byNative},
		{"generator", "generated", byKrusty},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var r *Result
			how := pathOf(func() {
				var err error
				if r, err = Build(context.Background(), fsys, tt.dir); err != nil {
					t.Fatal(err)
				}
			})
			if how != tt.how {
				t.Errorf("built %s, want %s", how, tt.how)
			}
			want := reference(t, root, tt.dir)
			if got := datas(r); !reflect.DeepEqual(got, want) {
				t.Errorf("documents differ from kustomize's\n got: %q\nwant: %q", got, want)
			}
			for _, d := range r.Documents {
				if strings.Contains(string(d.Data), trackAnnotation) || (tt.dir != "meta" && strings.Contains(string(d.Data), "config.kubernetes.io/origin")) {
					t.Errorf("tracking annotation left in the output:\n%s", d.Data)
				}
			}
		})
	}
}

func TestBuildNamePrefixLabels(t *testing.T) {
	files := overlayTree()
	files["prod/kustomization.yaml"] = kust(`resources:
- ../sites/site-1
namePrefix: prod-
commonLabels:
  env: prod
`)
	r := mustBuild(t, files, "prod")
	d := find(t, r, "ClusterInstance", "prod-base")
	if got := get(t, d.Data, "metadata.labels.env"); got != "prod" {
		t.Errorf("label env = %v, want prod", got)
	}
	if got := get(t, d.Data, "spec.clusterName"); got != "site-1" {
		t.Errorf("clusterName = %v, want site-1 (the overlay's patch)", got)
	}
	if d.Origin.File != "base/clusterinstance.yaml" || d.Origin.Line != 2 || !d.Modified {
		t.Errorf("origin = %+v modified %t, want base/clusterinstance.yaml:2, modified", d.Origin, d.Modified)
	}
}

func TestBuildComponents(t *testing.T) {
	files := overlayTree()
	files["components/vips/kustomization.yaml"] = `apiVersion: kustomize.config.k8s.io/v1alpha1
kind: Component
patches:
- target:
    kind: ClusterInstance
  patch: |-
    - op: add
      path: /spec/ingressVIPs
      value: ["10.1.0.6"]
`
	files["with-component/kustomization.yaml"] = kust("resources:\n- ../base\ncomponents:\n- ../components/vips\n")
	r := mustBuild(t, files, "with-component")
	d := find(t, r, "ClusterInstance", "base")
	if got := get(t, d.Data, "spec.ingressVIPs.0"); got != "10.1.0.6" {
		t.Errorf("ingressVIPs = %v, want the component's", got)
	}
}

func TestOrigins(t *testing.T) {
	files := overlayTree()
	files["base/two.yaml"] = "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: a\n---\n\n# b follows\napiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: b\n"
	files["base/kustomization.yaml"] = kust("resources:\n- clusterinstance.yaml\n- siteconfig.yaml\n- secret.yaml\n- two.yaml\n")
	files["gen/kustomization.yaml"] = kust("resources:\n- ../base\nconfigMapGenerator:\n- name: gen\n  literals:\n  - a=b\n")
	tests := []struct {
		name     string
		dir      string
		kind     string
		obj      string
		file     string
		line     int
		modified bool
	}{
		{"patched ClusterInstance", "sites/site-1", "ClusterInstance", "base", "base/clusterinstance.yaml", 2, true},
		{"patched SiteConfig", "sites/site-1", "SiteConfig", "base", "base/siteconfig.yaml", 1, true},
		{"unpatched through krusty", "sites/site-1", "Secret", "bmc-secret", "base/secret.yaml", 1, false},
		{"second document", "sites/site-1", "ConfigMap", "b", "base/two.yaml", 8, false},
		{"first document, fast path", "base", "ConfigMap", "a", "base/two.yaml", 1, false},
		{"second document, fast path", "base", "ConfigMap", "b", "base/two.yaml", 8, false},
		{"generated", "gen", "ConfigMap", "", "gen/kustomization.yaml", 0, true},
	}
	fsys := rootFS(t, writeTree(t, files))
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r, err := Build(context.Background(), fsys, tt.dir)
			if err != nil {
				t.Fatal(err)
			}
			var d Document
			if tt.obj == "" {
				for _, x := range r.Documents {
					if strings.HasPrefix(x.Name, "gen-") {
						d = x
					}
				}
			} else {
				d = find(t, r, tt.kind, tt.obj)
			}
			if d.Origin.File != tt.file || d.Origin.Line != tt.line || d.Modified != tt.modified {
				t.Errorf("origin %v modified %t, want %s:%d modified %t", d.Origin, d.Modified, tt.file, tt.line, tt.modified)
			}
		})
	}
}

func TestZTPGenerators(t *testing.T) {
	files := map[string]string{
		"fleet/kustomization.yaml":      kust("generators:\n- site-a.yaml\n- nested/site-b.yaml\nresources:\n- ns.yaml\n- more\n"),
		"fleet/site-a.yaml":             siteConfig("site-a"),
		"fleet/nested/site-b.yaml":      siteConfig("site-b"),
		"fleet/ns.yaml":                 "apiVersion: v1\nkind: Namespace\nmetadata:\n  name: ztp\n",
		"fleet/more/kustomization.yaml": kust("generators:\n- site-c.yaml\n"),
		"fleet/more/site-c.yaml":        siteConfig("site-c"),
	}
	before := krustyRuns.Load()
	r := mustBuild(t, files, "fleet")
	if krustyRuns.Load() != before {
		t.Error("krusty ran for a plain generators layout")
	}
	want := []Generator{
		{File: "fleet/more/site-c.yaml", Kustomization: "fleet/more/kustomization.yaml"},
		{File: "fleet/site-a.yaml", Kustomization: "fleet/kustomization.yaml"},
		{File: "fleet/nested/site-b.yaml", Kustomization: "fleet/kustomization.yaml"},
	}
	if !reflect.DeepEqual(r.SiteConfigGenerators, want) {
		t.Errorf("generators = %+v\nwant %+v", r.SiteConfigGenerators, want)
	}
	if len(r.Documents) != 1 || r.Documents[0].Kind != "Namespace" {
		t.Errorf("documents = %v, want the Namespace only", r.Documents)
	}

	// Under an overlay that transforms, the generators are still reported
	// (and not run), with a warning that the transformation misses them.
	files["overlay/kustomization.yaml"] = kust("resources:\n- ../fleet\nnamePrefix: x-\n")
	r = mustBuild(t, files, "overlay")
	if len(r.SiteConfigGenerators) != 3 || len(r.Warnings) == 0 {
		t.Errorf("generators %v, warnings %v; want 3 generators and a warning", r.SiteConfigGenerators, r.Warnings)
	}
	if d := find(t, r, "Namespace", "ztp"); d.Origin.File != "fleet/ns.yaml" || d.Origin.Line != 1 {
		t.Errorf("origin = %v", d.Origin)
	}
}

func TestFastPathPlainList(t *testing.T) {
	files := map[string]string{"list/kustomization.yaml": ""}
	var b strings.Builder
	b.WriteString(kust("resources:\n"))
	for i := range 50 {
		name := "site-" + string(rune('a'+i%26)) + strings.Repeat("x", i/26)
		files["list/"+name+".yaml"] = strings.ReplaceAll(ciBase, "base", name)
		b.WriteString("- " + name + ".yaml\n")
	}
	b.WriteString("- sub\n")
	files["list/sub/kustomization.yaml"] = kust("resources:\n- a.yaml\n")
	files["list/sub/a.yaml"] = secretDoc
	files["list/kustomization.yaml"] = b.String()
	root := writeTree(t, files)
	before := krustyRuns.Load()
	r, err := Build(context.Background(), rootFS(t, root), "list")
	if err != nil {
		t.Fatal(err)
	}
	if krustyRuns.Load() != before {
		t.Error("krusty ran for a plain resource list")
	}
	if got, want := datas(r), reference(t, root, "list"); !reflect.DeepEqual(got, want) {
		t.Errorf("fast path differs from kustomize\n got: %q\nwant: %q", got, want)
	}
}

func TestDuplicateObjects(t *testing.T) {
	files := map[string]string{
		"d/kustomization.yaml": kust("resources:\n- a.yaml\n- b.yaml\n"),
		"d/a.yaml":             secretDoc,
		"d/b.yaml":             secretDoc,
	}
	_, err := build(t, files, "d")
	if err == nil || !strings.Contains(err.Error(), "defined twice") {
		t.Fatalf("err = %v, want a duplicate error", err)
	}
}

func TestCache(t *testing.T) {
	files := overlayTree()
	files["sites/site-2/kustomization.yaml"] = files["sites/site-1/kustomization.yaml"] + "nameSuffix: -two\n"
	files["sites/site-2/ci-patch.yaml"] = files["sites/site-1/ci-patch.yaml"]
	files["sites/kustomization.yaml"] = kust("resources:\n- site-1\n- site-2\n")
	fsys := rootFS(t, writeTree(t, files))
	c := NewCache()
	before := krustyRuns.Load() + nativeRuns.Load()
	if _, err := Build(context.Background(), fsys, "sites", WithCache(c)); err != nil {
		t.Fatal(err)
	}
	if n := krustyRuns.Load() + nativeRuns.Load() - before; n != 2 {
		t.Errorf("first build built %d overlays, want 2 (one per site)", n)
	}
	before = krustyRuns.Load() + nativeRuns.Load()
	if _, err := Build(context.Background(), fsys, "sites/site-1", WithCache(c)); err != nil {
		t.Fatal(err)
	}
	if _, err := Build(context.Background(), fsys, "sites", WithCache(c)); err != nil {
		t.Fatal(err)
	}
	if n := krustyRuns.Load() + nativeRuns.Load() - before; n != 0 {
		t.Errorf("cached builds built %d overlays, want 0", n)
	}
}

// A SiteConfig generator is keyed in the cache by its path: editing it
// does not build the kustomization again, while a file that stops being a
// SiteConfig changes what is built.
func TestCacheKeysSiteConfigsByPath(t *testing.T) {
	dir := writeTree(t, map[string]string{
		"fleet/kustomization.yaml": kust("generators:\n- site-a.yaml\nresources:\n- ns.yaml\nnamePrefix: x-\n"),
		"fleet/site-a.yaml":        siteConfig("site-a"),
		"fleet/ns.yaml":            "apiVersion: v1\nkind: Namespace\nmetadata:\n  name: ztp\n",
	})
	fsys, c := rootFS(t, dir), NewCache()
	runs := func() int64 { return krustyRuns.Load() + nativeRuns.Load() }
	before := runs()
	first, err := Build(context.Background(), fsys, "fleet", WithCache(c))
	if err != nil {
		t.Fatal(err)
	}
	if runs() == before {
		t.Fatal("the first build built nothing")
	}
	write := func(text string) {
		t.Helper()
		if err := os.WriteFile(filepath.Join(dir, "fleet", "site-a.yaml"), []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	write(siteConfig("site-b"))
	before = runs()
	again, err := Build(context.Background(), fsys, "fleet", WithCache(c))
	if err != nil {
		t.Fatal(err)
	}
	if runs() != before {
		t.Error("an edited SiteConfig built the kustomization again, want the cached result")
	}
	if !reflect.DeepEqual(again.SiteConfigGenerators, first.SiteConfigGenerators) {
		t.Errorf("generators = %v, want %v", again.SiteConfigGenerators, first.SiteConfigGenerators)
	}
	write("apiVersion: builtin\nkind: ConfigMapGenerator\nmetadata:\n  name: made\nliterals:\n- a=b\n")
	changed, err := Build(context.Background(), fsys, "fleet", WithCache(c))
	if err != nil {
		t.Fatal(err)
	}
	if len(changed.SiteConfigGenerators) != 0 {
		t.Errorf("generators = %v, want none once the file is a ConfigMapGenerator", changed.SiteConfigGenerators)
	}
	found := false
	for _, d := range changed.Documents {
		found = found || d.Kind == "ConfigMap"
	}
	if !found {
		t.Errorf("documents = %v, want the generated ConfigMap", changed.Documents)
	}
}

// A long generators list is probed on every core and checked in list
// order: the generators come out in that order, and of two bad entries
// the first is the one reported.
func TestManyGeneratorsCheckedInOrder(t *testing.T) {
	files := map[string]string{}
	var list strings.Builder
	var want []Generator
	for i := range 3 * probePluginsMin {
		name := fmt.Sprintf("site-%03d.yaml", i)
		files["fleet/"+name] = siteConfig(fmt.Sprintf("site-%03d", i))
		fmt.Fprintf(&list, "- %s\n", name)
		want = append(want, Generator{File: "fleet/" + name, Kustomization: "fleet/kustomization.yaml"})
	}
	files["fleet/kustomization.yaml"] = kust("generators:\n" + list.String())
	r := mustBuild(t, files, "fleet")
	if !reflect.DeepEqual(r.SiteConfigGenerators, want) {
		t.Errorf("generators = %v\nwant %v", r.SiteConfigGenerators, want)
	}

	delete(files, "fleet/site-100.yaml")
	delete(files, "fleet/site-150.yaml")
	_, err := build(t, files, "fleet")
	// apiVersion, kind and generators come first: entry 100 is on line
	// 104.
	if err == nil || !strings.Contains(err.Error(), "site-100.yaml") || !strings.Contains(err.Error(), "kustomization.yaml:104") {
		t.Errorf("error = %v, want the first missing entry, site-100.yaml at line 104", err)
	}
}

func TestCrossReferenceFallback(t *testing.T) {
	// kustomize rewrites a reference to a renamed ConfigMap in a sibling
	// directory; the composite must then be built as one.
	files := map[string]string{
		"top/kustomization.yaml":     kust("resources:\n- cm\n- pod\n"),
		"top/cm/kustomization.yaml":  kust("resources:\n- cm.yaml\nnamePrefix: pre-\n"),
		"top/cm/cm.yaml":             "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: conf\n",
		"top/pod/kustomization.yaml": kust("resources:\n- pod.yaml\nnamespace: default\n"),
		"top/pod/pod.yaml": `apiVersion: v1
kind: Pod
metadata:
  name: p
spec:
  containers:
  - name: c
    image: x
  volumes:
  - name: v
    configMap:
      name: conf
`,
	}
	root := writeTree(t, files)
	r, err := Build(context.Background(), rootFS(t, root), "top")
	if err != nil {
		t.Fatal(err)
	}
	if got, want := datas(r), reference(t, root, "top"); !reflect.DeepEqual(got, want) {
		t.Errorf("documents differ from kustomize's\n got: %q\nwant: %q", got, want)
	}
	if got := get(t, find(t, r, "Pod", "p").Data, "spec.volumes.0.configMap.name"); got != "pre-conf" {
		t.Errorf("reference = %v, want pre-conf", got)
	}
}

func TestIsKustomization(t *testing.T) {
	fsys := rootFS(t, writeTree(t, map[string]string{
		"a/kustomization.yml": kust(""),
		"b/Kustomization":     kust(""),
		"c/other.yaml":        "x: 1",
	}))
	tests := []struct {
		name, dir, file string
		ok              bool
	}{
		{"yml", "a", "a/kustomization.yml", true},
		{"Kustomization", "b", "b/Kustomization", true},
		{"none", "c", "", false},
		{"missing dir", "d", "", false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			file, ok := IsKustomization(fsys, tt.dir)
			if file != tt.file || ok != tt.ok {
				t.Errorf("IsKustomization = %q, %t; want %q, %t", file, ok, tt.file, tt.ok)
			}
		})
	}
}

func TestNoKustomization(t *testing.T) {
	_, err := build(t, map[string]string{"a/x.yaml": secretDoc}, "a")
	if !errors.Is(err, ErrNoKustomization) {
		t.Fatalf("err = %v, want ErrNoKustomization", err)
	}
}

func TestCancelled(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	_, err := Build(ctx, rootFS(t, writeTree(t, overlayTree())), "sites/site-1")
	if !errors.Is(err, context.Canceled) {
		t.Fatalf("err = %v, want context.Canceled", err)
	}
}

func TestEmptyGeneratorEntry(t *testing.T) {
	files := map[string]string{
		"k/kustomization.yaml": kust("resources:\n- s.yaml\ngenerators:\n- \"# nothing\"\n"),
		"k/s.yaml":             secretDoc,
	}
	r := mustBuild(t, files, "k")
	if len(r.Documents) != 1 {
		t.Errorf("documents = %v", r.Documents)
	}
}
