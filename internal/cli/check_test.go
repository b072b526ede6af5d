package cli

import (
	"encoding/json"
	"path/filepath"
	"strings"
	"testing"
)

func TestCheckExitCodesAndFormats(t *testing.T) {
	good := site("alpha")
	// Two sites sharing a boot MAC: a fleet-wide deny finding.
	dup := strings.Replace(site("bravo"), "hostName: bravo-0", "hostName: bravo-0x", 1)
	dir := writeTree(t, map[string]string{"a.yaml": good, "b.yaml": dup})
	_, stderr, code := run(t, "check", "--root", dir, filepath.Join(dir, "a.yaml"))
	if code != ExitOK {
		t.Errorf("a clean site: exit %d, stderr %s", code, stderr)
	}
	stdout, _, code := run(t, "check", "--root", dir, dir)
	if code != ExitFailure {
		t.Errorf("duplicate MACs: exit %d, want %d", code, ExitFailure)
	}
	if !strings.Contains(stdout, "ztp.nodes.mac-unique") {
		t.Errorf("text output lacks the MAC rule:\n%s", stdout)
	}
	stdout, _, _ = run(t, "check", "--root", dir, "-o", "sarif", dir)
	var sarif struct {
		Version string `json:"version"`
		Runs    []struct {
			Results []struct {
				RuleID string `json:"ruleId"`
			} `json:"results"`
		} `json:"runs"`
	}
	if err := json.Unmarshal([]byte(stdout), &sarif); err != nil || sarif.Version != "2.1.0" || len(sarif.Runs) != 1 {
		t.Fatalf("not SARIF 2.1.0: %v\n%s", err, stdout)
	}
	found := false
	for _, r := range sarif.Runs[0].Results {
		found = found || r.RuleID == "ztp.nodes.mac-unique"
	}
	if !found {
		t.Errorf("SARIF results lack ztp.nodes.mac-unique")
	}
	if _, stderr, code := run(t, "check", "-o", "xml", dir); code != ExitUsage || !strings.Contains(stderr, "unknown output format") {
		t.Errorf("bad format: exit %d, %s", code, stderr)
	}
	stdout, _, code = run(t, "check", "--list-rules")
	if code != ExitOK || !strings.Contains(stdout, "ztp.network.vips-required") {
		t.Errorf("--list-rules: exit %d\n%s", code, stdout)
	}
}

func TestCheckUserPolicies(t *testing.T) {
	dir := writeTree(t, map[string]string{
		"a.yaml":               site("alpha"),
		"policies/labels.rego": "package main\n\nimport rego.v1\n\ndeny contains msg if {\n\tinput.site.name == \"alpha\"\n\tmsg := \"alpha is not allowed here\"\n}\n",
		"broken/bad.rego":      "package main\n\ndeny contains msg if {\n\tmsg := \n}\n",
	})
	stdout, stderr, code := run(t, "check", "--root", dir, "--policy", filepath.Join(dir, "policies"), dir)
	if code != ExitFailure || !strings.Contains(stdout, "alpha is not allowed here") {
		t.Errorf("user deny: exit %d\n%s\n%s", code, stdout, stderr)
	}
	_, stderr, code = run(t, "check", "--root", dir, "--policy", filepath.Join(dir, "broken"), dir)
	if code != ExitUsage || !strings.Contains(stderr, "bad.rego:") {
		t.Errorf("broken policy: exit %d, stderr %s", code, stderr)
	}
}

// TestCheckDuplicateClusterNames checks that a cluster name defined twice
// fails the check with a finding at both definitions, while the other
// sites are still checked.
func TestCheckDuplicateClusterNames(t *testing.T) {
	dir := writeTree(t, map[string]string{"a.yaml": site("alpha"), "b.yaml": site("alpha"), "c.yaml": site("charlie")})
	stdout, stderr, code := run(t, "check", "--root", dir, "-o", "json", dir)
	if code != ExitFailure {
		t.Fatalf("exit %d, want %d; stderr %s", code, ExitFailure, stderr)
	}
	var rep struct {
		Summary struct {
			Sites int `json:"sites"`
		} `json:"summary"`
		Findings []struct {
			Rule string `json:"rule"`
			Pos  struct {
				File string `json:"file"`
			} `json:"pos"`
		} `json:"findings"`
	}
	if err := json.Unmarshal([]byte(stdout), &rep); err != nil {
		t.Fatalf("%v\n%s", err, stdout)
	}
	files := map[string]bool{}
	for _, f := range rep.Findings {
		if f.Rule == "site.load" {
			files[f.Pos.File] = true
		}
	}
	if !files["a.yaml"] || !files["b.yaml"] {
		t.Errorf("site.load findings at %v, want a.yaml and b.yaml:\n%s", files, stdout)
	}
	if rep.Summary.Sites != 2 {
		t.Errorf("%d sites checked, want 2 (alpha once, charlie)", rep.Summary.Sites)
	}
}
