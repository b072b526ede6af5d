package safefs

import (
	"bytes"
	"errors"
	"io/fs"
	"math"
	"os"
	"slices"
	"strings"
	"syscall"

	"golang.org/x/sys/unix"
)

// fastRoot looks paths up under the root's directory with openat2.
type fastRoot struct {
	// dir is the root's directory, opened through the os.Root so that
	// both look at the same directory whatever happens to its path, and
	// conn its descriptor for the calls.
	dir  *os.File
	conn syscall.RawConn
	// name is the os.Root's name, which names the files it opens.
	name string
}

// openFast opens the directory of root for lookups, or returns nil where
// openat2 cannot be used: a kernel before 5.6, or a sandbox that refuses
// the call.
func openFast(root *os.Root) *fastRoot {
	d, err := root.Open(".")
	if err != nil {
		return nil
	}
	conn, err := d.SyscallConn()
	if err != nil {
		d.Close()
		return nil
	}
	f := &fastRoot{dir: d, conn: conn, name: root.Name()}
	fd, ok := f.openat2(".", unix.O_PATH)
	if !ok {
		d.Close()
		return nil
	}
	unix.Close(fd)
	return f
}

func (f *fastRoot) close() {
	if f != nil {
		f.dir.Close()
	}
}

// lookup opens name under the directory with flags; false when the
// caller must ask os.Root: an invalid name, any error, or a name in the
// root itself, which os.Root looks up with one call too (and stats with
// one, where a lookup here takes three).
func (f *fastRoot) lookup(name string, flags int) (int, bool) {
	if !strings.Contains(name, "/") || !fs.ValidPath(name) {
		return -1, false
	}
	return f.openat2(name, flags)
}

// openat2 opens name under the directory, confined to it.
func (f *fastRoot) openat2(name string, flags int) (int, bool) {
	how := unix.OpenHow{
		Flags:   uint64(flags | unix.O_CLOEXEC),
		Resolve: unix.RESOLVE_BENEATH | unix.RESOLVE_NO_MAGICLINKS,
	}
	fd := -1
	// Control holds the directory's descriptor open for the call: a Close
	// meanwhile cannot hand its number to another file.
	err := f.conn.Control(func(dirfd uintptr) {
		for {
			var err error
			fd, err = unix.Openat2(int(dirfd), name, &how)
			if !errors.Is(err, unix.EINTR) {
				return
			}
		}
	})
	return fd, err == nil && fd >= 0
}

// open opens name for reading, as os.Root's Open does (which names the
// file by the root's name and name, for its errors). A directory is left
// to os.Root: the entries of a directory it opened describe themselves
// from that directory, where a file made here would look each one up
// again by path.
func (f *fastRoot) open(name string) (*os.File, bool) {
	fd, ok := f.lookup(name, unix.O_RDONLY)
	if !ok {
		return nil, false
	}
	var st unix.Stat_t
	if err := unix.Fstat(fd, &st); err != nil || st.Mode&unix.S_IFMT == unix.S_IFDIR {
		unix.Close(fd)
		return nil, false
	}
	return os.NewFile(uintptr(fd), joinPath(f.name, name)), true
}

// joinPath is how os names the files of a directory.
func joinPath(dir, name string) string {
	if len(dir) > 0 && os.IsPathSeparator(dir[len(dir)-1]) {
		return dir + name
	}
	return dir + "/" + name
}

// stat describes name, or the link itself with lstat, from a descriptor
// that only names the file (O_PATH): nothing is opened for reading, so a
// named pipe does not block.
func (f *fastRoot) stat(name string, lstat bool) (fs.FileInfo, bool) {
	flags := unix.O_PATH
	if lstat {
		flags |= unix.O_NOFOLLOW
	}
	fd, ok := f.lookup(name, flags)
	if !ok {
		return nil, false
	}
	file := os.NewFile(uintptr(fd), name)
	defer file.Close()
	fi, err := file.Stat()
	if err != nil {
		return nil, false
	}
	return fi, true
}

// readFile reads a regular file of at most max bytes with the fewest
// system calls: look it up without opening it (O_PATH), describe it,
// open it, check that what is open is that file, and read it, with no
// *os.File (whose descriptor the runtime inspects and offers to its
// poller: five calls more). Seven calls a file where the os.File way
// took eleven, and a fleet is thousands of small files. False for
// anything but a regular file of at most max bytes read to its end: the
// caller then takes the slow path, which gives the error.
func (f *fastRoot) readFile(name string, max int64) ([]byte, bool) {
	if !fs.ValidPath(name) {
		return nil, false
	}
	pfd, ok := f.openat2(name, unix.O_PATH)
	if !ok {
		return nil, false
	}
	var described unix.Stat_t
	err := unix.Fstat(pfd, &described)
	unix.Close(pfd)
	// Described before it is opened, as ReadFile promises: a named pipe
	// or a device is never opened.
	if err != nil || described.Mode&unix.S_IFMT != unix.S_IFREG || described.Size > max {
		return nil, false
	}
	return f.readOpened(name, max, &described)
}

// readListed reads a file its directory's listing gave as regular (see
// ReadListedFile): open, describe, read, close. False as readFile.
func (f *fastRoot) readListed(name string, max int64) ([]byte, bool) {
	if !fs.ValidPath(name) {
		return nil, false
	}
	return f.readOpened(name, max, nil)
}

// readOpened opens name and reads it if what is open is a regular file
// of at most max bytes, and the file described, when one was.
func (f *fastRoot) readOpened(name string, max int64, described *unix.Stat_t) ([]byte, bool) {
	// O_NONBLOCK: should the name be, or have become, a named pipe, the
	// open does not wait for a writer.
	fd, ok := f.openat2(name, unix.O_RDONLY|unix.O_NONBLOCK|unix.O_NOCTTY)
	if !ok {
		return nil, false
	}
	defer unix.Close(fd)
	var opened unix.Stat_t
	if unix.Fstat(fd, &opened) != nil || opened.Mode&unix.S_IFMT != unix.S_IFREG || opened.Size > max {
		return nil, false
	}
	if described != nil && (opened.Dev != described.Dev || opened.Ino != described.Ino) {
		return nil, false
	}
	return readFD(fd, opened.Size, max)
}

// readFD reads fd to its end, from a buffer of the size described (which
// can be stale), reading at most most+1 bytes so that a file grown past
// the limit is caught. False on an error or past most bytes.
//
// A read that leaves the buffer holding exactly the size described, when
// more was asked, has read the file as it was described: the read that
// would return end of file is not made (one system call a file; a fleet
// is thousands of files, and on a virtual machine a call costs
// microseconds). A file grown since its description fills more than its
// size and is read on to its end.
func readFD(fd int, size, most int64) ([]byte, bool) {
	limit := int(min(most, math.MaxInt32-1) + 1)
	buf := make([]byte, 0, min(max(size, 0), int64(limit))+bytes.MinRead)
	for {
		if len(buf) == cap(buf) {
			buf = slices.Grow(buf, min(cap(buf), limit-len(buf)))
		}
		n, err := unix.Read(fd, buf[len(buf):min(cap(buf), limit)])
		if errors.Is(err, unix.EINTR) {
			continue
		}
		if err != nil {
			return nil, false
		}
		if n == 0 {
			return buf, true
		}
		buf = buf[:len(buf)+n]
		if len(buf) == limit {
			return nil, false
		}
		if size > 0 && int64(len(buf)) == size {
			return buf, true
		}
	}
}
