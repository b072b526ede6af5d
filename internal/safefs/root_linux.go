package safefs

import (
	"errors"
	"io/fs"
	"os"
	"strings"
	"sync/atomic"

	"golang.org/x/sys/unix"
)

// fastRoot looks paths up under dir with openat2.
type fastRoot struct {
	dir *os.File
	// off is set once openat2 proved unavailable (an old kernel, or a
	// seccomp filter that refuses it): every lookup goes to os.Root.
	off atomic.Bool
}

// openFast opens dir for lookups, or returns nil where openat2 cannot
// be used: a kernel before 5.6, or a sandbox that refuses the call.
func openFast(dir string) *fastRoot {
	d, err := os.Open(dir)
	if err != nil {
		return nil
	}
	f := &fastRoot{dir: d}
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
// caller must ask os.Root (an invalid name, any error, no openat2).
func (f *fastRoot) lookup(name string, flags int) (int, bool) {
	if f.off.Load() || !fs.ValidPath(name) || strings.Contains(name, `\`) {
		return -1, false
	}
	how := unix.OpenHow{
		Flags:   uint64(flags | unix.O_CLOEXEC),
		Resolve: unix.RESOLVE_BENEATH | unix.RESOLVE_NO_MAGICLINKS,
	}
	for {
		fd, err := unix.Openat2(int(f.dir.Fd()), name, &how)
		switch {
		case err == nil:
			return fd, true
		case errors.Is(err, unix.EINTR):
			continue
		case errors.Is(err, unix.ENOSYS):
			f.off.Store(true)
		}
		return -1, false
	}
}

// open opens name for reading, as os.Root's Open does (which names the
// file by the root's name and name, for its errors).
func (f *fastRoot) open(name string) (*os.File, bool) {
	fd, ok := f.lookup(name, unix.O_RDONLY)
	if !ok {
		return nil, false
	}
	return os.NewFile(uintptr(fd), f.dir.Name()+"/"+name), true
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
