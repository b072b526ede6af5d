package safefs

import (
	"errors"
	"io/fs"
	"os"

	"golang.org/x/sys/unix"
)

// fastRoot looks paths up under the root's directory with openat2.
type fastRoot struct {
	// dir is the root's directory, opened through the os.Root so that
	// both look at the same directory whatever happens to its path.
	dir *os.File
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
	f := &fastRoot{dir: d, name: root.Name()}
	fd, ok := f.lookup(".", unix.O_PATH)
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
// caller must ask os.Root (an invalid name or any error).
func (f *fastRoot) lookup(name string, flags int) (int, bool) {
	if !fs.ValidPath(name) {
		return -1, false
	}
	how := unix.OpenHow{
		Flags:   uint64(flags | unix.O_CLOEXEC),
		Resolve: unix.RESOLVE_BENEATH | unix.RESOLVE_NO_MAGICLINKS,
	}
	fd := -1
	conn, err := f.dir.SyscallConn()
	if err != nil {
		return -1, false
	}
	// Control holds the directory's descriptor open for the call: a Close
	// meanwhile cannot hand its number to another file.
	err = conn.Control(func(dirfd uintptr) {
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
