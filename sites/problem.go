package sites

import (
	"fmt"
	"strings"

	"github.com/siteops/siteops/internal/redact"
)

// Severity says whether a problem stops its site.
type Severity string

const (
	// SeverityError means the site cannot be rendered.
	SeverityError Severity = "error"
	// SeverityWarning means the site renders, but something in it is
	// probably not what its author meant (an unknown field, say).
	SeverityWarning Severity = "warning"
)

// Problem is something wrong with the input, tied to where it is. A problem
// stays with its site: other sites load and render regardless.
type Problem struct {
	Pos      Position `json:"pos"`
	Severity Severity `json:"severity"`
	// Site is the cluster name, or the SiteConfig's metadata.name when the
	// problem is not inside one cluster; empty when the file could not be
	// read as a SiteConfig at all.
	Site string `json:"site,omitempty"`
	// Field is the path of the offending field, as in
	// spec.clusters[0].nodes[1].bmcAddress.
	Field   string `json:"field,omitempty"`
	Message string `json:"message"`
	// Hint says how to fix it.
	Hint string `json:"hint,omitempty"`
	// Err is the underlying error, if any, for errors.Is/As.
	Err error `json:"-"`
}

// Error formats the problem as "file:line:col: site S: field F: message (hint)".
func (p Problem) Error() string {
	var b strings.Builder
	b.WriteString(p.Pos.String())
	b.WriteString(": ")
	if p.Severity == SeverityWarning {
		b.WriteString("warning: ")
	}
	if p.Site != "" {
		fmt.Fprintf(&b, "site %s: ", p.Site)
	}
	if p.Field != "" {
		fmt.Fprintf(&b, "%s: ", p.Field)
	}
	b.WriteString(p.Message)
	if p.Hint != "" {
		b.WriteString(" (")
		b.WriteString(p.Hint)
		b.WriteString(")")
	}
	// A message may quote a value of the site: hide its credentials.
	return redact.Text(b.String())
}

// Unwrap returns the underlying error.
func (p Problem) Unwrap() error { return p.Err }

// Problems is a list of problems in the order they were found.
type Problems []Problem

// HasErrors reports whether any problem is an error.
func (ps Problems) HasErrors() bool {
	for _, p := range ps {
		if p.Severity == SeverityError {
			return true
		}
	}
	return false
}
