package kustomize

import (
	"context"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"sigs.k8s.io/kustomize/api/krusty"
	"sigs.k8s.io/kustomize/api/resource"
	"sigs.k8s.io/kustomize/kyaml/filesys"
	"sigs.k8s.io/yaml"
)

// linkPrefix marks a fixture entry that is a symlink to the rest of the
// value.
const linkPrefix = "@link:"

// writeTree writes a fixture tree into a new temporary directory and
// returns the directory.
func writeTree(t testing.TB, files map[string]string) string {
	t.Helper()
	dir := t.TempDir()
	for name, content := range files {
		p := filepath.Join(dir, filepath.FromSlash(name))
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if target, ok := strings.CutPrefix(content, linkPrefix); ok {
			if err := os.Symlink(target, p); err != nil {
				t.Fatal(err)
			}
			continue
		}
		if err := os.WriteFile(p, []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	return dir
}

// rootFS opens dir the way the site loader does, so that symlinks that
// leave it fail for real.
func rootFS(t testing.TB, dir string) fs.FS {
	t.Helper()
	root, err := os.OpenRoot(dir)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { root.Close() })
	return root.FS()
}

func build(t testing.TB, files map[string]string, dir string, opts ...Option) (*Result, error) {
	t.Helper()
	return Build(context.Background(), rootFS(t, writeTree(t, files)), dir, opts...)
}

func mustBuild(t testing.TB, files map[string]string, dir string, opts ...Option) *Result {
	t.Helper()
	r, err := build(t, files, dir, opts...)
	if err != nil {
		t.Fatalf("Build: %v", err)
	}
	return r
}

// reference builds dir with plain krusty on disk (default options): what
// `kustomize build` outputs, to compare against.
func reference(t testing.TB, root, dir string) []string {
	t.Helper()
	m, err := krusty.MakeKustomizer(krusty.MakeDefaultOptions()).Run(filesys.MakeFsOnDisk(), filepath.Join(root, dir))
	if err != nil {
		t.Fatalf("reference build: %v", err)
	}
	var out []string
	for _, r := range m.Resources() {
		y, err := r.AsYAML()
		if err != nil {
			t.Fatal(err)
		}
		out = append(out, string(y))
	}
	return out
}

func datas(r *Result) []string {
	out := make([]string, len(r.Documents))
	for i, d := range r.Documents {
		out[i] = string(d.Data)
	}
	return out
}

// get returns the value at a dotted path (list indices as numbers) in a
// YAML document.
func get(t testing.TB, data []byte, p string) any {
	t.Helper()
	var v any
	if err := yaml.Unmarshal(data, &v); err != nil {
		t.Fatalf("unmarshal: %v\n%s", err, data)
	}
	for _, k := range strings.Split(p, ".") {
		switch x := v.(type) {
		case map[string]any:
			v = x[k]
		case []any:
			i, err := strconv.Atoi(k)
			if err != nil || i >= len(x) {
				return nil
			}
			v = x[i]
		default:
			return nil
		}
	}
	return v
}

// find returns the document of the given kind and name.
func find(t testing.TB, r *Result, kind, name string) Document {
	t.Helper()
	for _, d := range r.Documents {
		if d.Kind == kind && d.Name == name {
			return d
		}
	}
	var have []string
	for _, d := range r.Documents {
		have = append(have, d.Kind+"/"+d.Name)
	}
	t.Fatalf("no %s %q in the output; have %v", kind, name, have)
	return Document{}
}

const ciBase = `# The base ClusterInstance every site starts from.
apiVersion: siteconfig.open-cluster-management.io/v1alpha1
kind: ClusterInstance
metadata:
  name: base
  namespace: base
spec:
  clusterName: base
  baseDomain: example.com
  clusterImageSetNameRef: img-4.16
  pullSecretRef:
    name: pull-secret
  templateRefs:
  - name: ai-cluster-templates-v1
    namespace: open-cluster-management
  nodes:
  - hostName: node1.example.com
    bmcAddress: redfish-virtualmedia://10.0.0.1/redfish/v1/Systems/1
    bootMACAddress: "00:00:00:00:00:00"
    bmcCredentialsName:
      name: bmc-secret
    templateRefs:
    - name: ai-node-templates-v1
      namespace: open-cluster-management
`

const scBase = `apiVersion: ran.openshift.io/v1
kind: SiteConfig
metadata:
  name: base
  namespace: base
spec:
  baseDomain: example.com
  pullSecretRef:
    name: pull-secret
  clusterImageSetNameRef: img-4.16
  sshPublicKey: ssh-ed25519 AAAA
  clusters:
  - clusterName: base
    networkType: OVNKubernetes
    nodes:
    - hostName: node1.example.com
      bmcAddress: redfish-virtualmedia://10.0.0.1/redfish/v1/Systems/1
      bootMACAddress: "00:00:00:00:00:00"
`

// siteConfig is a SiteConfig file for the generators layout.
func siteConfig(name string) string {
	return strings.ReplaceAll(scBase, "base", name)
}

const secretDoc = `apiVersion: v1
kind: Secret
metadata:
  name: bmc-secret
  namespace: base
type: Opaque
data:
  username: dXNlcg==
`

func kust(body string) string {
	return "apiVersion: kustomize.config.k8s.io/v1beta1\nkind: Kustomization\n" + body
}

// marker is a script that creates the file given as its first word
// when run, to prove that nothing was.
func marker(path string) string {
	return fmt.Sprintf("#!/bin/sh\ntouch %s\necho 'apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: ran'\n", path)
}

// buildPath is how a build made its objects.
type buildPath string

const (
	byFiles  buildPath = "from the files alone"
	byNative buildPath = "natively"
	byKrusty buildPath = "with krusty"
)

// pathOf runs build and tells how it built: with krusty if krusty ran at
// all, natively if only the native path ran, else from the files alone.
// Tests that use it do not run in parallel.
func pathOf(build func()) buildPath {
	k, n := krustyRuns.Load(), nativeRuns.Load()
	build()
	switch {
	case krustyRuns.Load() != k:
		return byKrusty
	case nativeRuns.Load() != n:
		return byNative
	}
	return byFiles
}

// noNative builds every transforming directory with krusty.
func noNative(o *options) { o.noNative = true }

// sameOutput fails unless an object a native step changed (mine) is output
// as kustomize outputs the object its own code changed (theirs).
func sameOutput(t *testing.T, what string, mine, theirs *resource.Resource) {
	t.Helper()
	got, err := krustyYAML(mine)
	if err != nil {
		t.Fatal(err)
	}
	want, err := theirs.AsYAML()
	if err != nil {
		t.Fatal(err)
	}
	if string(got) != string(want) {
		t.Errorf("%s:\n%s\nkustomize:\n%s", what, got, want)
	}
}
