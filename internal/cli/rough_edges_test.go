package cli

import (
	"strings"
	"testing"
)

// render and check warn of a site file that the kustomization beside it
// does not list, which kustomize (and so Argo CD) would skip silently.
func TestUnlistedSiteFileIsAWarning(t *testing.T) {
	dir := writeTree(t, map[string]string{
		"kustomization.yaml": "generators: [a.yaml]\n",
		"a.yaml":             site("alpha"),
		"b.yaml":             site("bravo"),
	})
	for _, cmd := range []string{"render", "check"} {
		stdout, stderr, code := run(t, cmd, "--root", dir, dir)
		out := stdout + stderr
		if code != ExitOK || !strings.Contains(out, "b.yaml") || !strings.Contains(out, "defines a SiteConfig that kustomization.yaml does not list, so it is not loaded") ||
			strings.Contains(stdout, "name: bravo") {
			t.Errorf("%s: exit %d\nstdout:\n%s\nstderr:\n%s", cmd, code, stdout, stderr)
		}
	}
}

// A deprecated field is a warning of render and of check, on the field;
// a ClusterInstance listed under generators: says where it belongs.
func TestDeprecatedFieldsAndMisplacedClusterInstances(t *testing.T) {
	deprecated := strings.Replace(site("alpha"), "      nodes:\n", "      extraManifestPath: extra\n      nodes:\n", 1)
	dir := writeTree(t, map[string]string{
		"a.yaml":                deprecated,
		"extra/keep.yaml":       "apiVersion: v1\nkind: ConfigMap\nmetadata: {name: keep}\n",
		"ci/kustomization.yaml": "generators:\n  - instance.yaml\n",
		"ci/instance.yaml":      "apiVersion: siteconfig.open-cluster-management.io/v1alpha1\nkind: ClusterInstance\nmetadata: {name: fenwick}\nspec: {}\n",
	})
	const want = "a.yaml:12:7: warning: site alpha: spec.clusters[0].extraManifestPath: deprecated: extraManifestPath will be deprecated after OCP 4.15"
	if _, stderr, code := run(t, "render", "--root", dir, dir+"/a.yaml"); code != ExitOK || !strings.Contains(stderr, want) {
		t.Errorf("render: exit %d\n%s", code, stderr)
	}
	if stdout, _, code := run(t, "check", "--root", dir, dir+"/a.yaml"); code != ExitOK ||
		!strings.Contains(stdout, "warn site.load-warning: site alpha: spec.clusters[0].extraManifestPath: deprecated: ") {
		t.Errorf("check: exit %d\n%s", code, stdout)
	}
	if _, stderr, code := run(t, "render", "--root", dir, dir+"/ci"); code != ExitFailure ||
		!strings.Contains(stderr, `ClusterInstance "fenwick" is a resource, not a generator plugin: list it under resources:`) {
		t.Errorf("ClusterInstance under generators: exit %d\n%s", code, stderr)
	}
}
