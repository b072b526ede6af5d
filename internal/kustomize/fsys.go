package kustomize

import (
	"bytes"
	"errors"
	"fmt"
	"github.com/siteops/siteops/internal/safefs"
	"io/fs"
	"os"
	"path"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"time"

	"sigs.k8s.io/kustomize/kyaml/filesys"
)

// vroot is where the fleet root appears to kustomize. kustomize works on
// absolute paths; giving it a made-up root (rather than "/") keeps its
// cycle checks meaningful for the fleet root itself, and lets error
// messages be turned back into fleet-relative paths.
const vroot = "/siteops-fleet-root"

// toVirtual maps a root-relative path to the path kustomize sees.
func toVirtual(rel string) string {
	if rel == "." || rel == "" {
		return vroot
	}
	return vroot + "/" + rel
}

// errReadOnly is what every write to the build file system returns.
var errReadOnly = errors.New("the kustomize build file system is read-only")

// errEscape marks paths that lead out of the fleet root.
var errEscape = safefs.ErrEscape

// resolver resolves symlinks inside an fs.FS the way filepath.EvalSymlinks
// does on disk, so that kustomize's cycle and load-restriction checks see
// the same real directories they would see on disk, and a symlink loop
// cannot make a build recurse forever. A link that leaves the root is an
// error. Safe for concurrent use.
type resolver struct {
	fsys fs.FS
	rl   fs.ReadLinkFS // nil when fsys has no symlinks to resolve

	mu   sync.Mutex
	memo map[string]resolved
	// plain are the paths found not to be symlinks: the directories of a
	// fleet are walked through once, not once per file below them.
	plain map[string]bool
}

type resolved struct {
	path string
	err  error
}

func newResolver(fsys fs.FS) *resolver {
	r := &resolver{fsys: fsys, memo: map[string]resolved{}, plain: map[string]bool{}}
	r.rl, _ = fsys.(fs.ReadLinkFS)
	return r
}

// maxLinks bounds the symlinks followed in one path, as the kernel does.
const maxLinks = 40

// resolve returns clean (a cleaned root-relative path) with every symlink
// resolved.
func (r *resolver) resolve(clean string) (string, error) {
	if r.rl == nil || clean == "." {
		return clean, nil
	}
	r.mu.Lock()
	m, ok := r.memo[clean]
	r.mu.Unlock()
	if ok {
		return m.path, m.err
	}
	p, err := r.walk(clean)
	r.mu.Lock()
	r.memo[clean] = resolved{p, err}
	r.mu.Unlock()
	return p, err
}

func (r *resolver) walk(orig string) (string, error) {
	rest := strings.Split(orig, "/")
	cur := "."
	for links := 0; len(rest) > 0; {
		next := path.Join(cur, rest[0])
		rest = rest[1:]
		r.mu.Lock()
		known := r.plain[next]
		r.mu.Unlock()
		if known {
			cur = next
			continue
		}
		st, err := r.rl.Lstat(next)
		if err != nil {
			return "", explainFSError(next, err)
		}
		if st.Mode()&fs.ModeSymlink == 0 {
			r.mu.Lock()
			r.plain[next] = true
			r.mu.Unlock()
			cur = next
			continue
		}
		if links++; links > maxLinks {
			return "", fmt.Errorf("%s: too many levels of symbolic links", orig)
		}
		target, err := r.rl.ReadLink(next)
		if err != nil {
			return "", explainFSError(next, err)
		}
		target = filepath.ToSlash(target)
		if path.IsAbs(target) || filepath.IsAbs(target) {
			return "", fmt.Errorf("%s is a symlink to the absolute path %q, outside the fleet root: %w", next, target, errEscape)
		}
		// cur has no symlinks left, so ".." in the target can be applied
		// to it lexically.
		np := path.Join(append([]string{path.Dir(next), target}, rest...)...)
		if escapes(np) {
			return "", fmt.Errorf("%s is a symlink that leads outside the fleet root: %w", next, errEscape)
		}
		rest = strings.Split(np, "/")
		cur = "."
		if np == "." {
			rest = nil
		}
	}
	return cur, nil
}

// buildFS is the kyaml file system one krusty run sees: the fleet, read
// through the fs.FS (so nothing outside the root is reachable), with the
// kustomization files and documents siteops prepared laid over it. It is
// read-only. With remote bases allowed, the directories kustomize clones
// git repositories into are readable too.
type buildFS struct {
	b *builder
	// overlay holds files by virtual path: the checked (and possibly
	// rewritten) kustomization files and the documents of inlined bases.
	overlay map[string][]byte
	// annotate lists the resource files (root-relative, resolved) served
	// with origin-tracking annotations.
	annotate map[string]bool

	mu sync.Mutex
	// reads records the fleet files krusty read, root-relative.
	reads map[string]bool
	// remoteRead is set when krusty read a cloned repository.
	remoteRead bool
}

var _ filesys.FileSystem = (*buildFS)(nil)

type location int

const (
	outside location = iota
	inFleet
	inClone
)

// locate says where an absolute path kustomize gives points to, and the
// path to use there: root-relative in the fleet, absolute in a clone.
func (v *buildFS) locate(p string) (location, string) {
	p = filepath.ToSlash(p)
	if !path.IsAbs(p) {
		p = path.Join(vroot, p)
	}
	p = path.Clean(p)
	switch {
	case p == vroot:
		return inFleet, "."
	case strings.HasPrefix(p, vroot+"/"):
		return inFleet, p[len(vroot)+1:]
	case v.b.o.allowRemote && cloneDirOf(p) != "":
		return inClone, p
	}
	return outside, p
}

func (v *buildFS) virtualFile(p string) ([]byte, bool) {
	data, ok := v.overlay[path.Clean(filepath.ToSlash(p))]
	return data, ok
}

func (v *buildFS) Create(string) (filesys.File, error) { return nil, errReadOnly }
func (v *buildFS) Mkdir(string) error                  { return errReadOnly }
func (v *buildFS) MkdirAll(string) error               { return errReadOnly }
func (v *buildFS) WriteFile(string, []byte) error      { return errReadOnly }

// RemoveAll removes nothing but the temporary clones of remote bases,
// which kustomize removes when it is done with them.
func (v *buildFS) RemoveAll(p string) error {
	if loc, abs := v.locate(p); loc == inClone && cloneDirOf(abs) == abs {
		return os.RemoveAll(abs)
	}
	return errReadOnly
}

func (v *buildFS) Open(p string) (filesys.File, error) {
	data, err := v.ReadFile(p)
	if err != nil {
		return nil, err
	}
	return &memFile{Reader: bytes.NewReader(data), name: path.Base(p), size: int64(len(data))}, nil
}

// stat follows symlinks, staying inside the fleet or the clone.
func (v *buildFS) stat(p string) (fs.FileInfo, error) {
	if data, ok := v.virtualFile(p); ok {
		return memInfo{name: path.Base(p), size: int64(len(data))}, nil
	}
	loc, lp := v.locate(p)
	switch loc {
	case inFleet:
		real, err := v.b.res.resolve(lp)
		if err != nil {
			return nil, err
		}
		return fs.Stat(v.b.fsys, real)
	case inClone:
		return statInClone(lp)
	}
	return nil, fmt.Errorf("%s is outside the fleet root: %w", p, fs.ErrNotExist)
}

func (v *buildFS) IsDir(p string) bool {
	st, err := v.stat(p)
	return err == nil && st.IsDir()
}

func (v *buildFS) Exists(p string) bool {
	_, err := v.stat(p)
	return err == nil
}

func (v *buildFS) ReadDir(p string) ([]string, error) {
	loc, lp := v.locate(p)
	var entries []fs.DirEntry
	var err error
	switch loc {
	case inFleet:
		real, rerr := v.b.res.resolve(lp)
		if rerr != nil {
			return nil, rerr
		}
		entries, err = fs.ReadDir(v.b.fsys, real)
	case inClone:
		err = withCloneRoot(lp, func(fsys fs.FS, rel string) error {
			var e error
			entries, e = fs.ReadDir(fsys, rel)
			return e
		})
	default:
		return nil, fmt.Errorf("%s is outside the fleet root: %w", p, fs.ErrNotExist)
	}
	if err != nil {
		return nil, err
	}
	names := make([]string, len(entries))
	for i, e := range entries {
		names[i] = e.Name()
	}
	return names, nil
}

// CleanedAbs resolves symlinks and splits the result into a directory and
// a file name (empty for a directory), as kyaml's disk file system does.
func (v *buildFS) CleanedAbs(p string) (filesys.ConfirmedDir, string, error) {
	if _, ok := v.virtualFile(p); ok {
		c := path.Clean(filepath.ToSlash(p))
		return filesys.ConfirmedDir(path.Dir(c)), path.Base(c), nil
	}
	loc, lp := v.locate(p)
	var abs string
	var st fs.FileInfo
	var err error
	switch loc {
	case inFleet:
		var real string
		if real, err = v.b.res.resolve(lp); err != nil {
			return "", "", err
		}
		if st, err = fs.Stat(v.b.fsys, real); err != nil {
			return "", "", explainFSError(real, err)
		}
		abs = toVirtual(real)
	case inClone:
		if abs, err = filepath.EvalSymlinks(lp); err != nil {
			return "", "", err
		}
		if cloneDirOf(abs) == "" {
			return "", "", fmt.Errorf("%s leads outside the cloned repository", p)
		}
		if st, err = statInClone(abs); err != nil {
			return "", "", err
		}
	default:
		return "", "", fmt.Errorf("%s is outside the fleet root: %w", p, fs.ErrNotExist)
	}
	if st.IsDir() {
		return filesys.ConfirmedDir(abs), "", nil
	}
	return filesys.ConfirmedDir(path.Dir(abs)), path.Base(abs), nil
}

func (v *buildFS) Glob(pattern string) ([]string, error) {
	loc, lp := v.locate(pattern)
	if loc != inFleet {
		return nil, nil
	}
	matches, err := fs.Glob(v.b.fsys, lp)
	if err != nil {
		return nil, err
	}
	for i, m := range matches {
		matches[i] = toVirtual(m)
	}
	return matches, nil
}

func (v *buildFS) Walk(p string, walkFn filepath.WalkFunc) error {
	loc, lp := v.locate(p)
	if loc != inFleet {
		return fmt.Errorf("%s is outside the fleet root: %w", p, fs.ErrNotExist)
	}
	return fs.WalkDir(v.b.fsys, lp, func(fp string, d fs.DirEntry, err error) error {
		if err != nil {
			return walkFn(toVirtual(fp), nil, err)
		}
		info, err := d.Info()
		return walkFn(toVirtual(fp), info, err)
	})
}

// ReadFile serves the prepared files first; a kustomization file that was
// not checked before the build is never served, so kustomize cannot reach
// one that siteops has not vetted.
func (v *buildFS) ReadFile(p string) ([]byte, error) {
	if data, ok := v.virtualFile(p); ok {
		return data, nil
	}
	loc, lp := v.locate(p)
	switch loc {
	case inFleet:
		real, err := v.b.res.resolve(lp)
		if err != nil {
			return nil, err
		}
		if slices.Contains(kustomizationNames, path.Base(real)) {
			if _, err := fs.Stat(v.b.fsys, real); err != nil {
				return nil, explainFSError(real, err)
			}
			return nil, fmt.Errorf("kustomization %s was not checked before the build; refusing to read it", real)
		}
		v.mu.Lock()
		v.reads[real] = true
		v.mu.Unlock()
		if v.annotate[real] {
			pf, err := v.b.parseFile(real)
			if err != nil {
				return nil, err
			}
			return pf.annotatedAll()
		}
		return v.b.readFile(real)
	case inClone:
		v.mu.Lock()
		v.remoteRead = true
		v.mu.Unlock()
		data, err := readInClone(lp, v.b.o.maxFileSize)
		if err != nil {
			return nil, err
		}
		if err := checkAliases(lp, data); err != nil {
			return nil, err
		}
		if slices.Contains(kustomizationNames, path.Base(lp)) {
			if err := v.b.checkRemoteKustomization(lp, data); err != nil {
				return nil, err
			}
		}
		return data, nil
	}
	return nil, fmt.Errorf("%s is outside the fleet root: %w", p, fs.ErrNotExist)
}

// memFile is a read-only file.
type memFile struct {
	*bytes.Reader
	name string
	size int64
}

func (f *memFile) Write([]byte) (int, error)  { return 0, errReadOnly }
func (f *memFile) Close() error               { return nil }
func (f *memFile) Stat() (os.FileInfo, error) { return memInfo{name: f.name, size: f.size}, nil }

// memInfo describes a memFile or a prepared file.
type memInfo struct {
	name string
	size int64
}

func (m memInfo) Name() string       { return m.name }
func (m memInfo) Size() int64        { return m.size }
func (m memInfo) Mode() fs.FileMode  { return 0o444 }
func (m memInfo) ModTime() time.Time { return time.Time{} }
func (m memInfo) IsDir() bool        { return false }
func (m memInfo) Sys() any           { return nil }

// Remote bases: kustomize clones git repositories with the git program
// into fresh temporary directories named kustomize-*, then reads them
// through the file system it was given. With remote bases allowed, those
// directories (and nothing else outside the fleet) are readable.

var tempDir = sync.OnceValue(func() string {
	d := os.TempDir()
	if real, err := filepath.EvalSymlinks(d); err == nil {
		d = real
	}
	return filepath.ToSlash(d)
})

// cloneDirOf returns the kustomize clone directory p lies in, or "".
func cloneDirOf(p string) string {
	t := tempDir()
	if !strings.HasPrefix(p, t+"/") {
		return ""
	}
	first, _, _ := strings.Cut(p[len(t)+1:], "/")
	if !strings.HasPrefix(first, "kustomize-") {
		return ""
	}
	return t + "/" + first
}

// withCloneRoot runs f on the clone directory holding abs, opened as an
// os.Root so that symlinks in the clone cannot lead out of it.
func withCloneRoot(abs string, f func(fsys fs.FS, rel string) error) error {
	dir := cloneDirOf(abs)
	if dir == "" {
		return fmt.Errorf("%s is outside the fleet root: %w", abs, fs.ErrNotExist)
	}
	root, err := os.OpenRoot(dir)
	if err != nil {
		return err
	}
	defer root.Close()
	rel := strings.TrimPrefix(strings.TrimPrefix(abs, dir), "/")
	if rel == "" {
		rel = "."
	}
	return f(root.FS(), rel)
}

func statInClone(abs string) (fs.FileInfo, error) {
	var st fs.FileInfo
	err := withCloneRoot(abs, func(fsys fs.FS, rel string) error {
		var e error
		st, e = fs.Stat(fsys, rel)
		return e
	})
	return st, err
}

func readInClone(abs string, max int64) ([]byte, error) {
	var data []byte
	err := withCloneRoot(abs, func(fsys fs.FS, rel string) error {
		var e error
		data, e = readLimited(fsys, rel, max)
		return e
	})
	return data, err
}

func readLimited(fsys fs.FS, p string, max int64) ([]byte, error) {
	return safefs.ReadFile(fsys, p, max)
}

func explainFSError(p string, err error) error { return safefs.Explain(p, err) }
