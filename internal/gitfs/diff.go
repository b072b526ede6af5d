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
func (r *Repo) Changed(from, to plumbing.Hash) ([]string, error) {
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
	var out []string
	if err := r.diffTrees(".", a.TreeHash, b.TreeHash, &out); err != nil {
		return nil, err
	}
	sort.Strings(out)
	return out, nil
}

// diffTrees appends to out the files that differ between trees a and b at
// dir. Called with r.mu held.
func (r *Repo) diffTrees(dir string, a, b plumbing.Hash, out *[]string) error {
	if a == b {
		return nil
	}
	da, err := r.tree(nil, a)
	if err != nil {
		return err
	}
	db, err := r.tree(nil, b)
	if err != nil {
		return err
	}
	i, j := 0, 0
	for i < len(da.entries) || j < len(db.entries) {
		switch {
		case j == len(db.entries) || (i < len(da.entries) && da.entries[i].Name < db.entries[j].Name):
			if err := r.allFiles(dir, da.entries[i], out); err != nil {
				return err
			}
			i++
		case i == len(da.entries) || db.entries[j].Name < da.entries[i].Name:
			if err := r.allFiles(dir, db.entries[j], out); err != nil {
				return err
			}
			j++
		default:
			if err := r.diffEntry(dir, da.entries[i], db.entries[j], out); err != nil {
				return err
			}
			i++
			j++
		}
	}
	return nil
}

// diffEntry compares two entries of the same name.
func (r *Repo) diffEntry(dir string, ea, eb object.TreeEntry, out *[]string) error {
	if ea.Hash == eb.Hash && ea.Mode == eb.Mode {
		return nil
	}
	p := path.Join(dir, ea.Name)
	aDir, bDir := ea.Mode == filemode.Dir, eb.Mode == filemode.Dir
	switch {
	case aDir && bDir:
		return r.diffTrees(p, ea.Hash, eb.Hash, out)
	case aDir:
		*out = append(*out, p)
		return r.allFiles(dir, ea, out)
	case bDir:
		*out = append(*out, p)
		return r.allFiles(dir, eb, out)
	}
	*out = append(*out, p)
	return nil
}

// allFiles appends e, or every file under it when it is a directory.
func (r *Repo) allFiles(dir string, e object.TreeEntry, out *[]string) error {
	p := path.Join(dir, e.Name)
	if e.Mode != filemode.Dir {
		*out = append(*out, p)
		return nil
	}
	d, err := r.tree(nil, e.Hash)
	if err != nil {
		return err
	}
	for _, c := range d.entries {
		if err := r.allFiles(p, c, out); err != nil {
			return err
		}
	}
	return nil
}
