package safefs

import (
	"io/fs"
	"math"
	"os"
)

// Root is a directory opened so that nothing outside it can be reached,
// as os.Root is, with a file system that reads it (FS) faster where the
// kernel can hold the boundary itself.
//
// os.Root walks a path one directory at a time: each Open or Stat of
// sites/a/b.yaml opens every directory on the way, then closes them. A
// fleet of thousands of files read by kustomize (which stats and opens
// each file and directory several times) spent a seventh of its time in
// those system calls. On Linux, FS looks a path up with one openat2
// call confined by RESOLVE_BENEATH (no "..", absolute path or symlink
// may leave the directory; magic links are refused), lists a directory
// without an lstat of every entry (an entry's Info asks when it is
// called, by its path), and falls back to
// os.Root whenever that call fails or is not available: what is refused,
// and the error that says so, stay os.Root's. One difference is left: a
// directory on the way that may be searched but not read (mode --x) is
// passed by openat2, where os.Root, which opens it, is refused.
type Root struct {
	root *os.Root
	fast *fastRoot // nil where there is no fast path
}

// OpenRoot opens dir.
func OpenRoot(dir string) (*Root, error) {
	r, err := os.OpenRoot(dir)
	if err != nil {
		return nil, err
	}
	return &Root{root: r, fast: openFast(r)}, nil
}

// Name is the directory's name, as given to OpenRoot.
func (r *Root) Name() string { return r.root.Name() }

// Close closes the directory; FS is unusable afterwards.
func (r *Root) Close() error {
	r.fast.close()
	return r.root.Close()
}

// FS returns a file system for the tree of files in the root. Like
// os.Root's, it implements fs.StatFS, fs.ReadFileFS, fs.ReadDirFS and
// fs.ReadLinkFS, with the same results and errors.
func (r *Root) FS() fs.FS {
	if r.fast == nil {
		return r.root.FS()
	}
	return &rootFS{osfs: r.root.FS().(osRootFS), fast: r.fast}
}

// osRootFS is what os.Root's file system implements.
type osRootFS interface {
	fs.StatFS
	fs.ReadFileFS
	fs.ReadDirFS
	fs.ReadLinkFS
}

// rootFS tries the fast path and falls back to os.Root's file system.
type rootFS struct {
	osfs osRootFS
	fast *fastRoot
}

func (r *rootFS) Open(name string) (fs.File, error) {
	if f, ok := r.fast.open(name); ok {
		return f, nil
	}
	return r.osfs.Open(name)
}

func (r *rootFS) Stat(name string) (fs.FileInfo, error) {
	if fi, ok := r.fast.stat(name, false); ok {
		return fi, nil
	}
	return r.osfs.Stat(name)
}

func (r *rootFS) Lstat(name string) (fs.FileInfo, error) {
	if fi, ok := r.fast.stat(name, true); ok {
		return fi, nil
	}
	return r.osfs.Lstat(name)
}

// ReadFile reads a regular file as ReadFile of this package does, with no
// limit of its own; anything else is os.Root's, errors included.
func (r *rootFS) ReadFile(name string) ([]byte, error) {
	if data, ok := r.fast.readFile(name, math.MaxInt64); ok {
		return data, nil
	}
	return r.osfs.ReadFile(name)
}

// ReadDir lists a directory without describing each entry as it lists
// (fastRoot.readDir); anything else is os.Root's, errors included.
func (r *rootFS) ReadDir(name string) ([]fs.DirEntry, error) {
	if entries, ok := r.fast.readDir(name, r.Lstat); ok {
		return entries, nil
	}
	return r.osfs.ReadDir(name)
}

func (r *rootFS) ReadLink(name string) (string, error) { return r.osfs.ReadLink(name) }
