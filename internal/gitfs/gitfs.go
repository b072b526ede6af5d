package gitfs

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"path"
	"path/filepath"
	"slices"
	"strings"
	"time"

	git "github.com/go-git/go-git/v5"
	"github.com/go-git/go-git/v5/plumbing"
	"github.com/go-git/go-git/v5/plumbing/filemode"
	"github.com/go-git/go-git/v5/plumbing/object"
)

// DefaultMaxFileSize is the largest file an FS opens, the same limit the
// site loader applies to files on disk (8 MiB).
const DefaultMaxFileSize = 8 << 20

// maxLinks bounds the symbolic links followed to open one path.
const maxLinks = 40

// Repo is a Git repository opened for reading commits.
type Repo struct {
	repo *git.Repository
	// prefix is the slash path, inside the repository's tree, that FS
	// roots are at; "" for the top.
	prefix string
}

// Open opens the Git repository that contains dir (dir or one of its
// parents holds .git); the FS of a commit is rooted at dir.
func Open(dir string) (*Repo, error) {
	abs, err := filepath.Abs(dir)
	if err != nil {
		return nil, fmt.Errorf("open repository: %w", err)
	}
	r, err := git.PlainOpenWithOptions(abs, &git.PlainOpenOptions{DetectDotGit: true, EnableDotGitCommonDir: true})
	if err != nil {
		if errors.Is(err, git.ErrRepositoryNotExists) {
			return nil, fmt.Errorf("%s is not inside a Git repository", dir)
		}
		return nil, fmt.Errorf("open repository of %s: %w", dir, err)
	}
	prefix := ""
	if wt, err := r.Worktree(); err == nil {
		top, err := filepath.EvalSymlinks(wt.Filesystem.Root())
		if err != nil {
			return nil, fmt.Errorf("open repository of %s: %w", dir, err)
		}
		here, err := filepath.EvalSymlinks(abs)
		if err != nil {
			return nil, fmt.Errorf("open repository of %s: %w", dir, err)
		}
		rel, err := filepath.Rel(top, here)
		if err != nil || rel == ".." || strings.HasPrefix(rel, ".."+string(filepath.Separator)) {
			return nil, fmt.Errorf("%s is outside the working tree of its repository %s", dir, top)
		}
		if rel != "." {
			prefix = filepath.ToSlash(rel)
		}
	}
	return &Repo{repo: r, prefix: prefix}, nil
}

// New wraps a repository the caller opened (a clone in memory, say); the
// FS of a commit is rooted at prefix, a slash path inside the tree ("" or
// "." for the top).
func New(r *git.Repository, prefix string) *Repo {
	prefix = path.Clean("/" + prefix)[1:]
	return &Repo{repo: r, prefix: prefix}
}

// Resolve returns the full hash of the commit a revision names: a branch
// (local or remote-tracking, such as origin/main), a tag, a full or
// abbreviated hash, or an expression such as HEAD~1.
func (r *Repo) Resolve(rev string) (string, error) {
	c, err := r.commit(rev)
	if err != nil {
		return "", err
	}
	return c.Hash.String(), nil
}

func (r *Repo) commit(rev string) (*object.Commit, error) {
	if strings.TrimSpace(rev) == "" {
		return nil, errors.New("no revision given")
	}
	h, err := r.repo.ResolveRevision(plumbing.Revision(rev))
	if err != nil {
		return nil, fmt.Errorf("revision %q is not in the repository (a shallow clone lacks older commits: fetch them, e.g. actions/checkout with fetch-depth: 0): %w", rev, err)
	}
	c, err := r.repo.CommitObject(*h)
	if err != nil {
		// An annotated tag resolves to its commit; anything else is no commit.
		return nil, fmt.Errorf("revision %q (%s) is not a commit that is in the repository: %w", rev, h, err)
	}
	return c, nil
}

// Option configures an FS.
type Option func(*FS)

// WithMaxFileSize sets the largest file the FS opens, in bytes.
func WithMaxFileSize(n int64) Option { return func(f *FS) { f.max = n } }

// FS returns the files of the commit a revision names (see Resolve),
// rooted at the repository's prefix. A prefix the commit does not have
// gives an empty FS: the directory did not exist yet.
func (r *Repo) FS(rev string, opts ...Option) (*FS, error) {
	c, err := r.commit(rev)
	if err != nil {
		return nil, err
	}
	tree, err := c.Tree()
	if err != nil {
		return nil, fmt.Errorf("read the tree of %s: %w", c.Hash, err)
	}
	f := &FS{commit: c.Hash.String(), top: tree, prefix: r.prefix, time: c.Committer.When, max: DefaultMaxFileSize}
	for _, o := range opts {
		o(f)
	}
	return f, nil
}

// FS is the read-only file tree of one commit. It is safe for concurrent
// use.
type FS struct {
	commit string
	top    *object.Tree
	// prefix is where the FS is rooted inside top.
	prefix string
	time   time.Time
	max    int64
}

var (
	_ fs.FS         = (*FS)(nil)
	_ fs.ReadFileFS = (*FS)(nil)
	_ fs.ReadDirFS  = (*FS)(nil)
	_ fs.StatFS     = (*FS)(nil)
)

// Commit is the full hash of the commit.
func (f *FS) Commit() string { return f.commit }

// node is a resolved path: a tree (dir) or a blob entry.
type node struct {
	name  string // base name, "." for the root
	tree  *object.Tree
	entry object.TreeEntry
}

func (n *node) isDir() bool { return n.tree != nil }

// resolve finds name, following symbolic links that stay inside the root.
func (f *FS) resolve(op, name string) (*node, error) {
	if !fs.ValidPath(name) {
		return nil, &fs.PathError{Op: op, Path: name, Err: fs.ErrInvalid}
	}
	todo := []string{}
	if name != "." {
		todo = strings.Split(name, "/")
	}
	var done []string // the resolved directories, from the root
	links := 0
	for len(todo) > 0 {
		part := todo[0]
		todo = todo[1:]
		dir, err := f.tree(done)
		if err != nil {
			return nil, &fs.PathError{Op: op, Path: name, Err: err}
		}
		e, ok := findEntry(dir, part)
		if !ok {
			return nil, &fs.PathError{Op: op, Path: name, Err: fs.ErrNotExist}
		}
		switch {
		case e.Mode == filemode.Dir:
			done = append(done, part)
		case e.Mode == filemode.Symlink:
			if links++; links > maxLinks {
				return nil, &fs.PathError{Op: op, Path: name, Err: errors.New("too many levels of symbolic links")}
			}
			target, err := f.linkTarget(e)
			if err != nil {
				return nil, &fs.PathError{Op: op, Path: name, Err: err}
			}
			next, ok := joinInside(done, target)
			if !ok {
				return nil, &fs.PathError{Op: op, Path: name, Err: errors.New("path escapes from parent")}
			}
			todo = append(next, todo...)
			done = nil
		case e.Mode == filemode.Submodule:
			return nil, &fs.PathError{Op: op, Path: name, Err: errors.New("is a Git submodule, whose files are not in this repository")}
		case len(todo) > 0:
			return nil, &fs.PathError{Op: op, Path: name, Err: fs.ErrNotExist} // a file used as a directory
		default:
			return &node{name: part, entry: e}, nil
		}
	}
	t, err := f.tree(done)
	if err != nil {
		return nil, &fs.PathError{Op: op, Path: name, Err: err}
	}
	base := "."
	if len(done) > 0 {
		base = done[len(done)-1]
	}
	return &node{name: base, tree: t}, nil
}

// tree returns the directory at the resolved parts below the root; the
// root of a commit without the prefix is an empty directory.
func (f *FS) tree(parts []string) (*object.Tree, error) {
	p := path.Join(append([]string{f.prefix}, parts...)...)
	if p == "" || p == "." {
		return f.top, nil
	}
	t, err := f.top.Tree(p)
	if errors.Is(err, object.ErrDirectoryNotFound) && len(parts) == 0 {
		return &object.Tree{}, nil
	}
	if err != nil {
		return nil, fs.ErrNotExist
	}
	return t, nil
}

func findEntry(t *object.Tree, name string) (object.TreeEntry, bool) {
	for _, e := range t.Entries {
		if e.Name == name {
			return e, true
		}
	}
	return object.TreeEntry{}, false
}

// linkTarget reads a symbolic link's target.
func (f *FS) linkTarget(e object.TreeEntry) (string, error) {
	b, err := f.blob(e)
	if err != nil {
		return "", err
	}
	if len(b) > 4096 {
		return "", errors.New("symbolic link target too long")
	}
	return string(b), nil
}

// joinInside resolves a link target against the directory the link is in
// (dir, from the root) and says whether the result stays inside the root.
func joinInside(dir []string, target string) ([]string, bool) {
	if path.IsAbs(target) {
		return nil, false
	}
	out := slices.Clone(dir)
	for _, p := range strings.Split(target, "/") {
		switch p {
		case "", ".":
		case "..":
			if len(out) == 0 {
				return nil, false
			}
			out = out[:len(out)-1]
		default:
			out = append(out, p)
		}
	}
	return out, true
}

// blob reads an entry's content within the size limit.
func (f *FS) blob(e object.TreeEntry) ([]byte, error) {
	b, err := f.top.TreeEntryFile(&e)
	if err != nil {
		return nil, err
	}
	if b.Size > f.max {
		return nil, fmt.Errorf("is %d bytes, over the %d-byte limit on input files", b.Size, f.max)
	}
	r, err := b.Reader()
	if err != nil {
		return nil, err
	}
	defer r.Close()
	data, err := io.ReadAll(io.LimitReader(r, f.max+1))
	if err != nil {
		return nil, err
	}
	if int64(len(data)) > f.max {
		return nil, fmt.Errorf("is over the %d-byte limit on input files", f.max)
	}
	return data, nil
}

func (f *FS) size(e object.TreeEntry) int64 {
	if b, err := f.top.TreeEntryFile(&e); err == nil {
		return b.Size
	}
	return 0
}

// Open opens a file or directory of the commit.
func (f *FS) Open(name string) (fs.File, error) {
	n, err := f.resolve("open", name)
	if err != nil {
		return nil, err
	}
	if n.isDir() {
		return &dir{fs: f, node: n}, nil
	}
	data, err := f.blob(n.entry)
	if err != nil {
		return nil, &fs.PathError{Op: "open", Path: name, Err: err}
	}
	return &file{info: f.info(n, int64(len(data))), r: bytes.NewReader(data)}, nil
}

// ReadFile reads a whole file.
func (f *FS) ReadFile(name string) ([]byte, error) {
	n, err := f.resolve("read", name)
	if err != nil {
		return nil, err
	}
	if n.isDir() {
		return nil, &fs.PathError{Op: "read", Path: name, Err: errors.New("is a directory")}
	}
	data, err := f.blob(n.entry)
	if err != nil {
		return nil, &fs.PathError{Op: "read", Path: name, Err: err}
	}
	return data, nil
}

// Stat describes a file or directory, following symbolic links.
func (f *FS) Stat(name string) (fs.FileInfo, error) {
	n, err := f.resolve("stat", name)
	if err != nil {
		return nil, err
	}
	if n.isDir() {
		return f.info(n, 0), nil
	}
	return f.info(n, f.size(n.entry)), nil
}

// ReadDir lists a directory, sorted by name. Symbolic links are listed as
// such; submodules are left out.
func (f *FS) ReadDir(name string) ([]fs.DirEntry, error) {
	n, err := f.resolve("readdir", name)
	if err != nil {
		return nil, err
	}
	if !n.isDir() {
		return nil, &fs.PathError{Op: "readdir", Path: name, Err: errors.New("not a directory")}
	}
	return f.entries(n.tree), nil
}

func (f *FS) entries(t *object.Tree) []fs.DirEntry {
	out := make([]fs.DirEntry, 0, len(t.Entries))
	for _, e := range t.Entries {
		if e.Mode == filemode.Submodule {
			continue
		}
		out = append(out, &dirEntry{fs: f, e: e})
	}
	slices.SortFunc(out, func(a, b fs.DirEntry) int { return strings.Compare(a.Name(), b.Name()) })
	return out
}

func (f *FS) info(n *node, size int64) fs.FileInfo {
	if n.isDir() {
		return &fileInfo{name: n.name, mode: fs.ModeDir | 0o555, time: f.time}
	}
	return &fileInfo{name: n.name, size: size, mode: entryMode(n.entry.Mode), time: f.time}
}

func entryMode(m filemode.FileMode) fs.FileMode {
	switch m {
	case filemode.Dir:
		return fs.ModeDir | 0o555
	case filemode.Symlink:
		return fs.ModeSymlink | 0o444
	case filemode.Executable:
		return 0o555
	}
	return 0o444
}

type fileInfo struct {
	name string
	size int64
	mode fs.FileMode
	time time.Time
}

func (i *fileInfo) Name() string       { return i.name }
func (i *fileInfo) Size() int64        { return i.size }
func (i *fileInfo) Mode() fs.FileMode  { return i.mode }
func (i *fileInfo) ModTime() time.Time { return i.time }
func (i *fileInfo) IsDir() bool        { return i.mode.IsDir() }
func (i *fileInfo) Sys() any           { return nil }

type dirEntry struct {
	fs *FS
	e  object.TreeEntry
}

func (d *dirEntry) Name() string      { return d.e.Name }
func (d *dirEntry) IsDir() bool       { return d.e.Mode == filemode.Dir }
func (d *dirEntry) Type() fs.FileMode { return entryMode(d.e.Mode).Type() }
func (d *dirEntry) Info() (fs.FileInfo, error) {
	if d.IsDir() {
		return &fileInfo{name: d.e.Name, mode: fs.ModeDir | 0o555, time: d.fs.time}, nil
	}
	return &fileInfo{name: d.e.Name, size: d.fs.size(d.e), mode: entryMode(d.e.Mode), time: d.fs.time}, nil
}

type file struct {
	info fs.FileInfo
	r    *bytes.Reader
}

func (f *file) Stat() (fs.FileInfo, error) { return f.info, nil }
func (f *file) Read(p []byte) (int, error) { return f.r.Read(p) }
func (f *file) Close() error               { return nil }

// ReadAt and Seek let callers that need them (io.SectionReader users)
// read a file of a commit like one on disk.
func (f *file) ReadAt(p []byte, off int64) (int, error) { return f.r.ReadAt(p, off) }
func (f *file) Seek(off int64, whence int) (int64, error) {
	return f.r.Seek(off, whence)
}

type dir struct {
	fs   *FS
	node *node
	list []fs.DirEntry
	read bool
}

func (d *dir) Stat() (fs.FileInfo, error) { return d.fs.info(d.node, 0), nil }
func (d *dir) Read([]byte) (int, error) {
	return 0, &fs.PathError{Op: "read", Path: d.node.name, Err: errors.New("is a directory")}
}
func (d *dir) Close() error { return nil }

// ReadDir reads the directory as fs.ReadDirFile does: n <= 0 returns all
// remaining entries, n > 0 at most n and io.EOF at the end.
func (d *dir) ReadDir(n int) ([]fs.DirEntry, error) {
	if !d.read {
		d.list, d.read = d.fs.entries(d.node.tree), true
	}
	if n <= 0 {
		out := d.list
		d.list = nil
		return out, nil
	}
	if len(d.list) == 0 {
		return nil, io.EOF
	}
	n = min(n, len(d.list))
	out := d.list[:n]
	d.list = d.list[n:]
	return out, nil
}
