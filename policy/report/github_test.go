package report

import (
	"strings"
	"testing"
)

// parseCommand splits a workflow command line as the runner does:
// "::name k=v,k=v::data", and undoes the escaping of @actions/core.
func parseCommand(t *testing.T, line string) (name string, props map[string]string, data string) {
	t.Helper()
	rest, ok := strings.CutPrefix(line, "::")
	if !ok {
		t.Fatalf("not a command: %q", line)
	}
	head, data, ok := strings.Cut(rest, "::")
	if !ok {
		t.Fatalf("no data separator: %q", line)
	}
	name, list, _ := strings.Cut(head, " ")
	props = map[string]string{}
	if list != "" {
		for _, kv := range strings.Split(list, ",") {
			k, v, ok := strings.Cut(kv, "=")
			if !ok {
				t.Fatalf("property %q without '=' in %q", kv, line)
			}
			props[k] = unescapeGitHub(v)
		}
	}
	return name, props, unescapeGitHub(data)
}

func unescapeGitHub(s string) string {
	return strings.NewReplacer("%0D", "\r", "%0A", "\n", "%3A", ":", "%2C", ",", "%25", "%").Replace(s)
}

func TestGitHubGolden(t *testing.T) {
	testGolden(t, FormatGitHub, func(t *testing.T, tc testCase, out []byte) {
		lines := strings.Split(strings.TrimSuffix(string(out), "\n"), "\n")
		// One command per finding, then the summary: no message can add
		// or split a line.
		if len(lines) != len(tc.report.Findings)+1 {
			t.Fatalf("%d lines, want %d findings and a summary", len(lines), len(tc.report.Findings))
		}
		if got, want := lines[len(lines)-1], summary(&tc.report); got != want {
			t.Errorf("last line %q, want %q", got, want)
		}
		messages := map[string]bool{}
		for _, f := range tc.report.Findings {
			messages[strings.TrimRight(f.Message, "\n")] = true
		}
		for _, l := range lines[:len(lines)-1] {
			name, props, data := parseCommand(t, l)
			if name != "error" && name != "warning" && name != "notice" {
				t.Errorf("command %q", name)
			}
			if props["title"] == "" {
				t.Errorf("no title in %q", l)
			}
			msg, _, _ := strings.Cut(data, "\nwaived: ")
			msg, _, _ = strings.Cut(msg, "\nremediation: ")
			if !messages[msg] {
				t.Errorf("message %q is none of the findings'", msg)
			}
			if strings.HasPrefix(props["file"], "/repo/") {
				t.Errorf("file %q not relative to the root", props["file"])
			}
		}
	})
}

func TestGitHub(t *testing.T) {
	tests := []struct {
		name    string
		finding Finding
		opts    []Option
		want    string
	}{
		{
			name:    "deny",
			finding: Finding{Rule: "r", Severity: Deny, Message: "m", Pos: pos("a.yaml", 3, 4)},
			want:    "::error file=a.yaml,line=3,col=4,title=r::m",
		},
		{
			name:    "warn",
			finding: Finding{Rule: "r", Severity: Warn, Message: "m", Pos: pos("a.yaml", 3, 0)},
			want:    "::warning file=a.yaml,line=3,title=r::m",
		},
		{
			name:    "waived",
			finding: Finding{Rule: "r", Severity: Deny, Message: "m", Pos: pos("a.yaml", 0, 4), Waived: "why"},
			want:    "::notice file=a.yaml,title=r::m%0Awaived: why",
		},
		{
			name:    "no file",
			finding: Finding{Rule: "r", Severity: Deny, Message: "m", Pos: pos("", 3, 4)},
			want:    "::error title=r::m",
		},
		{
			name:    "remediation",
			finding: Finding{Rule: "ztp.hosts.unique-mac", Severity: Deny, Message: "m"},
			opts:    []Option{WithRules(rules)},
			want:    "::error title=ztp.hosts.unique-mac::m%0Aremediation: Correct the MAC address; a MAC belongs to one host of one site.",
		},
		{
			name:    "data escaping",
			finding: Finding{Rule: "r", Severity: Deny, Message: "100% a,b: c\r\nd::e"},
			want:    "::error title=r::100%25 a,b: c%0D%0Ad::e",
		},
		{
			name:    "property escaping",
			finding: Finding{Rule: "ns.r:x,y%", Severity: Deny, Message: "m", Pos: pos("d/a,b:c%.yaml", 1, 1)},
			want:    "::error file=d/a%2Cb%3Ac%25.yaml,line=1,col=1,title=ns.r%3Ax%2Cy%25::m",
		},
		{
			name:    "line breaks in properties",
			finding: Finding{Rule: "r\r\nx", Severity: Deny, Message: "m", Pos: pos("a\nb.yaml", 1, 0)},
			want:    "::error file=a%0Ab.yaml,line=1,title=r%0D%0Ax::m",
		},
		{
			name:    "relative to the root",
			finding: Finding{Rule: "r", Severity: Deny, Message: "m", Pos: pos("/ws/sites/a.yaml", 1, 1)},
			opts:    []Option{WithRoot("/ws")},
			want:    "::error file=sites/a.yaml,line=1,col=1,title=r::m",
		},
		{
			name:    "unicode and markup untouched",
			finding: Finding{Rule: "r", Severity: Warn, Message: `"q" <&> naïve ✓`},
			want:    `::warning title=r::"q" <&> naïve ✓`,
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			out := string(render(t, FormatGitHub, &Report{Sites: 1, Findings: []Finding{tt.finding}}, tt.opts...))
			first, _, _ := strings.Cut(out, "\n")
			if first != tt.want {
				t.Errorf("got  %q\nwant %q", first, tt.want)
			}
		})
	}
}
