package safefs

import (
	"encoding/binary"
	"errors"
	"io/fs"
	"path"
	"slices"
	"strings"
	"sync"

	"golang.org/x/sys/unix"
)

// readDir lists a directory with getdents64 and types each entry from its
// record, as os.ReadDir does outside a root. os.Root's ReadDir describes
// every entry with an lstat as it lists (a directory it opened cannot
// describe them later by path): one call per entry, and a fleet's root
// directory of ten thousand site files took 75 ms of one core to list
// before the first file was read. Here an entry's Info describes it when
// asked, by its path through lstat, confined to the root as every lookup
// is. False, for os.Root to list and give the error, on any error, and
// for a file system that leaves an entry's type unknown.
func (f *fastRoot) readDir(name string, lstat func(string) (fs.FileInfo, error)) ([]fs.DirEntry, bool) {
	if !fs.ValidPath(name) {
		return nil, false
	}
	// O_DIRECTORY: anything else (a named pipe, a device) is refused
	// before it is opened.
	fd, ok := f.openat2(name, unix.O_RDONLY|unix.O_DIRECTORY)
	if !ok {
		return nil, false
	}
	defer unix.Close(fd)
	// A directory that may be read but not searched (r--) lists, but
	// os.Root, which describes each entry through it, then fails: looking
	// "." up through it fails the same way, and os.Root gives its answer.
	var st unix.Stat_t
	if unix.Fstatat(fd, ".", &st, 0) != nil {
		return nil, false
	}
	bufp := direntBuffers.Get().(*[]byte)
	defer direntBuffers.Put(bufp)
	buf := *bufp
	dir := &listing{dir: name, lstat: lstat}
	var entries []fs.DirEntry
	for {
		n, err := unix.Getdents(fd, buf)
		if errors.Is(err, unix.EINTR) {
			continue
		}
		if err != nil {
			return nil, false
		}
		if n == 0 {
			break
		}
		if entries, ok = appendDirents(entries, buf[:n], dir); !ok {
			return nil, false
		}
	}
	slices.SortFunc(entries, func(a, b fs.DirEntry) int { return strings.Compare(a.Name(), b.Name()) })
	return entries, true
}

// direntBuffers hold the records getdents64 writes: a tree of many small
// directories (a kustomize overlay per site) is listed directory by
// directory.
var direntBuffers = sync.Pool{New: func() any { b := make([]byte, 32<<10); return &b }}

// Offsets in a linux_dirent64 record: d_ino (8 bytes), d_off (8),
// d_reclen (2), d_type (1), then the name, NUL-terminated.
const (
	direntReclen = 16
	direntType   = 18
	direntName   = 19
)

// appendDirents appends the entries of the records in buf, but "." and
// "..". False for a malformed record or an entry of unknown type.
func appendDirents(entries []fs.DirEntry, buf []byte, dir *listing) ([]fs.DirEntry, bool) {
	for len(buf) > 0 {
		if len(buf) < direntName {
			return nil, false
		}
		reclen := int(binary.NativeEndian.Uint16(buf[direntReclen:]))
		if reclen < direntName || reclen > len(buf) {
			return nil, false
		}
		rec := buf[:reclen]
		buf = buf[reclen:]
		raw := rec[direntName:]
		if i := slices.Index(raw, 0); i >= 0 {
			raw = raw[:i]
		}
		if len(raw) == 0 || string(raw) == "." || string(raw) == ".." {
			continue
		}
		typ, ok := direntMode(rec[direntType])
		if !ok {
			return nil, false
		}
		entries = append(entries, &dirEntry{name: string(raw), typ: typ, dir: dir})
	}
	return entries, true
}

// direntMode is the type bits of an entry's d_type; false when the file
// system did not say (DT_UNKNOWN).
func direntMode(t byte) (fs.FileMode, bool) {
	switch t {
	case unix.DT_REG:
		return 0, true
	case unix.DT_DIR:
		return fs.ModeDir, true
	case unix.DT_LNK:
		return fs.ModeSymlink, true
	case unix.DT_FIFO:
		return fs.ModeNamedPipe, true
	case unix.DT_SOCK:
		return fs.ModeSocket, true
	case unix.DT_BLK:
		return fs.ModeDevice, true
	case unix.DT_CHR:
		return fs.ModeDevice | fs.ModeCharDevice, true
	}
	return 0, false
}

// listing is what the entries of one directory listed share: the
// directory's name in the root, and how to describe an entry by its path.
type listing struct {
	dir   string
	lstat func(string) (fs.FileInfo, error)
}

// dirEntry is an entry listed by readDir.
type dirEntry struct {
	name string
	typ  fs.FileMode
	dir  *listing
}

func (e *dirEntry) Name() string               { return e.name }
func (e *dirEntry) IsDir() bool                { return e.typ.IsDir() }
func (e *dirEntry) Type() fs.FileMode          { return e.typ }
func (e *dirEntry) Info() (fs.FileInfo, error) { return e.dir.lstat(path.Join(e.dir.dir, e.name)) }
func (e *dirEntry) String() string             { return fs.FormatDirEntry(e) }
