package report

import (
	"bytes"
	"encoding/xml"
	"io"
	"strings"
	"testing"
)

// junitDoc is what a JUnit consumer reads, declared apart from the
// writer's types so that the test does not agree with itself.
type junitDoc struct {
	Tests    int `xml:"tests,attr"`
	Failures int `xml:"failures,attr"`
	Skipped  int `xml:"skipped,attr"`
	Suites   []struct {
		Name     string `xml:"name,attr"`
		Tests    int    `xml:"tests,attr"`
		Failures int    `xml:"failures,attr"`
		Skipped  int    `xml:"skipped,attr"`
		Cases    []struct {
			Name      string `xml:"name,attr"`
			Classname string `xml:"classname,attr"`
			File      string `xml:"file,attr"`
			Failure   *struct {
				Message string `xml:"message,attr"`
				Type    string `xml:"type,attr"`
				Text    string `xml:",chardata"`
			} `xml:"failure"`
			Skipped *struct {
				Message string `xml:"message,attr"`
				Text    string `xml:",chardata"`
			} `xml:"skipped"`
		} `xml:"testcase"`
	} `xml:"testsuite"`
}

// parseJUnit checks that out is well-formed XML, token by token in
// strict mode, and decodes it.
func parseJUnit(t *testing.T, out []byte) junitDoc {
	t.Helper()
	d := xml.NewDecoder(bytes.NewReader(out))
	for {
		_, err := d.Token()
		if err == io.EOF {
			break
		}
		if err != nil {
			t.Fatalf("not well-formed XML: %v\n%s", err, out)
		}
	}
	var doc junitDoc
	if err := xml.Unmarshal(out, &doc); err != nil {
		t.Fatalf("decode: %v", err)
	}
	return doc
}

func TestJUnitGolden(t *testing.T) {
	testGolden(t, FormatJUnit, func(t *testing.T, tc testCase, out []byte) {
		doc := parseJUnit(t, out)
		tests, failures, skipped := 0, 0, 0
		for _, s := range doc.Suites {
			if s.Tests != len(s.Cases) {
				t.Errorf("suite %s: tests=%d, has %d testcases", s.Name, s.Tests, len(s.Cases))
			}
			f, sk := 0, 0
			for _, c := range s.Cases {
				if c.Failure != nil && c.Skipped != nil {
					t.Errorf("%s/%s both failed and skipped", s.Name, c.Name)
				}
				if c.Failure != nil {
					f++
				}
				if c.Skipped != nil {
					sk++
				}
				if c.Classname != s.Name {
					t.Errorf("%s/%s: classname %q", s.Name, c.Name, c.Classname)
				}
			}
			if s.Failures != f || s.Skipped != sk {
				t.Errorf("suite %s: failures=%d skipped=%d, testcases say %d and %d", s.Name, s.Failures, s.Skipped, f, sk)
			}
			tests, failures, skipped = tests+len(s.Cases), failures+f, skipped+sk
		}
		if doc.Tests != tests || doc.Failures != failures || doc.Skipped != skipped {
			t.Errorf("testsuites tests=%d failures=%d skipped=%d, suites say %d, %d, %d",
				doc.Tests, doc.Failures, doc.Skipped, tests, failures, skipped)
		}
		// A JUnit failure exactly when the check fails.
		failOnWarn := tc.name == "fail-on-warn"
		if (failures > 0) != (tc.report.ExitCode(failOnWarn) == 1) {
			t.Errorf("%d failed testcases, exit code %d", failures, tc.report.ExitCode(failOnWarn))
		}
		// Every message makes it through escaping intact.
		var text strings.Builder
		for _, s := range doc.Suites {
			for _, c := range s.Cases {
				if c.Failure != nil {
					text.WriteString(c.Failure.Text)
				}
				if c.Skipped != nil {
					text.WriteString(c.Skipped.Text)
				}
			}
		}
		for _, f := range tc.report.Findings {
			if !strings.Contains(text.String(), strings.ReplaceAll(xmlSafe(f.Message), "\n", "\n    ")) {
				t.Errorf("message %q not in the testcase texts", f.Message)
			}
		}
	})
}

// xmlSafe is s as it reads after a round trip through XML: characters
// XML cannot hold become U+FFFD. (CR survives: the writer escapes it.)
func xmlSafe(s string) string {
	return strings.Map(func(r rune) rune {
		if r < 0x20 && r != '\t' && r != '\n' && r != '\r' {
			return '\uFFFD'
		}
		return r
	}, strings.TrimRight(s, "\n"))
}

func TestJUnit(t *testing.T) {
	type outcome struct {
		suite, name, file string
		status            string // failure type, "skipped" or "passed"
		message           string
	}
	tests := []struct {
		name     string
		findings []Finding
		opts     []Option
		want     []outcome
	}{
		{
			name:     "deny fails",
			findings: []Finding{{Rule: "r", Severity: Deny, Site: "sno1", Message: "m", Pos: pos("s/sno1.yaml", 1, 1)}},
			want:     []outcome{{"sno1", "r", "s/sno1.yaml", "deny", "m"}},
		},
		{
			name:     "warn is skipped",
			findings: []Finding{{Rule: "r", Severity: Warn, Site: "sno1", Message: "m"}},
			want:     []outcome{{"sno1", "r", "", "skipped", "warn: m"}},
		},
		{
			name:     "warn fails with fail-on-warn",
			findings: []Finding{{Rule: "r", Severity: Warn, Site: "sno1", Message: "m"}},
			opts:     []Option{WithFailOnWarn(true)},
			want:     []outcome{{"sno1", "r", "", "warn", "m"}},
		},
		{
			name:     "waived is skipped with the reason",
			findings: []Finding{{Rule: "r", Severity: Deny, Site: "sno1", Message: "m", Waived: "because"}},
			opts:     []Option{WithFailOnWarn(true)},
			want:     []outcome{{"sno1", "r", "", "skipped", "waived: because"}},
		},
		{
			name: "one testcase per rule and site",
			findings: []Finding{
				{Rule: "r", Severity: Deny, Site: "sno1", Message: "first", Pos: pos("s/sno1.yaml", 1, 1)},
				{Rule: "r", Severity: Deny, Site: "sno1", Message: "second", Pos: pos("s/sno1.yaml", 2, 1)},
				{Rule: "r", Severity: Deny, Site: "sno2", Message: "third"},
			},
			want: []outcome{
				{"sno1", "r", "s/sno1.yaml", "deny", "first (and 1 more)"},
				{"sno2", "r", "", "deny", "third"},
			},
		},
		{
			name: "deny beats waived in one testcase",
			findings: []Finding{
				{Rule: "r", Severity: Deny, Site: "sno1", Message: "a", Waived: "w"},
				{Rule: "r", Severity: Deny, Site: "sno1", Message: "b"},
			},
			want: []outcome{{"sno1", "r", "", "deny", "b"}},
		},
		{
			name: "suites for sites, then files, then the fleet",
			findings: []Finding{
				{Rule: "f", Severity: Deny, Message: "fleet"},
				{Rule: "l", Severity: Deny, Message: "load", Pos: pos("/repo/s/broken.yaml", 0, 0)},
				{Rule: "s", Severity: Deny, Site: "zz", Message: "site"},
			},
			opts: []Option{WithRoot("/repo")},
			want: []outcome{
				{"zz", "s", "", "deny", "site"},
				{"s/broken.yaml", "l", "s/broken.yaml", "deny", "load"},
				{"(fleet)", "f", "", "deny", "fleet"},
			},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			doc := parseJUnit(t, render(t, FormatJUnit, &Report{Findings: tt.findings}, tt.opts...))
			var got []outcome
			for _, s := range doc.Suites {
				for _, c := range s.Cases {
					o := outcome{suite: s.Name, name: c.Name, file: c.File, status: "passed"}
					switch {
					case c.Failure != nil:
						o.status, o.message = c.Failure.Type, c.Failure.Message
					case c.Skipped != nil:
						o.status, o.message = "skipped", c.Skipped.Message
					}
					got = append(got, o)
				}
			}
			if len(got) != len(tt.want) {
				t.Fatalf("testcases %+v, want %+v", got, tt.want)
			}
			for i := range got {
				if got[i] != tt.want[i] {
					t.Errorf("testcase %d = %+v, want %+v", i, got[i], tt.want[i])
				}
			}
		})
	}
}
