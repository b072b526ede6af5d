package status

import (
	"errors"
	"fmt"
	"io/fs"
	"path"
	"strings"

	"sigs.k8s.io/yaml"

	"github.com/siteops/siteops/engine"
	"github.com/siteops/siteops/internal/safefs"
	"github.com/siteops/siteops/internal/yamlenc"
	"github.com/siteops/siteops/sites"
)

// Dir is the status directory's default place in the fleet repository,
// the folder the site loader never reads sites from.
const Dir = sites.StatusDir

// ReadmeFile is the fleet table in the status directory.
const ReadmeFile = "README.md"

// MaxDocumentSize bounds a status document read back (1 MiB): a
// document holds the last events and findings of one site, far less.
const MaxDocumentSize = 1 << 20

// FileName is the name of a site's document in the status directory. A
// site name that could leave the directory or hide in it has none.
func FileName(site string) (string, bool) {
	if site == "" || strings.ContainsAny(site, `/\`) || strings.HasPrefix(site, ".") || strings.ContainsRune(site, 0) ||
		site == strings.TrimSuffix(ReadmeFile, ".md") {
		return "", false
	}
	return site + ".yaml", true
}

// Encode writes a document as YAML, keys sorted: the same document always
// gives the same bytes.
func Encode(doc *Document) ([]byte, error) {
	return AppendEncoded(make([]byte, 0, 1024), doc)
}

// AppendEncoded appends the bytes Encode gives for doc to dst, so that a
// caller encoding many documents reuses one buffer.
func AppendEncoded(dst []byte, doc *Document) ([]byte, error) {
	return yamlenc.AppendTyped(dst, doc)
}

// Decode reads a document written by Encode.
func Decode(data []byte) (*Document, error) {
	if len(data) > MaxDocumentSize {
		return nil, fmt.Errorf("the document has %d bytes, over the %d a status document may have", len(data), MaxDocumentSize)
	}
	var doc Document
	if err := yaml.Unmarshal(data, &doc); err != nil {
		return nil, err
	}
	return &doc, nil
}

// ReadFile reads the document at p of fsys.
func ReadFile(fsys fs.FS, p string) (*Document, error) {
	data, err := safefs.ReadFile(fsys, p, MaxDocumentSize)
	if err != nil {
		return nil, err
	}
	doc, err := Decode(data)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", p, err)
	}
	return doc, nil
}

// Entry is one document of a status directory, or why it could not be
// read.
type Entry struct {
	// Site is the site the file names (its file name without .yaml),
	// File its path in the fsys.
	Site, File string
	Doc        *Document
	Err        error
}

// ReadDir reads every document of the status directory dir, sorted by
// file name. A directory that does not exist holds no documents; a file
// that cannot be read is an entry with its error, so that one bad file
// hides no other.
func ReadDir(fsys fs.FS, dir string) ([]Entry, error) {
	dir = path.Clean(dir)
	entries, err := fs.ReadDir(fsys, dir)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	var out []Entry
	for _, e := range entries {
		name := e.Name()
		if e.IsDir() || !(strings.HasSuffix(name, ".yaml") || strings.HasSuffix(name, ".yml")) {
			continue
		}
		site := strings.TrimSuffix(strings.TrimSuffix(name, ".yaml"), ".yml")
		file := path.Join(dir, name)
		doc, err := ReadFile(fsys, file)
		if err == nil && doc.Site != "" {
			site = doc.Site
		}
		out = append(out, Entry{Site: site, File: file, Doc: doc, Err: err})
	}
	return out, nil
}

// NeedsAttention reports whether a person should look at the site: its
// reason says so, its installation failed, or the loop holds its revision
// back.
func NeedsAttention(doc *Document) bool {
	return doc.Reason.NeedsAttention() || doc.Phase.Failed() || doc.Phase.Blocked()
}

// Attention says in one line why the site needs a person: the reason and
// its summary; "" when it needs none.
func Attention(doc *Document) string {
	if !NeedsAttention(doc) {
		return ""
	}
	r := doc.Reason
	if r == "" {
		if doc.Phase.Failed() {
			r = engine.ReasonInstallFailed
		} else {
			return string(doc.Phase)
		}
	}
	return string(r) + ": " + r.Summary()
}
