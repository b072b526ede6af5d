package kustomize

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"path"
	"runtime"
	"slices"
	"strings"

	"github.com/siteops/siteops/internal/safefs"
)

// DefaultMaxFileSize is the largest file a build reads.
const DefaultMaxFileSize = safefs.MaxFileSize

// Result is what a kustomization builds to.
type Result struct {
	// Documents are the objects kustomize outputs, in its output order.
	Documents []Document
	// SiteConfigGenerators are the SiteConfig files listed under
	// generators: (the ZTP layout). Upstream runs them as an exec plugin;
	// siteops reads them itself, so they are reported here instead of being
	// built. They come in the order kustomize would run them: the
	// generators of a kustomization's resources first, then its own.
	// Each was read by this build, as a regular file, to tell that it
	// holds SiteConfigs (a build with one that is not a regular file
	// fails): a caller may read it as a file a listing has just given
	// (safefs.ReadListedFile).
	SiteConfigGenerators []Generator
	// Warnings are things the caller should tell the user about.
	Warnings []Warning
}

// Document is one object of the build output.
type Document struct {
	// Data is the object as kustomize outputs it: one YAML document.
	Data []byte
	// APIVersion, Kind, Namespace and Name identify the object.
	APIVersion, Kind, Namespace, Name string
	// Origin is where the object came from.
	Origin Origin
	// Modified reports whether the build changed the object (a patch, a
	// name prefix, ...) or made it (a generator); when false, the object
	// is exactly the one at Origin, so positions can be read from there.
	Modified bool
}

// Origin is where a document came from.
type Origin struct {
	// File is the file the object was read from, relative to the root of
	// the fs.FS; for a generated object, the kustomization that generated
	// it. Empty when kustomize cannot tell.
	File string
	// Line is the line of the object's first line in File; 0 when unknown.
	Line int
	// Repo is the remote repository File belongs to (as written in the
	// kustomization); empty for files of the fleet.
	Repo string
}

// String formats the origin as file:line.
func (o Origin) String() string {
	f := o.File
	if o.Repo != "" {
		f = o.Repo + "//" + f
	}
	if o.Line > 0 {
		return fmt.Sprintf("%s:%d", f, o.Line)
	}
	return f
}

// Generator is a SiteConfig file listed under generators:.
type Generator struct {
	// File is the SiteConfig file, relative to the root of the fs.FS.
	File string
	// Kustomization is the kustomization file that lists it. Upstream runs
	// the generator in that file's directory, so relative paths written
	// in the SiteConfig resolve against path.Dir(Kustomization).
	Kustomization string
}

// Warning is a non-fatal finding about a kustomization.
type Warning struct {
	File    string
	Line    int
	Message string
}

func (w Warning) String() string {
	if w.Line > 0 {
		return fmt.Sprintf("%s:%d: %s", w.File, w.Line, w.Message)
	}
	return w.File + ": " + w.Message
}

// RefusedError reports a kustomization entry that siteops will not build
// because building it could run a program, fetch something or read outside
// the fleet. Nothing has run or been fetched when it is returned.
type RefusedError struct {
	// File is the kustomization file, relative to the fleet root.
	File string
	// Line is the line of the entry in File; 0 when unknown.
	Line int
	// Field is the kustomization field holding the entry, such as
	// "resources" or "generators".
	Field string
	// Entry is the entry as written, clipped to a readable length.
	Entry string
	// Reason says why the entry is refused.
	Reason string
}

func (e *RefusedError) Error() string {
	pos := e.File
	if e.Line > 0 {
		pos = fmt.Sprintf("%s:%d", e.File, e.Line)
	}
	if e.Entry == "" {
		return fmt.Sprintf("%s: %s is refused: %s", pos, e.Field, e.Reason)
	}
	return fmt.Sprintf("%s: %s entry %q is refused: %s", pos, e.Field, e.Entry, e.Reason)
}

// ErrNoKustomization is returned (wrapped) by Build for a directory without
// a kustomization file.
var ErrNoKustomization = errors.New("no kustomization file")

// Option configures Build.
type Option func(*options)

type options struct {
	allowRemote bool
	maxFileSize int64
	workers     int
	cache       *Cache
	// noNative builds every transforming directory with krusty (tests
	// compare the two paths).
	noNative bool
}

// WithAllowRemote lets kustomizations use remote bases and resources
// (git repositories and https URLs). kustomize fetches them by running the
// git program and over HTTP, so this is off by default.
func WithAllowRemote(allow bool) Option { return func(o *options) { o.allowRemote = allow } }

// WithMaxFileSize sets the largest file read, in bytes.
func WithMaxFileSize(n int64) Option { return func(o *options) { o.maxFileSize = n } }

// WithWorkers sets how many kustomizations are built at once (default
// GOMAXPROCS).
func WithWorkers(n int) Option { return func(o *options) { o.workers = n } }

// WithCache keeps build results in c, keyed by the content of everything a
// build reads, so that later builds reuse them. Without it each Build call
// has a cache of its own.
func WithCache(c *Cache) Option { return func(o *options) { o.cache = c } }

func applyOptions(opts []Option) options {
	o := options{maxFileSize: DefaultMaxFileSize, workers: runtime.GOMAXPROCS(0)}
	for _, opt := range opts {
		opt(&o)
	}
	if o.workers < 1 {
		o.workers = 1
	}
	if o.maxFileSize <= 0 {
		o.maxFileSize = DefaultMaxFileSize
	}
	return o
}

// kustomizationNames are the file names kustomize recognises, in its order.
var kustomizationNames = []string{"kustomization.yaml", "kustomization.yml", "Kustomization"}

// IsKustomizationFile reports whether a file name is one kustomize reads
// as a kustomization.
func IsKustomizationFile(name string) bool {
	return slices.Contains(kustomizationNames, path.Base(name))
}

// IsKustomization reports whether dir (a slash path inside fsys) holds a
// kustomization file, and which.
func IsKustomization(fsys fs.FS, dir string) (file string, ok bool) {
	for _, name := range kustomizationNames {
		p := path.Join(dir, name)
		if st, err := fs.Stat(fsys, p); err == nil && !st.IsDir() {
			return p, true
		}
	}
	return "", false
}

// Build builds the kustomization in dir, a slash path relative to the root
// of fsys, and returns the objects it outputs with where each came from.
//
// Nothing is executed: kustomize plugins are disabled, and kustomizations
// that ask for one, for a remote base (unless WithAllowRemote) or for a
// path outside fsys are refused with a *RefusedError before anything is
// built. Every file is read through fsys, with the size limit applied.
func Build(ctx context.Context, fsys fs.FS, dir string, opts ...Option) (*Result, error) {
	o := applyOptions(opts)
	clean, err := rootPath(dir)
	if err != nil {
		return nil, fmt.Errorf("build kustomization %s: %w", dir, err)
	}
	b := newBuilder(fsys, o)
	res, err := b.build(ctx, clean)
	if err != nil {
		return nil, fmt.Errorf("build kustomization %s: %w", clean, err)
	}
	return res, nil
}

// rootPath turns a directory given to Build into a clean path inside the
// root, refusing absolute paths and paths that climb out.
func rootPath(p string) (string, error) {
	if p == "" {
		return ".", nil
	}
	if path.IsAbs(p) || strings.HasPrefix(p, `\`) {
		return "", fmt.Errorf("absolute path %q is not allowed; give a path relative to the fleet root", p)
	}
	clean := path.Clean(p)
	if escapes(clean) {
		return "", fmt.Errorf("path %q leads outside the fleet root", p)
	}
	return clean, nil
}

// escapes reports whether a cleaned slash path climbs out of its root.
func escapes(clean string) bool {
	return clean == ".." || strings.HasPrefix(clean, "../")
}

// clip shortens s for an error message.
func clip(s string) string {
	const max = 200
	if len(s) > max {
		return s[:max] + "..."
	}
	return s
}
