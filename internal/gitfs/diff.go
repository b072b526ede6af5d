package gitfs

import (
	"fmt"
	"path"
	"sort"

	"github.com/go-git/go-git/v5/plumbing"
	"github.com/go-git/go-git/v5/plumbing/storer"
)

// Changed lists, sorted, the slash-separated paths of the files (regular
// files, symlinks, submodules) that differ between the trees of two
// commits: added, removed, modified or with a changed mode. Directories
// whose tree id is the same on both sides are skipped without being read,
// so the cost follows the size of the change, not of the repository.
// Paths at or under a skipped directory are left out without reading its
// trees (the loop's status directory, which changes at every status
// commit).
func (r *Repo) Changed(from, to plumbing.Hash, skip ...string) ([]string, error) {
	r.mu.Lock()
	defer r.mu.Unlock()
	a, err := r.commit(from)
	if err != nil {
		return nil, err
	}
	b, err := r.commit(to)
	if err != nil {
		return nil, err
	}
	d := &differ{r: r, skip: skip}
	if err := d.diffTrees(".", a.TreeHash, b.TreeHash); err != nil {
		return nil, err
	}
	sort.Strings(d.out)
	return d.out, nil
}

// differ compares two trees of r, r.mu held.
type differ struct {
	r    *Repo
	skip []string
	out  []string
}

// skipped reports whether p is at or under a skipped directory.
func (d *differ) skipped(p string) bool {
	for _, s := range d.skip {
		if p == s || (len(p) > len(s) && p[len(s)] == '/' && p[:len(s)] == s) {
			return true
		}
	}
	return false
}

// diffTrees appends to out the files that differ between trees a and b at
// dir. Both are read as raw tree objects and walked together in Git's
// order (RawTreeEntry): a name is made a string only for a path that
// differs. A name that is a file on one side and a directory on the other
// sorts apart, and is reported as one removed and the other added.
func (d *differ) diffTrees(dir string, a, b plumbing.Hash) error {
	if a == b {
		return nil
	}
	ca, err := openRawCursor(d.r.r.Storer, dir, a)
	if err != nil {
		return err
	}
	cb, err := openRawCursor(d.r.r.Storer, dir, b)
	if err != nil {
		return err
	}
	for !ca.done() || !cb.done() {
		c := 0
		switch {
		case cb.done():
			c = -1
		case ca.done():
			c = 1
		default:
			c = CompareRawNames(ca.e.Name, ca.e.IsDir(), cb.e.Name, cb.e.IsDir())
		}
		switch {
		case c < 0:
			err = d.allFiles(dir, ca.e)
		case c > 0:
			err = d.allFiles(dir, cb.e)
		default:
			err = d.diffEntry(dir, ca.e, cb.e)
		}
		if err != nil {
			return err
		}
		if c <= 0 {
			if err := ca.next(); err != nil {
				return err
			}
		}
		if c >= 0 {
			if err := cb.next(); err != nil {
				return err
			}
		}
	}
	return nil
}

// rawCursor walks the entries of a raw tree: e is the current one, until
// done. dir is the tree's path, for errors.
type rawCursor struct {
	dir      string
	tree     plumbing.Hash
	data     []byte
	off, end int
	e        RawTreeEntry
}

func openRawCursor(s storer.EncodedObjectStorer, dir string, h plumbing.Hash) (*rawCursor, error) {
	data, err := ReadRawTree(s, h)
	if err != nil {
		return nil, fmt.Errorf("directory %s: %w", dir, err)
	}
	c := &rawCursor{dir: dir, tree: h, data: data}
	return c, c.read()
}

func (c *rawCursor) done() bool { return c.off >= len(c.data) }

// read reads the entry at the cursor.
func (c *rawCursor) read() error {
	if c.done() {
		return nil
	}
	var err error
	if c.e, c.end, err = RawEntryAt(c.data, c.off); err != nil {
		return fmt.Errorf("directory %s: read tree %s at byte %d: %w", c.dir, c.tree, c.off, err)
	}
	return nil
}

// next moves to the next entry.
func (c *rawCursor) next() error {
	c.off = c.end
	return c.read()
}

// diffEntry compares two entries of the same name and kind (both
// directories or neither).
func (d *differ) diffEntry(dir string, ea, eb RawTreeEntry) error {
	if ea.Hash == eb.Hash && ea.Mode == eb.Mode {
		return nil
	}
	p := path.Join(dir, string(ea.Name))
	if d.skipped(p) {
		return nil
	}
	if ea.IsDir() {
		return d.diffTrees(p, ea.Hash, eb.Hash)
	}
	d.out = append(d.out, p)
	return nil
}

// allFiles appends e, or every file under it when it is a directory.
func (d *differ) allFiles(dir string, e RawTreeEntry) error {
	p := path.Join(dir, string(e.Name))
	switch {
	case d.skipped(p):
		return nil
	case !e.IsDir():
		d.out = append(d.out, p)
		return nil
	}
	c, err := openRawCursor(d.r.r.Storer, p, e.Hash)
	if err != nil {
		return err
	}
	for !c.done() {
		if err := d.allFiles(p, c.e); err != nil {
			return err
		}
		if err := c.next(); err != nil {
			return err
		}
	}
	return nil
}
