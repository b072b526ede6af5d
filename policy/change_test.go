package policy

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/siteops/siteops/policy/report"
)

func TestInstallStarted(t *testing.T) {
	for _, tt := range []struct {
		phase, state string
		want         bool
	}{
		{"Pending", "", false},
		{"Provisioning", "insufficient", false},
		{"PolicyFailed", "ready", false},
		{"Provisioning", "preparing-for-installation", true},
		{"Installing", "", true},
		{"Installed", "installed", true},
		{"Failed", "error", true},
		{"Pending", "adding-hosts", true},
		{"Deleting", "", false},
	} {
		if got := InstallStarted(tt.phase, tt.state); got != tt.want {
			t.Errorf("InstallStarted(%q, %q) = %v, want %v", tt.phase, tt.state, got, tt.want)
		}
	}
	if HostInstallStarted("known") || !HostInstallStarted("installing-in-progress") || !HostInstallStarted("installed") {
		t.Error("HostInstallStarted: known is not started; installing-in-progress and installed are")
	}
}

func TestDeletionBudget(t *testing.T) {
	for size, want := range map[int]int{0: 5, 10: 5, 59: 5, 60: 6, 69: 6, 1000: 100, 10000: 1000} {
		if got := DeletionBudget(size); got != want {
			t.Errorf("DeletionBudget(%d) = %d, want %d", size, got, want)
		}
	}
}

// checkChange checks head against base, each written as sites.yaml of a
// directory of its own (the same file in two revisions), with the given
// change settings (Base is filled in).
func checkChange(t *testing.T, base, head string, c Change) *report.Report {
	t.Helper()
	load := func(text string) string {
		dir := t.TempDir()
		if err := os.WriteFile(filepath.Join(dir, "sites.yaml"), []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
		return dir
	}
	c.Base, _ = loadFixture(t, load(base), "sites.yaml")
	fleet, bundles := loadFixture(t, load(head), "sites.yaml")
	rep, err := testEngine(t).Check(context.Background(), fleet, bundles, WithChange(c))
	if err != nil {
		t.Fatal(err)
	}
	return rep
}

func count(rep *report.Report, rule string) int {
	n := 0
	for _, f := range rep.Findings {
		if f.Rule == rule {
			n++
		}
	}
	return n
}

func TestImmutableFields(t *testing.T) {
	dir := "rules/testdata/change.immutable-field"
	base, bad := readText(t, filepath.Join(dir, "base.yaml")), readText(t, filepath.Join(dir, "bad.yaml"))
	for _, tt := range []struct {
		name    string
		c       Change
		want    int
		message string
	}{
		{name: "started site", c: Change{Started: map[string]bool{"started": true}}, want: 5,
			message: `the boot MAC of host started.example.net of site started changed from "0a:5e:00:01:01:00" to "0a:5e:00:01:02:00" (was at sites.yaml:32:11 in base)`},
		{name: "site not started: anything may change", c: Change{Started: map[string]bool{}}, want: 0},
		{name: "host not installed yet: only cluster fields are fixed",
			c: Change{Started: map[string]bool{"started": true}, StartedHosts: map[string]map[string]bool{"started": {}}}, want: 2},
		{name: "host installed", want: 5,
			c: Change{Started: map[string]bool{"started": true}, StartedHosts: map[string]map[string]bool{"started": {"started.example.net": true}}}},
	} {
		t.Run(tt.name, func(t *testing.T) {
			tt.c.BaseRevision = "base"
			rep := checkChange(t, base, bad, tt.c)
			if n := count(rep, RuleImmutableField); n != tt.want || len(rep.Findings) != tt.want {
				t.Fatalf("%d %s findings, want %d:\n%s", n, RuleImmutableField, tt.want, describeAll(rep.Findings))
			}
			if tt.message != "" && !strings.Contains(describeAll(rep.Findings), tt.message) {
				t.Errorf("no finding says %q:\n%s", tt.message, describeAll(rep.Findings))
			}
		})
	}
	// A new host on a started site is day 2, and a removed one is gone:
	// neither is a change of an immutable field.
	withWorker := strings.Replace(base, "      nodes:\n", `      nodes:
        - hostName: worker.example.net
          role: worker
          bmcAddress: redfish-virtualmedia+http://198.51.100.11/redfish/v1/Systems/1
          bmcCredentialsName:
            name: worker-bmc
          bootMACAddress: "0a:5e:00:01:03:00"
`, 1)
	started := Change{Started: map[string]bool{"started": true}}
	if rep := checkChange(t, base, withWorker, started); len(rep.Findings) != 0 {
		t.Errorf("adding a worker:\n%s", describeAll(rep.Findings))
	}
	if rep := checkChange(t, withWorker, base, started); len(rep.Findings) != 0 {
		t.Errorf("removing a worker:\n%s", describeAll(rep.Findings))
	}
}

func TestDeletions(t *testing.T) {
	dir := "rules/testdata/change.deletion-budget"
	base, bad := readText(t, filepath.Join(dir, "base.yaml")), readText(t, filepath.Join(dir, "bad.yaml"))
	for _, tt := range []struct {
		name    string
		head    string
		allow   int
		want    int
		message string
	}{
		{name: "six of seven deleted", head: bad, want: 6,
			message: "site site-2, defined at sites.yaml:30:7 in main, is deleted: this change deletes 6 of 7 sites (site-2, site-3, site-4, site-5, site-6, site-7), more than the deletion budget of 5; if that is intended, mark the change with --allow-deletions 6"},
		{name: "marked as intended", head: bad, allow: 6},
		{name: "marked, but for fewer", head: bad, allow: 5, want: 6, message: "(it is marked as intending 5)"},
		// A file that does not load hides its sites: they are not deleted,
		// and the load problem is the finding.
		{name: "broken file", head: strings.Replace(base, "clusters:", "clusters: [", 1), want: 0},
	} {
		t.Run(tt.name, func(t *testing.T) {
			rep := checkChange(t, base, tt.head, Change{BaseRevision: "main", AllowDeletions: tt.allow})
			if n := count(rep, RuleDeletionBudget); n != tt.want {
				t.Fatalf("%d %s findings, want %d:\n%s", n, RuleDeletionBudget, tt.want, describeAll(rep.Findings))
			}
			if tt.message != "" && !strings.Contains(describeAll(rep.Findings), tt.message) {
				t.Errorf("no finding says %q:\n%s", tt.message, describeAll(rep.Findings))
			}
			for _, f := range rep.Findings {
				if f.Rule == RuleDeletionBudget && !strings.Contains(f.Message, "defined at "+f.Pos.String()+" in main") {
					t.Errorf("deleted site at %s, want its place in the base: %s", f.Pos, f.Message)
				}
			}
		})
	}
}
