package source

import (
	"bytes"
	"fmt"
	"io"
	"maps"
	"strconv"

	"github.com/go-git/go-git/v5/plumbing"
	"github.com/go-git/go-git/v5/plumbing/filemode"
	"github.com/go-git/go-git/v5/plumbing/storer"
)

// The trees above the status directory (the repository's root, most
// often) hold the whole fleet's site files: at 10,000 sites the root tree
// has 10,000 entries. A status commit reads them as raw Git tree objects
// and splices the status directory's entry in, rather than decoding every
// entry into a go-git Tree (and its lookup map) and encoding them again:
// a one-site commit then leaves little garbage the size of the fleet.
// The format is Git's (git/tree.c): entries "<octal mode> <name>\0<hash>",
// sorted with a directory's name compared as if it ended in "/".

// hashSize is the size of an object name in a tree entry.
const hashSize = len(plumbing.ZeroHash)

// rawTreeEntry is one entry of a raw tree object.
type rawTreeEntry struct {
	mode filemode.FileMode
	name []byte
	hash plumbing.Hash
}

// readRawTree returns the content of the tree object h.
func readRawTree(s storer.EncodedObjectStorer, h plumbing.Hash) ([]byte, error) {
	obj, err := s.EncodedObject(plumbing.TreeObject, h)
	if err != nil {
		return nil, fmt.Errorf("read tree %s: %w", h, err)
	}
	r, err := obj.Reader()
	if err != nil {
		return nil, fmt.Errorf("read tree %s: %w", h, err)
	}
	defer r.Close()
	data := make([]byte, 0, obj.Size())
	buf := bytes.NewBuffer(data)
	if _, err := io.Copy(buf, r); err != nil {
		return nil, fmt.Errorf("read tree %s: %w", h, err)
	}
	return buf.Bytes(), nil
}

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
	data, err := readRawTree(t.s, h)
	if err == nil {
		t.known[h] = data
	}
	return data, err
}

// eachRawEntry calls fn with each entry of the raw tree data, in order,
// until fn returns false.
func eachRawEntry(data []byte, fn func(rawTreeEntry) bool) error {
	for off := 0; off < len(data); {
		e, end, err := rawEntryAt(data, off)
		if err != nil {
			return err
		}
		off = end
		if !fn(e) {
			return nil
		}
	}
	return nil
}

// rawEntryAt reads the entry at off of the raw tree data, and returns it
// and where it ends.
func rawEntryAt(data []byte, off int) (rawTreeEntry, int, error) {
	rest := data[off:]
	sp := bytes.IndexByte(rest, ' ')
	nul := bytes.IndexByte(rest, 0)
	if sp < 0 || nul < sp || len(rest) < nul+1+hashSize {
		return rawTreeEntry{}, 0, fmt.Errorf("malformed tree object")
	}
	mode, err := strconv.ParseUint(string(rest[:sp]), 8, 32)
	if err != nil {
		return rawTreeEntry{}, 0, fmt.Errorf("malformed tree object: mode %q", rest[:sp])
	}
	e := rawTreeEntry{mode: filemode.FileMode(mode), name: rest[sp+1 : nul]}
	copy(e.hash[:], rest[nul+1:nul+1+hashSize])
	return e, off + nul + 1 + hashSize, nil
}

// rawEntryDir returns the hash of the directory name in the raw tree
// data; zero when it has none.
func rawEntryDir(data []byte, name string) (plumbing.Hash, error) {
	var h plumbing.Hash
	err := eachRawEntry(data, func(e rawTreeEntry) bool {
		if string(e.name) != name {
			return true
		}
		if e.mode == filemode.Dir {
			h = e.hash
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
	out := make([]byte, 0, len(data)+len(name)+8+hashSize)
	put := func(mode filemode.FileMode, name []byte, h plumbing.Hash) {
		out = strconv.AppendUint(out, uint64(mode), 8)
		out = append(out, ' ')
		out = append(out, name...)
		out = append(out, 0)
		out = append(out, h[:]...)
	}
	placed := sub.IsZero()
	err := eachRawEntry(data, func(e rawTreeEntry) bool {
		if string(e.name) == name {
			return true
		}
		if !placed && compareRawNames(e.name, e.mode == filemode.Dir, []byte(name), true) > 0 {
			put(filemode.Dir, []byte(name), sub)
			placed = true
		}
		put(e.mode, e.name, e.hash)
		return true
	})
	if err != nil {
		return nil, err
	}
	if !placed {
		put(filemode.Dir, []byte(name), sub)
	}
	return out, nil
}

// compareRawNames compares two tree entries' names in Git's order: a
// directory's name as if it ended in "/".
func compareRawNames(a []byte, aDir bool, b []byte, bDir bool) int {
	at := func(name []byte, dir bool, i int) int {
		switch {
		case i < len(name):
			return int(name[i])
		case i == len(name) && dir:
			return '/'
		}
		return -1
	}
	for i := 0; ; i++ {
		x, y := at(a, aDir, i), at(b, bDir, i)
		if x != y || x < 0 {
			return x - y
		}
	}
}
