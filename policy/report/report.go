package report

import (
	"regexp"
	"sort"

	"github.com/siteops/siteops/sites"
)

// Severity of a finding.
type Severity string

const (
	// Deny findings block the site: `siteops check` exits 1.
	Deny Severity = "deny"
	// Warn findings are reported; they fail only with --fail-on-warn.
	Warn Severity = "warn"
	// Info findings are notes about what the site inherits rather than
	// what it got wrong (the upstream templates' choices): reported, never
	// failing, not even with --fail-on-warn, so they do not drown the
	// warnings a person has to read.
	Info Severity = "info"
)

// ObjectRef names a rendered object a finding is about.
type ObjectRef struct {
	APIVersion string `json:"apiVersion,omitempty"`
	Kind       string `json:"kind,omitempty"`
	Namespace  string `json:"namespace,omitempty"`
	Name       string `json:"name,omitempty"`
}

// Finding is one rule's verdict on one site (or one fleet-wide fact).
type Finding struct {
	// Rule is the rule id, such as "ztp.network.vip-in-machine-network"
	// for a built-in rule, or "<namespace>.<rule>" for a user policy.
	Rule     string   `json:"rule"`
	Severity Severity `json:"severity"`
	// Site is the cluster name; empty for a finding about a file that
	// defines no site that loaded.
	Site string `json:"site,omitempty"`
	// Field is the document path of the offending field.
	Field   string         `json:"field,omitempty"`
	Object  *ObjectRef     `json:"object,omitempty"`
	Message string         `json:"message"`
	Pos     sites.Position `json:"pos"`
	// Remediation says how to fix it.
	Remediation string `json:"remediation,omitempty"`
	// Reference is where the rule comes from: the upstream project and file
	// whose check it makes ahead of time (with a validation id where the
	// installer has one), or a page of docs/.
	Reference string `json:"reference,omitempty"`
	// Waived holds the reason when a site waives this rule; a waived
	// finding is reported and does not fail the check.
	Waived string `json:"waived,omitempty"`
}

// Rule describes a rule, for --list-rules and docs/rules.md.
type Rule struct {
	ID          string   `json:"id"`
	Severity    Severity `json:"severity"`
	Title       string   `json:"title"`
	Remediation string   `json:"remediation"`
	Reference   string   `json:"reference"`
	// Source is "builtin" or the policy file a user rule is in.
	Source string `json:"source"`
}

// Report is the outcome of checking a fleet.
type Report struct {
	// Revision is the Git revision checked, when known.
	Revision string    `json:"revision,omitempty"`
	Sites    int       `json:"sites"`
	Findings []Finding `json:"findings"`
	// Base is the revision the findings are new since (pull-request mode,
	// see Since); PreExisting counts the findings left out because that
	// revision has them too.
	Base        string `json:"base,omitempty"`
	PreExisting int    `json:"preExisting,omitempty"`
}

// Since keeps only the findings that are new since base, the report of
// an earlier revision named baseRevision, and counts the others in
// PreExisting. A finding is the same as one of base when its rule, site
// and message are, whatever its line: lines move between revisions, and
// a message names what it is about. Places a message quotes
// ("sites/b.yaml:29:11") are compared without their line and column for
// the same reason. Each finding of base matches one finding here at most,
// so a problem that now happens twice is new once.
func (r *Report) Since(base *Report, baseRevision string) {
	key := func(f *Finding) [3]string {
		return [3]string{f.Rule, f.Site, filePlace.ReplaceAllString(f.Message, "$1")}
	}
	seen := map[[3]string]int{}
	for i := range base.Findings {
		seen[key(&base.Findings[i])]++
	}
	kept := r.Findings[:0]
	for _, f := range r.Findings {
		k := key(&f)
		if seen[k] > 0 {
			seen[k]--
			r.PreExisting++
			continue
		}
		kept = append(kept, f)
	}
	r.Findings, r.Base = kept, baseRevision
}

// Sort orders findings by file, line, column, rule and site, so that
// output is the same on every run.
func (r *Report) Sort() {
	sort.SliceStable(r.Findings, func(i, j int) bool {
		a, b := r.Findings[i], r.Findings[j]
		switch {
		case a.Pos.File != b.Pos.File:
			return a.Pos.File < b.Pos.File
		case a.Pos.Line != b.Pos.Line:
			return a.Pos.Line < b.Pos.Line
		case a.Pos.Column != b.Pos.Column:
			return a.Pos.Column < b.Pos.Column
		case a.Rule != b.Rule:
			return a.Rule < b.Rule
		}
		return a.Site < b.Site
	})
}

// Count returns the number of findings of a severity that are not waived.
func (r *Report) Count(s Severity) int {
	n := 0
	for _, f := range r.Findings {
		if f.Severity == s && f.Waived == "" {
			n++
		}
	}
	return n
}

// Waived returns the number of waived findings.
func (r *Report) Waived() int {
	n := 0
	for _, f := range r.Findings {
		if f.Waived != "" {
			n++
		}
	}
	return n
}

// ExitCode is 1 when a deny finding (or, with failOnWarn, a warn finding)
// is not waived, 0 otherwise.
func (r *Report) ExitCode(failOnWarn bool) int {
	if r.Count(Deny) > 0 || failOnWarn && r.Count(Warn) > 0 {
		return 1
	}
	return 0
}

// filePlace matches a place in a file as messages quote it: a file name
// with an extension, then :line or :line:column.
var filePlace = regexp.MustCompile(`([\w./-]+\.[A-Za-z0-9]+):\d+(?::\d+)?\b`)
