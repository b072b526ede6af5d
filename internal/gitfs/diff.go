package gitfs

import (
	"path"
	"sort"

	"github.com/go-git/go-git/v5/plumbing"
	"github.com/go-git/go-git/v5/plumbing/filemode"
	"github.com/go-git/go-git/v5/plumbing/object"
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
// dir.
func (d *differ) diffTrees(dir string, a, b plumbing.Hash) error {
	if a == b {
		return nil
	}
	da, err := d.r.tree(nil, a)
	if err != nil {
		return err
	}
	db, err := d.r.tree(nil, b)
	if err != nil {
		return err
	}
	i, j := 0, 0
	for i < len(da.entries) || j < len(db.entries) {
		switch {
		case j == len(db.entries) || (i < len(da.entries) && da.entries[i].Name < db.entries[j].Name):
			if err := d.allFiles(dir, da.entries[i]); err != nil {
				return err
			}
			i++
		case i == len(da.entries) || db.entries[j].Name < da.entries[i].Name:
			if err := d.allFiles(dir, db.entries[j]); err != nil {
				return err
			}
			j++
		default:
			if err := d.diffEntry(dir, da.entries[i], db.entries[j]); err != nil {
				return err
			}
			i++
			j++
		}
	}
	return nil
}

// diffEntry compares two entries of the same name.
func (d *differ) diffEntry(dir string, ea, eb object.TreeEntry) error {
	if ea.Hash == eb.Hash && ea.Mode == eb.Mode {
		return nil
	}
	p := path.Join(dir, ea.Name)
	if d.skipped(p) {
		return nil
	}
	aDir, bDir := ea.Mode == filemode.Dir, eb.Mode == filemode.Dir
	switch {
	case aDir && bDir:
		return d.diffTrees(p, ea.Hash, eb.Hash)
	case aDir:
		d.out = append(d.out, p)
		return d.allFiles(dir, ea)
	case bDir:
		d.out = append(d.out, p)
		return d.allFiles(dir, eb)
	}
	d.out = append(d.out, p)
	return nil
}

// allFiles appends e, or every file under it when it is a directory.
func (d *differ) allFiles(dir string, e object.TreeEntry) error {
	p := path.Join(dir, e.Name)
	switch {
	case d.skipped(p):
		return nil
	case e.Mode != filemode.Dir:
		d.out = append(d.out, p)
		return nil
	}
	t, err := d.r.tree(nil, e.Hash)
	if err != nil {
		return err
	}
	for _, c := range t.entries {
		if err := d.allFiles(p, c); err != nil {
			return err
		}
	}
	return nil
}
