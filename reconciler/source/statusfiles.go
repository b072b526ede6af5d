package source

import (
	"fmt"
	"io/fs"
	"maps"
	"slices"
	"sync/atomic"

	"github.com/go-git/go-git/v5/plumbing"
)

// StatusFiles is the content of a status directory as the loop wants it:
// files by slash-separated path, relative to the directory. Every change
// is numbered, so that a source writes what changed since its own last
// write instead of comparing every file: the cost of a write follows the
// change, not the fleet. The loop changes a StatusFiles only between
// calls to WriteStatus; it is not safe for concurrent use.
type StatusFiles struct {
	id    uint64
	files map[string]StatusFile
	// gen numbers the last change; log lists the changes after floor,
	// oldest first (a path changed twice is there twice).
	gen   uint64
	floor uint64
	log   []statusChange
}

type statusChange struct {
	gen  uint64
	path string
}

// statusFilesIDs tells sets apart in a source's memory of what it wrote.
var statusFilesIDs atomic.Uint64

// NewStatusFiles returns an empty set.
func NewStatusFiles() *StatusFiles {
	return &StatusFiles{id: statusFilesIDs.Add(1), files: map[string]StatusFile{}}
}

// StatusFilesOf returns a set holding files.
func StatusFilesOf(files map[string][]byte) *StatusFiles {
	f := NewStatusFiles()
	for _, p := range slices.Sorted(maps.Keys(files)) {
		f.Set(p, files[p])
	}
	return f
}

// Set makes path hold data, and reports whether that changed anything.
// Data the set holds already is not compressed again.
func (f *StatusFiles) Set(path string, data []byte) bool {
	h := plumbing.ComputeHash(plumbing.BlobObject, data)
	if old, ok := f.files[path]; ok && old.hash == h {
		return false
	}
	return f.Put(path, newStatusFile(h, data))
}

// Put makes path hold file, and reports whether that changed anything.
// The zero StatusFile is an empty file.
func (f *StatusFiles) Put(path string, file StatusFile) bool {
	if file.z == nil {
		file = NewStatusFile(nil)
	}
	if old, ok := f.files[path]; ok && old.Equal(file) {
		return false
	}
	f.files[path] = file
	f.record(path)
	return true
}

// Delete removes path, and reports whether the set held it.
func (f *StatusFiles) Delete(path string) bool {
	if _, ok := f.files[path]; !ok {
		return false
	}
	delete(f.files, path)
	f.record(path)
	return true
}

// Has reports whether the set holds path.
func (f *StatusFiles) Has(path string) bool {
	_, ok := f.files[path]
	return ok
}

// Get returns the content of path; false when the set does not hold it.
func (f *StatusFiles) Get(path string) ([]byte, bool, error) {
	file, ok := f.files[path]
	if !ok {
		return nil, false, nil
	}
	data, err := file.Data()
	if err != nil {
		return nil, true, fmt.Errorf("status file %s: %w", path, err)
	}
	return data, true, nil
}

// file returns the file at path.
func (f *StatusFiles) file(path string) (StatusFile, bool) {
	file, ok := f.files[path]
	return file, ok
}

// Len is the number of files.
func (f *StatusFiles) Len() int { return len(f.files) }

// record numbers a change of path. The log is dropped when it grows past
// a few times the number of files: a source that has not written since
// then compares every file once.
func (f *StatusFiles) record(path string) {
	f.gen++
	if len(f.log) >= 4*len(f.files)+1024 {
		f.log, f.floor = nil, f.gen-1
	}
	f.log = append(f.log, statusChange{f.gen, path})
}

// generation identifies the content of the set as it is now, for
// changedSince.
func (f *StatusFiles) generation() statusGeneration {
	return statusGeneration{f.id, f.gen}
}

// statusGeneration is a content of one StatusFiles: its id and the number
// of its last change.
type statusGeneration struct{ id, gen uint64 }

// changedSince returns the paths changed (set or deleted) since the set
// was at g, each once and sorted; false when the set cannot tell: g is
// zero, of another set, or older than the changes it remembers.
func (f *StatusFiles) changedSince(g statusGeneration) ([]string, bool) {
	if g.id != f.id || g.gen < f.floor || g.gen > f.gen {
		return nil, false
	}
	first, _ := slices.BinarySearchFunc(f.log, g.gen+1, func(c statusChange, gen uint64) int {
		switch {
		case c.gen < gen:
			return -1
		case c.gen > gen:
			return 1
		}
		return 0
	})
	seen := make(map[string]bool, len(f.log)-first)
	paths := make([]string, 0, len(f.log)-first)
	for _, c := range f.log[first:] {
		if !seen[c.path] {
			seen[c.path] = true
			paths = append(paths, c.path)
		}
	}
	slices.Sort(paths)
	return paths, true
}

// checkStatusPath refuses a status file name that is not a plain
// relative path.
func checkStatusPath(p string) error {
	if !fs.ValidPath(p) || p == "." {
		return fmt.Errorf("status file %q: give a slash-separated path inside the status directory, without . or .. elements", p)
	}
	return nil
}

// Paths returns the paths of the files, sorted.
func (f *StatusFiles) Paths() []string {
	return slices.Sorted(maps.Keys(f.files))
}
