package reconciler

import (
	"bytes"
	"io"
	"io/fs"
	"path"
	"slices"
	"sync"
	"sync/atomic"
	"time"
)

// fsView wraps the tree of a snapshot for one load. It records every path
// the load looks at (opened, read, listed or probed for existence), which
// is what the sites of a kustomize tree depend on; it can serve other
// content in place of some files, which is how one SiteConfig listed
// under a kustomization's generators: is reloaded alone; and it can list
// only some entries of a directory while the loader walks, which is how
// some files of a directory are loaded as a walk finds them (see
// reload.go).
type fsView struct {
	fsys    fs.FS
	replace map[string][]byte
	// only maps a directory to the entries it lists while the loader
	// walks. The loader collects (walks) before it reads any file, and
	// later lists directories for other reasons (an extra-manifest
	// directory): from the first file read on, directories list all
	// their entries.
	only    map[string]map[string]bool
	walking atomic.Bool

	mu    sync.Mutex
	reads map[string]struct{}
}

// newFSView returns a view of fsys. The result implements fs.ReadLinkFS
// exactly when fsys does, so that the kustomize build resolves symlinks as
// it would on fsys itself.
func newFSView(fsys fs.FS, replace map[string][]byte, only map[string]map[string]bool) (fs.FS, *fsView) {
	v := &fsView{fsys: fsys, replace: replace, only: only, reads: map[string]struct{}{}}
	v.walking.Store(len(only) > 0)
	if rl, ok := fsys.(fs.ReadLinkFS); ok {
		return &linkView{fsView: v, rl: rl}, v
	}
	return v, v
}

func (v *fsView) note(name string) {
	v.mu.Lock()
	v.reads[name] = struct{}{}
	v.mu.Unlock()
}

// paths returns what the load looked at.
func (v *fsView) paths() map[string]struct{} {
	v.mu.Lock()
	defer v.mu.Unlock()
	return v.reads
}

func (v *fsView) Open(name string) (fs.File, error) {
	v.note(name)
	v.walking.Store(false)
	if data, ok := v.replace[name]; ok {
		return &memFile{Reader: bytes.NewReader(data), info: memInfo{name: path.Base(name), size: int64(len(data))}}, nil
	}
	return v.fsys.Open(name)
}

func (v *fsView) ReadFile(name string) ([]byte, error) {
	v.note(name)
	v.walking.Store(false)
	if data, ok := v.replace[name]; ok {
		return bytes.Clone(data), nil
	}
	return fs.ReadFile(v.fsys, name)
}

// ReadDir records the directory as "dir/": a listing depends on which
// entries exist, not on their content.
func (v *fsView) ReadDir(name string) ([]fs.DirEntry, error) {
	v.note(name)
	v.note(name + "/")
	entries, err := fs.ReadDir(v.fsys, name)
	if keep, ok := v.only[name]; ok && v.walking.Load() {
		entries = slices.DeleteFunc(entries, func(e fs.DirEntry) bool { return !keep[e.Name()] })
	}
	return entries, err
}

func (v *fsView) Stat(name string) (fs.FileInfo, error) {
	v.note(name)
	if data, ok := v.replace[name]; ok {
		return memInfo{name: path.Base(name), size: int64(len(data))}, nil
	}
	return fs.Stat(v.fsys, name)
}

// linkView is an fsView over a tree that has symlinks.
type linkView struct {
	*fsView
	rl fs.ReadLinkFS
}

func (v *linkView) ReadLink(name string) (string, error) {
	v.note(name)
	return v.rl.ReadLink(name)
}

func (v *linkView) Lstat(name string) (fs.FileInfo, error) {
	v.note(name)
	if data, ok := v.replace[name]; ok {
		return memInfo{name: path.Base(name), size: int64(len(data))}, nil
	}
	return v.rl.Lstat(name)
}

var (
	_ fs.ReadFileFS = (*fsView)(nil)
	_ fs.ReadDirFS  = (*fsView)(nil)
	_ fs.StatFS     = (*fsView)(nil)
	_ fs.ReadLinkFS = (*linkView)(nil)
)

// memFile is a replaced file's content.
type memFile struct {
	*bytes.Reader
	info memInfo
}

func (f *memFile) Stat() (fs.FileInfo, error) { return f.info, nil }
func (f *memFile) Close() error               { return nil }

var _ io.ReaderAt = (*memFile)(nil)

type memInfo struct {
	name string
	size int64
}

func (i memInfo) Name() string       { return i.name }
func (i memInfo) Size() int64        { return i.size }
func (i memInfo) Mode() fs.FileMode  { return 0o444 }
func (i memInfo) ModTime() time.Time { return time.Time{} }
func (i memInfo) IsDir() bool        { return false }
func (i memInfo) Sys() any           { return nil }
