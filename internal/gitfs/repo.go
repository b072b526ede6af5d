package gitfs

import (
	"errors"
	"fmt"
	"io"
	"path/filepath"
	"sort"
	"strings"
	"sync"

	git "github.com/go-git/go-git/v5"
	"github.com/go-git/go-git/v5/plumbing"
	"github.com/go-git/go-git/v5/plumbing/cache"
	"github.com/go-git/go-git/v5/plumbing/object"
	"github.com/go-git/go-git/v5/storage/filesystem"

	"github.com/siteops/siteops/internal/safefs"
)

// DefaultMaxFileSize is the largest file an FS reads.
const DefaultMaxFileSize = safefs.MaxFileSize

// Option configures a Repo.
type Option func(*options)

type options struct {
	maxFileSize int64
}

// WithMaxFileSize sets the largest file an FS reads, in bytes.
func WithMaxFileSize(n int64) Option { return func(o *options) { o.maxFileSize = n } }

func applyOptions(opts []Option) options {
	o := options{maxFileSize: DefaultMaxFileSize}
	for _, opt := range opts {
		opt(&o)
	}
	return o
}

// Repo is a Git repository whose commits can be read as file systems.
type Repo struct {
	mu  sync.Mutex // guards every use of r: go-git is not safe for concurrent use
	r   *git.Repository
	dir string
	o   options

	closer io.Closer // the storage Open made; nil for New
}

// Open opens the Git repository that contains dir (dir itself or one of
// its parents holds .git; linked worktrees are followed to their common
// directory), or the bare repository dir.
func Open(dir string, opts ...Option) (*Repo, error) {
	abs, err := filepath.Abs(dir)
	if err != nil {
		return nil, fmt.Errorf("open repository of %s: %w", dir, err)
	}
	r, err := git.PlainOpenWithOptions(abs, &git.PlainOpenOptions{DetectDotGit: true, EnableDotGitCommonDir: true})
	if errors.Is(err, git.ErrRepositoryNotExists) {
		r, err = git.PlainOpen(abs) // a bare repository
	}
	if errors.Is(err, git.ErrRepositoryNotExists) {
		return nil, fmt.Errorf("%s is not inside a Git repository: run siteops from a clone, or drop the revision", dir)
	}
	if err != nil {
		return nil, fmt.Errorf("open repository of %s: %w", dir, err)
	}
	rel := "."
	if wt, err := r.Worktree(); err == nil {
		rel, err = relativeTo(wt.Filesystem.Root(), abs)
		if err != nil {
			return nil, fmt.Errorf("open repository of %s: %w", dir, err)
		}
	}
	repo := &Repo{r: r, dir: rel, o: applyOptions(opts)}
	// Open again on the same files, keeping the pack files open: go-git
	// otherwise opens a pack file for every object it reads.
	if st, ok := r.Storer.(*filesystem.Storage); ok {
		keep := filesystem.NewStorageWithOptions(st.Filesystem(), cache.NewObjectLRUDefault(), StorageOptions)
		if kr, err := git.Open(keep, nil); err == nil {
			repo.r, repo.closer = kr, keep
		}
	}
	return repo, nil
}

// StorageOptions are the options of every object store siteops opens:
// pack files kept open (go-git otherwise opens a pack file for every object
// it reads), and objects over LargeObjectThreshold read from the pack as
// a stream instead of inflated whole into memory and the object cache.
var StorageOptions = filesystem.Options{KeepDescriptors: true, LargeObjectThreshold: LargeObjectThreshold}

// LargeObjectThreshold is the size from which an object is streamed.
const LargeObjectThreshold = 1 << 20

// Close releases the files the repository keeps open. A Repo made with
// New leaves that to its caller.
func (r *Repo) Close() error {
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.closer == nil {
		return nil
	}
	err := r.closer.Close()
	r.closer = nil
	return err
}

// New wraps a repository already open (a clone the caller manages). Dir
// is ".".
func New(r *git.Repository, opts ...Option) *Repo {
	return &Repo{r: r, dir: ".", o: applyOptions(opts)}
}

// relativeTo returns target relative to root, slash-separated, with
// symlinks in both resolved (a temporary directory is often reached
// through one).
func relativeTo(root, target string) (string, error) {
	if r, err := filepath.EvalSymlinks(root); err == nil {
		root = r
	}
	if t, err := filepath.EvalSymlinks(target); err == nil {
		target = t
	}
	rel, err := filepath.Rel(root, target)
	if err != nil {
		return "", err
	}
	rel = filepath.ToSlash(rel)
	if rel == ".." || strings.HasPrefix(rel, "../") {
		return "", fmt.Errorf("%s is outside the worktree %s", target, root)
	}
	return rel, nil
}

// Dir is the directory given to Open, relative to the repository root
// (slash-separated; "." for the root itself).
func (r *Repo) Dir() string { return r.dir }

// Locked runs fn with the repository while no FS reads from it. fn must
// not use an FS of this Repo (that would deadlock).
func (r *Repo) Locked(fn func(*git.Repository) error) error {
	r.mu.Lock()
	defer r.mu.Unlock()
	return fn(r.r)
}

// Resolve turns a revision (a branch, a tag, a full or abbreviated commit
// id, HEAD, or any of these followed by ~n or ^n) into a commit id.
func (r *Repo) Resolve(rev string) (plumbing.Hash, error) {
	r.mu.Lock()
	defer r.mu.Unlock()
	h, err := r.r.ResolveRevision(plumbing.Revision(rev))
	if err != nil {
		return plumbing.ZeroHash, r.unknownRevision(rev, err)
	}
	return *h, nil
}

// unknownRevision explains a revision that did not resolve, listing the
// branches that exist. Called with r.mu held.
func (r *Repo) unknownRevision(rev string, err error) error {
	var names []string
	if refs, e := r.r.References(); e == nil {
		_ = refs.ForEach(func(ref *plumbing.Reference) error {
			if n := ref.Name(); n.IsBranch() || n.IsRemote() {
				names = append(names, n.Short())
			}
			return nil
		})
	}
	sort.Strings(names)
	if len(names) > 8 {
		names = append(names[:8], "...")
	}
	return fmt.Errorf("revision %q not found (%v): give a branch, tag or commit id of this repository; branches: %s",
		rev, err, strings.Join(names, ", "))
}

// commit reads a commit object. Called with r.mu held.
func (r *Repo) commit(h plumbing.Hash) (*object.Commit, error) {
	c, err := r.r.CommitObject(h)
	if err != nil {
		return nil, fmt.Errorf("read commit %s: %w", h, err)
	}
	return c, nil
}

// FS returns the tree of commit as a read-only file system rooted at the
// repository root.
func (r *Repo) FS(commit plumbing.Hash) (*FS, error) {
	r.mu.Lock()
	defer r.mu.Unlock()
	c, err := r.commit(commit)
	if err != nil {
		return nil, err
	}
	return &FS{
		repo:   r,
		commit: commit,
		root:   c.TreeHash,
		mtime:  c.Committer.When,
		cache:  &treeCache{trees: map[plumbing.Hash]*dirNode{}},
	}, nil
}
