package gitfs

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"path"
	"slices"
	"strings"
	"time"

	"github.com/go-git/go-git/v5/plumbing"
	"github.com/go-git/go-git/v5/plumbing/filemode"

	"github.com/siteops/siteops/internal/safefs"
)

// FS is the tree of one commit, read-only. Its files carry the commit's
// committer time as their modification time.
type FS struct {
	repo   *Repo
	commit plumbing.Hash
	root   plumbing.Hash // the tree this FS is rooted at
	mtime  time.Time
	cache  *treeCache
}

var (
	_ fs.ReadDirFS   = (*FS)(nil)
	_ fs.ReadFileFS  = (*FS)(nil)
	_ fs.StatFS      = (*FS)(nil)
	_ fs.SubFS       = (*FS)(nil)
	_ fs.ReadLinkFS  = (*FS)(nil)
	_ fs.ReadDirFile = (*dirFile)(nil)
	_ io.ReaderAt    = (*file)(nil)
	_ io.Seeker      = (*file)(nil)
)

// Commit is the commit this tree belongs to.
func (f *FS) Commit() plumbing.Hash { return f.commit }

// maxLinks bounds the symlinks followed in one path, as the kernel does.
const maxLinks = 40

// maxLinkTarget bounds the target of a symlink.
const maxLinkTarget = 4096

// node is one entry of the tree.
type node struct {
	name string // base name; "." for the root
	mode filemode.FileMode
	hash plumbing.Hash
}

func (n node) isDir() bool { return n.mode == filemode.Dir }

// dirNode is a tree with its entries sorted by name (Git sorts a
// directory as if its name ended in a slash; fs.ReadDir wants plain
// names). It is read raw: the names point into the tree object's data, so
// that a lookup in a tree of 10,000 sites makes no string of the others.
type dirNode struct {
	entries []RawTreeEntry
}

func (d *dirNode) find(name string) (RawTreeEntry, bool) {
	i, ok := slices.BinarySearchFunc(d.entries, name, func(e RawTreeEntry, n string) int {
		return strings.Compare(string(e.Name), n)
	})
	if !ok {
		return RawTreeEntry{}, false
	}
	return d.entries[i], true
}

// treeCache keeps the trees decoded for one commit (and the FSs made from
// it with Sub), so that reading every file of a large fleet decodes each
// directory once. Guarded by Repo.mu.
type treeCache struct {
	trees map[plumbing.Hash]*dirNode
}

// tree decodes a tree. Called with r.mu held; cache may be nil.
func (r *Repo) tree(cache *treeCache, h plumbing.Hash) (*dirNode, error) {
	if cache != nil {
		if d, ok := cache.trees[h]; ok {
			return d, nil
		}
	}
	data, err := ReadRawTree(r.r.Storer, h)
	if err != nil {
		return nil, err
	}
	// Counted first, so that the entries of a fleet-wide tree (ten
	// thousand of them, read again at every revision) are allocated once.
	n := 0
	if err := EachRawEntry(data, func(RawTreeEntry) bool { n++; return true }); err != nil {
		return nil, fmt.Errorf("read tree %s: %w", h, err)
	}
	d := &dirNode{entries: make([]RawTreeEntry, 0, n)}
	// The same bytes parse again: no error.
	EachRawEntry(data, func(e RawTreeEntry) bool {
		d.entries = append(d.entries, e)
		return true
	})
	slices.SortFunc(d.entries, func(a, b RawTreeEntry) int { return bytes.Compare(a.Name, b.Name) })
	if cache != nil {
		cache.trees[h] = d
	}
	return d, nil
}

// blobSize returns the size of a blob without reading it. Called with
// r.mu held. go-git opens an object over its large-object threshold (or a
// packed one over 16 KiB, without that option) as a stream and takes the
// size from its header, so a 3 GiB blob of zeros, 14 MB in the pack, is
// not inflated here. A smaller object is inflated and kept in the object
// cache, where the read that follows a Stat finds it. Asking the store
// for the size alone (EncodedObjectSize) looks for a loose object file
// first, an open that fails for every packed object and costs more than
// the inflating.
func (r *Repo) blobSize(h plumbing.Hash) (int64, error) {
	b, err := r.r.BlobObject(h)
	if err != nil {
		return 0, err
	}
	return b.Size, nil
}

// readBlob reads a blob of at most max bytes; tooBig reports the size
// when it is over. Called with r.mu held.
func (r *Repo) readBlob(h plumbing.Hash, max int64) (data []byte, size int64, err error) {
	// The size comes from the object's header, before the object is
	// read (see blobSize).
	b, err := r.r.BlobObject(h)
	if err != nil {
		return nil, 0, err
	}
	if b.Size > max {
		return nil, b.Size, errTooLarge
	}
	rd, err := b.Reader()
	if err != nil {
		return nil, b.Size, err
	}
	defer rd.Close()
	data, err = io.ReadAll(io.LimitReader(rd, max+1))
	if err != nil {
		return nil, b.Size, err
	}
	if int64(len(data)) > max {
		return nil, int64(len(data)), errTooLarge
	}
	return data, b.Size, nil
}

var errTooLarge = errors.New("over the size limit")

func (f *FS) pathErr(op, name string, err error) error {
	return &fs.PathError{Op: op, Path: name, Err: err}
}

// lookup finds name, following symlinks in every element but the last,
// and in the last too when follow is set. Called with repo.mu held.
func (f *FS) lookup(op, name string, follow bool) (node, error) {
	if !fs.ValidPath(name) {
		return node{}, f.pathErr(op, name, fs.ErrInvalid)
	}
	cur := node{name: ".", mode: filemode.Dir, hash: f.root}
	curPath := "."
	var rest []string
	if name != "." {
		rest = strings.Split(name, "/")
	}
	for links := 0; len(rest) > 0; {
		elem := rest[0]
		rest = rest[1:]
		if !cur.isDir() {
			return node{}, f.pathErr(op, name, fmt.Errorf("%s is not a directory: %w", curPath, fs.ErrNotExist))
		}
		d, err := f.repo.tree(f.cache, cur.hash)
		if err != nil {
			return node{}, f.pathErr(op, name, err)
		}
		e, ok := d.find(elem)
		if !ok {
			return node{}, f.pathErr(op, name, fs.ErrNotExist)
		}
		next := path.Join(curPath, elem)
		if e.Mode != filemode.Symlink || (len(rest) == 0 && !follow) {
			cur, curPath = node{name: elem, mode: e.Mode, hash: e.Hash}, next
			continue
		}
		if links++; links > maxLinks {
			return node{}, f.pathErr(op, name, fmt.Errorf("too many levels of symbolic links"))
		}
		data, _, err := f.repo.readBlob(e.Hash, maxLinkTarget)
		if err != nil {
			return node{}, f.pathErr(op, name, fmt.Errorf("read symlink %s: %w", next, err))
		}
		target := string(data)
		if path.IsAbs(target) {
			return node{}, f.pathErr(op, name, fmt.Errorf("%s is a symlink to the absolute path %q, outside the tree: %w", next, target, safefs.ErrEscape))
		}
		// curPath holds no symlink, so ".." in the target applies to it
		// lexically.
		np := path.Join(append([]string{curPath, target}, rest...)...)
		if np == ".." || strings.HasPrefix(np, "../") {
			return node{}, f.pathErr(op, name, fmt.Errorf("%s is a symlink that leads outside the tree: %w", next, safefs.ErrEscape))
		}
		cur, curPath, rest = node{name: ".", mode: filemode.Dir, hash: f.root}, ".", nil
		if np != "." {
			rest = strings.Split(np, "/")
		}
	}
	return cur, nil
}

// Open opens a file or directory, following symlinks inside the tree.
func (f *FS) Open(name string) (fs.File, error) {
	f.repo.mu.Lock()
	defer f.repo.mu.Unlock()
	n, data, err := f.open(name)
	if err != nil {
		return nil, err
	}
	if n.isDir() {
		entries, err := f.dirEntries(n.hash)
		if err != nil {
			return nil, f.pathErr("open", name, err)
		}
		return &dirFile{info: f.info(n, 0), entries: entries}, nil
	}
	return &file{info: f.info(n, int64(len(data))), Reader: bytes.NewReader(data)}, nil
}

// ReadFile reads a whole file, within the size limit.
func (f *FS) ReadFile(name string) ([]byte, error) {
	f.repo.mu.Lock()
	defer f.repo.mu.Unlock()
	n, data, err := f.open(name)
	if err == nil && n.isDir() {
		return nil, fmt.Errorf("%s is a directory, not a file", name)
	}
	return data, err
}

// open looks name up and, unless it is a directory, reads it within the
// size limit. Called with repo.mu held.
func (f *FS) open(name string) (node, []byte, error) {
	n, err := f.lookup("open", name, true)
	if err != nil || n.isDir() {
		return n, nil, err
	}
	if n.mode == filemode.Submodule {
		return n, nil, f.pathErr("open", name, fmt.Errorf("a submodule, which is not read"))
	}
	max := f.repo.o.maxFileSize
	data, size, err := f.repo.readBlob(n.hash, max)
	if err == errTooLarge {
		return n, nil, fmt.Errorf("%s is %d bytes, over the %d-byte limit on input files", name, size, max)
	}
	if err != nil {
		return n, nil, f.pathErr("read", name, err)
	}
	return n, data, nil
}

// ReadDir lists a directory, sorted by name.
func (f *FS) ReadDir(name string) ([]fs.DirEntry, error) {
	f.repo.mu.Lock()
	defer f.repo.mu.Unlock()
	n, err := f.lookup("readdir", name, true)
	if err != nil {
		return nil, err
	}
	if !n.isDir() {
		return nil, f.pathErr("readdir", name, fmt.Errorf("not a directory"))
	}
	entries, err := f.dirEntries(n.hash)
	if err != nil {
		return nil, f.pathErr("readdir", name, err)
	}
	return entries, nil
}

// dirEntries lists a tree. Called with repo.mu held.
func (f *FS) dirEntries(h plumbing.Hash) ([]fs.DirEntry, error) {
	d, err := f.repo.tree(f.cache, h)
	if err != nil {
		return nil, err
	}
	out := make([]fs.DirEntry, len(d.entries))
	for i, e := range d.entries {
		out[i] = &dirEntry{fsys: f, n: node{name: string(e.Name), mode: e.Mode, hash: e.Hash}}
	}
	return out, nil
}

// Stat describes a file, following symlinks inside the tree.
func (f *FS) Stat(name string) (fs.FileInfo, error) { return f.stat("stat", name, true) }

// Lstat describes a file without following a final symlink.
func (f *FS) Lstat(name string) (fs.FileInfo, error) { return f.stat("lstat", name, false) }

func (f *FS) stat(op, name string, follow bool) (fs.FileInfo, error) {
	f.repo.mu.Lock()
	defer f.repo.mu.Unlock()
	n, err := f.lookup(op, name, follow)
	if err != nil {
		return nil, err
	}
	return f.infoSized(n)
}

// infoSized describes n with its size. Called with repo.mu held.
func (f *FS) infoSized(n node) (fs.FileInfo, error) {
	var size int64
	if n.mode.IsFile() {
		s, err := f.repo.blobSize(n.hash)
		if err != nil {
			return nil, f.pathErr("stat", n.name, err)
		}
		size = s
	}
	return f.info(n, size), nil
}

// ReadLink returns the target of a symlink, as stored.
func (f *FS) ReadLink(name string) (string, error) {
	f.repo.mu.Lock()
	defer f.repo.mu.Unlock()
	n, err := f.lookup("readlink", name, false)
	if err != nil {
		return "", err
	}
	if n.mode != filemode.Symlink {
		return "", f.pathErr("readlink", name, fs.ErrInvalid)
	}
	data, _, err := f.repo.readBlob(n.hash, maxLinkTarget)
	if err != nil {
		return "", f.pathErr("readlink", name, err)
	}
	return string(data), nil
}

// Sub returns the tree of a directory as a root of its own, as os.Root
// would: symlinks in it may not leave it.
func (f *FS) Sub(dir string) (fs.FS, error) {
	if dir == "." {
		return f, nil
	}
	f.repo.mu.Lock()
	defer f.repo.mu.Unlock()
	n, err := f.lookup("sub", dir, true)
	if err != nil {
		return nil, err
	}
	if !n.isDir() {
		return nil, f.pathErr("sub", dir, fmt.Errorf("not a directory"))
	}
	sub := *f
	sub.root = n.hash
	return &sub, nil
}

func (f *FS) info(n node, size int64) *fileInfo {
	return &fileInfo{n: n, size: size, mtime: f.mtime}
}

// fileInfo describes a tree entry. Sys returns the object id.
type fileInfo struct {
	n     node
	size  int64
	mtime time.Time
}

func (i *fileInfo) Name() string       { return i.n.name }
func (i *fileInfo) Size() int64        { return i.size }
func (i *fileInfo) ModTime() time.Time { return i.mtime }
func (i *fileInfo) IsDir() bool        { return i.n.isDir() }
func (i *fileInfo) Sys() any           { return i.n.hash }
func (i *fileInfo) Mode() fs.FileMode  { return modeOf(i.n.mode) }

func modeOf(m filemode.FileMode) fs.FileMode {
	switch m {
	case filemode.Dir:
		return fs.ModeDir | 0o555
	case filemode.Executable:
		return 0o555
	case filemode.Symlink:
		return fs.ModeSymlink | 0o777
	case filemode.Submodule:
		return fs.ModeIrregular
	}
	return 0o444
}

// dirEntry is one entry of a listing; Info reads the blob size.
type dirEntry struct {
	fsys *FS
	n    node
}

func (e *dirEntry) Name() string      { return e.n.name }
func (e *dirEntry) IsDir() bool       { return e.n.isDir() }
func (e *dirEntry) Type() fs.FileMode { return modeOf(e.n.mode).Type() }
func (e *dirEntry) Info() (fs.FileInfo, error) {
	e.fsys.repo.mu.Lock()
	defer e.fsys.repo.mu.Unlock()
	return e.fsys.infoSized(e.n)
}
func (e *dirEntry) String() string { return fs.FormatDirEntry(e) }

// file is an open regular file, held in memory.
type file struct {
	info *fileInfo
	*bytes.Reader
}

func (f *file) Stat() (fs.FileInfo, error) { return f.info, nil }
func (f *file) Close() error               { return nil }

// dirFile is an open directory.
type dirFile struct {
	info    *fileInfo
	entries []fs.DirEntry
	off     int
}

func (d *dirFile) Stat() (fs.FileInfo, error) { return d.info, nil }
func (d *dirFile) Close() error               { return nil }
func (d *dirFile) Read([]byte) (int, error) {
	return 0, &fs.PathError{Op: "read", Path: d.info.n.name, Err: fmt.Errorf("is a directory")}
}

func (d *dirFile) ReadDir(n int) ([]fs.DirEntry, error) {
	rest := d.entries[d.off:]
	if n <= 0 {
		d.off = len(d.entries)
		return rest, nil
	}
	if len(rest) == 0 {
		return nil, io.EOF
	}
	n = min(n, len(rest))
	d.off += n
	return rest[:n], nil
}
