package policy

import (
	"context"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/siteops/siteops/internal/procstat"
	"github.com/siteops/siteops/policy/report"
)

// TestHostilePolicies builds the attacks of a user policy on the machine
// that checks it: each hits site east only, and must end in a finding on
// east that names what was stopped, while west is checked as usual, within
// generous bounds of heap and CPU time measured by the process itself.
func TestHostilePolicies(t *testing.T) {
	const (
		budget  = 256 << 20
		maxHeap = 2 << 30 // the heap never gets near this
		maxCPU  = 120 * time.Second
	)
	// bomb builds a string of n copies of s.
	bomb := func(s string, n int) string {
		return `concat("", [c | some _ in numbers.range(1, ` + strconv.Itoa(n) + `); c := "` + s + `"])`
	}
	tests := []struct{ name, body, rule, want string }{
		{"range of three billion", `count(numbers.range(1, 3000000000)) > 0`, RulePolicyError, "numbers.range"},
		{"range step", `count(numbers.range_step(1, 3000000000, 2)) > 0`, RulePolicyError, "numbers.range_step"},
		{"long concat", `count(` + bomb("aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa", 1000000) + `) > 0`, RulePolicyError, "concat"},
		{"replace every position", `count(replace(` + bomb("a", 100000) + `, "", ` + bomb("b", 1000) + `)) > 0`, RulePolicyError, "replace"},
		{"deep glob", `glob.match(` + bomb("{", 100000) + `, [], "a")`, RulePolicyError, "glob.match"},
		{"deep regex", `regex.match(` + bomb("(", 100000) + `, "a")`, RulePolicyError, "regex.match"},
		{"cross product", `count([[i, j] | some i in numbers.range(1, 1000000); some j in numbers.range(1, 1000000)]) > 0`, RulePolicyError, "memory budget"},
		{"endless loop", `count([1 | some i in numbers.range(1, 900000); some j in numbers.range(1, 900000); i == j + 1000000]) > 0`, RulePolicyTimeout, "took longer"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			dir := writeFiles(t, map[string]string{"p.rego": "package main\n\ndeny contains \"bomb\" if {\n\tinput.site.name == \"east\"\n\t" +
				tt.body + "\n}\n\nwarn contains \"checked\" if input.site.name == \"west\"\n"})
			// Only the endless loop is stopped by the clock; the others
			// must be stopped by their bounds, however slow the machine.
			limit := time.Minute
			if tt.rule == RulePolicyTimeout {
				limit = 5 * time.Second
			}
			e, err := Load(context.Background(), WithUserPolicies(dir), WithMemoryBudget(budget), WithSiteTimeout(limit))
			if err != nil {
				t.Fatal(err)
			}
			var rep *report.Report
			procstat.Bound(t, maxHeap, maxCPU, func() {
				rep = checkFiles(t, e, "rules/testdata/ztp.nodes.hostname-unique", nil, "good.yaml")
			})
			var east, west bool
			for _, f := range rep.Findings {
				switch {
				case f.Site == "east" && f.Rule == tt.rule && strings.Contains(f.Message, tt.want):
					east = true
				case f.Site == "east" && f.Rule == "main.deny":
					t.Errorf("the bomb went off: %s", describe(f))
				case f.Site == "west" && f.Rule == "main.warn":
					west = true
				}
			}
			if !east || !west {
				t.Errorf("want %s naming %q on east, and west checked:\n%s", tt.rule, tt.want, describeAll(rep.Findings))
			}
		})
	}
}

// TestRefusedBuiltins: built-ins that cannot be bounded do not load.
func TestRefusedBuiltins(t *testing.T) {
	for _, call := range []string{
		`strings.render_template("{{range 100000000000}}x{{end}}", {})`,
		`graph.reachable_paths({"a": ["b"]}, {"a"})`,
	} {
		dir := writeFiles(t, map[string]string{"p.rego": "package main\n\ndeny contains msg if {\n\tx := " + call + "\n\tmsg := sprintf(\"%v\", [x])\n}\n"})
		_, err := Load(context.Background(), WithUserPolicies(dir))
		if err == nil || !strings.Contains(err.Error(), "p.rego:4") || !strings.Contains(err.Error(), "undefined function") {
			t.Errorf("%s: err = %v, want undefined function at p.rego:4", call, err)
		}
	}
}
