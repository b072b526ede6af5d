package report

import (
	"bytes"
	"cmp"
	"encoding/xml"
	"fmt"
	"io"
	"slices"
	"strings"
)

// junitWriter prints JUnit XML for the test report views of GitLab and
// Jenkins. Each site is a testsuite (a finding without a site goes in a
// testsuite named after its file, or "(fleet)" without one), and each
// rule that produced findings for it is a testcase named after the rule,
// with the suite's name as classname:
//
//   - A testcase fails (<failure type="deny">) when one of its findings
//     fails the check: a deny, or a warn with WithFailOnWarn
//     (<failure type="warn">).
//   - Otherwise a warn is <skipped message="warn: …">: reported, visible
//     in the skipped count and with its text, but not a failure. Jenkins
//     marks a build UNSTABLE and GitLab shows a red merge request widget
//     for any failed test, which would contradict a check that exits 0;
//     a passing testcase would hide the warning altogether.
//   - A testcase whose findings are all waived is <skipped
//     message="waived: reason">.
//
// The element text lists every finding of the testcase with its place,
// message, remediation and waiver: GitLab shows only that text, Jenkins
// shows the message attribute above it. Rules without findings are not
// listed, since the report does not say which rules passed; a clean
// report is an empty <testsuites> (Jenkins' junit step then needs
// allowEmptyResults).
type junitWriter struct{ *options }

type junitTestsuites struct {
	XMLName  xml.Name         `xml:"testsuites"`
	Name     string           `xml:"name,attr"`
	Tests    int              `xml:"tests,attr"`
	Failures int              `xml:"failures,attr"`
	Errors   int              `xml:"errors,attr"`
	Skipped  int              `xml:"skipped,attr"`
	Suites   []junitTestsuite `xml:"testsuite"`
}

type junitTestsuite struct {
	Name     string          `xml:"name,attr"`
	Tests    int             `xml:"tests,attr"`
	Failures int             `xml:"failures,attr"`
	Errors   int             `xml:"errors,attr"`
	Skipped  int             `xml:"skipped,attr"`
	Cases    []junitTestcase `xml:"testcase"`
}

type junitTestcase struct {
	Name      string        `xml:"name,attr"`
	Classname string        `xml:"classname,attr"`
	File      string        `xml:"file,attr,omitempty"`
	Failure   *junitOutcome `xml:"failure"`
	Skipped   *junitOutcome `xml:"skipped"`
	// SystemOut holds the notes of a rule of severity info: the testcase
	// passes, and the notes are there for whoever opens it.
	SystemOut string `xml:"system-out,omitempty"`
}

type junitOutcome struct {
	Message string `xml:"message,attr"`
	Type    string `xml:"type,attr,omitempty"`
	Text    string `xml:",chardata"`
}

// MarshalXML writes the text as a CharData token, which encoding/xml
// escapes without turning newlines into "&#xA;", so the findings read
// one per line in the file too. Characters XML cannot hold still become
// U+FFFD.
func (o *junitOutcome) MarshalXML(e *xml.Encoder, start xml.StartElement) error {
	start.Attr = append(start.Attr, xml.Attr{Name: xml.Name{Local: "message"}, Value: o.Message})
	if o.Type != "" {
		start.Attr = append(start.Attr, xml.Attr{Name: xml.Name{Local: "type"}, Value: o.Type})
	}
	if err := e.EncodeToken(start); err != nil {
		return err
	}
	if err := e.EncodeToken(xml.CharData(o.Text)); err != nil {
		return err
	}
	return e.EncodeToken(start.End())
}

// junitSuiteKind orders the testsuites: sites, then files, then the fleet.
type junitSuiteKind int

const (
	junitSite junitSuiteKind = iota
	junitFile
	junitFleet
)

type junitKey struct {
	kind junitSuiteKind
	name string
}

func (j *junitWriter) Write(w io.Writer, r *Report) error {
	r, err := j.prepare(r)
	if err != nil {
		return err
	}
	// Group findings by suite, then by rule; prepare's order holds within
	// a group.
	groups := map[junitKey]map[string][]*Finding{}
	for i := range r.Findings {
		f := &r.Findings[i]
		k := junitKey{junitSite, f.Site}
		switch {
		case f.Site != "":
		case f.Pos.File != "":
			k = junitKey{junitFile, j.relPath(f.Pos.File)}
		default:
			k = junitKey{junitFleet, "(fleet)"}
		}
		if groups[k] == nil {
			groups[k] = map[string][]*Finding{}
		}
		groups[k][f.Rule] = append(groups[k][f.Rule], f)
	}
	keys := make([]junitKey, 0, len(groups))
	for k := range groups {
		keys = append(keys, k)
	}
	slices.SortFunc(keys, func(a, b junitKey) int {
		return cmp.Or(cmp.Compare(a.kind, b.kind), cmp.Compare(a.name, b.name))
	})

	out := junitTestsuites{Name: "siteops"}
	if r.Base != "" {
		out.Name = fmt.Sprintf("siteops (new since %s; %d pre-existing %s hidden)", r.Base, r.PreExisting, plural(r.PreExisting, "finding", "findings"))
	}
	for _, k := range keys {
		suite := junitTestsuite{Name: k.name}
		for _, rule := range sortedKeys(groups[k]) {
			tc := j.testcase(k.name, rule, groups[k][rule])
			suite.Tests++
			switch {
			case tc.Failure != nil:
				suite.Failures++
			case tc.Skipped != nil:
				suite.Skipped++
			}
			suite.Cases = append(suite.Cases, tc)
		}
		out.Tests += suite.Tests
		out.Failures += suite.Failures
		out.Skipped += suite.Skipped
		out.Suites = append(out.Suites, suite)
	}

	var b bytes.Buffer
	b.WriteString(xml.Header)
	enc := xml.NewEncoder(&b)
	enc.Indent("", "  ")
	if err := enc.Encode(out); err != nil {
		return fmt.Errorf("encode junit: %w", err)
	}
	b.WriteString("\n")
	_, err = w.Write(b.Bytes())
	return err
}

func (j *junitWriter) testcase(suite, rule string, findings []*Finding) junitTestcase {
	tc := junitTestcase{Name: rule, Classname: suite}
	var failing, warning, notes []*Finding
	var text strings.Builder
	for _, f := range findings {
		if tc.File == "" {
			tc.File = j.relPath(f.Pos.File)
		}
		switch {
		case j.fails(f):
			failing = append(failing, f)
		case f.Waived == "" && f.Severity == Warn:
			warning = append(warning, f)
		case f.Waived == "":
			notes = append(notes, f)
		}
		j.describe(&text, f)
	}
	switch {
	case len(failing) > 0:
		tc.Failure = &junitOutcome{
			Message: outcomeMessage(failing, ""),
			Type:    string(failing[0].Severity),
			Text:    text.String(),
		}
	case len(warning) > 0:
		tc.Skipped = &junitOutcome{Message: outcomeMessage(warning, "warn: "), Text: text.String()}
	case len(notes) > 0:
		tc.SystemOut = text.String()
	default:
		tc.Skipped = &junitOutcome{Message: "waived: " + findings[0].Waived, Text: text.String()}
	}
	return tc
}

// describe adds one finding to a testcase's text, in the text format's
// shape (continuation lines indented), with the file relative as in the
// file attribute.
func (j *junitWriter) describe(b *strings.Builder, f *Finding) {
	pos := f.Pos
	pos.File = j.relPath(pos.File)
	fmt.Fprintf(b, "%s: %s: %s", pos, f.Severity, indent(f.Message))
	if f.Waived != "" {
		fmt.Fprintf(b, " (waived: %s)", indent(f.Waived))
	}
	b.WriteString("\n")
	if f.Field != "" {
		fmt.Fprintf(b, "    field: %s\n", f.Field)
	}
	if f.Remediation != "" {
		fmt.Fprintf(b, "    remediation: %s\n", indent(f.Remediation))
	}
	if f.Reference != "" {
		fmt.Fprintf(b, "    reference: %s\n", f.Reference)
	}
}

// outcomeMessage is the message attribute: the first finding's message,
// and how many more there are.
func outcomeMessage(fs []*Finding, prefix string) string {
	m := prefix + fs[0].Message
	if len(fs) > 1 {
		m += fmt.Sprintf(" (and %d more)", len(fs)-1)
	}
	return m
}

func sortedKeys[V any](m map[string]V) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	return keys
}
