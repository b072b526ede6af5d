package ci_test

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"sigs.k8s.io/yaml"
)

// TestPlanWorkflow runs the plan workflow's steps with bash against a Git
// repository holding the example fleet: the Plan step with the siteops
// built from this tree, the Comment step with a stand-in for gh (GitHub's
// API cannot run here) that records what it was asked to post.
func TestPlanWorkflow(t *testing.T) {
	data, err := os.ReadFile("siteops-plan.yaml")
	if err != nil {
		t.Fatal(err)
	}
	var w workflow
	if err := yaml.Unmarshal(data, &w); err != nil {
		t.Fatalf("siteops-plan.yaml: %v", err)
	}
	stepOf := func(name string) step {
		for _, s := range w.Jobs["plan"].Steps {
			if s.Name == name {
				return s
			}
		}
		t.Fatalf("no step %q", name)
		return step{}
	}
	bin := t.TempDir()
	build := exec.Command("go", "build", "-o", filepath.Join(bin, "siteops"), "../../cmd/siteops")
	if out, err := build.CombinedOutput(); err != nil {
		t.Fatalf("build siteops: %v\n%s", err, out)
	}
	gh := filepath.Join(bin, "gh")
	if err := os.WriteFile(gh, []byte("#!/bin/sh\nprintf '%s\\n' \"$@\" > gh.args\n"), 0o755); err != nil {
		t.Fatal(err)
	}

	repo := t.TempDir()
	gitIn(t, repo, "init", "-q", "-b", "main")
	copyTree(t, "../fleet", repo)
	gitIn(t, repo, "add", "-A")
	gitIn(t, repo, "commit", "-q", "-m", "fleet")
	base := gitIn(t, repo, "rev-parse", "HEAD")
	// The pull request moves a BMC and removes a site.
	site := filepath.Join(repo, "marlow-sno.yaml")
	b, err := os.ReadFile(site)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(site, []byte(strings.Replace(string(b), "198.51.100.10/redfish", "198.51.100.19/redfish", 1)), 0o644); err != nil {
		t.Fatal(err)
	}
	kust := filepath.Join(repo, "kustomization.yaml")
	if b, err = os.ReadFile(kust); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(kust, []byte(strings.Replace(string(b), "  - tidewater-dualstack.yaml\n", "", 1)), 0o644); err != nil {
		t.Fatal(err)
	}
	gitIn(t, repo, "commit", "-q", "-am", "marlow: new BMC; tidewater retired")

	code, _, logs := runScript(t, w, stepOf("Plan"), repo, bin, map[string]string{"BASE_SHA": base, "LABELS": "allow-deletions-1"})
	if code != 0 {
		t.Fatalf("Plan: exit %d\n%s", code, logs)
	}
	md, err := os.ReadFile(filepath.Join(repo, "siteops-plan.md"))
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"### siteops plan:", "**0 added · 1 removed · 1 changed · 0 broken**", "marlow-sno-01", "spec.bmc.address",
		"198.51.100.19", "tidewater-ds-01 | removed"} {
		if !strings.Contains(string(md), want) {
			t.Errorf("the plan lacks %q:\n%s", want, md)
		}
	}

	code, _, logs = runScript(t, w, stepOf("Comment"), repo, bin, map[string]string{"PR": "42", "GH_TOKEN": "unused"})
	if code != 0 {
		t.Fatalf("Comment: exit %d\n%s", code, logs)
	}
	args, err := os.ReadFile(filepath.Join(repo, "gh.args"))
	if err != nil {
		t.Fatal(err)
	}
	if got := strings.Fields(string(args)); strings.Join(got, " ") != "pr comment 42 --edit-last --create-if-none --body-file siteops-plan.md" {
		t.Errorf("gh was run with %q", got)
	}
}
