package report

import (
	"bytes"
	"fmt"
	"io"
	"strings"

	"gopkg.in/yaml.v3"
)

// tapWriter prints TAP version 13: one test point per finding, each
// followed by a YAML diagnostic block that holds the whole finding.
//
//	TAP version 13
//	1..3
//	not ok 1 - sites/sno1.yaml:12:5 ztp.network.vip-in-machine-network: API VIP …
//	  ---
//	  rule: ztp.network.vip-in-machine-network
//	  severity: deny
//	  …
//	  ...
//	not ok 2 - sites/sno2.yaml:4:3 ztp.bmc.disable-certificate-verification: … # TODO warn
//	ok 3 - sites/sno3.yaml:9:1 ztp.installer-args.allowed: … # SKIP waived: lab
//	# 3 sites checked: 1 deny, 1 warn, 1 waived
//
// A deny is "not ok". conftest prints a warning as a plain "not ok" too,
// which makes a TAP harness fail a check that exits 0; here a warning is
// "not ok … # TODO warn": TAP's directive for a known problem that does
// not fail the run, so it is listed but not counted as a failure. With
// WithFailOnWarn it is a plain "not ok", as the exit code is 1. A waived
// finding is "ok … # SKIP waived: reason". A clean report is the plan
// "1..0", which harnesses read as nothing to run, not as a failure.
//
// The description is one line: the place, the rule and the first line
// of the message, with '\' and '#' escaped as TAP 13 parsers expect, so
// a message cannot forge a directive, and control characters escaped as
// in the text format.
type tapWriter struct{ *options }

var tapEscaper = strings.NewReplacer(`\`, `\\`, "#", `\#`)

// tapDiagnostic is the YAML block of a test point.
type tapDiagnostic struct {
	Rule        string     `yaml:"rule"`
	Severity    Severity   `yaml:"severity"`
	Site        string     `yaml:"site,omitempty"`
	File        string     `yaml:"file,omitempty"`
	Line        int        `yaml:"line,omitempty"`
	Column      int        `yaml:"column,omitempty"`
	Field       string     `yaml:"field,omitempty"`
	Object      *tapObject `yaml:"object,omitempty"`
	Message     string     `yaml:"message"`
	Remediation string     `yaml:"remediation,omitempty"`
	Reference   string     `yaml:"reference,omitempty"`
	Waived      string     `yaml:"waived,omitempty"`
}

// tapObject is ObjectRef with YAML names.
type tapObject struct {
	APIVersion string `yaml:"apiVersion,omitempty"`
	Kind       string `yaml:"kind,omitempty"`
	Namespace  string `yaml:"namespace,omitempty"`
	Name       string `yaml:"name,omitempty"`
}

func (t *tapWriter) Write(w io.Writer, r *Report) error {
	r, err := t.prepare(r)
	if err != nil {
		return err
	}
	var b bytes.Buffer
	fmt.Fprintf(&b, "TAP version 13\n1..%d\n", len(r.Findings))
	for i := range r.Findings {
		f := &r.Findings[i]
		status, directive := "not ok", ""
		switch {
		case f.Waived != "":
			status, directive = "ok", " # SKIP waived: "+tapEscape(f.Waived)
		case f.Severity == Warn && !t.failOnWarn:
			directive = " # TODO warn"
		case f.Severity == Info:
			status, directive = "ok", " # info"
		}
		fmt.Fprintf(&b, "%s %d - %s %s: %s%s\n", status, i+1,
			tapEscape(f.Pos.String()), tapEscape(f.Rule), tapEscape(f.Message), directive)
		if err := writeTAPDiagnostic(&b, f); err != nil {
			return err
		}
	}
	fmt.Fprintf(&b, "# %s\n", summary(r))
	_, err = w.Write(b.Bytes())
	return err
}

func tapEscape(s string) string {
	return sanitize(tapEscaper.Replace(firstLine(s)))
}

// writeTAPDiagnostic writes the YAML block, indented by two spaces
// between "---" and "...". The YAML encoder quotes what needs quoting
// and writes multi-line messages as block scalars.
func writeTAPDiagnostic(b *bytes.Buffer, f *Finding) error {
	var obj *tapObject
	if f.Object != nil {
		obj = (*tapObject)(f.Object)
	}
	var y bytes.Buffer
	enc := yaml.NewEncoder(&y)
	enc.SetIndent(2)
	err := enc.Encode(tapDiagnostic{
		Rule:        f.Rule,
		Severity:    f.Severity,
		Site:        f.Site,
		File:        f.Pos.File,
		Line:        f.Pos.Line,
		Column:      f.Pos.Column,
		Field:       f.Field,
		Object:      obj,
		Message:     f.Message,
		Remediation: f.Remediation,
		Reference:   f.Reference,
		Waived:      f.Waived,
	})
	if err == nil {
		err = enc.Close()
	}
	if err != nil {
		return fmt.Errorf("encode tap diagnostic of rule %q: %w", f.Rule, err)
	}
	b.WriteString("  ---\n")
	for line := range strings.Lines(y.String()) {
		if line != "\n" {
			b.WriteString("  ")
		}
		b.WriteString(line)
	}
	b.WriteString("  ...\n")
	return nil
}

// firstLine returns the first line of s, with " …" when more follows, for
// formats that have room for one line only.
func firstLine(s string) string {
	s = strings.TrimRight(s, "\r\n")
	if i := strings.IndexAny(s, "\r\n"); i >= 0 {
		return strings.TrimRight(s[:i], " ") + " …"
	}
	return s
}
