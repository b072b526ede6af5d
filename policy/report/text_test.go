package report

import (
	"slices"
	"strings"
	"testing"
)

func TestTextGolden(t *testing.T) {
	testGolden(t, FormatText, func(t *testing.T, tc testCase, out []byte) {
		lines := strings.Split(strings.TrimSuffix(string(out), "\n"), "\n")
		if got, want := lines[len(lines)-1], summary(&tc.report); got != want {
			t.Errorf("last line = %q, want the summary %q", got, want)
		}
		// Every line in column one is a finding (or the summary): one
		// per finding, whatever the messages hold.
		n := 0
		for _, l := range lines[:len(lines)-1] {
			if l != "" && !strings.HasPrefix(l, " ") {
				n++
			}
		}
		if n != len(tc.report.Findings) {
			t.Errorf("%d unindented lines, want one per finding (%d)", n, len(tc.report.Findings))
		}
		if strings.Contains(string(out), "\x1b") || strings.Contains(string(out), "\r") {
			t.Error("output holds an escape or a carriage return")
		}
	})
}

func TestText(t *testing.T) {
	tests := []struct {
		name     string
		findings []Finding
		sites    int
		opts     []Option
		want     []string // lines that must be in the output
		wantNot  []string // substrings that must not be
	}{
		{
			name:  "no findings",
			sites: 1,
			want:  []string{"1 site checked: 0 deny, 0 warn, 0 waived"},
		},
		{
			name:     "position",
			findings: []Finding{{Rule: "r", Severity: Deny, Message: "m", Pos: pos("a.yaml", 3, 4)}},
			want:     []string{"a.yaml:3:4: deny r: m"},
		},
		{
			name:     "no column",
			findings: []Finding{{Rule: "r", Severity: Warn, Message: "m", Pos: pos("a.yaml", 3, 0)}},
			want:     []string{"a.yaml:3: warn r: m"},
		},
		{
			name:     "no file",
			findings: []Finding{{Rule: "r", Severity: Deny, Message: "m", Site: "sno1"}},
			want:     []string{"-: deny r: site sno1: m"},
		},
		{
			name:     "site and field, as render names them",
			findings: []Finding{{Rule: "r", Severity: Deny, Message: "bad VIP", Site: "sno1", Field: "spec.clusters[0].apiVIPs[0]", Pos: pos("a.yaml", 3, 4)}},
			want:     []string{"a.yaml:3:4: deny r: site sno1: spec.clusters[0].apiVIPs[0]: bad VIP"},
		},
		{
			name:     "a message that names its site does not name it twice",
			findings: []Finding{{Rule: "r", Severity: Deny, Message: "site sno1, defined at a.yaml:1:1, is deleted", Site: "sno1"}},
			want:     []string{"-: deny r: site sno1, defined at a.yaml:1:1, is deleted"},
		},
		{
			name: "waived",
			findings: []Finding{{
				Rule: "r", Severity: Deny, Message: "m", Pos: pos("a.yaml", 1, 1), Waived: "why",
			}},
			want: []string{"a.yaml:1:1: deny r: m (waived: why)", "0 sites checked: 0 deny, 0 warn, 1 waived"},
		},
		{
			name:     "remediation from rules",
			findings: []Finding{{Rule: "ztp.hosts.unique-mac", Severity: Deny, Message: "m"}},
			opts:     []Option{WithRules(rules)},
			want:     []string{"-: deny ztp.hosts.unique-mac: m", "    remediation: Correct the MAC address; a MAC belongs to one host of one site."},
		},
		{
			name:     "own remediation wins",
			findings: []Finding{{Rule: "ztp.hosts.unique-mac", Severity: Deny, Message: "m", Remediation: "mine"}},
			opts:     []Option{WithRules(rules)},
			want:     []string{"    remediation: mine"},
			wantNot:  []string{"Correct the MAC"},
		},
		{
			name:     "multi-line message",
			findings: []Finding{{Rule: "r", Severity: Deny, Message: "one\ntwo\n"}},
			want:     []string{"-: deny r: one", "    two"},
		},
		{
			name:     "control characters",
			findings: []Finding{{Rule: "r", Severity: Deny, Message: "a\x1b[2Jb\rc\u202ed\x00"}},
			want:     []string{`-: deny r: a\x1b[2Jb\rc\u202ed\x00`},
		},
		{
			name:     "unicode kept",
			findings: []Finding{{Rule: "r", Severity: Deny, Message: "naïve ✓ 日本 \"q\" <&>"}},
			want:     []string{`-: deny r: naïve ✓ 日本 "q" <&>`},
		},
		{
			name:     "no color by default",
			findings: []Finding{{Rule: "r", Severity: Deny, Message: "m"}},
			want:     []string{"-: deny r: m"},
			wantNot:  []string{"\x1b"},
		},
		{
			name: "color",
			findings: []Finding{
				{Rule: "r", Severity: Deny, Message: "m"},
				{Rule: "s", Severity: Warn, Message: "m"},
				{Rule: "t", Severity: Warn, Message: "m", Waived: "w"},
			},
			opts: []Option{WithColor(true)},
			want: []string{
				"-: \x1b[1;31mdeny\x1b[0m r: m",
				"-: \x1b[33mwarn\x1b[0m s: m",
				"-: \x1b[2mwarn\x1b[0m t: m \x1b[2m(waived: w)\x1b[0m",
			},
		},
		{
			name: "summary counts",
			findings: []Finding{
				{Rule: "a", Severity: Deny, Message: "m"},
				{Rule: "b", Severity: Deny, Message: "m"},
				{Rule: "c", Severity: Warn, Message: "m"},
				{Rule: "d", Severity: Warn, Message: "m", Waived: "w"},
			},
			sites: 3,
			want:  []string{"3 sites checked: 2 deny, 1 warn, 1 waived"},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			out := string(render(t, FormatText, &Report{Sites: tt.sites, Findings: tt.findings}, tt.opts...))
			lines := strings.Split(out, "\n")
			for _, w := range tt.want {
				if !slices.Contains(lines, w) {
					t.Errorf("no line %q in\n%s", w, out)
				}
			}
			for _, w := range tt.wantNot {
				if strings.Contains(out, w) {
					t.Errorf("%q in\n%s", w, out)
				}
			}
		})
	}
}
