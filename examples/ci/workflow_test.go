// Package ci_test runs the example GitHub Actions workflow's scripts with
// bash, against a real Git repository holding the example fleet and
// policies and the siteops built from this tree.
package ci_test

import (
	"encoding/json"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"sigs.k8s.io/yaml"
)

type workflow struct {
	Env  map[string]string `json:"env"`
	Jobs map[string]struct {
		Steps []step `json:"steps"`
	} `json:"jobs"`
}

type step struct {
	Name string            `json:"name"`
	ID   string            `json:"id"`
	Uses string            `json:"uses"`
	With map[string]any    `json:"with"`
	Env  map[string]string `json:"env"`
	Run  string            `json:"run"`
}

func readWorkflow(t *testing.T) workflow {
	t.Helper()
	b, err := os.ReadFile("siteops-check.yaml")
	if err != nil {
		t.Fatal(err)
	}
	var w workflow
	if err := yaml.Unmarshal(b, &w); err != nil {
		t.Fatalf("siteops-check.yaml: %v", err)
	}
	return w
}

func stepNamed(t *testing.T, w workflow, name string) step {
	t.Helper()
	for _, s := range w.Jobs["check"].Steps {
		if s.Name == name {
			return s
		}
	}
	t.Fatalf("no step %q", name)
	return step{}
}

func TestWorkflowUploadsSARIF(t *testing.T) {
	w := readWorkflow(t)
	up := stepNamed(t, w, "Upload findings")
	if !strings.HasPrefix(up.Uses, "github/codeql-action/upload-sarif@") || up.With["sarif_file"] != "siteops.sarif" {
		t.Errorf("upload step: %+v", up)
	}
	if !strings.Contains(stepNamed(t, w, "Check").Run, "> siteops.sarif") {
		t.Error("the check step does not write siteops.sarif")
	}
}

// gitIn runs git in dir.
func gitIn(t *testing.T, dir string, args ...string) string {
	t.Helper()
	cmd := exec.Command("git", args...)
	cmd.Dir = dir
	cmd.Env = append(os.Environ(), "GIT_AUTHOR_NAME=t", "GIT_AUTHOR_EMAIL=t@example.net",
		"GIT_COMMITTER_NAME=t", "GIT_COMMITTER_EMAIL=t@example.net", "GIT_CONFIG_GLOBAL=/dev/null", "GIT_CONFIG_NOSYSTEM=1")
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("git %v: %v\n%s", args, err, out)
	}
	return strings.TrimSpace(string(out))
}

// copyTree copies the regular files of src into dst.
func copyTree(t *testing.T, src, dst string) {
	t.Helper()
	err := filepath.WalkDir(src, func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() || strings.HasSuffix(p, "_test.go") {
			return err
		}
		rel, _ := filepath.Rel(src, p)
		b, err := os.ReadFile(p)
		if err != nil {
			return err
		}
		if err := os.MkdirAll(filepath.Join(dst, filepath.Dir(rel)), 0o755); err != nil {
			return err
		}
		return os.WriteFile(filepath.Join(dst, rel), b, 0o644)
	})
	if err != nil {
		t.Fatal(err)
	}
}

// runScript runs a step's script with bash as the runner would: the
// workflow's and the step's environment, GITHUB_OUTPUT, siteops on PATH.
func runScript(t *testing.T, w workflow, s step, dir, bin string, env map[string]string) (int, map[string]string, string) {
	t.Helper()
	out := filepath.Join(t.TempDir(), "output")
	cmd := exec.Command("bash", "-e", "-c", s.Run)
	cmd.Dir = dir
	cmd.Env = append(os.Environ(), "PATH="+bin+string(os.PathListSeparator)+os.Getenv("PATH"), "GITHUB_OUTPUT="+out)
	for _, m := range []map[string]string{w.Env, env} {
		for k, v := range m {
			cmd.Env = append(cmd.Env, k+"="+v)
		}
	}
	logs, err := cmd.CombinedOutput()
	code := 0
	if ee, ok := err.(*exec.ExitError); ok {
		code = ee.ExitCode()
	} else if err != nil {
		t.Fatal(err)
	}
	outputs := map[string]string{}
	if b, err := os.ReadFile(out); err == nil {
		for line := range strings.Lines(string(b)) {
			if k, v, ok := strings.Cut(strings.TrimSpace(line), "="); ok {
				outputs[k] = v
			}
		}
	}
	return code, outputs, string(logs)
}

func sarifRules(t *testing.T, path string) []string {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	var log struct {
		Version string `json:"version"`
		Runs    []struct {
			Results []struct {
				RuleID string `json:"ruleId"`
			} `json:"results"`
		} `json:"runs"`
	}
	if err := json.Unmarshal(b, &log); err != nil || log.Version != "2.1.0" || len(log.Runs) != 1 {
		t.Fatalf("not SARIF 2.1.0: %v\n%s", err, b)
	}
	var ids []string
	for _, r := range log.Runs[0].Results {
		ids = append(ids, r.RuleID)
	}
	return ids
}

func TestWorkflowCheckStep(t *testing.T) {
	if _, err := exec.LookPath("bash"); err != nil {
		t.Fatal("bash is needed to run the workflow's scripts")
	}
	bin := t.TempDir()
	build := exec.Command("go", "build", "-o", filepath.Join(bin, "siteops"), "../../cmd/siteops")
	if out, err := build.CombinedOutput(); err != nil {
		t.Fatalf("build siteops: %v\n%s", err, out)
	}
	// A fleet repository as the workflow expects it: sites at the top,
	// policies in policies/.
	repo := t.TempDir()
	gitIn(t, repo, "init", "-q", "-b", "main")
	copyTree(t, "../fleet", repo)
	copyTree(t, "../policies", filepath.Join(repo, "policies"))
	gitIn(t, repo, "add", "-A")
	gitIn(t, repo, "commit", "-q", "-m", "fleet")
	base := gitIn(t, repo, "rev-parse", "HEAD")
	// The pull request misspells a region.
	site := filepath.Join(repo, "kestrel-compact.yaml")
	b, err := os.ReadFile(site)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(site, []byte(strings.Replace(string(b), "region: west", "region: wets", 1)), 0o644); err != nil {
		t.Fatal(err)
	}
	gitIn(t, repo, "commit", "-q", "-am", "kestrel: region")

	w := readWorkflow(t)
	check := stepNamed(t, w, "Check")

	// Pull request: only the new finding, and the job records exit 1.
	code, outputs, logs := runScript(t, w, check, repo, bin,
		map[string]string{"EVENT": "pull_request", "BASE_SHA": base, "LABELS": "allow-deletions-3 documentation"})
	if code != 0 || outputs["exit-code"] != "1" {
		t.Fatalf("pull request: script exit %d, outputs %v\n%s", code, outputs, logs)
	}
	if ids := sarifRules(t, filepath.Join(repo, "siteops.sarif")); !slices.Equal(ids, []string{"main.deny_region"}) {
		t.Errorf("pull request reports %v, want only the new main.deny_region", ids)
	}
	// Push: everything, the example fleet's BMC warnings too.
	code, outputs, logs = runScript(t, w, check, repo, bin, map[string]string{"EVENT": "push"})
	if code != 0 || outputs["exit-code"] != "1" {
		t.Fatalf("push: script exit %d, outputs %v\n%s", code, outputs, logs)
	}
	ids := sarifRules(t, filepath.Join(repo, "siteops.sarif"))
	if !slices.Contains(ids, "main.deny_region") || !slices.Contains(ids, "ztp.bmc.certificate-verification-disabled") {
		t.Errorf("push reports %v", ids)
	}
	// The last step fails the job with the check's exit status.
	fail := stepNamed(t, w, "Fail on deny findings")
	if code, _, logs := runScript(t, w, fail, repo, bin, map[string]string{"CODE": outputs["exit-code"]}); code != 1 {
		t.Errorf("fail step: exit %d\n%s", code, logs)
	}
	// A broken policy stops the step itself (exit 2, no report to upload).
	if err := os.WriteFile(filepath.Join(repo, "policies", "broken.rego"), []byte("package main\n\ndeny contains x if {\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if code, _, logs := runScript(t, w, check, repo, bin, map[string]string{"EVENT": "push"}); code != 2 || !strings.Contains(logs, "broken.rego") {
		t.Errorf("broken policy: exit %d\n%s", code, logs)
	}
}
