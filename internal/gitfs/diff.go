package gitfs

import (
	"fmt"
	"path"
	"sort"

	"github.com/go-git/go-git/v5/plumbing"
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
	da, err := ReadRawTree(d.r.r.Storer, a)
	if err != nil {
		return err
	}
	db, err := ReadRawTree(d.r.r.Storer, b)
	if err != nil {
		return err
	}
	var ea, eb RawTreeEntry
	i, j := 0, 0
	nextA := func() (int, error) {
		var end int
		ea, end, err = RawEntryAt(da, i)
		if err != nil {
			return 0, fmt.Errorf("read tree %s: %w", a, err)
		}
		return end, nil
	}
	nextB := func() (int, error) {
		var end int
		eb, end, err = RawEntryAt(db, j)
		if err != nil {
			return 0, fmt.Errorf("read tree %s: %w", b, err)
		}
		return end, nil
	}
	var endA, endB int
	if i < len(da) {
		if endA, err = nextA(); err != nil {
			return err
		}
	}
	if j < len(db) {
		if endB, err = nextB(); err != nil {
			return err
		}
	}
	for i < len(da) || j < len(db) {
		c := 0
		switch {
		case j == len(db):
			c = -1
		case i == len(da):
			c = 1
		default:
			c = CompareRawNames(ea.Name, ea.IsDir(), eb.Name, eb.IsDir())
		}
		switch {
		case c < 0:
			err = d.allFiles(dir, ea)
		case c > 0:
			err = d.allFiles(dir, eb)
		default:
			err = d.diffEntry(dir, ea, eb)
		}
		if err != nil {
			return err
		}
		if c <= 0 {
			if i = endA; i < len(da) {
				if endA, err = nextA(); err != nil {
					return err
				}
			}
		}
		if c >= 0 {
			if j = endB; j < len(db) {
				if endB, err = nextB(); err != nil {
					return err
				}
			}
		}
	}
	return nil
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
	data, err := ReadRawTree(d.r.r.Storer, e.Hash)
	if err != nil {
		return err
	}
	var inner error
	err = EachRawEntry(data, func(c RawTreeEntry) bool {
		inner = d.allFiles(p, c)
		return inner == nil
	})
	if inner != nil {
		return inner
	}
	if err != nil {
		return fmt.Errorf("read tree %s: %w", e.Hash, err)
	}
	return nil
}
