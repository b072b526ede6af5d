package cli

import (
	"io"
	"os"

	"golang.org/x/sys/unix"
)

// outputPipeSize is the capacity asked for a pipe a command writes its
// output into: Linux's default of 64 KiB holds two or three sites of a
// render, so the writer and its reader (kubectl, Argo CD's plugin server)
// would take turns at every few sites. 1 MiB is what an unprivileged
// process may ask by default (/proc/sys/fs/pipe-max-size).
const outputPipeSize = 1 << 20

// growPipe raises the capacity of w when it is a pipe smaller than
// outputPipeSize. Anything else, and a refusal (a lower pipe-max-size),
// leaves w as it is: the output is the same, only written in more turns.
// The descriptor is reached through SyscallConn, which leaves its mode
// alone (Fd would make it blocking).
func growPipe(w io.Writer) {
	f, ok := w.(*os.File)
	if !ok {
		return
	}
	rc, err := f.SyscallConn()
	if err != nil {
		return
	}
	rc.Control(func(fd uintptr) {
		var st unix.Stat_t
		if unix.Fstat(int(fd), &st) != nil || st.Mode&unix.S_IFMT != unix.S_IFIFO {
			return
		}
		if n, err := unix.FcntlInt(fd, unix.F_GETPIPE_SZ, 0); err == nil && n < outputPipeSize {
			unix.FcntlInt(fd, unix.F_SETPIPE_SZ, outputPipeSize)
		}
	})
}
