package source

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"log/slog"
	"os"
	"path"
	"path/filepath"
	"sort"
	"strings"
	"sync"
	"time"

	"github.com/fsnotify/fsnotify"

	"github.com/siteops/siteops/internal/gitfs"
	"github.com/siteops/siteops/internal/safefs"
)

// DefaultDebounce is how long a watched directory must stay quiet before
// its changes are read: an editor's save, or a git checkout, is many
// events.
const DefaultDebounce = 200 * time.Millisecond

// DirOptions configures a directory source. Dir is required.
type DirOptions struct {
	// Dir is the fleet directory.
	Dir string
	// StatusDir receives the status files: relative to Dir (default
	// DefaultStatusDir), or absolute. Changes under it are ignored.
	StatusDir string
	// Debounce is the quiet time before changes are read (default
	// DefaultDebounce).
	Debounce time.Duration
	// MaxFileSize bounds the files hashed (default
	// gitfs.DefaultMaxFileSize); a bigger file is tracked by size and
	// modification time, and the loader reports it.
	MaxFileSize int64
	Clock       Clock
	Logger      *slog.Logger
}

// Dir is a local directory watched for changes. Revisions are digests of
// the content (dot folders and the status directory left out). The FS of
// a snapshot is the live directory, read through an os.Root so that no
// symlink leads out of it: a change made while the loop reads it is read
// again at the next snapshot.
type Dir struct {
	o        DirOptions
	root     *safefs.Root
	fsys     fs.FS
	status   string // the status directory, relative to Dir; "" when outside it
	statusAt string // the status directory, absolute
	watcher  *fsnotify.Watcher
	log      *slog.Logger

	events  chan struct{} // something changed; holds at most one
	trigger chan struct{}
	closed  chan struct{}
	once    sync.Once
	done    chan struct{} // the watch goroutine ended

	// Owned by Next.
	files    map[string]fileState
	returned bool

	writeMu sync.Mutex
	written statusGeneration // the content last written, guarded by writeMu
}

// fileState is what a scan knows of a file.
type fileState struct {
	size  int64
	mtime time.Time
	sum   string
}

var _ Source = (*Dir)(nil)

// NewDir starts watching o.Dir and every directory under it.
func NewDir(ctx context.Context, o DirOptions) (*Dir, error) {
	if o.Dir == "" {
		return nil, errors.New("directory source: no directory given")
	}
	if o.StatusDir == "" {
		o.StatusDir = DefaultStatusDir
	}
	if o.Debounce <= 0 {
		o.Debounce = DefaultDebounce
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
	abs, err := filepath.Abs(o.Dir)
	if err != nil {
		return nil, fmt.Errorf("directory source: %w", err)
	}
	root, err := safefs.OpenRoot(abs)
	if err != nil {
		return nil, fmt.Errorf("directory source: %w", err)
	}
	d := &Dir{
		o: o, root: root, fsys: root.FS(),
		log:     o.Logger.With("dir", abs),
		events:  make(chan struct{}, 1),
		trigger: make(chan struct{}, 1),
		closed:  make(chan struct{}),
		done:    make(chan struct{}),
	}
	d.statusAt = o.StatusDir
	if !filepath.IsAbs(d.statusAt) {
		d.statusAt = filepath.Join(abs, d.statusAt)
	}
	if rel, err := filepath.Rel(abs, d.statusAt); err == nil && rel != "." && !strings.HasPrefix(rel, "..") {
		d.status = filepath.ToSlash(rel)
	} else if rel == "." {
		root.Close()
		return nil, fmt.Errorf("directory source: the status directory cannot be the fleet directory %s itself", abs)
	}
	if d.watcher, err = fsnotify.NewWatcher(); err != nil {
		root.Close()
		return nil, fmt.Errorf("directory source: watch %s: %w", abs, err)
	}
	d.watchTree(abs)
	go d.watch(abs)
	return d, nil
}

// ignored reports the paths (slash-separated, relative to Dir) whose
// changes do not count: dot folders and the status directory.
func (d *Dir) ignored(rel string, isDir bool) bool {
	if rel == "." {
		return false
	}
	if d.status != "" && (rel == d.status || strings.HasPrefix(rel, d.status+"/")) {
		return true
	}
	elems := strings.Split(rel, "/")
	if !isDir {
		elems = elems[:len(elems)-1]
	}
	for _, e := range elems {
		if strings.HasPrefix(e, ".") {
			return true
		}
	}
	return false
}

// watchTree adds a watch on dir and every directory under it that is not
// ignored.
func (d *Dir) watchTree(dir string) {
	base := d.root.Name()
	filepath.WalkDir(dir, func(p string, e fs.DirEntry, err error) error {
		if err != nil || !e.IsDir() {
			return nil
		}
		rel, _ := filepath.Rel(base, p)
		if d.ignored(filepath.ToSlash(rel), true) {
			return filepath.SkipDir
		}
		if err := d.watcher.Add(p); err != nil {
			d.log.Warn("cannot watch a directory; its changes are seen at the next trigger (raise fs.inotify.max_user_watches if the limit is hit)",
				"path", p, "error", err)
		}
		return nil
	})
}

// watch turns fsnotify events into signals on d.events, watching new
// directories as they appear.
func (d *Dir) watch(base string) {
	defer close(d.done)
	for {
		select {
		case ev, ok := <-d.watcher.Events:
			if !ok {
				return
			}
			rel, err := filepath.Rel(base, ev.Name)
			if err != nil {
				continue
			}
			st, statErr := os.Lstat(ev.Name)
			isDir := statErr == nil && st.IsDir()
			if d.ignored(filepath.ToSlash(rel), isDir) {
				continue
			}
			if isDir && ev.Has(fsnotify.Create) {
				d.watchTree(ev.Name)
			}
			d.signal()
		case err, ok := <-d.watcher.Errors:
			if !ok {
				return
			}
			// Events may be lost (queue overflow): read everything again.
			d.log.Warn("watch error; reading the directory again", "error", err)
			d.signal()
		}
	}
}

func (d *Dir) signal() {
	select {
	case d.events <- struct{}{}:
	default:
	}
}

// Next returns the directory's content: at once on the first call, then
// once a change has been followed by the debounce's quiet time (or on
// Trigger) and the content differs from the last snapshot.
func (d *Dir) Next(ctx context.Context) (Snapshot, error) {
	if !d.returned {
		return d.scan(true)
	}
	for {
		select {
		case <-ctx.Done():
			return Snapshot{}, ctx.Err()
		case <-d.closed:
			return Snapshot{}, ErrClosed
		case <-d.trigger:
		case <-d.events:
			if err := d.quiet(ctx); err != nil {
				return Snapshot{}, err
			}
		}
		snap, err := d.scan(false)
		if err != nil || snap.Changed == nil || len(snap.Changed) > 0 {
			return snap, err
		}
	}
}

// quiet returns once no change has come for the debounce time.
func (d *Dir) quiet(ctx context.Context) error {
	for {
		select {
		case <-ctx.Done():
			return ctx.Err()
		case <-d.closed:
			return ErrClosed
		case <-d.events:
		case <-d.o.Clock.After(d.o.Debounce):
			return nil
		}
	}
}

// scan reads the directory and returns its snapshot; Changed is nil on
// the first scan and lists the files whose content differs otherwise.
func (d *Dir) scan(first bool) (Snapshot, error) {
	files := map[string]fileState{}
	err := fs.WalkDir(d.fsys, ".", func(p string, e fs.DirEntry, err error) error {
		if err != nil {
			if p == "." {
				return err
			}
			d.log.Warn("cannot read; left out", "path", p, "error", err)
			return nil
		}
		if d.ignored(p, e.IsDir()) {
			if e.IsDir() {
				return fs.SkipDir
			}
			return nil
		}
		if e.IsDir() {
			return nil
		}
		st, err := fs.Stat(d.fsys, p) // follows symlinks inside the root
		if err != nil || !st.Mode().IsRegular() {
			if err != nil {
				d.log.Warn("cannot read; left out", "path", p, "error", err)
			}
			return nil
		}
		fsum, err := d.sum(p, st)
		if err != nil {
			d.log.Warn("cannot read; left out", "path", p, "error", err)
			return nil
		}
		files[p] = fileState{size: st.Size(), mtime: st.ModTime(), sum: fsum}
		return nil
	})
	if err != nil {
		return Snapshot{}, fmt.Errorf("read %s: %w", d.root.Name(), err)
	}
	var changed []string
	if !first {
		changed = []string{}
		for p, f := range files {
			if old, ok := d.files[p]; !ok || old.sum != f.sum {
				changed = append(changed, p)
			}
		}
		for p := range d.files {
			if _, ok := files[p]; !ok {
				changed = append(changed, p)
			}
		}
		sort.Strings(changed)
	}
	d.files, d.returned = files, true
	return Snapshot{Revision: digest(files), FS: d.fsys, Changed: changed}, nil
}

// sum is the content digest of p, reused from the last scan when its size
// and modification time are the same.
func (d *Dir) sum(p string, st fs.FileInfo) (string, error) {
	if old, ok := d.files[p]; ok && old.size == st.Size() && old.mtime.Equal(st.ModTime()) {
		return old.sum, nil
	}
	if st.Size() > d.o.MaxFileSize {
		return fmt.Sprintf("large:%d:%d", st.Size(), st.ModTime().UnixNano()), nil
	}
	f, err := d.fsys.Open(p)
	if err != nil {
		return "", err
	}
	defer f.Close()
	h := sha256.New()
	if _, err := io.Copy(h, io.LimitReader(f, d.o.MaxFileSize+1)); err != nil {
		return "", err
	}
	return hex.EncodeToString(h.Sum(nil)), nil
}

// digest names the content of files: "sha256:" and the digest of every
// path and content digest, sorted.
func digest(files map[string]fileState) string {
	paths := make([]string, 0, len(files))
	for p := range files {
		paths = append(paths, p)
	}
	sort.Strings(paths)
	h := sha256.New()
	for _, p := range paths {
		fmt.Fprintf(h, "%s\x00%s\n", p, files[p].sum)
	}
	return "sha256:" + hex.EncodeToString(h.Sum(nil))
}

// Trigger asks for the directory to be read now.
func (d *Dir) Trigger() {
	select {
	case d.trigger <- struct{}{}:
	default:
	}
}

// WriteStatus makes the status directory hold exactly files: each file
// whose content differs is written atomically, files not in files are
// removed (and directories left empty). After a first write, only the
// files changed since the last one are looked at. message is not
// recorded.
func (d *Dir) WriteStatus(ctx context.Context, files *StatusFiles, message string) (bool, error) {
	d.writeMu.Lock()
	defer d.writeMu.Unlock()
	paths, since := files.changedSince(d.written)
	if !since {
		paths = files.Paths()
	}
	for _, p := range paths {
		if err := checkStatusPath(p); err != nil {
			return false, err
		}
	}
	d.written = statusGeneration{}
	if err := os.MkdirAll(d.statusAt, 0o755); err != nil {
		return false, fmt.Errorf("write status: %w", err)
	}
	root, err := os.OpenRoot(d.statusAt)
	if err != nil {
		return false, fmt.Errorf("write status: %w", err)
	}
	defer root.Close()
	changed := false
	for _, p := range paths {
		if ctx.Err() != nil {
			return changed, ctx.Err()
		}
		data, ok, err := files.Get(p)
		if err != nil {
			return changed, fmt.Errorf("write status: %w", err)
		}
		if !ok {
			removed, err := removeFile(root, p)
			if err != nil {
				return changed, fmt.Errorf("write status: %w", err)
			}
			changed = changed || removed
			continue
		}
		if old, err := root.ReadFile(p); err == nil && string(old) == string(data) {
			continue
		}
		if dir := path.Dir(p); dir != "." {
			if err := root.MkdirAll(dir, 0o755); err != nil {
				return changed, fmt.Errorf("write status %s: %w", p, err)
			}
		}
		if err := writeAtomic(root, p, data); err != nil {
			return changed, fmt.Errorf("write status: %w", err)
		}
		changed = true
	}
	if !since {
		removed, err := removeStale(root, files)
		if err != nil {
			return changed || removed, err
		}
		changed = changed || removed
	}
	d.written = files.generation()
	return changed, nil
}

// removeFile removes the file p under root, if it is there, and the
// directories that leaves empty.
func removeFile(root *os.Root, p string) (bool, error) {
	err := root.Remove(p)
	if errors.Is(err, fs.ErrNotExist) {
		return false, nil
	}
	if err != nil {
		return false, fmt.Errorf("remove %s: %w", p, err)
	}
	for dir := path.Dir(p); dir != "."; dir = path.Dir(dir) {
		if root.Remove(dir) != nil {
			break // not empty
		}
	}
	return true, nil
}

// removeStale removes the files under root that are not in keep, and the
// directories that leaves empty.
func removeStale(root *os.Root, keep *StatusFiles) (bool, error) {
	var stale, dirs []string
	err := fs.WalkDir(root.FS(), ".", func(p string, e fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if e.IsDir() {
			if p != "." {
				dirs = append(dirs, p)
			}
			return nil
		}
		if !keep.Has(p) {
			stale = append(stale, p)
		}
		return nil
	})
	if err != nil {
		return false, fmt.Errorf("write status: %w", err)
	}
	for _, p := range stale {
		if err := root.Remove(p); err != nil {
			return true, fmt.Errorf("write status: remove %s: %w", p, err)
		}
	}
	// Deepest first; a directory still holding files stays.
	sort.Sort(sort.Reverse(sort.StringSlice(dirs)))
	for _, p := range dirs {
		root.Remove(p)
	}
	return len(stale) > 0, nil
}

// Close stops watching.
func (d *Dir) Close() error {
	var err error
	d.once.Do(func() {
		close(d.closed)
		err = d.watcher.Close()
		<-d.done
		d.root.Close()
	})
	return err
}
