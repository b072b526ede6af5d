package report

import (
	"fmt"
	"regexp"
	"strings"
	"testing"

	"gopkg.in/yaml.v3"
)

// tapPoint is a test point as a TAP 13 consumer reads it.
type tapPoint struct {
	ok          bool
	number      int
	description string
	directive   string
	diagnostic  map[string]any
}

var (
	tapPlan  = regexp.MustCompile(`^1\.\.(\d+)$`)
	tapLine  = regexp.MustCompile(`^(ok|not ok) (\d+) - (.*)$`)
	tapDirec = regexp.MustCompile(`^(.*?) # ((?:TODO|SKIP)\b.*)$`)
)

// parseTAP reads a TAP 13 stream: version, plan, test points with their
// YAML blocks, comments. It fails on anything else.
func parseTAP(t *testing.T, out string) (plan int, points []tapPoint, comments []string) {
	t.Helper()
	lines := strings.Split(strings.TrimSuffix(out, "\n"), "\n")
	if lines[0] != "TAP version 13" {
		t.Fatalf("first line %q", lines[0])
	}
	m := tapPlan.FindStringSubmatch(lines[1])
	if m == nil {
		t.Fatalf("second line %q is not a plan", lines[1])
	}
	fmt.Sscan(m[1], &plan)
	for i := 2; i < len(lines); i++ {
		l := lines[i]
		switch {
		case strings.HasPrefix(l, "# "):
			comments = append(comments, l[2:])
		case l == "  ---":
			if len(points) == 0 {
				t.Fatalf("YAML block before any test point")
			}
			var block []string
			for i++; i < len(lines) && lines[i] != "  ..."; i++ {
				block = append(block, strings.TrimPrefix(lines[i], "  "))
			}
			if i == len(lines) {
				t.Fatal("YAML block not closed")
			}
			var d map[string]any
			if err := yaml.Unmarshal([]byte(strings.Join(block, "\n")), &d); err != nil {
				t.Fatalf("YAML block: %v\n%s", err, strings.Join(block, "\n"))
			}
			points[len(points)-1].diagnostic = d
		default:
			m := tapLine.FindStringSubmatch(l)
			if m == nil {
				t.Fatalf("line %q is not TAP", l)
			}
			p := tapPoint{ok: m[1] == "ok", description: m[3]}
			fmt.Sscan(m[2], &p.number)
			// An unescaped '#' starts the directive; '\#' does not.
			if d := tapDirec.FindStringSubmatch(strings.ReplaceAll(p.description, `\#`, "\x00")); d != nil {
				p.description = strings.ReplaceAll(d[1], "\x00", `\#`)
				p.directive = strings.ReplaceAll(d[2], "\x00", `\#`)
			}
			points = append(points, p)
		}
	}
	return plan, points, comments
}

func TestTAPGolden(t *testing.T) {
	testGolden(t, FormatTAP, func(t *testing.T, tc testCase, out []byte) {
		plan, points, comments := parseTAP(t, string(out))
		if plan != len(tc.report.Findings) || len(points) != plan {
			t.Fatalf("plan 1..%d with %d test points, want %d", plan, len(points), len(tc.report.Findings))
		}
		if len(comments) != 1 || comments[0] != summary(&tc.report) {
			t.Errorf("comments %q, want the summary", comments)
		}
		// What a harness counts as failed is what fails the check.
		failOnWarn := tc.name == "fail-on-warn"
		failed := 0
		messages := map[string]bool{}
		for _, f := range tc.report.Findings {
			messages[f.Message] = true
		}
		for i, p := range points {
			if p.number != i+1 {
				t.Errorf("test point %d numbered %d", i+1, p.number)
			}
			if !p.ok && !strings.HasPrefix(p.directive, "TODO") {
				failed++
			}
			if p.diagnostic == nil {
				t.Errorf("test point %d has no YAML block", p.number)
				continue
			}
			if msg, _ := p.diagnostic["message"].(string); !messages[msg] {
				t.Errorf("test point %d: message %q does not round-trip", p.number, msg)
			}
		}
		if (failed > 0) != (tc.report.ExitCode(failOnWarn) == 1) {
			t.Errorf("%d failing test points, exit code %d", failed, tc.report.ExitCode(failOnWarn))
		}
	})
}

func TestTAP(t *testing.T) {
	tests := []struct {
		name      string
		finding   Finding
		opts      []Option
		ok        bool
		desc      string
		directive string
		diag      map[string]any
	}{
		{
			name:    "deny",
			finding: Finding{Rule: "r", Severity: Deny, Site: "sno1", Message: "m", Pos: pos("a.yaml", 3, 4)},
			desc:    "a.yaml:3:4 r: m",
			diag:    map[string]any{"rule": "r", "severity": "deny", "site": "sno1", "file": "a.yaml", "line": 3, "column": 4, "message": "m"},
		},
		{
			name:      "warn is a TODO",
			finding:   Finding{Rule: "r", Severity: Warn, Message: "m"},
			desc:      "- r: m",
			directive: "TODO warn",
			diag:      map[string]any{"rule": "r", "severity": "warn", "message": "m"},
		},
		{
			name:    "warn fails with fail-on-warn",
			finding: Finding{Rule: "r", Severity: Warn, Message: "m"},
			opts:    []Option{WithFailOnWarn(true)},
			desc:    "- r: m",
		},
		{
			name:      "waived is skipped",
			finding:   Finding{Rule: "r", Severity: Deny, Message: "m", Waived: "lab # 2"},
			ok:        true,
			desc:      "- r: m",
			directive: `SKIP waived: lab \# 2`,
			diag:      map[string]any{"waived": "lab # 2"},
		},
		{
			name:    "hash and backslash escaped",
			finding: Finding{Rule: "r", Severity: Deny, Message: `a # TODO b \ c`},
			desc:    `- r: a \# TODO b \\ c`,
			diag:    map[string]any{"message": `a # TODO b \ c`},
		},
		{
			name:    "first line only, whole message in YAML",
			finding: Finding{Rule: "r", Severity: Deny, Message: "one\n...\n---\ntwo"},
			desc:    "- r: one …",
			diag:    map[string]any{"message": "one\n...\n---\ntwo"},
		},
		{
			name:    "quotes, markup, unicode, control characters",
			finding: Finding{Rule: "r", Severity: Deny, Message: "\"q\" <&> naïve: ✓, 100%\x1b"},
			desc:    `- r: "q" <&> naïve: ✓, 100%\x1b`,
			diag:    map[string]any{"message": "\"q\" <&> naïve: ✓, 100%\x1b"},
		},
		{
			name: "object and remediation",
			finding: Finding{
				Rule: "ztp.hosts.unique-mac", Severity: Deny, Message: "m", Field: "spec.x",
				Object: &ObjectRef{APIVersion: "v1", Kind: "Secret", Namespace: "ns", Name: "n"},
			},
			opts: []Option{WithRules(rules)},
			desc: "- ztp.hosts.unique-mac: m",
			diag: map[string]any{
				"field":       "spec.x",
				"object":      map[string]any{"apiVersion": "v1", "kind": "Secret", "namespace": "ns", "name": "n"},
				"remediation": "Correct the MAC address; a MAC belongs to one host of one site.",
				"reference":   "openshift/installer pkg/asset/agent/agentconfig/agenthosts.go",
			},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			out := string(render(t, FormatTAP, &Report{Findings: []Finding{tt.finding}}, tt.opts...))
			_, points, _ := parseTAP(t, out)
			if len(points) != 1 {
				t.Fatalf("%d test points in\n%s", len(points), out)
			}
			p := points[0]
			if p.ok != tt.ok || p.description != tt.desc || p.directive != tt.directive {
				t.Errorf("got ok=%v %q directive %q, want ok=%v %q directive %q", p.ok, p.description, p.directive, tt.ok, tt.desc, tt.directive)
			}
			for k, v := range tt.diag {
				if fmt.Sprint(p.diagnostic[k]) != fmt.Sprint(v) {
					t.Errorf("diagnostic %s = %#v, want %#v", k, p.diagnostic[k], v)
				}
			}
		})
	}

	t.Run("no findings", func(t *testing.T) {
		out := string(render(t, FormatTAP, &Report{Sites: 2}))
		if want := "TAP version 13\n1..0\n# 2 sites checked: 0 deny, 0 warn, 0 waived\n"; out != want {
			t.Errorf("got %q, want %q", out, want)
		}
	})
}
