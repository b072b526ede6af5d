package cli

import (
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// fleetRepo is a real Git repository holding a fleet under fleet/, made
// with the git command.
type fleetRepo struct {
	t    *testing.T
	dir  string
	root string // dir/fleet, the fleet root
}

func newFleetRepo(t *testing.T) *fleetRepo {
	t.Helper()
	dir := t.TempDir()
	r := &fleetRepo{t: t, dir: dir, root: filepath.Join(dir, "fleet")}
	r.git("init", "-q", "-b", "main")
	return r
}

func (r *fleetRepo) git(args ...string) {
	r.t.Helper()
	cmd := exec.Command("git", args...)
	cmd.Dir = r.dir
	cmd.Env = append(os.Environ(), "GIT_AUTHOR_NAME=t", "GIT_AUTHOR_EMAIL=t@example.net",
		"GIT_COMMITTER_NAME=t", "GIT_COMMITTER_EMAIL=t@example.net", "GIT_CONFIG_GLOBAL=/dev/null", "GIT_CONFIG_NOSYSTEM=1")
	if out, err := cmd.CombinedOutput(); err != nil {
		r.t.Fatalf("git %v: %v\n%s", args, err, out)
	}
}

// commit writes files under fleet/ ("" removes one) and commits them.
func (r *fleetRepo) commit(files map[string]string) {
	r.t.Helper()
	for name, content := range files {
		p := filepath.Join(r.root, name)
		if content == "" {
			if err := os.Remove(p); err != nil {
				r.t.Fatal(err)
			}
			continue
		}
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			r.t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(content), 0o644); err != nil {
			r.t.Fatal(err)
		}
	}
	r.git("add", "-A")
	r.git("commit", "-q", "--allow-empty", "-m", "change")
}

// fleetSite is a single-node site that breaks no rule; i keeps its MAC,
// BMC and addresses apart from the other sites'.
func fleetSite(name string, i int) string {
	return fmt.Sprintf(`apiVersion: ran.openshift.io/v1
kind: SiteConfig
metadata:
  name: %[1]s
  namespace: %[1]s
spec:
  baseDomain: example.net
  pullSecretRef:
    name: pull-secret
  clusterImageSetNameRef: openshift-4.20.6
  sshPublicKey: "ssh-ed25519 AAAAC3NzaC1lZDI1NTE5AAAAIExampleOnlyNotARealKeySiteopsFixture000001 ops@example.net"
  clusters:
    - clusterName: %[1]s
      networkType: OVNKubernetes
      clusterNetwork:
        - cidr: 10.128.0.0/14
          hostPrefix: 23
      machineNetwork:
        - cidr: 192.0.%[2]d.0/26
      serviceNetwork:
        - 172.30.0.0/16
      nodes:
        - hostName: %[1]s.example.net
          role: master
          bmcAddress: redfish-virtualmedia+http://198.51.100.%[2]d/redfish/v1/Systems/1
          bmcCredentialsName:
            name: %[1]s-bmc
          bootMACAddress: "0a:5e:00:00:%02[2]x:00"
`, name, i)
}

func statusDoc(site, phase, clusterState string) string {
	return fmt.Sprintf("site: %s\nphase: %s\ncluster:\n  state: %s\n  percent: 0\nhosts:\n- name: %s.example.net\n  hostname: %s.example.net\n  state: installed\n  percent: 100\n",
		site, phase, clusterState, site, site)
}

func TestCheckBaseImmutableFields(t *testing.T) {
	for _, tt := range []struct {
		name   string
		status string
		code   int
		has    []string
	}{
		{name: "installed site", status: statusDoc("alpha", "Installed", "installed"), code: ExitFailure,
			has: []string{"change.immutable-field", `the boot MAC of host alpha.example.net of site alpha changed from "0a:5e:00:00:01:00" to "0a:5e:00:00:09:00" (was at sites/alpha.yaml:28:11 in HEAD~1)`}},
		{name: "cluster installing, phase not written yet", status: statusDoc("alpha", "Pending", "preparing-for-installation"), code: ExitFailure,
			has: []string{"change.immutable-field"}},
		{name: "not started: the site may change", status: statusDoc("alpha", "Provisioning", "insufficient"), code: ExitOK},
		{name: "no status: the site may change", code: ExitOK},
		{name: "unreadable status counts as started", status: "phase: [", code: ExitFailure,
			has: []string{"change.immutable-field"}},
	} {
		t.Run(tt.name, func(t *testing.T) {
			r := newFleetRepo(t)
			files := map[string]string{"sites/alpha.yaml": fleetSite("alpha", 1), "sites/bravo.yaml": fleetSite("bravo", 2)}
			if tt.status != "" {
				files["status/alpha.yaml"] = tt.status
			}
			r.commit(files)
			r.commit(map[string]string{"sites/alpha.yaml": strings.Replace(fleetSite("alpha", 1), "0a:5e:00:00:01:00", "0a:5e:00:00:09:00", 1)})
			stdout, stderr, code := run(t, "check", "--root", r.root, "--base", "HEAD~1", r.root)
			if code != tt.code {
				t.Fatalf("exit %d, want %d\nstdout:\n%s\nstderr:\n%s", code, tt.code, stdout, stderr)
			}
			for _, s := range tt.has {
				if !strings.Contains(stdout, s) {
					t.Errorf("output lacks %q:\n%s", s, stdout)
				}
			}
			if strings.Contains(stdout, "site.load") {
				t.Errorf("the status files were read as sites:\n%s", stdout)
			}
		})
	}
}

func TestCheckBaseDeletions(t *testing.T) {
	r := newFleetRepo(t)
	files := map[string]string{}
	for i := 1; i <= 8; i++ {
		files[fmt.Sprintf("sites/site-%d.yaml", i)] = fleetSite(fmt.Sprintf("site-%d", i), i)
	}
	r.commit(files)
	removed := map[string]string{}
	for i := 3; i <= 8; i++ {
		removed[fmt.Sprintf("sites/site-%d.yaml", i)] = ""
	}
	r.commit(removed)
	stdout, _, code := run(t, "check", "--root", r.root, "--base", "main~1", r.root)
	if code != ExitFailure || strings.Count(stdout, "change.deletion-budget") != 6 ||
		!strings.Contains(stdout, "sites/site-3.yaml:13:7: deny change.deletion-budget: site site-3, defined at sites/site-3.yaml:13:7 in main~1, is deleted: this change deletes 6 of 8 sites") {
		t.Fatalf("six of eight sites deleted: exit %d\n%s", code, stdout)
	}
	if _, _, code := run(t, "check", "--root", r.root, "--base", "main~1", "--allow-deletions", "6", r.root); code != ExitOK {
		t.Errorf("--allow-deletions 6: exit %d", code)
	}
	if stdout, _, code := run(t, "check", "--root", r.root, "--base", "main~1", "--allow-deletions", "5", r.root); code != ExitFailure ||
		!strings.Contains(stdout, "marked as intending 5") {
		t.Errorf("--allow-deletions 5: exit %d\n%s", code, stdout)
	}
}

// TestCheckBaseNewFindingsOnly: a pull request is told about what it
// adds, not about what the target branch already has.
func TestCheckBaseNewFindingsOnly(t *testing.T) {
	r := newFleetRepo(t)
	// Two sites share a boot MAC on main already.
	dup := strings.Replace(fleetSite("bravo", 2), "0a:5e:00:00:02:00", "0a:5e:00:00:01:00", 1)
	r.commit(map[string]string{"sites/alpha.yaml": fleetSite("alpha", 1), "sites/bravo.yaml": dup})
	// The change adds a line above the duplicate (it moves) and a new
	// site with a bad cluster name.
	moved := strings.Replace(dup, "spec:\n", "spec:\n  # moved down one line\n", 1)
	bad := strings.ReplaceAll(fleetSite("charlie", 3), "clusterName: charlie", "clusterName: Charlie_3")
	r.commit(map[string]string{"sites/bravo.yaml": moved, "sites/charlie.yaml": bad})

	stdout, _, code := run(t, "check", "--root", r.root, r.root)
	if code != ExitFailure || !strings.Contains(stdout, "ztp.nodes.mac-unique") {
		t.Fatalf("without --base every finding is reported: exit %d\n%s", code, stdout)
	}
	stdout, _, code = run(t, "check", "--root", r.root, "--base", "main~1", r.root)
	if code != ExitFailure || strings.Contains(stdout, "ztp.nodes.mac-unique") || !strings.Contains(stdout, "ztp.cluster.dns-names") ||
		!strings.Contains(stdout, "new since main~1 only, 2 pre-existing findings hidden") {
		t.Fatalf("--base: exit %d\n%s", code, stdout)
	}
	// The formats CI reads carry the count too.
	stdout, _, _ = run(t, "check", "--root", r.root, "--base", "main~1", "-o", "json", r.root)
	var doc struct {
		Base    string         `json:"base"`
		Summary map[string]int `json:"summary"`
	}
	if err := json.Unmarshal([]byte(stdout), &doc); err != nil || doc.Base != "main~1" || doc.Summary["preExisting"] != 2 {
		t.Errorf("json: %v %+v\n%s", err, doc, stdout)
	}
	// A change that only fixes things reports nothing and passes.
	r.commit(map[string]string{"sites/charlie.yaml": ""})
	if stdout, _, code := run(t, "check", "--root", r.root, "--base", "main~2", r.root); code != ExitOK {
		t.Errorf("nothing new since main~2: exit %d\n%s", code, stdout)
	}
}

func TestCheckBaseUsage(t *testing.T) {
	r := newFleetRepo(t)
	r.commit(map[string]string{"sites/alpha.yaml": fleetSite("alpha", 1)})
	for _, tt := range []struct {
		name string
		args []string
		err  string
	}{
		{"unknown revision", []string{"--base", "nosuchbranch"}, `revision "nosuchbranch" not found`},
		{"allow-deletions without base", []string{"--allow-deletions", "3"}, "give it with --base"},
		{"negative allow-deletions", []string{"--base", "HEAD", "--allow-deletions", "-1"}, "0 or more"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			args := append([]string{"check", "--root", r.root}, tt.args...)
			_, stderr, code := run(t, append(args, r.root)...)
			if code != ExitUsage || !strings.Contains(stderr, tt.err) {
				t.Errorf("exit %d, stderr %s", code, stderr)
			}
		})
	}
	outside := t.TempDir()
	if err := os.WriteFile(filepath.Join(outside, "a.yaml"), []byte(fleetSite("alpha", 1)), 0o644); err != nil {
		t.Fatal(err)
	}
	if _, stderr, code := run(t, "check", "--root", outside, "--base", "HEAD", outside); code != ExitUsage || !strings.Contains(stderr, "not inside a Git repository") {
		t.Errorf("no repository: exit %d, %s", code, stderr)
	}
}
