package cli

import (
	"bytes"
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

const goodSite = `apiVersion: ran.openshift.io/v1
kind: SiteConfig
metadata:
  name: good
spec:
  baseDomain: example.com
  pullSecretRef:
    name: ps
  clusterImageSetNameRef: img
  clusters:
    - clusterName: %s
      nodes:
        - hostName: %s-0
          bmcAddress: redfish-virtualmedia+https://192.0.2.1/redfish/v1/Systems/1
          bmcCredentialsName:
            name: bmc
          bootMACAddress: "02:00:00:00:00:01"
`

func writeTree(t *testing.T, files map[string]string) string {
	t.Helper()
	dir := t.TempDir()
	for name, content := range files {
		p := filepath.Join(dir, name)
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	return dir
}

func site(name string) string { return strings.ReplaceAll(goodSite, "%s", name) }

func run(t *testing.T, args ...string) (string, string, int) {
	t.Helper()
	var out, errb bytes.Buffer
	code := Main(context.Background(), args, &out, &errb)
	return out.String(), errb.String(), code
}

func TestRenderExitCodes(t *testing.T) {
	dir := writeTree(t, map[string]string{
		"a.yaml": site("alpha"),
		"b.yaml": site("bravo"),
		"broken.yaml": `apiVersion: ran.openshift.io/v1
kind: SiteConfig
metadata: {name: broken}
spec:
  clusterImageSetNameRef: img
  clusters:
    - clusterName: charlie
      holdInstallation: maybe
      nodes: [{hostName: c-0}]
`,
	})
	empty := t.TempDir()
	if err := os.WriteFile(filepath.Join(empty, "notes.yaml"), []byte("kind: ConfigMap\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		name       string
		args       []string
		code       int
		stdoutHas  []string
		stderrHas  []string
		stdoutNone []string
	}{
		{name: "good sites render and the broken one is reported",
			args: []string{"render", "--root", dir, dir}, code: ExitFailure,
			stdoutHas:  []string{"name: alpha", "name: bravo"},
			stdoutNone: []string{"charlie"},
			stderrHas:  []string{"broken.yaml:8:25: site charlie: spec.clusters[0].holdInstallation: must be true or false"}},
		{name: "only good sites", args: []string{"render", "--root", dir, filepath.Join(dir, "a.yaml")}, code: ExitOK,
			stdoutHas: []string{"kind: BareMetalHost"}},
		{name: "unknown output format", args: []string{"render", "--root", dir, "-o", "xml", dir}, code: ExitUsage,
			stderrHas: []string{`unknown output format "xml"`}},
		{name: "path outside the root", args: []string{"render", "--root", dir, "/"}, code: ExitUsage,
			stderrHas: []string{"outside the fleet root"}},
		{name: "unknown flag", args: []string{"render", "--bogus"}, code: ExitUsage},
		{name: "missing path is a usage error", args: []string{"render", "--root", dir, filepath.Join(dir, "nope.yaml")}, code: ExitUsage,
			stderrHas: []string{"nope.yaml does not exist: check the path"}},
		{name: "a relative path is not relative to --root", args: []string{"render", "--root", dir, "a.yaml"}, code: ExitUsage,
			stderrHas: []string{"a.yaml does not exist: paths on the command line are relative to the working directory", "did you mean " + filepath.Join(dir, "a.yaml") + "?"}},
		{name: "--root that does not exist", args: []string{"render", "--root", filepath.Join(dir, "none"), "a.yaml"}, code: ExitUsage,
			stderrHas: []string{"--root " + filepath.Join(dir, "none") + " does not exist"}},
		{name: "without --root a path outside the working directory is its own root", args: []string{"render", filepath.Join(dir, "a.yaml")}, code: ExitOK,
			stdoutHas: []string{"kind: BareMetalHost"}},
		{name: "a folder without sites fails render", args: []string{"render", empty}, code: ExitFailure,
			stderrHas: []string{"no site found under . (fleet root " + empty + "): give the folder or file that holds the SiteConfigs"}},
		{name: "a folder without sites fails check", args: []string{"check", empty}, code: ExitFailure,
			stderrHas: []string{"no site found under"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			stdout, stderr, code := run(t, tt.args...)
			if code != tt.code {
				t.Errorf("exit %d, want %d; stderr:\n%s", code, tt.code, stderr)
			}
			for _, s := range tt.stdoutHas {
				if !strings.Contains(stdout, s) {
					t.Errorf("stdout lacks %q", s)
				}
			}
			for _, s := range tt.stdoutNone {
				if strings.Contains(stdout, s) {
					t.Errorf("stdout has %q", s)
				}
			}
			for _, s := range tt.stderrHas {
				if !strings.Contains(stderr, s) {
					t.Errorf("stderr lacks %q:\n%s", s, stderr)
				}
			}
		})
	}
}

func TestRenderJSONIsOneList(t *testing.T) {
	dir := writeTree(t, map[string]string{"a.yaml": site("alpha"), "b.yaml": site("bravo"), "c.yaml": "kind: SiteConfig\napiVersion: ran.openshift.io/v9\n"})
	stdout, _, code := run(t, "render", "--root", dir, "-o", "json", dir)
	if code != ExitFailure {
		t.Errorf("exit %d, want %d", code, ExitFailure)
	}
	var list struct {
		Kind  string           `json:"kind"`
		Items []map[string]any `json:"items"`
	}
	if err := json.Unmarshal([]byte(stdout), &list); err != nil {
		t.Fatalf("not JSON: %v\n%s", err, stdout)
	}
	if list.Kind != "List" || len(list.Items) != 16 {
		t.Errorf("kind %q with %d items, want a List of 16", list.Kind, len(list.Items))
	}
}

func TestRenderOutDir(t *testing.T) {
	dir := writeTree(t, map[string]string{"a.yaml": site("alpha"), "b.yaml": site("bravo")})
	out := filepath.Join(t.TempDir(), "rendered")
	stdout, stderr, code := run(t, "render", "--root", dir, "--out-dir", out, dir)
	if code != ExitOK || stdout != "" {
		t.Fatalf("exit %d, stdout %q, stderr %s", code, stdout, stderr)
	}
	for _, name := range []string{"alpha.yaml", "bravo.yaml"} {
		data, err := os.ReadFile(filepath.Join(out, name))
		if err != nil {
			t.Fatal(err)
		}
		if !bytes.Contains(data, []byte("kind: KlusterletAddonConfig")) {
			t.Errorf("%s is incomplete", name)
		}
	}
	entries, _ := os.ReadDir(out)
	if len(entries) != 2 {
		t.Errorf("out dir holds %d entries, want 2 (no temporary files left)", len(entries))
	}
}

func TestRenderBrokenDefaultManifestsReportedOnce(t *testing.T) {
	dir := writeTree(t, map[string]string{"a.yaml": site("alpha"), "b.yaml": site("bravo")})
	manifests := writeTree(t, map[string]string{"10-bad.yaml": "kind: [unclosed\n", "20-good.yaml": "kind: Namespace\n"})
	stdout, stderr, code := run(t, "render", "--root", dir, "--extra-manifests-dir", manifests, dir)
	if code != ExitFailure || stdout != "" {
		t.Fatalf("exit %d, stdout %q", code, stdout)
	}
	if n := strings.Count(stderr, "10-bad.yaml"); n != 1 {
		t.Errorf("the broken manifest is reported %d times, want once:\n%s", n, stderr)
	}
}

func TestRenderOutDirRefusesUnsafeNames(t *testing.T) {
	dir := writeTree(t, map[string]string{"a.yaml": site("alpha"), "b.yaml": strings.Replace(site("bravo"), "clusterName: bravo", "clusterName: ../../escaped", 1)})
	parent := t.TempDir()
	out := filepath.Join(parent, "a", "b")
	_, stderr, code := run(t, "render", "--root", dir, "--out-dir", out, dir)
	if code != ExitFailure {
		t.Errorf("exit %d, want %d", code, ExitFailure)
	}
	if !strings.Contains(stderr, "cannot name a file in --out-dir") {
		t.Errorf("stderr:\n%s", stderr)
	}
	if _, err := os.Stat(filepath.Join(parent, "escaped.yaml")); err == nil {
		t.Fatal("a site was written outside --out-dir")
	}
	st, err := os.Stat(filepath.Join(out, "alpha.yaml"))
	if err != nil {
		t.Fatalf("the good site was not written: %v", err)
	}
	if st.Mode().Perm() != 0o644 {
		t.Errorf("mode %v, want 0644", st.Mode().Perm())
	}
}

// TestRenderStreamIsDeterministic renders the example fleet twice through
// the command (the streaming path) and compares the bytes.
func TestRenderStreamIsDeterministic(t *testing.T) {
	args := []string{"render", "--root", "../../examples/fleet", "--extra-manifests-dir", "../../examples/extra-manifests", "../../examples/fleet"}
	first, stderr, code := run(t, args...)
	if code != ExitOK {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	for i := 0; i < 3; i++ {
		again, _, _ := run(t, args...)
		if again != first {
			t.Fatal("two renders of the same fleet differ")
		}
	}
	if !strings.Contains(first, "kind: HostFirmwareSettings") {
		t.Error("the example fleet is incomplete")
	}
}

const ciBase = `apiVersion: siteconfig.open-cluster-management.io/v1alpha1
kind: ClusterInstance
metadata:
  name: base
  namespace: base
spec:
  clusterName: base
  baseDomain: example.com
  clusterImageSetNameRef: img
  pullSecretRef: {name: ps}
  clusterType: SNO
  templateRefs: [{name: ai-cluster-templates-v1, namespace: open-cluster-management}]
  nodes:
  - hostName: node0
    bmcAddress: redfish://192.0.2.1/redfish/v1/Systems/1
    bmcCredentialsName: {name: bmc}
    bootMACAddress: "02:00:00:00:00:01"
    templateRefs: [{name: ai-node-templates-v1, namespace: open-cluster-management}]
`

// TestRenderKustomizeTrees: an overlay's patched ClusterInstance renders
// with the patched values; a tree asking for an exec plugin fails with a
// message naming its kustomization, runs nothing, and the other tree still
// renders.
func TestRenderKustomizeTrees(t *testing.T) {
	marker := filepath.Join(t.TempDir(), "ran")
	dir := writeTree(t, map[string]string{
		"good/base/kustomization.yaml": "resources: [ci.yaml]\n",
		"good/base/ci.yaml":            ciBase,
		"good/site/kustomization.yaml": `resources: [../base]
patches:
- target: {kind: ClusterInstance}
  patch: |-
    - {op: replace, path: /metadata/name, value: east-1}
    - {op: replace, path: /metadata/namespace, value: east-1}
    - {op: replace, path: /spec/clusterName, value: east-1}
    - {op: replace, path: /spec/nodes/0/bootMACAddress, value: "02:00:00:00:0e:01"}
`,
		"bad/kustomization.yaml": "generators: [plugin.yaml]\n",
		"bad/plugin.yaml":        "apiVersion: example.com/v1\nkind: Runner\nmetadata:\n  name: r\n  annotations:\n    config.kubernetes.io/function: |\n      exec:\n        path: ./run.sh\n",
		"bad/run.sh":             "#!/bin/sh\ntouch " + marker + "\n",
	})
	stdout, stderr, code := run(t, "render", "--root", dir, filepath.Join(dir, "good/site"), filepath.Join(dir, "bad"))
	if code != ExitFailure {
		t.Errorf("exit %d, want %d", code, ExitFailure)
	}
	if !strings.Contains(stderr, "bad/kustomization.yaml:1") || !strings.Contains(stderr, "is refused") {
		t.Errorf("stderr does not name the refused entry:\n%s", stderr)
	}
	if _, err := os.Stat(marker); err == nil {
		t.Fatal("the plugin ran")
	}
	for _, want := range []string{"name: east-1", "bootMACAddress: 02:00:00:00:0e:01", "kind: BareMetalHost"} {
		if !strings.Contains(stdout, want) {
			t.Errorf("stdout lacks %q", want)
		}
	}
	if strings.Contains(stdout, "name: base\n") {
		t.Error("the unpatched base was rendered")
	}
}

// TestRenderKustomizePositions: a problem in a patched object points at the
// object in the file it came from, with the field path.
func TestRenderKustomizePositions(t *testing.T) {
	dir := writeTree(t, map[string]string{
		"base/kustomization.yaml": "resources: [ci.yaml]\n",
		"base/ci.yaml":            "# a base\n" + ciBase,
		"site/kustomization.yaml": "resources: [../base]\npatches:\n- target: {kind: ClusterInstance}\n  patch: |-\n    - {op: add, path: /spec/networkType, value: Calico}\n",
	})
	_, stderr, code := run(t, "render", "--root", dir, filepath.Join(dir, "site"))
	if code != ExitFailure {
		t.Fatalf("exit %d, want %d", code, ExitFailure)
	}
	if want := `base/ci.yaml:2: site base: spec.networkType: "Calico" is not allowed`; !strings.Contains(stderr, want) {
		t.Errorf("stderr:\n%s\nwant %q", stderr, want)
	}
}
