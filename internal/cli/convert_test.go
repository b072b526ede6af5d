package cli

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/siteops/siteops/sites"
)

// convertSiteConfig is a SiteConfig with one cluster; %[1]s is the
// cluster name.
const convertSiteConfig = `apiVersion: ran.openshift.io/v1
kind: SiteConfig
metadata:
  name: %[1]s-site
spec:
  baseDomain: example.com
  pullSecretRef:
    name: ps
  clusterImageSetNameRef: img
  clusters:
    - clusterName: %[1]s
      apiVIP: 192.0.2.5
      nodes:
        - hostName: %[1]s-0
          bmcAddress: redfish-virtualmedia+https://192.0.2.1/redfish/v1/Systems/1
          bmcCredentialsName:
            name: bmc
          bootMACAddress: "02:00:00:00:00:01"
`

const convertClusterInstance = `apiVersion: siteconfig.open-cluster-management.io/v1alpha1
kind: ClusterInstance
metadata: {name: ci1, namespace: ci1}
spec:
  clusterName: ci1
  baseDomain: example.com
  clusterImageSetNameRef: img
  pullSecretRef: {name: ps}
  templateRefs: [{name: ai-cluster-templates-v1, namespace: open-cluster-management}]
  nodes:
    - hostName: n0
      bmcAddress: redfish://192.0.2.1/redfish/v1/Systems/1
      bmcCredentialsName: {name: bmc}
      bootMACAddress: "02:00:00:00:00:01"
      templateRefs: [{name: ai-node-templates-v1, namespace: open-cluster-management}]
`

func scSite(name string) string { return strings.ReplaceAll(convertSiteConfig, "%[1]s", name) }

func convertTree(t *testing.T, files map[string]string) string {
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

func runConvertCmd(t *testing.T, args ...string) (stdout, stderr string, code int) {
	t.Helper()
	var out, errb bytes.Buffer
	code = Main(context.Background(), append([]string{"convert"}, args...), &out, &errb)
	return out.String(), errb.String(), code
}

// noteLine is the report format: file:line:col: site S: field: kind: message.
var noteLine = regexp.MustCompile(`^[^:]+\.yaml:\d+:\d+: site [a-z0-9-]+: \S+: (dropped|renamed|changed|manual-step): \S.*$`)

func TestConvertStdout(t *testing.T) {
	dir := convertTree(t, map[string]string{
		"b.yaml":  scSite("bravo"),
		"a.yaml":  scSite("alpha"),
		"ci.yaml": convertClusterInstance,
	})
	stdout, stderr, code := runConvertCmd(t, "--root", dir, dir)
	if code != ExitOK {
		t.Fatalf("exit %d, want 0; stderr:\n%s", code, stderr)
	}
	docs := strings.Split(stdout, "---\n")
	if len(docs) != 3 || docs[0] != "" {
		t.Fatalf("stdout is not two documents each after ---:\n%s", stdout)
	}
	for i, name := range []string{"alpha", "bravo"} {
		if !strings.Contains(docs[i+1], "kind: ClusterInstance\nmetadata:\n  name: "+name+"\n  namespace: "+name+"\n") {
			t.Errorf("document %d is not ClusterInstance %s:\n%s", i+1, name, docs[i+1])
		}
	}
	lines := strings.Split(strings.TrimSuffix(stderr, "\n"), "\n")
	var skipped, renamed bool
	for _, l := range lines {
		switch {
		case strings.Contains(l, "site ci1: kind: skipped: already a ClusterInstance"):
			skipped = true
		case !noteLine.MatchString(l):
			t.Errorf("stderr line is not a note: %q", l)
		case strings.Contains(l, "a.yaml:12:7: site alpha: spec.clusters[0].apiVIP: renamed: "):
			renamed = true
		}
	}
	if !skipped || !renamed {
		t.Errorf("stderr lacks the skipped ClusterInstance (%v) or alpha's apiVIP note (%v):\n%s", skipped, renamed, stderr)
	}
}

func TestConvertOutDir(t *testing.T) {
	dir := convertTree(t, map[string]string{"a.yaml": scSite("alpha"), "b.yaml": scSite("bravo")})
	out := filepath.Join(t.TempDir(), "out")
	stdout, stderr, code := runConvertCmd(t, "--root", dir, "--out-dir", out, "--template-namespace", "mce", dir)
	if code != ExitOK || stdout != "" {
		t.Fatalf("exit %d, stdout %q, want 0 and nothing; stderr:\n%s", code, stdout, stderr)
	}
	entries, err := os.ReadDir(out)
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, e := range entries {
		names = append(names, e.Name())
	}
	if strings.Join(names, " ") != "alpha.yaml bravo.yaml" {
		t.Fatalf("--out-dir holds %v, want alpha.yaml bravo.yaml", names)
	}
	// What was written loads back as ClusterInstances.
	fleet, err := sites.Load(context.Background(), os.DirFS(out), []string{"."})
	if err != nil {
		t.Fatal(err)
	}
	if len(fleet.Problems) > 0 || len(fleet.Sites) != 2 {
		t.Fatalf("the written files load with %d sites and problems %v", len(fleet.Sites), fleet.Problems)
	}
	for _, s := range fleet.Sites {
		if s.Format != sites.FormatClusterInstance || s.Instance.Spec.TemplateRefs[0].Namespace != "mce" {
			t.Errorf("%s: format %s, template namespace %q", s.Name, s.Format, s.Instance.Spec.TemplateRefs[0].Namespace)
		}
	}
}

func TestConvertFailures(t *testing.T) {
	dir := convertTree(t, map[string]string{
		"good.yaml": scSite("good"),
		// Loads as a SiteConfig, but ClusterInstance requires a MAC.
		"badmac.yaml": strings.ReplaceAll(scSite("badmac"), `"02:00:00:00:00:01"`, `"0200.0000.0001"`),
		// Does not load at all.
		"broken.yaml": "apiVersion: ran.openshift.io/v1\nkind: SiteConfig\nmetadata: {name: x}\nspec:\n  clusters:\n    - clusterName: broken\n      holdInstallation: maybe\n",
		// A name --out-dir must refuse.
		"dot.yaml": scSite(".hidden"),
	})
	out := filepath.Join(t.TempDir(), "out")
	stdout, stderr, code := runConvertCmd(t, "--root", dir, "--out-dir", out, dir)
	if code != ExitFailure {
		t.Fatalf("exit %d, want 1; stderr:\n%s", code, stderr)
	}
	for _, want := range []string{
		"badmac.yaml:18:11: site badmac: spec.clusters[0].nodes[0].bootMACAddress: bootMACAddress is not a MAC address",
		"broken.yaml:7:25: site broken: spec.clusters[0].holdInstallation:",
		`site .hidden: spec.clusters[0].clusterName: cluster name ".hidden" cannot name a file in --out-dir`,
	} {
		if !strings.Contains(stderr, want) {
			t.Errorf("stderr lacks %q:\n%s", want, stderr)
		}
	}
	if stdout != "" {
		t.Errorf("stdout = %q, want nothing", stdout)
	}
	if strings.Contains(stderr, "site .hidden: spec.clusters[0].apiVIP") {
		t.Errorf("notes were printed for a cluster that is not written:\n%s", stderr)
	}
	// The good cluster is still written; nothing else is.
	entries, _ := os.ReadDir(out)
	if len(entries) != 1 || entries[0].Name() != "good.yaml" {
		t.Errorf("--out-dir holds %v, want only good.yaml", entries)
	}
}

func TestConvertUsage(t *testing.T) {
	dir := convertTree(t, map[string]string{"a.yaml": scSite("alpha")})
	for _, tc := range []struct {
		name string
		args []string
		code int
	}{
		{"no path", []string{"--root", dir}, ExitUsage},
		{"empty template namespace", []string{"--root", dir, "--template-namespace", "", dir}, ExitUsage},
		{"unknown flag", []string{"--nope", dir}, ExitUsage},
		{"missing root", []string{"--root", filepath.Join(dir, "nope"), dir}, ExitUsage},
		{"path outside the root", []string{"--root", dir, t.TempDir()}, ExitUsage},
		{"missing extra-manifest dir", []string{"--root", dir, "--extra-manifests-dir", filepath.Join(dir, "nope"), dir}, ExitUsage},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if _, stderr, code := runConvertCmd(t, tc.args...); code != tc.code {
				t.Errorf("exit %d, want %d; stderr:\n%s", code, tc.code, stderr)
			}
		})
	}
	empty := convertTree(t, map[string]string{"README.md": "no sites here\n"})
	if _, stderr, code := runConvertCmd(t, "--root", empty, empty); code != ExitFailure || !strings.Contains(stderr, "no SiteConfig found") {
		t.Errorf("an empty tree: exit %d, stderr %q; want 1 and a message", code, stderr)
	}
}

// TestConvertDeterministic runs the example fleet twice: the output and
// the report must be byte-identical.
func TestConvertDeterministic(t *testing.T) {
	args := []string{"--root", "../../examples/fleet", "--extra-manifests-dir", "../../examples/extra-manifests", "../../examples/fleet"}
	out1, err1, code := runConvertCmd(t, args...)
	if code != ExitOK {
		t.Fatalf("exit %d; stderr:\n%s", code, err1)
	}
	for range 3 {
		out2, err2, _ := runConvertCmd(t, args...)
		if out1 != out2 || err1 != err2 {
			t.Fatal("two runs over the example fleet differ")
		}
	}
	if !strings.Contains(err1, "granite-ha.yaml") || !strings.Contains(err1, "05-master-kernel-args.yaml") {
		t.Errorf("the report does not list the extra-manifest files:\n%s", err1)
	}
}
