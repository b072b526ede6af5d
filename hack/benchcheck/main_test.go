package main

import (
	"bytes"
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/open-policy-agent/opa/v1/rego"
	"sigs.k8s.io/yaml"

	"github.com/siteops/siteops/hack/internal/benchutil"
)

func TestParseFlags(t *testing.T) {
	for _, tt := range []struct {
		args []string
		err  string
	}{
		{[]string{}, "-bin is required"},
		{[]string{"-bin", "x", "-runs", "0"}, "want at least 1"},
		{[]string{"-bin", "x", "-sizes", "10,zero"}, `"zero" is not a size`},
		{[]string{"-bin", "x", "-shape", "round"}, "-shape"},
		{[]string{"-bin", "x", "extra"}, "unexpected arguments"},
	} {
		if _, err := parseFlags(tt.args, &bytes.Buffer{}); err == nil || !strings.Contains(err.Error(), tt.err) {
			t.Errorf("%v: %v, want %q", tt.args, err, tt.err)
		}
	}
	cfg, err := parseFlags([]string{"-bin", "x", "-sizes", "5, 7", "-shape", "sno"}, &bytes.Buffer{})
	if err != nil || len(cfg.sizes) != 2 || cfg.sizes[1] != 7 || cfg.shape != "sno" || cfg.conftest != "auto" {
		t.Errorf("cfg %+v, %v", cfg, err)
	}
}

func TestBestMedian(t *testing.T) {
	best, median := benchutil.BestMedian([]time.Duration{5, 1, 3})
	if best != 1 || median != 3 {
		t.Errorf("odd: %v %v", best, median)
	}
	if _, median := benchutil.BestMedian([]time.Duration{4, 1, 3, 2}); median != 2 {
		t.Errorf("even: median %v, want the mean of the middle two", median)
	}
}

// buildSiteops builds the siteops of this tree.
func buildSiteops(t *testing.T) string {
	t.Helper()
	bin := filepath.Join(t.TempDir(), "siteops")
	if out, err := exec.Command("go", "build", "-o", bin, "../../cmd/siteops").CombinedOutput(); err != nil {
		t.Fatalf("build siteops: %v\n%s", err, out)
	}
	return bin
}

// TestRun measures a small fleet with the real siteops; conftest is left
// out (-conftest none), its rules are tested below with OPA.
func TestRun(t *testing.T) {
	bin := buildSiteops(t)
	var stdout, stderr bytes.Buffer
	if err := run(context.Background(), []string{"-bin", bin, "-sizes", "6", "-runs", "2", "-conftest", "none", "-floor=false"}, &stdout, &stderr); err != nil {
		t.Fatalf("run: %v\n%s", err, stderr.String())
	}
	lines := strings.Split(strings.TrimSpace(stdout.String()), "\n")
	if len(lines) != 2 || !strings.Contains(lines[0], "µs/DOC") {
		t.Fatalf("table:\n%s", stdout.String())
	}
	fields := strings.Fields(lines[1])
	// 6  siteops check  2  best  median  cpu  sites/s  docs ...
	if fields[0] != "6" || fields[1] != "siteops" || fields[3] != "2" || !strings.Contains(lines[1], "0 deny") {
		t.Errorf("row: %q", lines[1])
	}
	if docs := fields[8]; docs == "0" {
		t.Errorf("no documents counted: %q", lines[1])
	}
	// A binary that fails is an error, not a row.
	if err := run(context.Background(), []string{"-bin", "false", "-sizes", "2", "-runs", "1", "-conftest", "none", "-floor=false"}, &stdout, &stderr); err == nil {
		t.Error("a failing siteops gave no error")
	}
}

// TestConftestRules evaluates the conftest rules with OPA on every
// document siteops renders for a generated fleet (none must fail: the
// fleet breaks no built-in rule), and on broken copies of them.
func TestConftestRules(t *testing.T) {
	bin := buildSiteops(t)
	work := t.TempDir()
	fleet, out := filepath.Join(work, "fleet"), filepath.Join(work, "out")
	if err := run(context.Background(), []string{"-bin", bin, "-sizes", "8", "-runs", "1", "-conftest", "none", "-floor=false", "-work", fleet}, &bytes.Buffer{}, &bytes.Buffer{}); err != nil {
		t.Fatal(err)
	}
	if res := runChild(context.Background(), bin, "render", "--root", filepath.Join(fleet, "mixed-8"), filepath.Join(fleet, "mixed-8"), "--out-dir", out); res.err != nil {
		t.Fatal(res.err)
	}
	src, err := conftestPolicy.ReadFile("conftest/rules.rego")
	if err != nil {
		t.Fatal(err)
	}
	pq, err := rego.New(rego.Query("data.main.deny"), rego.Module("rules.rego", string(src))).PrepareForEval(context.Background())
	if err != nil {
		t.Fatalf("the conftest rules do not compile: %v", err)
	}
	deny := func(doc map[string]any) []any {
		rs, err := pq.Eval(context.Background(), rego.EvalInput(doc))
		if err != nil {
			t.Fatal(err)
		}
		if len(rs) == 0 {
			return nil
		}
		return rs[0].Expressions[0].Value.([]any)
	}
	files, _ := filepath.Glob(filepath.Join(out, "*.yaml"))
	kinds := map[string]map[string]any{}
	for _, f := range files {
		b, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		for _, part := range strings.Split(string(b), "\n---\n") {
			var doc map[string]any
			if err := yaml.Unmarshal([]byte(part), &doc); err != nil || doc == nil {
				continue
			}
			if msgs := deny(doc); len(msgs) > 0 {
				t.Errorf("%s %v: %v", doc["kind"], doc["metadata"], msgs)
			}
			if k, _ := doc["kind"].(string); k != "" {
				kinds[k] = doc
			}
		}
	}
	for _, tt := range []struct {
		kind  string
		path  []string
		value any
	}{
		{"BareMetalHost", []string{"spec", "bmc", "address"}, "redfish-virtualmedia+ftp://100.64.0.1/redfish/v1/Systems/1"},
		{"BareMetalHost", []string{"spec", "bootMACAddress"}, "02:00:00:00:00"},
		{"ClusterDeployment", []string{"spec", "clusterName"}, "Not_A_Label"},
		{"AgentClusterInstall", []string{"spec", "apiVIPs"}, []any{"192.0.2.99"}},
		{"NMStateConfig", []string{"spec", "interfaces"}, []any{}},
	} {
		doc := kinds[tt.kind]
		if doc == nil {
			t.Fatalf("no %s rendered", tt.kind)
		}
		b, _ := yaml.Marshal(doc)
		var broken map[string]any
		yaml.Unmarshal(b, &broken)
		m := broken
		for _, k := range tt.path[:len(tt.path)-1] {
			m = m[k].(map[string]any)
		}
		m[tt.path[len(tt.path)-1]] = tt.value
		if msgs := deny(broken); len(msgs) != 1 {
			t.Errorf("%s with %v = %v: %d findings, want 1: %v", tt.kind, tt.path, tt.value, len(msgs), msgs)
		}
	}
}
