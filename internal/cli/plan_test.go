package cli

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/siteops/siteops/internal/plan"
)

// A pull request that changes a started site's boot MAC, adds a site,
// removes one and breaks one, planned against its base in a real Git
// repository.
func TestPlanAgainstBase(t *testing.T) {
	r := newFleetRepo(t)
	r.commit(map[string]string{
		"sites/alpha.yaml": fleetSite("alpha", 1), "sites/bravo.yaml": fleetSite("bravo", 2),
		"sites/charlie.yaml": fleetSite("charlie", 3), "sites/delta.yaml": fleetSite("delta", 4),
		"status/alpha.yaml": statusDoc("alpha", "Installed", "installed"),
	})
	r.commit(map[string]string{
		"sites/alpha.yaml":   strings.Replace(fleetSite("alpha", 1), "0a:5e:00:00:01:00", "0a:5e:00:00:09:00", 1),
		"sites/bravo.yaml":   "",
		"sites/charlie.yaml": strings.Replace(fleetSite("charlie", 3), "role: master", "role: [", 1),
		"sites/echo.yaml":    fleetSite("echo", 5),
	})
	stdout, stderr, code := run(t, "plan", "--root", r.root, "--base", "HEAD~1", r.root)
	if code != ExitOK {
		t.Fatalf("exit %d\n%s", code, stderr)
	}
	for _, want := range []string{
		"Plan: HEAD~1 -> working tree: 1 added, 1 removed, 1 changed, 1 broken; 1 unchanged",
		"~ site alpha (sites/alpha.yaml:13:7): changed",
		"deny change.immutable-field: the boot MAC of host alpha.example.net of site alpha changed",
		`spec.bootMACAddress: "0a:5e:00:00:01:00" -> "0a:5e:00:00:09:00"`,
		"- site bravo (sites/bravo.yaml:13:7): removed", "! site charlie", "error sites/charlie.yaml:",
		"+ site echo (sites/echo.yaml:13:7): added", "+ BareMetalHost echo/echo.example.net",
	} {
		if !strings.Contains(stdout, want) {
			t.Errorf("plan lacks %q:\n%s", want, stdout)
		}
	}
	if strings.Contains(stdout, "site delta") {
		t.Errorf("an unchanged site is listed:\n%s", stdout)
	}

	stdout, _, code = run(t, "plan", "--root", r.root, "--base", "HEAD~1", "-o", "json", r.root)
	var p plan.Plan
	if err := json.Unmarshal([]byte(stdout), &p); code != ExitOK || err != nil || p.Count(plan.Added) != 1 || p.Sites[0].Site != "alpha" || len(p.Sites[0].Findings) != 1 {
		t.Errorf("-o json: exit %d, %v, %+v", code, err, p)
	}
	stdout, _, code = run(t, "plan", "--root", r.root, "--base", "HEAD~1", "-o", "markdown", r.root)
	if code != ExitOK || !strings.Contains(stdout, "**1 added · 1 removed · 1 changed · 1 broken** (1 unchanged)") || !strings.Contains(stdout, "<details>") {
		t.Errorf("-o markdown: exit %d\n%s", code, stdout)
	}

	for _, tt := range []struct {
		args []string
		err  string
	}{
		{[]string{}, "give it with --base"},
		{[]string{"--base", "nosuch"}, `revision "nosuch" not found`},
		{[]string{"--base", "HEAD", "-o", "html"}, "-o \"html\""},
	} {
		_, stderr, code := run(t, append(append([]string{"plan", "--root", r.root}, tt.args...), r.root)...)
		if code != ExitUsage || !strings.Contains(stderr, tt.err) {
			t.Errorf("%v: exit %d, %s", tt.args, code, stderr)
		}
	}
}
