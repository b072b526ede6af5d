package source

import (
	"bufio"
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync/atomic"

	git "github.com/go-git/go-git/v5"
	"github.com/go-git/go-git/v5/config"
	"github.com/go-git/go-git/v5/plumbing"
	"github.com/go-git/go-git/v5/plumbing/filemode"
	"github.com/go-git/go-git/v5/plumbing/format/idxfile"
	"github.com/go-git/go-git/v5/plumbing/object"
	"github.com/go-git/go-git/v5/plumbing/protocol/packp"
	"github.com/go-git/go-git/v5/plumbing/protocol/packp/capability"
	"github.com/go-git/go-git/v5/plumbing/storer"
	"github.com/go-git/go-git/v5/plumbing/transport"
	"github.com/go-git/go-git/v5/plumbing/transport/client"

	"github.com/siteops/siteops/internal/redact"
	"github.com/siteops/siteops/internal/safefs"
)

// WriteStatus commits, on top of the status branch's tip, a status
// directory holding exactly files, and pushes it; nothing is committed
// when the directory already holds them. Only the files changed since
// the last write are hashed, and only the trees above them encoded and
// sent. A push that fails (the branch moved, the server is down) is tried
// again after a backoff, on the fetched tip: the status directory belongs
// to siteops, so its content wins over whatever the tip has there.
func (g *Git) WriteStatus(ctx context.Context, files *StatusFiles, message string) (bool, error) {
	message = redact.Text(message)
	if strings.TrimSpace(message) == "" {
		message = "Update status"
	}
	if !strings.HasSuffix(message, "\n") {
		message += "\n"
	}
	g.writeMu.Lock()
	defer g.writeMu.Unlock()
	changed, all, err := g.status.update(files)
	if err != nil {
		return false, err
	}
	if all {
		g.sent = sentStatus{}
	} else if g.sent.tracked {
		for _, p := range changed {
			g.sent.unpushed[p] = struct{}{}
		}
	}
	wait := g.o.PushBackoff
	// The first try commits on the tip the clone last saw, without a
	// fetch: the push tells whether the branch has moved since, and then
	// the next try, at once, fetches first.
	fetch := false
	for attempt := 1; ; attempt++ {
		changed, err := g.writeOnce(ctx, files, message, fetch)
		if err == nil {
			return changed, nil
		}
		if errors.Is(err, errBranchMoved) && !fetch {
			fetch = true
			attempt--
			continue
		}
		fetch = true
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

// sentStatus is what the Git source knows the remote holds of the status
// directory: the tree it last pushed there (or found there) and, when
// tracked, the files changed since, which are all a push on top of that
// tree needs to send.
type sentStatus struct {
	tracked  bool
	tree     plumbing.Hash
	unpushed map[string]struct{}
}

// holds records that the status branch holds tree, the status tree as
// built now.
func (s *sentStatus) holds(tree plumbing.Hash) {
	*s = sentStatus{tracked: true, tree: tree, unpushed: map[string]struct{}{}}
}

// writeOnce commits files on the tip of the status branch and pushes
// once. It fetches the branch first when fetch is set or the clone has
// not seen it.
func (g *Git) writeOnce(ctx context.Context, files *StatusFiles, message string, fetch bool) (bool, error) {
	base, known := g.knownTip()
	if fetch || !known {
		var err error
		if base, err = g.statusBase(ctx); err != nil {
			g.metrics.fetchErrors.Inc()
			return false, err
		}
	}
	var err error
	var c *statusCommit
	err = g.repo.Locked(func(r *git.Repository) error {
		c, err = g.statusCommit(r, base, files, message)
		return err
	})
	if err != nil || c == nil {
		return false, err
	}
	// The clone stores the objects while the remote receives them: the
	// push sends the pack made already.
	go func() { c.stored <- g.storeCommit(c) }()
	if g.o.beforePush != nil {
		g.o.beforePush()
	}
	if err := g.push(ctx, base, c, fetch || !known); err != nil {
		if !errors.Is(err, errBranchMoved) {
			g.metrics.pushErrors.Inc()
		}
		return false, err
	}
	g.sent.holds(c.status)
	g.status.root.markPushed()
	g.log.Info("pushed status", "commit", c.hash.String(), "to", g.o.StatusBranch, "bytes", c.sent)
	return true, nil
}

// knownTip returns the tip of the status branch as the clone last saw
// it, and whether it saw one.
func (g *Git) knownTip() (plumbing.Hash, bool) {
	var tip plumbing.Hash
	err := g.repo.Locked(func(r *git.Repository) error {
		ref, err := r.Reference(remoteRef(g.o.StatusBranch), true)
		if err == nil {
			tip = ref.Hash()
		}
		return err
	})
	return tip, err == nil && !tip.IsZero()
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

// statusCommit is a status commit made, to store and push.
type statusCommit struct {
	hash plumbing.Hash
	// status is its status directory's tree (zero when it has none).
	status plumbing.Hash
	// pack holds the objects the remote lacks: the commit, the trees it
	// changed and the status files that differ from the parent's; some
	// as deltas on objects the remote holds. objs are the same objects
	// whole; when there are many, the clone stores them as a pack of its
	// own. packIndex is pack's index when pack is that pack (it holds no
	// delta).
	pack      []byte
	packIndex *idxfile.MemoryIndex
	objs      []*rawObject
	deltas    int
	// sent is the size of the pack sent (0: go-git's push sent it).
	sent int
	// stored receives the result of storing the commit in the clone.
	stored chan error
}

// many reports whether the clone stores c's objects as a pack rather
// than one loose object each.
func (c *statusCommit) many() bool { return len(c.objs) >= packThreshold }

// storeCommit stores the objects of c in the clone and points statusRef
// at it. A pack with its index is written before the clone is locked:
// readers of the clone wait only for the storage to look at its packs
// again.
func (g *Git) storeCommit(c *statusCommit) error {
	many := c.many()
	if many {
		fill := packFill(c.objs)
		if c.packIndex != nil {
			fill = bytesFill(c.pack, c.packIndex)
		}
		if err := writePackFiles(g.objectsDir(), fill); err != nil {
			return fmt.Errorf("store the status files: %w", err)
		}
	}
	return g.repo.Locked(func(r *git.Repository) error {
		if many {
			// Every index is read again at the next lookup: one more
			// after a commit of many objects, which are few.
			g.storage.Reindex()
		} else if err := storeObjects(g.objectsDir(), c); err != nil {
			return fmt.Errorf("store the status files: %w", err)
		}
		return r.Storer.SetReference(plumbing.NewHashReference(statusRef, c.hash))
	})
}

// statusCommit stores a commit of the status tree on top of base; nil
// when base already holds it.
func (g *Git) statusCommit(r *git.Repository, base plumbing.Hash, files *StatusFiles, message string) (*statusCommit, error) {
	parent, err := r.CommitObject(base)
	if err != nil {
		return nil, fmt.Errorf("read commit %s: %w", base, err)
	}
	dir := strings.Split(g.o.StatusDir, "/")
	trees := newRawTrees(r.Storer, g.madeTrees)
	had, err := subtree(trees, parent.TreeHash, dir)
	if err != nil {
		return nil, err
	}
	set := newObjectSet()
	status := g.status.root.build(func(*rawObject) {})
	if status == had {
		g.sent.holds(status)
		g.status.root.markPushed()
		return nil, nil
	}
	if g.sent.tracked && had == g.sent.tree {
		if err := g.changedObjects(files, set); err != nil {
			return nil, err
		}
	} else if err := g.missingObjects(r.Storer, had, files, set); err != nil {
		return nil, err
	}
	root, err := replaceTree(trees, parent.TreeHash, dir, status, set)
	if err != nil {
		return nil, err
	}
	if root.IsZero() {
		root = set.add(newRawObject(plumbing.TreeObject, nil))
	}
	sig := object.Signature{Name: g.o.AuthorName, Email: g.o.AuthorEmail, When: g.o.Clock.Now()}
	commit, err := encodeCommit(&object.Commit{Author: sig, Committer: sig, Message: message, TreeHash: root, ParentHashes: []plumbing.Hash{base}})
	if err != nil {
		return nil, err
	}
	set.add(commit)
	// The clone stores many objects as a pack, with the index made as it
	// is written; the pack must hold them whole: the clone does not hold
	// the bases of deltas in itself. A pushed pack without deltas is that
	// pack; else storeCommit compresses the clone's into its file.
	c := &statusCommit{hash: commit.hash, status: status, objs: set.objs, stored: make(chan error, 1)}
	var ix *idxfile.Writer
	if c.many() {
		// Filled as the pack is written, and of use only when no object
		// went as a delta: indexing costs far less than a second pass.
		ix = new(idxfile.Writer)
	}
	c.pack, c.deltas = packOf(set.objs, set.bases, ix)
	if ix != nil && c.deltas == 0 {
		if c.packIndex, err = ix.Index(); err != nil {
			return nil, err
		}
	}
	g.madeTrees = trees.made
	return c, nil
}

// changedObjects adds to set the objects of the status tree that changed
// since the tree the remote holds: the files changed since and the
// directories above them.
func (g *Git) changedObjects(files *StatusFiles, set *objectSet) error {
	for _, p := range slices.Sorted(maps.Keys(g.sent.unpushed)) {
		elems := strings.Split(p, "/")
		for _, d := range g.status.root.path(elems) {
			if d.obj != nil {
				set.add(d.obj)
				set.deltaOn(d.obj, d.pushed)
			}
		}
		if h, ok := g.status.root.fileHash(elems); ok {
			o, err := statusBlob(files, p, h)
			if err != nil {
				return err
			}
			set.add(o)
		}
	}
	return nil
}

// statusBlob is the blob of the status file at p, which the status tree
// holds as h.
func statusBlob(files *StatusFiles, p string, h plumbing.Hash) (*rawObject, error) {
	f, ok := files.file(p)
	switch {
	case !ok:
		return nil, fmt.Errorf("status file %s: the status tree holds it, the status files do not", p)
	case f.hash != h:
		return nil, fmt.Errorf("status file %s: the status tree holds %s, the status files %s", p, h, f.hash)
	}
	return blobObject(f), nil
}

// missingObjects adds to set the objects of the status tree that are not
// in the tree had (the status directory of the commit written on): every
// one when had is zero.
func (g *Git) missingObjects(s storer.EncodedObjectStorer, had plumbing.Hash, files *StatusFiles, set *objectSet) error {
	known := map[plumbing.Hash]bool{}
	if !had.IsZero() {
		if err := knownObjects(s, had, known); err != nil {
			return err
		}
	}
	var visit func(dir string, d *treeDir) error
	visit = func(dir string, d *treeDir) error {
		if d.obj == nil || known[d.obj.hash] {
			return nil
		}
		set.add(d.obj)
		for _, e := range d.entries {
			p := joinPath(dir, e.Name)
			switch {
			case e.Mode == filemode.Dir:
				if err := visit(p, d.dirs[e.Name]); err != nil {
					return err
				}
			case !known[e.Hash] && !set.has(e.Hash):
				o, err := statusBlob(files, p, e.Hash)
				if err != nil {
					return err
				}
				set.add(o)
			}
		}
		return nil
	}
	return visit("", g.status.root)
}

// knownObjects adds tree and every object under it to known.
func knownObjects(s storer.EncodedObjectStorer, tree plumbing.Hash, known map[plumbing.Hash]bool) error {
	known[tree] = true
	t, err := object.GetTree(s, tree)
	if err != nil {
		return fmt.Errorf("read tree %s: %w", tree, err)
	}
	for _, e := range t.Entries {
		if e.Mode == filemode.Dir {
			if !known[e.Hash] {
				if err := knownObjects(s, e.Hash, known); err != nil {
					return err
				}
			}
			continue
		}
		known[e.Hash] = true
	}
	return nil
}

// subtree returns the hash of the directory at dir (split in elements)
// of tree; zero when there is none.
func subtree(trees *rawTrees, tree plumbing.Hash, dir []string) (plumbing.Hash, error) {
	for _, name := range dir {
		data, err := trees.read(tree)
		if err != nil {
			return plumbing.ZeroHash, err
		}
		if tree, err = rawEntryDir(data, name); err != nil || tree.IsZero() {
			return plumbing.ZeroHash, err
		}
	}
	return tree, nil
}

// replaceTree returns tree with the entry at dir (split in elements) set
// to the tree sub, or removed when sub is zero, adding the trees it makes
// to set; zero when the result is empty.
func replaceTree(trees *rawTrees, tree plumbing.Hash, dir []string, sub plumbing.Hash, set *objectSet) (plumbing.Hash, error) {
	var data []byte
	var child plumbing.Hash
	if !tree.IsZero() {
		var err error
		if data, err = trees.read(tree); err != nil {
			return plumbing.ZeroHash, err
		}
		if child, err = rawEntryDir(data, dir[0]); err != nil {
			return plumbing.ZeroHash, fmt.Errorf("read tree %s: %w", tree, err)
		}
	}
	if len(dir) > 1 {
		var err error
		if sub, err = replaceTree(trees, child, dir[1:], sub, set); err != nil {
			return plumbing.ZeroHash, err
		}
	}
	out, err := spliceRawTree(data, dir[0], sub)
	if err != nil {
		return plumbing.ZeroHash, fmt.Errorf("read tree %s: %w", tree, err)
	}
	if len(out) == 0 {
		return plumbing.ZeroHash, nil
	}
	obj := newRawObject(plumbing.TreeObject, out)
	set.add(obj)
	trees.made[obj.hash] = out
	if !tree.IsZero() {
		// The remote holds tree: the commit written on has it.
		set.deltaOn(obj, &rawObject{typ: plumbing.TreeObject, hash: tree, data: data})
	}
	return obj.hash, nil
}

// objectSet is a list of objects without repeats, and the objects the
// remote holds that some of them may be sent as deltas on.
type objectSet struct {
	objs  []*rawObject
	seen  map[plumbing.Hash]bool
	bases map[plumbing.Hash]*rawObject
}

func newObjectSet() *objectSet {
	return &objectSet{seen: map[plumbing.Hash]bool{}, bases: map[plumbing.Hash]*rawObject{}}
}

// deltaOn records base, an earlier version of o that the remote holds
// (nil: none), as the base o may be sent as a delta on.
func (s *objectSet) deltaOn(o, base *rawObject) {
	if base != nil && base.hash != o.hash && base.typ == o.typ {
		s.bases[o.hash] = base
	}
}

func (s *objectSet) add(o *rawObject) plumbing.Hash {
	if !s.seen[o.hash] {
		s.seen[o.hash] = true
		s.objs = append(s.objs, o)
	}
	return o.hash
}

func (s *objectSet) has(h plumbing.Hash) bool { return s.seen[h] }

// packThreshold is the number of new objects from which they are stored
// as a pack file rather than loose objects.
const packThreshold = 64

// storeObjects stores the objects of c in the clone, one loose object
// each, written under objectsDir as Git writes them but compressed for
// speed (a status README of a large fleet is megabytes, and changes at
// most writes). Many objects are stored as a pack instead (storeCommit).
func storeObjects(objectsDir string, c *statusCommit) error {
	for _, o := range c.objs {
		if err := storeLoose(objectsDir, o); err != nil {
			return err
		}
	}
	return nil
}

// writePackFiles writes a pack siteops makes, with the index made as it
// is written, into the clone's pack directory as Git names them: fill
// writes the pack and returns its index. The pack goes through a
// temporary file, so that the clone's copy of a large status commit is
// never held in memory beside the pack pushed; the index is renamed into
// place first, so that a reader never finds a pack without one. go-git's
// own pack writer would read the pack again to index it, inflating and
// hashing every object: for the first status of a large fleet, a second
// of CPU beside the push. A pack already there (a push tried again with
// the same commit) is left as it is: its name is its content's hash.
func writePackFiles(objectsDir string, fill func(io.Writer) (*idxfile.MemoryIndex, error)) error {
	if err := os.MkdirAll(filepath.Join(objectsDir, "pack"), 0o755); err != nil {
		return err
	}
	dir, err := os.OpenRoot(filepath.Join(objectsDir, "pack"))
	if err != nil {
		return err
	}
	defer dir.Close()
	// Git's own temporary names there (tmp_pack_, tmp_idx_): a file left
	// by a crash is one git prune removes.
	f, err := safefs.CreateAtomic(dir, "tmp_pack_")
	if err != nil {
		return err
	}
	w := bufio.NewWriterSize(f, 1<<20)
	index, err := fill(w)
	if err == nil {
		err = w.Flush()
	}
	if err != nil {
		f.Abort()
		return err
	}
	base := "pack-" + plumbing.Hash(index.PackfileChecksum).String()
	if _, err := dir.Stat(base + ".pack"); err == nil {
		if _, err := dir.Stat(base + ".idx"); err == nil {
			f.Abort()
			return nil
		}
	}
	idx, err := safefs.CreateAtomic(dir, "tmp_idx_")
	if err != nil {
		f.Abort()
		return err
	}
	if _, err := idxfile.NewEncoder(idx).Encode(index); err != nil {
		idx.Abort()
		f.Abort()
		return err
	}
	if err := idx.Commit(base + ".idx"); err != nil {
		f.Abort()
		return err
	}
	if err := f.Commit(base + ".pack"); err != nil {
		dir.Remove(base + ".idx") // an index without its pack is worse than none
		return err
	}
	return nil
}

// packFill writes objs whole as a pack for writePackFiles, compressing
// them as it goes.
func packFill(objs []*rawObject) func(io.Writer) (*idxfile.MemoryIndex, error) {
	return func(w io.Writer) (*idxfile.MemoryIndex, error) {
		packsCompressedAgain.Add(1)
		ix := new(idxfile.Writer)
		writePack(w, objs, nil, ix)
		return ix.Index()
	}
}

// packsCompressedAgain counts the clone's packs compressed apart from the
// pack pushed, for tests.
var packsCompressedAgain atomic.Int64

// bytesFill writes a pack made already, with its index, for
// writePackFiles.
func bytesFill(pack []byte, index *idxfile.MemoryIndex) func(io.Writer) (*idxfile.MemoryIndex, error) {
	return func(w io.Writer) (*idxfile.MemoryIndex, error) {
		_, err := w.Write(pack)
		return index, err
	}
}

// storeLoose writes o as a loose object under objectsDir, unless it is
// there: through a temporary file in the pack directory (where go-git
// makes its own), so that a reader never sees half of it.
func storeLoose(objectsDir string, o *rawObject) error {
	hex := o.hash.String()
	dir := filepath.Join(objectsDir, hex[:2])
	file := filepath.Join(dir, hex[2:])
	if _, err := os.Lstat(file); err == nil {
		return nil
	}
	tmpDir := filepath.Join(objectsDir, "pack")
	for _, d := range []string{dir, tmpDir} {
		if err := os.MkdirAll(d, 0o755); err != nil {
			return err
		}
	}
	tmp, err := os.CreateTemp(tmpDir, "tmp_obj_")
	if err != nil {
		return err
	}
	defer os.Remove(tmp.Name())
	zw := zlibWriter(tmp)
	defer putZlib(zw)
	data, err := o.content()
	if err == nil {
		_, err = fmt.Fprintf(zw, "%s %d\x00", o.typ, len(data))
	}
	if err == nil {
		_, err = zw.Write(data)
	}
	if err == nil {
		err = zw.Close()
	}
	if cerr := tmp.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		return err
	}
	if err := os.Chmod(tmp.Name(), 0o444); err != nil {
		return err
	}
	return os.Rename(tmp.Name(), file)
}

// push sends the status commit c, made on base, to the status branch
// (forced when it is not the source branch: siteops owns it). The pack
// sent holds what c adds to base. When the branch has moved off base, it
// returns errBranchMoved if base was not fetched just before (the caller
// fetches and tries again); else a forced push falls back to go-git's,
// which works out what the remote lacks from the whole history.
func (g *Git) push(ctx context.Context, base plumbing.Hash, c *statusCommit, fetched bool) error {
	ctx, cancel := context.WithTimeout(ctx, g.o.Timeout)
	defer cancel()
	err := g.sendPack(ctx, base, c)
	// Nothing refers to the commit in the clone before it is stored.
	if serr := <-c.stored; serr != nil {
		// The push's own outcome (an authentication failure, say) is
		// kept beside it: the next write stores and pushes again.
		return errors.Join(serr, err)
	}
	if errors.Is(err, errBranchMoved) && !fetched {
		return err
	}
	if errors.Is(err, errBranchMoved) && g.forcePush() {
		err = g.repo.Locked(func(r *git.Repository) error { return g.pushAll(ctx, r) })
	}
	if err == nil {
		err = g.repo.Locked(func(r *git.Repository) error {
			return r.Storer.SetReference(plumbing.NewHashReference(remoteRef(g.o.StatusBranch), c.hash))
		})
	}
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

// forcePush reports whether status pushes are forced: the status branch
// is not the source branch.
func (g *Git) forcePush() bool { return g.o.StatusBranch != g.o.Branch }

// noThin is the capability a receive-pack advertises when it takes only
// packs that hold the bases of their deltas (git/Documentation/gitprotocol-capabilities.txt).
const noThin = capability.Capability("no-thin")

// errBranchMoved is sendPack's error when the status branch is no longer
// at the commit the status was made on.
var errBranchMoved = fmt.Errorf("%w (non-fast-forward: the branch moved)", git.ErrForceNeeded)

// sendPack updates the status branch from base to c, sending c's pack.
func (g *Git) sendPack(ctx context.Context, base plumbing.Hash, c *statusCommit) error {
	auth, err := g.o.Auth.method(g.o.URL)
	if err != nil {
		return err
	}
	ep, err := transport.NewEndpoint(g.o.URL)
	if err != nil {
		return err
	}
	cl, err := client.NewClient(ep)
	if err != nil {
		return err
	}
	sess, err := cl.NewReceivePackSession(ep, auth)
	if err != nil {
		return err
	}
	defer sess.Close()
	adv, err := sess.AdvertisedReferencesContext(ctx)
	if err != nil {
		return err
	}
	refs, err := adv.AllReferences()
	if err != nil {
		return err
	}
	dst := plumbing.NewBranchReferenceName(g.o.StatusBranch)
	var old plumbing.Hash
	if ref, ok := refs[dst]; ok {
		old = ref.Hash()
	}
	// A branch that does not exist yet is made from base, which the
	// remote has: its source branch's tip.
	if !old.IsZero() && old != base {
		return errBranchMoved
	}
	pack := c.pack
	if adv.Capabilities.Supports(noThin) && c.deltas > 0 {
		// The server takes no deltas on objects it holds.
		pack, _ = packOf(c.objs, nil, nil)
	}
	req := packp.NewReferenceUpdateRequestFromCapabilities(adv.Capabilities)
	req.Commands = []*packp.Command{{Name: dst, Old: old, New: c.hash}}
	req.Packfile = io.NopCloser(bytes.NewReader(pack))
	c.sent = len(pack)
	rs, err := sess.ReceivePack(ctx, req)
	if err != nil {
		return err
	}
	if rs != nil {
		return rs.Error()
	}
	return nil
}

// pushAll pushes the status commit with go-git, which sends what the
// remote's branches do not reach.
func (g *Git) pushAll(ctx context.Context, r *git.Repository) error {
	auth, err := g.o.Auth.method(g.o.URL)
	if err != nil {
		return err
	}
	dst := plumbing.NewBranchReferenceName(g.o.StatusBranch)
	err = r.PushContext(ctx, &git.PushOptions{
		RemoteName: remoteName,
		RemoteURL:  g.o.URL,
		RefSpecs:   []config.RefSpec{config.RefSpec(statusRef + ":" + dst)},
		Auth:       auth,
		Force:      true,
	})
	if errors.Is(err, git.NoErrAlreadyUpToDate) {
		return nil
	}
	return err
}
