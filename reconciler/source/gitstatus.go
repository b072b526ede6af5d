package source

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"sort"
	"strings"

	git "github.com/go-git/go-git/v5"
	"github.com/go-git/go-git/v5/config"
	"github.com/go-git/go-git/v5/plumbing"
	"github.com/go-git/go-git/v5/plumbing/filemode"
	"github.com/go-git/go-git/v5/plumbing/format/packfile"
	"github.com/go-git/go-git/v5/plumbing/object"
	"github.com/go-git/go-git/v5/plumbing/storer"
	"github.com/go-git/go-git/v5/storage/memory"

	"github.com/siteops/siteops/internal/redact"
)

// WriteStatus commits, on top of the status branch's tip, a status
// directory holding exactly files, and pushes it; nothing is committed
// when the directory already holds them. A push that fails (the branch
// moved, the server is down) is tried again after a backoff, on the
// fetched tip: the status directory belongs to siteops, so its content
// wins over whatever the tip has there.
func (g *Git) WriteStatus(ctx context.Context, files map[string][]byte, message string) (bool, error) {
	if err := checkStatusPaths(files); err != nil {
		return false, err
	}
	message = redact.Text(message)
	if strings.TrimSpace(message) == "" {
		message = "Update status"
	}
	if !strings.HasSuffix(message, "\n") {
		message += "\n"
	}
	g.writeMu.Lock()
	defer g.writeMu.Unlock()
	wait := g.o.PushBackoff
	for attempt := 1; ; attempt++ {
		changed, err := g.writeOnce(ctx, files, message)
		if err == nil {
			return changed, nil
		}
		if errors.Is(err, ErrAuthentication) || errors.Is(err, ErrBranchNotFound) || errors.Is(err, ErrPushRefused) || ctx.Err() != nil {
			return false, err
		}
		if attempt >= g.o.PushAttempts {
			return false, fmt.Errorf("status not pushed after %d attempts: %w", attempt, err)
		}
		g.metrics.pushRetries.Inc()
		g.log.Warn("status push failed; trying again", "attempt", attempt, "wait", wait, "error", err)
		select {
		case <-ctx.Done():
			return false, fmt.Errorf("status not pushed: %w (last error: %v)", ctx.Err(), err)
		case <-g.o.Clock.After(wait):
		}
		wait = min(2*wait, MaxPushBackoff)
	}
}

// checkStatusPaths refuses status file names that are not plain relative
// paths.
func checkStatusPaths(files map[string][]byte) error {
	for p := range files {
		if !fs.ValidPath(p) || p == "." {
			return fmt.Errorf("status file %q: give a slash-separated path inside the status directory, without . or .. elements", p)
		}
	}
	return nil
}

// writeOnce fetches the status branch, commits files on its tip and
// pushes once.
func (g *Git) writeOnce(ctx context.Context, files map[string][]byte, message string) (bool, error) {
	base, err := g.statusBase(ctx)
	if err != nil {
		g.metrics.fetchErrors.Inc()
		return false, err
	}
	var commit plumbing.Hash
	err = g.repo.Locked(func(r *git.Repository) error {
		commit, err = g.statusCommit(r, base, files, message)
		return err
	})
	if err != nil || commit.IsZero() {
		return false, err
	}
	if g.o.beforePush != nil {
		g.o.beforePush()
	}
	if err := g.push(ctx, commit); err != nil {
		g.metrics.pushErrors.Inc()
		return false, err
	}
	g.log.Info("pushed status", "commit", commit.String(), "to", g.o.StatusBranch)
	return true, nil
}

// statusBase fetches and returns the tip of the status branch, or of the
// source branch when the status branch does not exist yet.
func (g *Git) statusBase(ctx context.Context) (plumbing.Hash, error) {
	tip, err := g.fetch(ctx, g.o.StatusBranch)
	if err == nil || g.o.StatusBranch == g.o.Branch || !errors.Is(err, ErrBranchNotFound) {
		return tip, err
	}
	g.log.Info("creating the status branch", "status_branch", g.o.StatusBranch)
	return g.fetch(ctx, g.o.Branch)
}

// statusCommit stores a commit of files as the status directory on top
// of base; zero when base already holds them.
func (g *Git) statusCommit(r *git.Repository, base plumbing.Hash, files map[string][]byte, message string) (plumbing.Hash, error) {
	parent, err := r.CommitObject(base)
	if err != nil {
		return plumbing.ZeroHash, fmt.Errorf("read commit %s: %w", base, err)
	}
	dir := strings.Split(g.o.StatusDir, "/")
	w := newTreeWriter(r.Storer)
	if err := w.learn(parent.TreeHash, dir); err != nil {
		return plumbing.ZeroHash, err
	}
	var status plumbing.Hash
	if len(files) > 0 {
		if status, err = w.writeFiles(files); err != nil {
			return plumbing.ZeroHash, err
		}
	}
	root, err := w.replace(parent.TreeHash, dir, status)
	if err != nil {
		return plumbing.ZeroHash, err
	}
	if root.IsZero() {
		if root, err = w.tree(nil); err != nil {
			return plumbing.ZeroHash, err
		}
	}
	if root == parent.TreeHash {
		return plumbing.ZeroHash, nil
	}
	if err := w.flush(); err != nil {
		return plumbing.ZeroHash, fmt.Errorf("store the status files: %w", err)
	}
	sig := object.Signature{Name: g.o.AuthorName, Email: g.o.AuthorEmail, When: g.o.Clock.Now()}
	c := &object.Commit{Author: sig, Committer: sig, Message: message, TreeHash: root, ParentHashes: []plumbing.Hash{base}}
	obj := r.Storer.NewEncodedObject()
	if err := c.Encode(obj); err != nil {
		return plumbing.ZeroHash, err
	}
	h, err := r.Storer.SetEncodedObject(obj)
	if err != nil {
		return plumbing.ZeroHash, fmt.Errorf("store the status commit: %w", err)
	}
	return h, r.Storer.SetReference(plumbing.NewHashReference(statusRef, h))
}

// push sends commit to the status branch (forced when it is not the
// source branch: siteops owns it).
func (g *Git) push(ctx context.Context, commit plumbing.Hash) error {
	auth, err := g.o.Auth.method(g.o.URL)
	if err != nil {
		return err
	}
	ctx, cancel := context.WithTimeout(ctx, g.o.Timeout)
	defer cancel()
	dst := plumbing.NewBranchReferenceName(g.o.StatusBranch)
	err = g.repo.Locked(func(r *git.Repository) error {
		err := r.PushContext(ctx, &git.PushOptions{
			RemoteName: remoteName,
			RemoteURL:  g.o.URL,
			RefSpecs:   []config.RefSpec{config.RefSpec(statusRef + ":" + dst)},
			Auth:       auth,
			Force:      g.o.StatusBranch != g.o.Branch,
		})
		if err != nil && !errors.Is(err, git.NoErrAlreadyUpToDate) {
			return err
		}
		return r.Storer.SetReference(plumbing.NewHashReference(remoteRef(g.o.StatusBranch), commit))
	})
	if err != nil && isCheckedOut(err) {
		return fmt.Errorf("push to %s: the remote refuses pushes to %s, the branch checked out in its work tree (%s): reconcile a bare repository (git clone --bare), or give --status-branch so that the status goes to a branch of its own: %w",
			redact.URL(g.o.URL), g.o.StatusBranch, redact.Text(err.Error()), ErrPushRefused)
	}
	if err != nil && isRejected(err) {
		return fmt.Errorf("push to %s: %s moved meanwhile (%s)", redact.URL(g.o.URL), g.o.StatusBranch, redact.Text(err.Error()))
	}
	if err != nil {
		return g.explain(ctx, "push", g.o.StatusBranch, err)
	}
	return nil
}

// treeWriter makes blobs and trees, and stores those the repository
// lacks when flushed: one pack file for many (a status of thousands of
// sites written for the first time), loose objects for a few.
type treeWriter struct {
	s       storer.EncodedObjectStorer
	known   map[plumbing.Hash]bool // in the repository
	pending *memory.ObjectStorage  // made, to store
	order   []plumbing.Hash
}

// packThreshold is the number of new objects from which a pack file is
// written rather than loose objects.
const packThreshold = 64

func newTreeWriter(s storer.EncodedObjectStorer) *treeWriter {
	return &treeWriter{s: s, known: map[plumbing.Hash]bool{}, pending: &memory.NewStorage().ObjectStorage}
}

// learn records the objects under dir in tree as stored, so that a status
// rewritten with few changes checks nothing else against the repository.
func (w *treeWriter) learn(tree plumbing.Hash, dir []string) error {
	t, err := object.GetTree(w.s, tree)
	if err != nil {
		return fmt.Errorf("read tree %s: %w", tree, err)
	}
	for _, name := range dir {
		e, err := t.FindEntry(name)
		if err != nil || e.Mode != filemode.Dir {
			return nil
		}
		if t, err = object.GetTree(w.s, e.Hash); err != nil {
			return fmt.Errorf("read tree %s: %w", e.Hash, err)
		}
	}
	w.known[t.Hash] = true
	for _, e := range t.Entries {
		w.known[e.Hash] = true
		if e.Mode == filemode.Dir {
			if err := w.learn(e.Hash, nil); err != nil {
				return err
			}
		}
	}
	return nil
}

// store keeps obj to be stored, unless the repository has it.
func (w *treeWriter) store(obj *plumbing.MemoryObject) (plumbing.Hash, error) {
	h := obj.Hash()
	if w.known[h] || w.s.HasEncodedObject(h) == nil {
		w.known[h] = true
		return h, nil
	}
	if _, err := w.pending.SetEncodedObject(obj); err != nil {
		return plumbing.ZeroHash, err
	}
	w.known[h] = true
	w.order = append(w.order, h)
	return h, nil
}

// flush stores the objects made.
func (w *treeWriter) flush() error {
	if pw, ok := w.s.(storer.PackfileWriter); ok && len(w.order) >= packThreshold {
		out, err := pw.PackfileWriter()
		if err != nil {
			return err
		}
		if _, err := packfile.NewEncoder(out, w.pending, false).Encode(w.order, 0); err != nil {
			out.Close()
			return err
		}
		return out.Close()
	}
	for _, h := range w.order {
		obj, err := w.pending.EncodedObject(plumbing.AnyObject, h)
		if err != nil {
			return err
		}
		if _, err := w.s.SetEncodedObject(obj); err != nil {
			return err
		}
	}
	return nil
}

func (w *treeWriter) blob(data []byte) (plumbing.Hash, error) {
	obj := &plumbing.MemoryObject{}
	obj.SetType(plumbing.BlobObject)
	if _, err := obj.Write(data); err != nil {
		return plumbing.ZeroHash, err
	}
	return w.store(obj)
}

// tree stores a tree of entries, sorted as Git wants (a directory sorts
// as if its name ended in "/").
func (w *treeWriter) tree(entries []object.TreeEntry) (plumbing.Hash, error) {
	sort.Slice(entries, func(i, j int) bool { return gitName(entries[i]) < gitName(entries[j]) })
	obj := &plumbing.MemoryObject{}
	if err := (&object.Tree{Entries: entries}).Encode(obj); err != nil {
		return plumbing.ZeroHash, err
	}
	return w.store(obj)
}

func gitName(e object.TreeEntry) string {
	if e.Mode == filemode.Dir {
		return e.Name + "/"
	}
	return e.Name
}

// writeFiles stores files (slash-separated paths) as a tree.
func (w *treeWriter) writeFiles(files map[string][]byte) (plumbing.Hash, error) {
	var entries []object.TreeEntry
	subdirs := map[string]map[string][]byte{}
	for p, data := range files {
		dir, rest, nested := strings.Cut(p, "/")
		if nested {
			if subdirs[dir] == nil {
				subdirs[dir] = map[string][]byte{}
			}
			subdirs[dir][rest] = data
			continue
		}
		h, err := w.blob(data)
		if err != nil {
			return plumbing.ZeroHash, err
		}
		entries = append(entries, object.TreeEntry{Name: p, Mode: filemode.Regular, Hash: h})
	}
	for dir, sub := range subdirs {
		if _, clash := files[dir]; clash {
			return plumbing.ZeroHash, fmt.Errorf("status file %q is also a directory", dir)
		}
		h, err := w.writeFiles(sub)
		if err != nil {
			return plumbing.ZeroHash, err
		}
		entries = append(entries, object.TreeEntry{Name: dir, Mode: filemode.Dir, Hash: h})
	}
	return w.tree(entries)
}

// replace returns tree with the entry at dir (split in elements) set to
// the tree sub, or removed when sub is zero; zero when the result is
// empty.
func (w *treeWriter) replace(tree plumbing.Hash, dir []string, sub plumbing.Hash) (plumbing.Hash, error) {
	var entries []object.TreeEntry
	var child plumbing.Hash
	if !tree.IsZero() {
		t, err := object.GetTree(w.s, tree)
		if err != nil {
			return plumbing.ZeroHash, fmt.Errorf("read tree %s: %w", tree, err)
		}
		for _, e := range t.Entries {
			if e.Name != dir[0] {
				entries = append(entries, e)
			} else if e.Mode == filemode.Dir {
				child = e.Hash
			}
		}
	}
	if len(dir) > 1 {
		var err error
		if sub, err = w.replace(child, dir[1:], sub); err != nil {
			return plumbing.ZeroHash, err
		}
	}
	if !sub.IsZero() {
		entries = append(entries, object.TreeEntry{Name: dir[0], Mode: filemode.Dir, Hash: sub})
	}
	if len(entries) == 0 {
		return plumbing.ZeroHash, nil
	}
	return w.tree(entries)
}
