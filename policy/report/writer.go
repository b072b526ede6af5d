package report

import (
	"cmp"
	"fmt"
	"io"
	"net/url"
	"path"
	"path/filepath"
	"slices"
	"strings"
)

// A Writer prints a report in one format. Writers do not modify the
// report and hold no state between calls, so one Writer may serve
// several goroutines.
type Writer interface {
	Write(w io.Writer, r *Report) error
}

// The output formats, as given to `siteops check -o`.
const (
	// FormatText is for people: one line per finding, then a summary.
	FormatText = "text"
	// FormatJSON is the report with a summary, for scripts.
	FormatJSON = "json"
	// FormatJUnit is JUnit XML, for the test report views of GitLab and
	// Jenkins.
	FormatJUnit = "junit"
	// FormatSARIF is SARIF 2.1.0, for GitHub code scanning.
	FormatSARIF = "sarif"
	// FormatGitHub is GitHub Actions workflow commands, which annotate
	// the files of a pull request.
	FormatGitHub = "github"
	// FormatTAP is the Test Anything Protocol, version 13.
	FormatTAP = "tap"
)

// Formats returns the format names Get accepts, for help texts.
func Formats() []string {
	return []string{FormatText, FormatJSON, FormatJUnit, FormatSARIF, FormatGitHub, FormatTAP}
}

// Get returns the writer for a format.
func Get(format string, opts ...Option) (Writer, error) {
	o := applyOptions(opts)
	switch format {
	case FormatText:
		return &textWriter{o}, nil
	case FormatJSON:
		return &jsonWriter{o}, nil
	case FormatJUnit:
		return &junitWriter{o}, nil
	case FormatSARIF:
		return &sarifWriter{o}, nil
	case FormatGitHub:
		return &githubWriter{o}, nil
	case FormatTAP:
		return &tapWriter{o}, nil
	}
	return nil, fmt.Errorf("unknown format %q: want one of %s", format, strings.Join(Formats(), ", "))
}

// An Option configures a writer.
type Option func(*options)

type options struct {
	rules      map[string]Rule
	color      bool
	failOnWarn bool
	root       string
	version    string
}

func applyOptions(opts []Option) *options {
	o := &options{rules: map[string]Rule{}}
	for _, opt := range opts {
		opt(o)
	}
	return o
}

// WithRules gives the rule metadata: SARIF lists the rules with their
// titles and remediations, and every format uses a rule's remediation
// and reference for findings that carry none.
func WithRules(rules []Rule) Option {
	return func(o *options) {
		for _, r := range rules {
			o.rules[r.ID] = r
		}
	}
}

// WithColor colours the text format with ANSI escapes. It is off by
// default: output that goes to a file or a CI log should stay plain.
func WithColor(on bool) Option {
	return func(o *options) { o.color = on }
}

// WithFailOnWarn says that warnings fail the check (--fail-on-warn), so
// that the formats with a pass/fail notion per test (JUnit, TAP) fail a
// warning exactly when the exit code does.
func WithFailOnWarn(on bool) Option {
	return func(o *options) { o.failOnWarn = on }
}

// WithRoot names the directory that file names in SARIF, GitHub and
// JUnit output are relative to, normally the repository root or the
// working directory. GitHub resolves these names against the
// repository, so an absolute file name under root is made relative.
func WithRoot(dir string) Option {
	return func(o *options) { o.root = dir }
}

// WithVersion sets the siteops version that SARIF names as the tool's.
func WithVersion(v string) Option {
	return func(o *options) { o.version = v }
}

// prepare returns the report to print: a copy whose findings are sorted
// and carry the remediation and reference of their rule when they have
// none. Writers sort a copy rather than expect the caller to have called
// Sort, so output is stable whatever the engine's order and the caller's
// report is left alone. Findings that Sort finds equal (one rule saying
// two things at one place) are ordered by severity and message first, so
// that even they keep their order from run to run.
func (o *options) prepare(r *Report) (*Report, error) {
	c := &Report{}
	if r != nil {
		*c = *r
		c.Findings = slices.Clone(r.Findings)
	}
	for i := range c.Findings {
		f := &c.Findings[i]
		if f.Rule == "" {
			return nil, fmt.Errorf("finding %q: no rule", f.Message)
		}
		if f.Severity != Deny && f.Severity != Warn && f.Severity != Info {
			return nil, fmt.Errorf("finding of rule %q: unknown severity %q", f.Rule, f.Severity)
		}
		if rule, ok := o.rules[f.Rule]; ok {
			f.Remediation = cmp.Or(f.Remediation, rule.Remediation)
			f.Reference = cmp.Or(f.Reference, rule.Reference)
		}
	}
	slices.SortStableFunc(c.Findings, func(a, b Finding) int {
		return cmp.Or(cmp.Compare(a.Severity, b.Severity), cmp.Compare(a.Message, b.Message))
	})
	c.Sort()
	return c, nil
}

// fails reports whether a finding fails the check.
func (o *options) fails(f *Finding) bool {
	return f.Waived == "" && (f.Severity == Deny || o.failOnWarn && f.Severity == Warn)
}

// relPath returns a file name as CI services want it: with forward
// slashes, cleaned, and relative to the root when it is under it.
func (o *options) relPath(file string) string {
	if file == "" {
		return ""
	}
	if o.root != "" && filepath.IsAbs(file) {
		if rel, err := filepath.Rel(o.root, file); err == nil && rel != ".." && !strings.HasPrefix(rel, ".."+string(filepath.Separator)) {
			file = rel
		}
	}
	return path.Clean(filepath.ToSlash(file))
}

// fileURI returns a file name as a SARIF artifact URI: relative names
// become percent-encoded relative references, and absolute names (no
// root given, or a file outside it) file:// URIs, which are valid SARIF
// though GitHub cannot place them.
func (o *options) fileURI(file string) string {
	p := o.relPath(file)
	if path.IsAbs(p) {
		return (&url.URL{Scheme: "file", Path: p}).String()
	}
	return (&url.URL{Path: p}).String()
}

// summary is the closing line of the text and GitHub formats.
func summary(r *Report) string {
	sites := "sites"
	if r.Sites == 1 {
		sites = "site"
	}
	s := fmt.Sprintf("%d %s checked: %d deny, %d warn, %d waived",
		r.Sites, sites, r.Count(Deny), r.Count(Warn), r.Waived())
	if n := r.Count(Info); n > 0 {
		s += fmt.Sprintf(", %d info", n)
	}
	if r.Base != "" {
		s += fmt.Sprintf("; new since %s only, %d pre-existing %s hidden", r.Base, r.PreExisting, plural(r.PreExisting, "finding", "findings"))
	}
	return s
}

func plural(n int, one, many string) string {
	if n == 1 {
		return one
	}
	return many
}
