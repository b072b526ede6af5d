package report

import (
	"bytes"
	"encoding/json"
	"strconv"
	"strings"
	"testing"

	"github.com/siteops/siteops/sites"
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

// The findings, encoded in chunks on every core, make the bytes one
// encoder makes of the whole report: for no finding, one, a chunk's
// worth and more, with HTML characters, non-ASCII text, control
// characters, invalid UTF-8 and every optional field set or not.
func TestJSONChunksMatchOneEncoder(t *testing.T) {
	texts := []string{"plain", "<a & b>", "naïve ☃ \u2028", "tab\tnew\nline\x01", "bad \xff utf-8", `quote " back \ slash`, ""}
	finding := func(i int) Finding {
		f := Finding{
			Rule:     "ztp.rule-" + strconv.Itoa(i%7),
			Severity: []Severity{Deny, Warn, Info}[i%3],
			Message:  texts[i%len(texts)] + " " + strconv.Itoa(i),
			Pos:      sites.Position{File: "sites/s" + strconv.Itoa(i) + ".yaml", Line: i % 5, Column: i % 3},
		}
		if i%2 == 0 {
			f.Site, f.Field = "site-"+strconv.Itoa(i), texts[(i+1)%len(texts)]
		}
		if i%5 == 0 {
			f.Object = &ObjectRef{Kind: "BareMetalHost", Name: texts[(i+2)%len(texts)]}
		}
		if i%4 == 0 {
			f.Waived = texts[(i+3)%len(texts)]
		}
		return f
	}
	for _, n := range []int{0, 1, 2, 255, 256, 257, 1000} {
		r := &Report{Sites: n, Revision: "abc <&>", Base: "origin/main", PreExisting: n / 3}
		for i := range n {
			r.Findings = append(r.Findings, finding(i))
		}
		var got bytes.Buffer
		if err := (&jsonWriter{&options{}}).Write(&got, r); err != nil {
			t.Fatal(err)
		}
		p, err := (&options{}).prepare(r)
		if err != nil {
			t.Fatal(err)
		}
		var want bytes.Buffer
		if err := encodeJSON(&want, newJSONReport(p), ""); err != nil {
			t.Fatal(err)
		}
		if !bytes.Equal(got.Bytes(), want.Bytes()) {
			i := 0
			for i < min(got.Len(), want.Len()) && got.Bytes()[i] == want.Bytes()[i] {
				i++
			}
			t.Errorf("%d findings: the output differs from one encoder's at byte %d: %q, want %q", n, i, got.Bytes()[i:min(got.Len(), i+40)], want.Bytes()[i:min(want.Len(), i+40)])
		}
	}
}
