package source

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"io/fs"
	"log/slog"
	"os"
	"path"
	"path/filepath"
	"strings"
	"sync"
	"time"

	"github.com/go-git/go-billy/v5/osfs"
	git "github.com/go-git/go-git/v5"
	"github.com/go-git/go-git/v5/config"
	"github.com/go-git/go-git/v5/plumbing"
	"github.com/go-git/go-git/v5/plumbing/cache"
	"github.com/go-git/go-git/v5/storage/filesystem"
	"github.com/prometheus/client_golang/prometheus"

	"github.com/siteops/siteops/internal/gitfs"
	"github.com/siteops/siteops/internal/redact"
	"github.com/siteops/siteops/sites"
)

// Defaults of a Git source, in one place.
const (
	DefaultBranch      = "main"
	DefaultStatusDir   = sites.StatusDir
	DefaultInterval    = time.Minute
	DefaultTimeout     = 60 * time.Second // one fetch or push, as Flux's spec.timeout
	DefaultAuthorName  = "siteops"
	DefaultAuthorEmail = "siteops@localhost"
	// A rejected or failed status push is tried again on the fetched
	// tip, up to DefaultPushAttempts times, waiting DefaultPushBackoff
	// after the first failure and twice as long after each next one, up
	// to MaxPushBackoff.
	DefaultPushAttempts = 8
	DefaultPushBackoff  = 250 * time.Millisecond
	MaxPushBackoff      = 30 * time.Second
)

// remoteName is the remote of the clone.
const remoteName = "origin"

// statusRef is the local reference a status commit is pushed from.
const statusRef = plumbing.ReferenceName("refs/siteops/status")

// GitOptions configures a Git source. URL and StateDir are required; the
// rest has defaults.
type GitOptions struct {
	// URL of the fleet repository: https://, http://, ssh:// (or
	// user@host:path), git:// or file://.
	URL string
	// Branch holds the sites (default DefaultBranch).
	Branch string
	// StatusBranch receives the status commits (default Branch). Another
	// branch is created from Branch when missing, and is owned by siteops:
	// pushes to it are forced.
	StatusBranch string
	// StatusDir is the directory of the status files, relative to the
	// repository root (default DefaultStatusDir). Commits that change
	// only it are not returned by Next.
	StatusDir string
	// StateDir holds the clone and the last reconciled revision, under
	// git/<key>/ where key depends on URL and Branch.
	StateDir string
	// Interval between fetches (default DefaultInterval).
	Interval time.Duration
	// Timeout of one fetch or push (default DefaultTimeout).
	Timeout time.Duration
	// Auth says where the credentials are.
	Auth GitAuth
	// AuthorName and AuthorEmail sign the status commits as author and
	// committer (default DefaultAuthorName, DefaultAuthorEmail).
	AuthorName, AuthorEmail string
	// PushAttempts bounds the tries of one status push (default
	// DefaultPushAttempts); PushBackoff is the first wait between them
	// (default DefaultPushBackoff).
	PushAttempts int
	PushBackoff  time.Duration
	// MaxFileSize bounds every file read from a revision (default
	// gitfs.DefaultMaxFileSize).
	MaxFileSize int64
	Clock       Clock
	Logger      *slog.Logger
	// Registerer receives the siteops_git_* metrics (none when nil).
	Registerer prometheus.Registerer

	// beforePush runs before each push; tests use it to race a push.
	beforePush func()
}

func (o *GitOptions) applyDefaults() error {
	if o.URL == "" {
		return errors.New("no repository URL given")
	}
	if o.StateDir == "" {
		return errors.New("no state directory given")
	}
	def := func(s *string, v string) {
		if *s == "" {
			*s = v
		}
	}
	def(&o.Branch, DefaultBranch)
	def(&o.StatusBranch, o.Branch)
	def(&o.StatusDir, DefaultStatusDir)
	def(&o.AuthorName, DefaultAuthorName)
	def(&o.AuthorEmail, DefaultAuthorEmail)
	o.StatusDir = strings.Trim(path.Clean(filepath.ToSlash(o.StatusDir)), "/")
	if !fs.ValidPath(o.StatusDir) || o.StatusDir == "." {
		return fmt.Errorf("status directory %q: give a directory inside the repository, such as %q", o.StatusDir, DefaultStatusDir)
	}
	for _, b := range []string{o.Branch, o.StatusBranch} {
		if !plumbing.NewBranchReferenceName(b).IsBranch() || strings.ContainsAny(b, " ~^:?*[\\") || strings.Contains(b, "..") {
			return fmt.Errorf("branch %q is not a valid branch name", b)
		}
	}
	if o.Interval <= 0 {
		o.Interval = DefaultInterval
	}
	if o.Timeout <= 0 {
		o.Timeout = DefaultTimeout
	}
	if o.PushAttempts <= 0 {
		o.PushAttempts = DefaultPushAttempts
	}
	if o.PushBackoff <= 0 {
		o.PushBackoff = DefaultPushBackoff
	}
	if o.MaxFileSize <= 0 {
		o.MaxFileSize = gitfs.DefaultMaxFileSize
	}
	if o.Clock == nil {
		o.Clock = SystemClock()
	}
	if o.Logger == nil {
		o.Logger = slog.New(slog.DiscardHandler)
	}
	return nil
}

// Git is a remote repository cloned into the state directory. Next and
// WriteStatus may run at the same time; Next must not run concurrently
// with itself.
type Git struct {
	o       GitOptions
	dir     string // state of this URL and branch
	storage *filesystem.Storage
	repo    *gitfs.Repo
	metrics *gitMetrics
	log     *slog.Logger

	trigger chan struct{}
	closed  chan struct{}
	once    sync.Once

	// Owned by Next.
	last     plumbing.Hash // the revision Next returned last (at start, the reconciled one)
	returned bool          // Next returned a snapshot in this process
	due      bool          // fetch without waiting

	writeMu sync.Mutex // one status write at a time
	// Guarded by writeMu: the status directory as last written, and
	// what the remote holds of it.
	status statusTree
	// madeTrees are the trees above the status directory that the last
	// status commit made: the next is most often made on it.
	madeTrees map[plumbing.Hash][]byte
	sent      sentStatus
}

var (
	_ Source          = (*Git)(nil)
	_ ReconcileMarker = (*Git)(nil)
)

// NewGit opens the clone of o.URL in the state directory, creating it
// (empty) if needed. It does not reach the server: the first Next does.
func NewGit(ctx context.Context, o GitOptions) (*Git, error) {
	if err := o.applyDefaults(); err != nil {
		return nil, fmt.Errorf("git source: %w", err)
	}
	if _, err := o.Auth.method(o.URL); err != nil {
		return nil, fmt.Errorf("git source: %w", err)
	}
	m, err := newGitMetrics(o.Registerer)
	if err != nil {
		return nil, fmt.Errorf("git source: register metrics: %w", err)
	}
	sum := sha256.Sum256([]byte(o.URL + "\x00" + o.Branch))
	g := &Git{
		o:       o,
		dir:     filepath.Join(o.StateDir, "git", hex.EncodeToString(sum[:8])),
		metrics: m,
		log:     o.Logger.With("repo", redact.URL(o.URL), "branch", o.Branch),
		trigger: make(chan struct{}, 1),
		closed:  make(chan struct{}),
		due:     true,
	}
	if err := g.open(); err != nil {
		return nil, fmt.Errorf("git source: %w", err)
	}
	return g, nil
}

// objectsDir is the object store of the clone.
func (g *Git) objectsDir() string { return filepath.Join(g.dir, "repo.git", "objects") }

// open opens or creates the bare clone and reads the reconciled revision.
func (g *Git) open() error {
	repoDir := filepath.Join(g.dir, "repo.git")
	if err := os.MkdirAll(repoDir, 0o755); err != nil {
		return err
	}
	// A note for people looking into the state directory.
	about := fmt.Sprintf("repository: %s\nbranch: %s\n", redact.URL(g.o.URL), g.o.Branch)
	if err := writeFileAtomic(filepath.Join(g.dir, "SOURCE"), []byte(about)); err != nil {
		return err
	}
	g.storage = filesystem.NewStorageWithOptions(osfs.New(repoDir), cache.NewObjectLRUDefault(), gitfs.StorageOptions)
	// Fetched packs are checked for objects too large to index.
	limited := gitfs.NewLimitedStorage(g.storage, g.dir)
	r, err := git.Open(limited, nil)
	if errors.Is(err, git.ErrRepositoryNotExists) {
		r, err = git.Init(limited, nil)
	}
	if err != nil {
		return fmt.Errorf("open the clone in %s: %w", repoDir, err)
	}
	if _, err := r.Remote(remoteName); errors.Is(err, git.ErrRemoteNotFound) {
		_, err = r.CreateRemote(&config.RemoteConfig{Name: remoteName, URLs: []string{g.o.URL}})
		if err != nil {
			return fmt.Errorf("configure the clone in %s: %w", repoDir, err)
		}
	}
	g.repo = gitfs.New(r, gitfs.WithMaxFileSize(g.o.MaxFileSize))

	data, err := os.ReadFile(g.reconciledFile())
	if errors.Is(err, fs.ErrNotExist) {
		return nil
	}
	if err != nil {
		return err
	}
	h := plumbing.NewHash(strings.TrimSpace(string(data)))
	if err := g.repo.Locked(func(r *git.Repository) error { _, err := r.CommitObject(h); return err }); err != nil {
		g.log.Warn("the reconciled revision is not in the clone; the next revision is read in full", "revision", h.String(), "error", err)
		return nil
	}
	g.last = h
	return nil
}

func (g *Git) reconciledFile() string { return filepath.Join(g.dir, "reconciled") }

// remoteRef is where the clone keeps the remote's branch.
func remoteRef(branch string) plumbing.ReferenceName {
	return plumbing.NewRemoteReferenceName(remoteName, branch)
}

// Next fetches (at once on the first call, then every interval or on
// Trigger) until the branch holds a revision that changes more than the
// status directory, and returns it. The first snapshot is returned even
// when it is the reconciled revision, with Changed relative to that one
// (nil when none was recorded). A failed fetch is returned as an error;
// calling Next again waits for the next interval before fetching.
func (g *Git) Next(ctx context.Context) (Snapshot, error) {
	for {
		if !g.due {
			if err := g.wait(ctx); err != nil {
				return Snapshot{}, err
			}
		}
		g.due = false
		tip, err := g.fetch(ctx, g.o.Branch)
		if err != nil {
			g.metrics.fetchErrors.Inc()
			g.log.Error("fetch failed", "error", err)
			return Snapshot{}, err
		}
		snap, ok, err := g.snapshot(tip)
		if err != nil || ok {
			return snap, err
		}
	}
}

// ErrClosed is what Next returns once the source is closed.
var ErrClosed = errors.New("the source is closed")

// wait returns at the next interval or trigger (at once when a trigger is
// pending).
func (g *Git) wait(ctx context.Context) error {
	select {
	case <-g.trigger:
		return nil
	default:
	}
	select {
	case <-ctx.Done():
		return ctx.Err()
	case <-g.closed:
		return ErrClosed
	case <-g.trigger:
	case <-g.o.Clock.After(g.o.Interval):
	}
	return nil
}

// snapshot returns the snapshot of tip, or false when there is nothing new
// (the same revision, or one that changes only the status directory).
func (g *Git) snapshot(tip plumbing.Hash) (Snapshot, bool, error) {
	if tip == g.last && g.returned {
		return Snapshot{}, false, nil
	}
	var changed []string
	if !g.last.IsZero() {
		// The status directory is not compared: it is the loop's own.
		all, err := g.repo.Changed(g.last, tip, g.o.StatusDir)
		if err != nil {
			g.log.Warn("cannot compare with the previous revision; reading the new one in full",
				"from", g.last.String(), "to", tip.String(), "error", err)
		} else {
			changed = append([]string{}, all...)
		}
	}
	if g.returned && changed != nil && len(changed) == 0 {
		g.log.Debug("revision changes only the status directory", "revision", tip.String())
		g.last = tip
		return Snapshot{}, false, nil
	}
	fsys, err := g.repo.FS(tip)
	if err != nil {
		return Snapshot{}, false, err
	}
	g.last, g.returned = tip, true
	g.log.Info("new revision", "revision", tip.String(), "changed", len(changed), "full", changed == nil)
	return Snapshot{Revision: tip.String(), FS: fsys, Changed: changed}, true, nil
}

// fetch brings branch from the remote and returns its tip.
func (g *Git) fetch(ctx context.Context, branch string) (plumbing.Hash, error) {
	auth, err := g.o.Auth.method(g.o.URL)
	if err != nil {
		return plumbing.ZeroHash, err
	}
	ctx, cancel := context.WithTimeout(ctx, g.o.Timeout)
	defer cancel()
	var tip plumbing.Hash
	err = g.repo.Locked(func(r *git.Repository) error {
		spec := config.RefSpec(fmt.Sprintf("+%s:%s", plumbing.NewBranchReferenceName(branch), remoteRef(branch)))
		err := r.FetchContext(ctx, &git.FetchOptions{
			RemoteName: remoteName,
			RemoteURL:  g.o.URL,
			RefSpecs:   []config.RefSpec{spec},
			Auth:       auth,
			Tags:       git.NoTags,
			Force:      true,
		})
		if err != nil && !errors.Is(err, git.NoErrAlreadyUpToDate) {
			return err
		}
		ref, err := r.Reference(remoteRef(branch), true)
		if err != nil {
			return err
		}
		tip = ref.Hash()
		return nil
	})
	if err != nil {
		return plumbing.ZeroHash, g.explain(ctx, "fetch", branch, err)
	}
	return tip, nil
}

// Trigger asks for a fetch now; triggers that arrive while one is pending
// count once.
func (g *Git) Trigger() {
	select {
	case g.trigger <- struct{}{}:
	default:
	}
}

// MarkReconciled records revision (a commit id Next returned) as
// reconciled: after a restart, the first Next lists what changed since
// it.
func (g *Git) MarkReconciled(revision string) error {
	h := plumbing.NewHash(revision)
	if h.IsZero() || h.String() != revision {
		return fmt.Errorf("mark reconciled: %q is not a commit id", revision)
	}
	return writeFileAtomic(g.reconciledFile(), []byte(revision+"\n"))
}

// Close releases the clone: a Next waiting returns ErrClosed, and the FS
// of the snapshots can no longer be read.
func (g *Git) Close() error {
	var err error
	g.once.Do(func() {
		close(g.closed)
		err = g.repo.Locked(func(*git.Repository) error { return g.storage.Close() })
	})
	return err
}
