package cli

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"sigs.k8s.io/yaml"

	"github.com/siteops/siteops/engine"
	"github.com/siteops/siteops/internal/gittest"
	"github.com/siteops/siteops/reconciler/source"
	"github.com/siteops/siteops/reconciler/status"
)

var exampleClusters = []string{"granite-ha-01", "kestrel-3n-01", "marlow-sno-01", "tidewater-ds-01"}

// runMain runs siteops in-process and returns its exit code and stderr.
func runMain(t *testing.T, args ...string) (int, string) {
	t.Helper()
	var stdout, stderr bytes.Buffer
	code := Main(context.Background(), args, &stdout, &stderr)
	return code, stderr.String()
}

// checkInstalled fails unless every example cluster's document says
// Installed.
func checkInstalled(t *testing.T, docs map[string]string) {
	t.Helper()
	for _, name := range exampleClusters {
		var d status.Document
		data, ok := docs[name+".yaml"]
		if !ok {
			t.Errorf("no status document for %s (have %d files)", name, len(docs))
			continue
		}
		if err := yaml.Unmarshal([]byte(data), &d); err != nil {
			t.Fatalf("%s.yaml: %v", name, err)
		}
		if d.Phase != engine.PhaseInstalled || d.Cluster.Percent != 100 || d.ObservedRevision == "" {
			t.Errorf("%s: phase %s, cluster %d%%, observed %q", name, d.Phase, d.Cluster.Percent, d.ObservedRevision)
		}
	}
	if !strings.Contains(docs["README.md"], "| Installed | 4 |") {
		t.Errorf("README.md does not count 4 Installed sites:\n%s", docs["README.md"])
	}
}

func inStatus(files map[string]string) map[string]string {
	out := map[string]string{}
	for p, c := range files {
		out[strings.TrimPrefix(p, "status/")] = c
	}
	return out
}

func TestRunInstallsTheExampleFleetFromGit(t *testing.T) {
	srv := gittest.StartDaemon(t)
	url := srv.Seed(t, "fleet.git", "../../examples/fleet")
	code, stderr := runMain(t, "run", "--repo", url, "--branch", "main", "--speed", "max", "--until-installed",
		"--state-dir", t.TempDir(), "--listen", "", "--extra-manifests-dir", "../../examples/extra-manifests", "--timeout", "2m")
	if code != ExitOK {
		t.Fatalf("exit %d\n%s", code, stderr)
	}
	head := srv.Head(t, "fleet.git", "main")
	checkInstalled(t, inStatus(srv.Files(t, "fleet.git", head, "status")))
	if !strings.Contains(stderr, "site installed") || !strings.Contains(stderr, "site=marlow-sno-01") {
		t.Errorf("the phase changes are not logged:\n%s", stderr)
	}
}

func TestRunWritesStatusFilesInDirMode(t *testing.T) {
	dir := t.TempDir()
	if err := os.CopyFS(dir, os.DirFS("../../examples/fleet")); err != nil {
		t.Fatal(err)
	}
	code, stderr := runMain(t, "run", "--dir", dir, "--speed", "max", "--until-installed", "--state-dir", t.TempDir(),
		"--listen", "", "--extra-manifests-dir", "../../examples/extra-manifests", "--log-format", "json")
	if code != ExitOK {
		t.Fatalf("exit %d\n%s", code, stderr)
	}
	files := map[string]string{}
	entries, err := os.ReadDir(filepath.Join(dir, "status"))
	if err != nil {
		t.Fatal(err)
	}
	for _, e := range entries {
		data, err := os.ReadFile(filepath.Join(dir, "status", e.Name()))
		if err != nil {
			t.Fatal(err)
		}
		files[e.Name()] = string(data)
	}
	checkInstalled(t, files)
	if !strings.Contains(stderr, `"msg":"pass finished"`) {
		t.Errorf("--log-format json does not log JSON:\n%s", stderr)
	}
	// The pass's line says where its time went, step by step.
	for _, step := range []string{"load", "check", "apply", "write"} {
		if !regexp.MustCompile(`"msg":"pass finished".*"steps":\{[^}]*"` + step + `":[0-9]+`).MatchString(stderr) {
			t.Errorf("the pass finished line has no duration of step %s:\n%s", step, stderr)
		}
	}
}

func TestRunEmbeddedDefault(t *testing.T) {
	state := t.TempDir()
	code, stderr := runMain(t, "run", "--speed", "max", "--until-installed", "--state-dir", state, "--listen", "")
	if code != ExitOK {
		t.Fatalf("exit %d\n%s", code, stderr)
	}
	repo := filepath.Join(state, demoRepoDir)
	files := map[string]string{}
	for _, name := range strings.Fields(gitOutput(t, repo, "ls-tree", "--name-only", "main", "status/")) {
		files[strings.TrimPrefix(name, "status/")] = gitOutput(t, repo, "show", "main:"+name)
	}
	checkInstalled(t, files)
	if log := gitOutput(t, repo, "log", "--format=%an <%ae>: %s", "main"); !strings.Contains(log, "siteops <siteops@localhost>: siteops: status of") {
		t.Errorf("no status commit by siteops in the demo repository:\n%s", log)
	}
}

func TestRunRefusesWrongFlagsAndASharedStateDir(t *testing.T) {
	state := t.TempDir()
	tests := []struct {
		name string
		args []string
		code int
		want string
	}{
		{"two sources", []string{"--dir", "a", "--repo", "b"}, ExitUsage, "not both"},
		{"bad speed", []string{"--speed", "fast"}, ExitUsage, "--speed"},
		{"bad approve", []string{"--approve", "maybe"}, ExitUsage, "--approve"},
		{"bad log format", []string{"--log-format", "xml"}, ExitUsage, "--log-format"},
		{"bad log level", []string{"--log-level", "loud"}, ExitUsage, "--log-level"},
		{"status dir without dir", []string{"--status-dir", "s"}, ExitUsage, "--status-dir"},
		{"negative settle bound", []string{"--settle-after", "-1m"}, ExitUsage, "--settle-after"},
		{"missing webhook secret", []string{"--webhook-secret-file", filepath.Join(state, "none")}, ExitUsage, "--webhook-secret-file"},
		{"unknown branch", []string{"--repo", "file:///nonexistent/fleet.git", "--listen", ""}, ExitFailure, "fleet.git"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			code, stderr := runMain(t, append([]string{"run", "--state-dir", t.TempDir()}, tt.args...)...)
			if code != tt.code || !strings.Contains(stderr, tt.want) {
				t.Errorf("exit %d, want %d; stderr:\n%s\nwant it to mention %q", code, tt.code, stderr, tt.want)
			}
		})
	}

	lock, err := source.Lock(state)
	if err != nil {
		t.Fatal(err)
	}
	defer lock.Unlock()
	code, stderr := runMain(t, "run", "--state-dir", state, "--listen", "", "--speed", "max", "--until-installed")
	if code != ExitFailure || !strings.Contains(stderr, "in use by process") {
		t.Errorf("a second process on a locked state dir: exit %d\n%s", code, stderr)
	}
}
