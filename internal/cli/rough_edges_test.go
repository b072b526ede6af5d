package cli

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/siteops/siteops/internal/gittest"
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

func TestVersionFlagSuggestionAndOutDirMessage(t *testing.T) {
	if stdout, _, code := run(t, "--version"); code != ExitOK || !strings.HasPrefix(stdout, "siteops version ") || !strings.Contains(stdout, "go1.") {
		t.Errorf("--version: exit %d, %q", code, stdout)
	}
	_, stderr, code := run(t, "render", "--rot", "x")
	if code != ExitUsage || !strings.Contains(stderr, "unknown flag: --rot; did you mean --root?") || !strings.Contains(stderr, "Run 'siteops render --help'") {
		t.Errorf("unknown flag: exit %d\n%s", code, stderr)
	}
	if _, stderr, _ := run(t, "check", "--zzzzzz"); strings.Contains(stderr, "did you mean") {
		t.Errorf("a far-off flag gets a suggestion:\n%s", stderr)
	}
	dir := writeTree(t, map[string]string{"a.yaml": site("alpha"), "b.yaml": site("bravo")})
	out := filepath.Join(t.TempDir(), "out")
	_, stderr, code = run(t, "render", "--root", dir, dir, "--out-dir", out)
	if code != ExitOK || !strings.Contains(stderr, "siteops: wrote 2 files to "+out+": alpha.yaml, bravo.yaml") {
		t.Errorf("--out-dir: exit %d\n%s", code, stderr)
	}
}

// A relative --status-dir is relative to the working directory, as every
// other path flag is, not to --dir.
func TestRunStatusDirIsRelativeToTheWorkingDirectory(t *testing.T) {
	work := t.TempDir()
	fleet := filepath.Join(work, "fleet")
	if err := os.MkdirAll(fleet, 0o755); err != nil {
		t.Fatal(err)
	}
	data, err := os.ReadFile("../../examples/sim/cedar-sno.yaml")
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(fleet, "cedar-sno.yaml"), data, 0o644); err != nil {
		t.Fatal(err)
	}
	t.Chdir(work)
	_, stderr, code := run(t, "run", "--dir", "fleet", "--status-dir", "out/status", "--speed", "max", "--until-installed",
		"--state-dir", t.TempDir(), "--listen", "", "--timeout", "2m", "--log-level", "warn")
	if code != ExitOK {
		t.Fatalf("exit %d\n%s", code, stderr)
	}
	if _, err := os.Stat(filepath.Join(work, "out", "status", "cedar-sno-01.yaml")); err != nil {
		t.Errorf("the status is not under the working directory's out/status: %v", err)
	}
	if _, err := os.Stat(filepath.Join(fleet, "out")); err == nil {
		t.Error("the status went under --dir")
	}
}

// A state directory keeps one source's state: another source is refused
// rather than handed the first one's installed sites.
func TestRunRefusesAnotherSourcesStateDir(t *testing.T) {
	data, err := os.ReadFile("../../examples/sim/cedar-sno.yaml")
	if err != nil {
		t.Fatal(err)
	}
	a := writeTree(t, map[string]string{"cedar-sno.yaml": string(data)})
	b := writeTree(t, map[string]string{"cedar-sno.yaml": string(data)})
	state := t.TempDir()
	args := []string{"run", "--speed", "max", "--until-installed", "--state-dir", state, "--listen", "", "--timeout", "2m", "--log-level", "warn"}
	if _, stderr, code := run(t, append(args, "--dir", a)...); code != ExitOK {
		t.Fatalf("first run: exit %d\n%s", code, stderr)
	}
	if _, stderr, code := run(t, append(args, "--dir", a)...); code != ExitOK {
		t.Fatalf("the same source again: exit %d\n%s", code, stderr)
	}
	_, stderr, code := run(t, append(args, "--dir", b)...)
	if code != ExitUsage || !strings.Contains(stderr, "--state-dir "+state+" keeps the state of dir "+a+", not of dir "+b) ||
		!strings.Contains(stderr, "Give this source a --state-dir of its own") {
		t.Errorf("another source: exit %d\n%s", code, stderr)
	}
}

// A status push that a non-bare remote refuses says what to do, is not
// tried again, and --until-installed then says the installation finished
// and the push did not.
func TestRunStatusPushToACheckedOutBranch(t *testing.T) {
	data, err := os.ReadFile("../../examples/sim/cedar-sno.yaml")
	if err != nil {
		t.Fatal(err)
	}
	repo := writeTree(t, map[string]string{"cedar-sno.yaml": string(data)})
	gittest.Git(t, repo, "init", "-q", "-b", "main")
	gittest.Git(t, repo, "add", "-A")
	gittest.Git(t, repo, "commit", "-q", "-m", "fleet")
	_, stderr, code := run(t, "run", "--repo", "file://"+repo, "--speed", "max", "--until-installed", "--state-dir", t.TempDir(),
		"--listen", "", "--timeout", "4s", "--log-level", "warn")
	if code != ExitFailure {
		t.Fatalf("exit %d\n%s", code, stderr)
	}
	for _, want := range []string{"the remote refuses pushes to main, the branch checked out in its work tree",
		"reconcile a bare repository (git clone --bare), or give --status-branch",
		"siteops: every site is installed, but --timeout 4s passed before their status was committed: the status push failed"} {
		if !strings.Contains(stderr, want) {
			t.Errorf("stderr lacks %q:\n%s", want, stderr)
		}
	}
	if strings.Contains(stderr, "trying again") {
		t.Errorf("a refused push is tried again:\n%s", stderr)
	}
}
