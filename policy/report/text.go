package report

import (
	"bytes"
	"io"
	"strconv"
	"strings"
	"unicode"
)

// textWriter prints one line per finding, as compilers do, so that
// editors and terminals can jump to the place:
//
//	sites/sno1.yaml:12:5: deny ztp.network.vip-in-machine-network: site sno1: spec.clusters[0].apiVIPs[0]: API VIP 10.0.1.5 is outside the machine network
//	    remediation: Pick an address inside a machine network.
//	sites/sno2.yaml:3:1: warn ztp.bmc.disable-certificate-verification: site sno2: ... (waived: lab BMCs)
//
// The site and field follow the rule as they do in render's problems
// (site S: field: message); a message that already starts with its site
// does not name it twice.
//
//	2 sites checked: 1 deny, 0 warn, 1 waived
//
// A finding without a file starts with "-". The lines of a multi-line
// message after the first are indented, and control characters are
// escaped, so a message cannot forge a line or drive the terminal.
type textWriter struct{ *options }

const (
	ansiReset  = "\x1b[0m"
	ansiRed    = "\x1b[1;31m"
	ansiYellow = "\x1b[33m"
	ansiFaint  = "\x1b[2m"
)

func (t *textWriter) Write(w io.Writer, r *Report) error {
	r, err := t.prepare(r)
	if err != nil {
		return err
	}
	var b bytes.Buffer
	for i := range r.Findings {
		f := &r.Findings[i]
		b.WriteString(f.Pos.String())
		b.WriteString(": ")
		b.WriteString(t.severity(f))
		b.WriteString(" ")
		b.WriteString(f.Rule)
		b.WriteString(": ")
		b.WriteString(sanitize(where(f)))
		b.WriteString(indent(sanitize(f.Message)))
		if f.Waived != "" {
			b.WriteString(" ")
			b.WriteString(t.paint(ansiFaint, "(waived: "+indent(sanitize(f.Waived))+")"))
		}
		b.WriteString("\n")
		if f.Remediation != "" {
			b.WriteString("    remediation: ")
			b.WriteString(indent(sanitize(f.Remediation)))
			b.WriteString("\n")
		}
	}
	if len(r.Findings) > 0 {
		b.WriteString("\n")
	}
	b.WriteString(summary(r))
	b.WriteString("\n")
	_, err = w.Write(b.Bytes())
	return err
}

// where is "site S: field: " for a finding, leaving out what it does not
// have.
func where(f *Finding) string {
	var b strings.Builder
	if f.Site != "" && !strings.HasPrefix(f.Message, "site "+f.Site) {
		b.WriteString("site " + f.Site + ": ")
	}
	if f.Field != "" {
		b.WriteString(f.Field + ": ")
	}
	return b.String()
}

func (t *textWriter) severity(f *Finding) string {
	switch {
	case f.Waived != "":
		return t.paint(ansiFaint, string(f.Severity))
	case f.Severity == Deny:
		return t.paint(ansiRed, string(f.Severity))
	case f.Severity == Info:
		return t.paint(ansiFaint, string(f.Severity))
	}
	return t.paint(ansiYellow, string(f.Severity))
}

func (t *textWriter) paint(color, s string) string {
	if !t.color {
		return s
	}
	return color + s + ansiReset
}

// indent indents the lines of s after the first to line up under the
// remediation line, so every line that starts in column one is a finding.
func indent(s string) string {
	s = strings.TrimRight(s, "\n")
	return strings.ReplaceAll(s, "\n", "\n    ")
}

// sanitize escapes control characters other than newline and tab, and
// the Unicode bidirectional overrides, which could hide or reorder text
// on a terminal; a message comes from a user policy and is not trusted.
// A carriage return before a newline is dropped rather than escaped.
func sanitize(s string) string {
	s = strings.ReplaceAll(s, "\r\n", "\n")
	if !strings.ContainsFunc(s, unsafeRune) {
		return s
	}
	var b strings.Builder
	for _, r := range s {
		if !unsafeRune(r) {
			b.WriteRune(r)
			continue
		}
		q := strconv.QuoteRuneToASCII(r)
		b.WriteString(q[1 : len(q)-1])
	}
	return b.String()
}

func unsafeRune(r rune) bool {
	switch {
	case r == '\n' || r == '\t':
		return false
	case unicode.IsControl(r):
		return true
	case r >= '\u202a' && r <= '\u202e', r >= '\u2066' && r <= '\u2069':
		return true
	}
	return false
}
