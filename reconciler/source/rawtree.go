package source

import (
	"maps"

	"github.com/go-git/go-git/v5/plumbing"
	"github.com/go-git/go-git/v5/plumbing/filemode"
	"github.com/go-git/go-git/v5/plumbing/storer"

	"github.com/siteops/siteops/internal/gitfs"
)

// The trees above the status directory (the repository's root, most
// often) hold the whole fleet's site files. A status commit reads them as
// raw Git tree objects (gitfs.ReadRawTree) and splices the status
// directory's entry in, rather than decoding every entry into a go-git
// Tree and encoding them again.

// rawTrees reads raw trees, keeping those it read and those a status
// commit made: the commit reads the trees above the status directory
// twice (to find the directory, then to splice it), and the next commit
// is most often made on this one, whose trees it made. Trees are named by
// their content, so a kept one is never stale.
type rawTrees struct {
	s storer.EncodedObjectStorer
	// known are the trees read or given; made those a commit made.
	known, made map[plumbing.Hash][]byte
}

// newRawTrees returns a reader of the trees of s that knows made, the
// trees the last commit made.
func newRawTrees(s storer.EncodedObjectStorer, made map[plumbing.Hash][]byte) *rawTrees {
	known := maps.Clone(made)
	if known == nil {
		known = map[plumbing.Hash][]byte{}
	}
	return &rawTrees{s: s, known: known, made: map[plumbing.Hash][]byte{}}
}

// read returns the content of the tree object h.
func (t *rawTrees) read(h plumbing.Hash) ([]byte, error) {
	if data, ok := t.known[h]; ok {
		return data, nil
	}
	data, err := gitfs.ReadRawTree(t.s, h)
	if err == nil {
		t.known[h] = data
	}
	return data, err
}

// rawEntryDir returns the hash of the directory name in the raw tree
// data; zero when it has none.
func rawEntryDir(data []byte, name string) (plumbing.Hash, error) {
	var h plumbing.Hash
	err := gitfs.EachRawEntry(data, func(e gitfs.RawTreeEntry) bool {
		if string(e.Name) != name {
			return true
		}
		if e.IsDir() {
			h = e.Hash
		}
		return false
	})
	return h, err
}

// spliceRawTree returns the raw tree data with the entry name removed and,
// unless sub is zero, a directory entry name of hash sub put in its place
// in Git's order. The other entries are written as encodeTree writes
// them.
func spliceRawTree(data []byte, name string, sub plumbing.Hash) ([]byte, error) {
	out := make([]byte, 0, len(data)+len(name)+8+len(sub))
	placed := sub.IsZero()
	key := []byte(name)
	err := gitfs.EachRawEntry(data, func(e gitfs.RawTreeEntry) bool {
		if string(e.Name) == name {
			return true
		}
		if !placed && gitfs.CompareRawNames(e.Name, e.IsDir(), key, true) > 0 {
			out = gitfs.AppendRawEntry(out, filemode.Dir, name, sub)
			placed = true
		}
		out = gitfs.AppendRawEntry(out, e.Mode, e.Name, e.Hash)
		return true
	})
	if err != nil {
		return nil, err
	}
	if !placed {
		out = gitfs.AppendRawEntry(out, filemode.Dir, name, sub)
	}
	return out, nil
}
