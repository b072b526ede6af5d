package report

import (
	"encoding/json"
	"strings"
	"testing"
)

func TestJSONGolden(t *testing.T) {
	testGolden(t, FormatJSON, func(t *testing.T, tc testCase, out []byte) {
		// Decode into plain maps, not the writer's types, so the test
		// sees what a script would.
		var doc struct {
			Revision string         `json:"revision"`
			Summary  map[string]int `json:"summary"`
			Findings []Finding      `json:"findings"`
		}
		if err := json.Unmarshal(out, &doc); err != nil {
			t.Fatalf("not JSON: %v", err)
		}
		r := tc.report
		want := map[string]int{"sites": r.Sites, "deny": r.Count(Deny), "warn": r.Count(Warn), "waived": r.Waived()}
		if r.Base != "" {
			want["preExisting"] = r.PreExisting
		}
		for k, v := range want {
			if doc.Summary[k] != v {
				t.Errorf("summary.%s = %d, want %d", k, doc.Summary[k], v)
			}
		}
		if len(doc.Summary) != len(want) {
			t.Errorf("summary = %v, want exactly %v", doc.Summary, want)
		}
		if doc.Revision != r.Revision {
			t.Errorf("revision = %q, want %q", doc.Revision, r.Revision)
		}
		// Every finding is there, message for message.
		if len(doc.Findings) != len(r.Findings) {
			t.Fatalf("%d findings, want %d", len(doc.Findings), len(r.Findings))
		}
		msgs := map[string]int{}
		for _, f := range r.Findings {
			msgs[f.Rule+"\x00"+f.Message+"\x00"+f.Waived]++
		}
		for _, f := range doc.Findings {
			msgs[f.Rule+"\x00"+f.Message+"\x00"+f.Waived]--
		}
		for k, n := range msgs {
			if n != 0 {
				t.Errorf("finding %q: count off by %d", k, n)
			}
		}
	})
}

func TestJSON(t *testing.T) {
	tests := []struct {
		name     string
		report   Report
		opts     []Option
		contains []string
	}{
		{
			name:     "no findings is an empty list",
			report:   Report{Sites: 2},
			contains: []string{`"findings": []`, `"sites": 2`},
		},
		{
			name:     "no revision",
			report:   Report{},
			contains: []string{"{\n  \"summary\""},
		},
		{
			name:     "HTML characters stay",
			report:   Report{Findings: []Finding{{Rule: "r", Severity: Deny, Message: "<a&b>"}}},
			contains: []string{`"message": "<a&b>"`},
		},
		{
			name:     "control characters escaped",
			report:   Report{Findings: []Finding{{Rule: "r", Severity: Deny, Message: "a\nb\x1b\"c"}}},
			contains: []string{`"message": "a\nb\u001b\"c"`},
		},
		{
			name:     "remediation from rules",
			report:   Report{Findings: []Finding{{Rule: "ztp.hosts.unique-mac", Severity: Deny, Message: "m"}}},
			opts:     []Option{WithRules(rules)},
			contains: []string{`"remediation": "Correct the MAC address; a MAC belongs to one host of one site."`, `"reference": "openshift/installer pkg/asset/agent/agentconfig/agenthosts.go"`},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			out := string(render(t, FormatJSON, &tt.report, tt.opts...))
			for _, c := range tt.contains {
				if !strings.Contains(out, c) {
					t.Errorf("no %q in\n%s", c, out)
				}
			}
		})
	}
}
