package kustomize

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"path"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/siteops/siteops/hack/fleetgen/gen"
)

// sameAsKrusty builds dir natively and with krusty only, and fails unless
// the two results are equal in every field. It returns the native result
// and how it was built.
func sameAsKrusty(t *testing.T, fsys fs.FS, dir string) (*Result, buildPath) {
	t.Helper()
	var got *Result
	how := pathOf(func() {
		var err error
		if got, err = Build(context.Background(), fsys, dir); err != nil {
			t.Fatalf("build %s: %v", dir, err)
		}
	})
	want, err := Build(context.Background(), fsys, dir, noNative)
	if err != nil {
		t.Fatalf("build %s with krusty: %v", dir, err)
	}
	if len(got.Documents) != len(want.Documents) {
		t.Fatalf("%s: %d documents natively, %d with krusty\n got: %q\nwant: %q", dir, len(got.Documents), len(want.Documents), datas(got), datas(want))
	}
	for i := range got.Documents {
		g, w := got.Documents[i], want.Documents[i]
		if w.Origin == (Origin{}) {
			// krusty loses the origin of an object whose annotations a
			// patch replaces; the native path keeps it.
			w.Origin = g.Origin
		}
		if !reflect.DeepEqual(g, w) {
			t.Errorf("%s: document %d differs\nnative: %+v\n%s\nkrusty: %+v\n%s", dir, i, g, g.Data, w, w.Data)
		}
	}
	if !reflect.DeepEqual(got.SiteConfigGenerators, want.SiteConfigGenerators) || !reflect.DeepEqual(got.Warnings, want.Warnings) {
		t.Errorf("%s: generators or warnings differ\nnative: %v %v\nkrusty: %v %v", dir, got.SiteConfigGenerators, got.Warnings, want.SiteConfigGenerators, want.Warnings)
	}
	return got, how
}

// TestNativeFleetgenLayouts builds every kustomization of every layout
// hack/fleetgen writes, natively and with krusty, and compares both with
// kustomize's own build where kustomize can build it (it runs the
// SiteConfig generators of the ZTP layout as plugins).
func TestNativeFleetgenLayouts(t *testing.T) {
	for _, layout := range gen.Layouts() {
		for _, format := range gen.Formats() {
			if gen.CheckLayout(layout, format) != nil || layout == gen.LayoutFiles {
				// Not a layout, or one without kustomizations.
				continue
			}
			t.Run(string(layout)+"/"+string(format), func(t *testing.T) {
				root := t.TempDir()
				// Three regions, both shapes.
				cfg := gen.Config{Sites: 2*gen.SitesPerRegion + 7, Shape: gen.ShapeMixed, Layout: layout, Format: format, Manifests: 2, Seed: 7}
				if _, err := gen.Generate(root, cfg); err != nil {
					t.Fatal(err)
				}
				fsys := rootFS(t, root)
				var dirs []string
				err := fs.WalkDir(fsys, ".", func(p string, d fs.DirEntry, err error) error {
					if err == nil && !d.IsDir() && IsKustomizationFile(p) {
						dirs = append(dirs, path.Dir(p))
					}
					return err
				})
				if err != nil {
					t.Fatal(err)
				}
				if len(dirs) == 0 {
					t.Fatalf("layout %s wrote no kustomization", layout)
				}
				natives := 0
				for _, dir := range dirs {
					got, how := sameAsKrusty(t, fsys, dir)
					if how == byNative {
						natives++
					}
					if layout == gen.LayoutGenerators {
						continue
					}
					if want := reference(t, root, filepath.FromSlash(dir)); !reflect.DeepEqual(datas(got), want) {
						t.Errorf("%s: documents differ from kustomize's\n got: %q\nwant: %q", dir, datas(got), want)
					}
				}
				if layout == gen.LayoutOverlays && natives < cfg.Sites {
					t.Errorf("%d of %d kustomizations built natively, want at least the %d site overlays", natives, len(dirs), cfg.Sites)
				}
			})
		}
	}
}

const nativeCI = `apiVersion: siteconfig.open-cluster-management.io/v1alpha1
kind: ClusterInstance
metadata:
  name: base
  namespace: base
  labels:
    tier: edge
spec:
  clusterName: base
  holdInstallation: false
  nodes:
  - hostName: m0
    role: master
    bootMACAddress: "00:00:00:00:00:01"
    templateRefs:
    - name: node-a
      namespace: ns
    - name: node-b
      namespace: ns
  - hostName: m1
    role: master
    bootMACAddress: "00:00:00:00:00:02"
  extraLabels:
    ManagedCluster:
      common: "true"
      big: 12345678901234567890
      ratio: 1.50
      when: 2024-01-02
`

// quotedCI is a ClusterInstance with a number and a boolean in quotes,
// strings, and a URL with an ampersand.
const quotedCI = `apiVersion: siteconfig.open-cluster-management.io/v1alpha1
kind: ClusterInstance
metadata:
  name: q
  namespace: base
spec:
  port: "6443"
  flag: 'no'
  port2: "6443"
  flag2: 'no'
  url: a&b
`

const nativeCM = `apiVersion: v1
kind: ConfigMap
metadata:
  name: settings
data:
  a: "1"
---
apiVersion: v1
kind: Namespace
metadata:
  name: base
`

// TestNativeShapes builds each overlay shape of the native path, and the
// shapes it leaves to krusty, and compares them with krusty and with
// kustomize's own build.
func TestNativeShapes(t *testing.T) {
	base := map[string]string{
		"base/kustomization.yaml": kust("resources:\n- ci.yaml\n- cm.yaml\n"),
		"base/ci.yaml":            nativeCI,
		"base/cm.yaml":            nativeCM,
	}
	smp := func(name, body string) string {
		return "apiVersion: siteconfig.open-cluster-management.io/v1alpha1\nkind: ClusterInstance\nmetadata:\n  name: " + name + "\n  namespace: base\n" + body
	}
	tests := []struct {
		name  string
		files map[string]string
		dir   string
		how   buildPath
	}{
		{"namespace", map[string]string{
			"o/kustomization.yaml": kust("resources:\n- ../base\nnamespace: site\n"),
		}, "o", byNative},
		{"name prefix and suffix", map[string]string{
			"o/kustomization.yaml": kust("resources:\n- ../base\nnamePrefix: pre-\nnameSuffix: -suf\n"),
		}, "o", byNative},
		{"labels and annotations", map[string]string{
			"o/kustomization.yaml": kust("resources:\n- ../base\ncommonLabels:\n  site: one\nlabels:\n- pairs:\n    team: ran\ncommonAnnotations:\n  note: \"x: y\"\n"),
		}, "o", byNative},
		{"strategic-merge patch files", map[string]string{
			"o/kustomization.yaml": kust("resources:\n- ../base\npatchesStrategicMerge:\n- p.yaml\n"),
			"o/p.yaml":             smp("base", "spec:\n  clusterName: site\n  holdInstallation: null\n  nodes:\n  - hostName: m9\n"),
		}, "o", byNative},
		{"inline strategic-merge patch", map[string]string{
			"o/kustomization.yaml": kust("resources:\n- ../base\npatchesStrategicMerge:\n- |-\n  " +
				"apiVersion: v1\n  kind: ConfigMap\n  metadata:\n    name: settings\n  data:\n    b: \"2\"\n"),
		}, "o", byNative},
		{"patch that deletes an object", map[string]string{
			"o/kustomization.yaml": kust("resources:\n- ../base\npatches:\n- patch: |-\n    apiVersion: v1\n    kind: ConfigMap\n    metadata:\n      name: settings\n    $patch: delete\n"),
		}, "o", byNative},
		{"patch that deletes list items and keys", map[string]string{
			"o/kustomization.yaml": kust("resources:\n- ../base\npatches:\n- path: p.yaml\n"),
			"o/p.yaml": smp("base", "  labels:\n    tier: null\nspec:\n  nodes:\n  - hostName: m0\n    templateRefs:\n"+
				"    - name: node-a\n      $patch: delete\n"),
		}, "o", byNative},
		{"JSON 6902 patches", map[string]string{
			"o/kustomization.yaml": kust("resources:\n- ../base\npatchesJson6902:\n- target:\n    group: siteconfig.open-cluster-management.io\n" +
				"    version: v1alpha1\n    kind: ClusterInstance\n    name: base\n  path: p.yaml\n"),
			"o/p.yaml": "- op: replace\n  path: /spec/clusterName\n  value: site\n- op: remove\n  path: /spec/nodes/1\n" +
				"- op: add\n  path: /spec/nodes/0/templateRefs/-\n  value: {name: node-c, namespace: ns}\n" +
				"- op: add\n  path: /metadata/annotations\n  value: {a: b}\n",
		}, "o", byNative},
		{"patch target by kind matches several objects", map[string]string{
			"o/kustomization.yaml": kust("resources:\n- ../base\npatches:\n- target:\n    version: v1\n  patch: |-\n    - op: add\n      path: /metadata/labels\n      value: {v1: \"yes\"}\n"),
		}, "o", byNative},
		{"patch target by name pattern and label selector", map[string]string{
			"o/kustomization.yaml": kust("resources:\n- ../base\npatches:\n- target:\n    name: ba.*\n    labelSelector: tier=edge\n" +
				"  patch: |-\n    - op: replace\n      path: /spec/clusterName\n      value: matched\n"),
		}, "o", byNative},
		{"patch that renames, then a prefix", map[string]string{
			"o/kustomization.yaml": kust("resources:\n- ../base\nnamePrefix: p-\npatches:\n- path: p.yaml\n  target:\n    kind: ClusterInstance\n    name: base\n  options:\n    allowNameChange: true\n"),
			"o/p.yaml":             smp("site-1", "spec:\n  clusterName: site-1\n"),
		}, "o", byNative},
		{"nested overlays: the outer one targets the original name", map[string]string{
			"inner/kustomization.yaml": kust("resources:\n- ../base\npatches:\n- target:\n    kind: ClusterInstance\n  patch: |-\n    - op: replace\n      path: /metadata/name\n      value: renamed\n"),
			"outer/kustomization.yaml": kust("resources:\n- ../inner\nnamespace: outer\nnameSuffix: -o\npatches:\n- target:\n    name: base\n    kind: ClusterInstance\n" +
				"  patch: |-\n    - op: replace\n      path: /spec/clusterName\n      value: outer\n"),
		}, "outer", byNative},
		{"namespace handed down to an overlay that sets none", map[string]string{
			"inner/kustomization.yaml": kust("resources:\n- ../base\npatches:\n- target:\n    namespace: outer\n    kind: ClusterInstance\n" +
				"  patch: |-\n    - op: replace\n      path: /spec/clusterName\n      value: inherited\n"),
			"outer/kustomization.yaml": kust("resources:\n- ../inner\nnamespace: outer\n"),
		}, "outer", byNative},
		{"several overlays of one base", map[string]string{
			"a/kustomization.yaml":   kust("resources:\n- ../base\nnamePrefix: a-\n"),
			"b/kustomization.yaml":   kust("resources:\n- ../base\nnamePrefix: b-\nnamespace: b\n"),
			"all/kustomization.yaml": kust("resources:\n- ../a\n- ../b\n"),
		}, "all", byNative},
		{"order of files and directories", map[string]string{
			"o/kustomization.yaml": kust("resources:\n- extra.yaml\n- ../a\n- more.yaml\nnamespace: o\n"),
			"o/extra.yaml":         "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: extra\n",
			"o/more.yaml":          "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: more\n",
			"a/kustomization.yaml": kust("resources:\n- ../base\nnamePrefix: a-\n"),
		}, "o", byNative},
		{"bases field", map[string]string{
			"o/kustomization.yaml": kust("bases:\n- ../base\nresources:\n- extra.yaml\nnameSuffix: -b\n"),
			"o/extra.yaml":         "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: extra\n",
		}, "o", byNative},
		{"labels over a Deployment: krusty", map[string]string{
			"o/kustomization.yaml": kust("resources:\n- ../base\n- d.yaml\ncommonLabels:\n  site: one\n"),
			"o/d.yaml": "apiVersion: apps/v1\nkind: Deployment\nmetadata:\n  name: d\nspec:\n  selector:\n    matchLabels:\n      app: d\n" +
				"  template:\n    metadata:\n      labels:\n        app: d\n    spec:\n      containers:\n      - name: c\n        image: x\n",
		}, "o", byKrusty},
		{"renamed ConfigMap next to a Pod: krusty", map[string]string{
			"o/kustomization.yaml": kust("resources:\n- ../base\n- pod.yaml\nnamePrefix: p-\n"),
			"o/pod.yaml": "apiVersion: v1\nkind: Pod\nmetadata:\n  name: p\nspec:\n  containers:\n  - name: c\n    image: x\n" +
				"  volumes:\n  - name: v\n    configMap:\n      name: settings\n",
		}, "o", byKrusty},
		{"generator: krusty", map[string]string{
			"o/kustomization.yaml": kust("resources:\n- ../base\nnamespace: o\nconfigMapGenerator:\n- name: gen\n  literals:\n  - a=b\n"),
		}, "o", byKrusty},
		{"JSON 6902 move, copy and test, inline", map[string]string{
			"o/kustomization.yaml": kust("resources:\n- ../base\npatchesJson6902:\n- target:\n    kind: ClusterInstance\n    name: base\n  patch: |-\n" +
				"    - op: test\n      path: /spec/clusterName\n      value: base\n    - op: move\n      from: /spec/nodes/1\n      path: /spec/nodes/0\n" +
				"    - op: copy\n      from: /metadata/labels\n      path: /spec/extraLabels/copied\n    - op: move\n      from: /metadata/labels/tier\n      path: /metadata/labels/level\n"),
		}, "o", byNative},
		{"JSON patches in JSON, by both fields", map[string]string{
			"o/kustomization.yaml": kust("resources:\n- ../base\npatchesJson6902:\n- target:\n    version: v1\n    kind: ConfigMap\n    name: settings\n  path: p.json\n" +
				"patches:\n- target:\n    kind: ConfigMap\n  patch: '[{\"op\": \"copy\", \"from\": \"/data/a\", \"path\": \"/data/c\"}]'\n"),
			"o/p.json": `[{"op": "add", "path": "/data/b", "value": "2"}, {"op": "test", "path": "/data/a", "value": "1"}]`,
		}, "o", byNative},
		{"a number and a boolean patched over quoted strings, stay strings", map[string]string{
			"o/kustomization.yaml": kust("resources:\n- ../base\n- q.yaml\npatches:\n- path: p.yaml\n- target:\n    name: q\n  patch: |-\n" +
				"    apiVersion: siteconfig.open-cluster-management.io/v1alpha1\n    kind: ClusterInstance\n    metadata:\n      name: q\n" +
				"    spec:\n      port2: 6443\n      flag2: true\n"),
			"o/q.yaml": quotedCI,
			"o/p.yaml": smp("q", "spec:\n  port: 6443\n  flag: true\n"),
		}, "o", byNative},
		{"a number kustomize merges over a quoted string, written natively", map[string]string{
			"o/kustomization.yaml": kust("resources:\n- ../base\n- q.yaml\npatches:\n- path: p.yaml\n"),
			"o/q.yaml":             quotedCI,
			// The brace in the comment leaves the merge to kustomize.
			"o/p.yaml": smp("q", "spec:\n  port: 6443 # {x}\n"),
		}, "o", byNative},
		{"a string added by a JSON patch, then a number over it", map[string]string{
			"o/kustomization.yaml": kust("resources:\n- ../base\npatches:\n- target:\n    kind: ClusterInstance\n  patch: |-\n" +
				"    - op: add\n      path: /spec/port\n      value: \"6443\"\n    - op: add\n      path: /spec/flag\n      value: \"a: b\"\n- path: p.yaml\n"),
			"o/p.yaml": smp("base", "spec:\n  port: 6443\n  flag: true\n"),
		}, "o", byNative},
		{"patch error: a JSON test of a value encoding/json escapes", map[string]string{
			"o/kustomization.yaml": kust("resources:\n- ../base\n- q.yaml\npatches:\n- target:\n    name: q\n" +
				"  patch: '[{\"op\":\"test\",\"path\":\"/spec/url\",\"value\":\"a&b\"},{\"op\":\"add\",\"path\":\"/spec/x\",\"value\":\"y\"}]'\n"),
			"o/q.yaml": quotedCI,
		}, "o", byKrusty},
		{"patch error: a JSON patch replaces a missing path", map[string]string{
			"o/kustomization.yaml": kust("resources:\n- ../base\npatches:\n- target:\n    kind: ClusterInstance\n  patch: |-\n    - op: replace\n      path: /spec/no/such\n      value: x\n"),
		}, "o", byKrusty},
		{"patch error: a patchesJson6902 file moves from a missing path", map[string]string{
			"o/kustomization.yaml": kust("resources:\n- ../base\npatchesJson6902:\n- target:\n    kind: ClusterInstance\n    name: base\n  path: p.yaml\n"),
			"o/p.yaml":             "- op: move\n  from: /spec/missing\n  path: /spec/x\n",
		}, "o", byKrusty},
		{"patch error: a patchesJson6902 target without a name", map[string]string{
			"o/kustomization.yaml": kust("resources:\n- ../base\npatchesJson6902:\n- target:\n    kind: ClusterInstance\n  path: p.yaml\n"),
			"o/p.yaml":             "- op: add\n  path: /spec/x\n  value: y\n",
		}, "o", byKrusty},
		{"patch error: krusty reports it", map[string]string{
			"o/kustomization.yaml": kust("resources:\n- ../base\npatches:\n- target:\n    kind: ClusterInstance\n  patch: |-\n    - op: test\n      path: /spec/clusterName\n      value: other\n"),
		}, "o", byKrusty},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			files := map[string]string{}
			for k, v := range base {
				files[k] = v
			}
			for k, v := range tt.files {
				files[k] = v
			}
			root := writeTree(t, files)
			fsys := rootFS(t, root)
			if entry, ok := patchErrors[tt.name]; ok {
				samePatchError(t, fsys, tt.dir, entry)
				return
			}
			if strings.HasPrefix(tt.name, "patch error: ") {
				_, how := pathOfErr(t, fsys, tt.dir)
				if how != tt.how {
					t.Errorf("built %s, want %s", how, tt.how)
				}
				return
			}
			got, how := sameAsKrusty(t, fsys, tt.dir)
			if how != tt.how {
				t.Errorf("built %s, want %s", how, tt.how)
			}
			if want := reference(t, root, tt.dir); !reflect.DeepEqual(datas(got), want) {
				t.Errorf("documents differ from kustomize's\n got: %q\nwant: %q", datas(got), want)
			}
		})
	}
}

// patchErrors are the cases of TestNativeShapes whose patch kustomize's
// own code fails to apply in the native path, with the entry the error
// names.
var patchErrors = map[string]string{
	"patch error: a JSON patch replaces a missing path":             "patches[0]",
	"patch error: a patchesJson6902 file moves from a missing path": "patchesJson6902[0] (p.yaml)",
	"patch error: krusty reports it":                                "patches[0]",
}

// samePatchError builds dir expecting the error krusty gives, told
// against the kustomization file, the line and the entry of the patch.
func samePatchError(t *testing.T, fsys fs.FS, dir, entry string) {
	t.Helper()
	_, err := Build(context.Background(), fsys, dir)
	var pe *PatchError
	if !errors.As(err, &pe) {
		t.Fatalf("error %v, want a *PatchError", err)
	}
	if pe.File != dir+"/kustomization.yaml" || pe.Line == 0 || pe.Entry != entry {
		t.Errorf("error names %s:%d %s, want %s/kustomization.yaml, a line, %s", pe.File, pe.Line, pe.Entry, dir, entry)
	}
	_, krustyErr := Build(context.Background(), fsys, dir, noNative)
	if krustyErr == nil {
		t.Fatal("krusty built it")
	}
	prefix := "build kustomization " + dir + ": "
	want := prefix + fmt.Sprintf("%s:%d: %s: ", pe.File, pe.Line, entry) + strings.TrimPrefix(krustyErr.Error(), prefix)
	if err.Error() != want {
		t.Errorf("error %q\nwant %q", err, want)
	}
}

// pathOfErr builds dir expecting kustomize's error, and tells how.
func pathOfErr(t *testing.T, fsys fs.FS, dir string) (error, buildPath) {
	t.Helper()
	var err error
	how := pathOf(func() { _, err = Build(context.Background(), fsys, dir) })
	if err == nil {
		t.Fatal("build succeeded, want kustomize's error")
	}
	_, want := Build(context.Background(), fsys, dir, noNative)
	if err.Error() != want.Error() {
		t.Errorf("error = %v\nwant %v", err, want)
	}
	return err, how
}

// TestPatchTransformers checks which patches entries the native path
// applies itself and which it leaves to kustomize's plugin.
func TestPatchTransformers(t *testing.T) {
	files := map[string]string{
		"base/kustomization.yaml": kust("resources:\n- ci.yaml\n"),
		"base/ci.yaml":            nativeCI,
		"o/kustomization.yaml": kust(`resources:
- ../base
patches:
- patch: |-
    apiVersion: siteconfig.open-cluster-management.io/v1alpha1
    kind: ClusterInstance
    metadata:
      name: base
      namespace: base
    spec:
      clusterName: a
- target:
    kind: ClusterInstance
  patch: |-
    - op: replace
      path: /spec/clusterName
      value: b
- target:
    kind: ClusterInstance
  patch: |-
    - op: test
      path: /spec/clusterName
      value: b
- patch: |-
    - op: replace
      path: /spec/clusterName
      value: no target
- path: json.yaml
  target:
    name: base
`),
		"o/json.yaml": "# a JSON patch in a file\n\n- op: add\n  path: /spec/x\n  value: 1\n",
	}
	b := newBuilder(rootFS(t, writeTree(t, files)), applyOptions(nil))
	kd, err := b.plan("o", []string{"o"})
	if err != nil {
		t.Fatal(err)
	}
	ts, err := b.nativeTransformers(kd)
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, st := range ts {
		got = append(got, reflect.TypeOf(st.Transformer).String())
	}
	want := []string{"*kustomize.smPatchTransformer", "*kustomize.json6902Transformer", "*kustomize.json6902Transformer",
		"*builtins.PatchTransformerPlugin", "*kustomize.json6902Transformer"}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("transformers %v, want %v", got, want)
	}
}
