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
