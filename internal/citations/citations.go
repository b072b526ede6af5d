package citations

import (
	"bufio"
	"fmt"
	"io/fs"
	"path"
	"regexp"
	"sort"
	"strings"
)

// Finding is one line that cites what a reader cannot open.
type Finding struct {
	Path string // slash-separated, relative to the scanned root
	Line int    // 1-based
	Text string // the citation found
	Why  string // what is wrong with it and what to cite instead
}

func (f Finding) String() string {
	return fmt.Sprintf("%s:%d: %q: %s", f.Path, f.Line, f.Text, f.Why)
}

// rule is one kind of unreadable citation. The expressions are written so
// that this file does not match them itself.
type rule struct {
	re  *regexp.Regexp
	why string
	// project reports whether a match may name a file of the project
	// (then it is allowed when that file exists).
	project bool
}

const citeUpstream = "cite the upstream project and file (e.g. openshift/assisted-service internal/host/validator.go), a page under docs/, or nothing"

// rules lists the citations Scan reports.
var rules = []rule{
	{re: regexp.MustCompile(`\x{00A7}\s*[0-9A-Za-z.]*`),
		why: "a section number of a document readers do not have; " + citeUpstream},
	{re: regexp.MustCompile(`[\w./-]*\b(?:siteconfig-v1|assisted-engine|agent-installer|user-needs|clusterinstance)\.md\b`),
		why: "a document that is not in the repository; " + citeUpstream, project: true},
	{re: regexp.MustCompile(`\bgitops-policy-convention[s]\b(?:\.md)?`),
		why: "a document that is not in the repository; " + citeUpstream},
	{re: regexp.MustCompile(`shared/referenc[e]\b`),
		why: "a directory that is not in the repository; " + citeUpstream},
	{re: regexp.MustCompile(`(?i)\bissue #?[0-9]+\b`),
		why: "a numbered issue readers cannot look up; say what the rule or behaviour is instead"},
}

// extensions are the kinds of file Scan reads: source, policy, docs,
// examples and the golden output of the program.
var extensions = []string{".go", ".rego", ".md", ".yaml", ".yml", ".json", ".golden", ".html", ".js", ".tmpl"}

// skipDirs are directories Scan does not enter.
var skipDirs = map[string]bool{".git": true, "node_modules": true, "vendor": true}

// Option configures Scan.
type Option func(*options)

type options struct {
	allowed []string
}

// WithAllowed exempts paths from the scan: a pattern ending in "/" is a
// directory and everything under it, any other is a path.Match pattern
// of a file ("sites/model*.go").
func WithAllowed(patterns ...string) Option {
	return func(o *options) { o.allowed = append(o.allowed, patterns...) }
}

func (o *options) isAllowed(name string) bool {
	for _, p := range o.allowed {
		if strings.HasSuffix(p, "/") {
			if strings.HasPrefix(name, p) {
				return true
			}
			continue
		}
		if ok, _ := path.Match(p, name); ok {
			return true
		}
	}
	return false
}

// Scan reads every file of fsys with one of the extensions and returns
// its unreadable citations, sorted by path and line.
func Scan(fsys fs.FS, opts ...Option) ([]Finding, error) {
	var o options
	for _, opt := range opts {
		opt(&o)
	}
	var found []Finding
	err := fs.WalkDir(fsys, ".", func(name string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() {
			if name != "." && skipDirs[d.Name()] {
				return fs.SkipDir
			}
			return nil
		}
		if !hasExtension(name) || o.isAllowed(name) {
			return nil
		}
		f, err := scanFile(fsys, name)
		found = append(found, f...)
		return err
	})
	sort.SliceStable(found, func(i, j int) bool {
		if found[i].Path != found[j].Path {
			return found[i].Path < found[j].Path
		}
		return found[i].Line < found[j].Line
	})
	return found, err
}

func hasExtension(name string) bool {
	for _, ext := range extensions {
		if strings.HasSuffix(name, ext) {
			return true
		}
	}
	return false
}

func scanFile(fsys fs.FS, name string) ([]Finding, error) {
	f, err := fsys.Open(name)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	var found []Finding
	sc := bufio.NewScanner(f)
	sc.Buffer(make([]byte, 64*1024), 16*1024*1024)
	for line := 1; sc.Scan(); line++ {
		for _, r := range rules {
			for _, m := range r.re.FindAllString(sc.Text(), -1) {
				if r.project && namesProjectFile(fsys, name, m) {
					continue
				}
				found = append(found, Finding{Path: name, Line: line, Text: strings.TrimSpace(m), Why: r.why})
			}
		}
	}
	if err := sc.Err(); err != nil {
		return found, fmt.Errorf("%s: %w", name, err)
	}
	return found, nil
}

// namesProjectFile reports whether ref, as written in the file name,
// names a file of the project: relative to that file's directory (a link
// between pages of docs/) or to the root ("docs/clusterinstance.md").
func namesProjectFile(fsys fs.FS, name, ref string) bool {
	for _, p := range []string{path.Join(path.Dir(name), ref), path.Clean(ref)} {
		if !fs.ValidPath(p) {
			continue
		}
		if st, err := fs.Stat(fsys, p); err == nil && !st.IsDir() {
			return true
		}
	}
	return false
}
