package gitfs

import (
	"bytes"
	"fmt"
	"io"
	"strconv"

	"github.com/go-git/go-git/v5/plumbing"
	"github.com/go-git/go-git/v5/plumbing/filemode"
	"github.com/go-git/go-git/v5/plumbing/storer"
)

// A tree of a fleet repository may hold an entry per site: at 10,000
// sites the root tree has 10,000 entries, and it changes at every commit.
// Read as raw Git tree objects, such trees are compared and spliced
// without decoding every entry into a go-git Tree (a string per name, a
// lookup map), so that work on a one-site change leaves little garbage
// the size of the fleet. The format is Git's (git/tree.c): entries
// "<octal mode> <name>\0<hash>", sorted with a directory's name compared
// as if it ended in "/".

// hashSize is the size of an object name in a tree entry.
const hashSize = len(plumbing.ZeroHash)

// RawTreeEntry is one entry of a raw tree object. Name points into the
// tree's data.
type RawTreeEntry struct {
	Mode filemode.FileMode
	Name []byte
	Hash plumbing.Hash
}

// IsDir reports whether the entry is a directory (a tree).
func (e RawTreeEntry) IsDir() bool { return e.Mode == filemode.Dir }

// ReadRawTree returns the content of the tree object h.
func ReadRawTree(s storer.EncodedObjectStorer, h plumbing.Hash) ([]byte, error) {
	obj, err := s.EncodedObject(plumbing.TreeObject, h)
	if err != nil {
		return nil, fmt.Errorf("read tree %s: %w", h, err)
	}
	r, err := obj.Reader()
	if err != nil {
		return nil, fmt.Errorf("read tree %s: %w", h, err)
	}
	defer r.Close()
	buf := bytes.NewBuffer(make([]byte, 0, obj.Size()))
	if _, err := io.Copy(buf, r); err != nil {
		return nil, fmt.Errorf("read tree %s: %w", h, err)
	}
	return buf.Bytes(), nil
}

// EachRawEntry calls fn with each entry of the raw tree data, in order,
// until fn returns false.
func EachRawEntry(data []byte, fn func(RawTreeEntry) bool) error {
	for off := 0; off < len(data); {
		e, end, err := RawEntryAt(data, off)
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

// AppendRawEntry appends a tree entry as a Git tree object holds it: the
// mode in octal, a space, the name, a NUL and the object name.
func AppendRawEntry[S ~string | ~[]byte](b []byte, mode filemode.FileMode, name S, h plumbing.Hash) []byte {
	b = strconv.AppendUint(b, uint64(mode), 8)
	b = append(b, ' ')
	b = append(b, name...)
	b = append(b, 0)
	return append(b, h[:]...)
}

// RawEntryAt reads the entry at off of the raw tree data, and returns it
// and where it ends.
func RawEntryAt(data []byte, off int) (RawTreeEntry, int, error) {
	rest := data[off:]
	sp := bytes.IndexByte(rest, ' ')
	nul := bytes.IndexByte(rest, 0)
	if sp <= 0 || nul < sp || len(rest) < nul+1+hashSize {
		return RawTreeEntry{}, 0, fmt.Errorf("malformed tree object")
	}
	// The mode is parsed in place: a string of it per entry would be an
	// allocation per file of the tree.
	var mode uint64
	for _, c := range rest[:sp] {
		if c < '0' || c > '7' || mode > 0o7777777 {
			return RawTreeEntry{}, 0, fmt.Errorf("malformed tree object: mode %q", rest[:sp])
		}
		mode = mode<<3 | uint64(c-'0')
	}
	e := RawTreeEntry{Mode: filemode.FileMode(mode), Name: rest[sp+1 : nul]}
	copy(e.Hash[:], rest[nul+1:nul+1+hashSize])
	return e, off + nul + 1 + hashSize, nil
}

// CompareRawNames compares two tree entries' names in Git's order: a
// directory's name as if it ended in "/".
func CompareRawNames(a []byte, aDir bool, b []byte, bDir bool) int {
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
