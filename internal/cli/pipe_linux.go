package cli

import (
	"io"

	"golang.org/x/sys/unix"
)

// growPipe raises the capacity of w when it is a pipe smaller than
// outputPipeSize: Linux's default of 64 KiB holds two or three sites of
// a render. 1 MiB is what an unprivileged process may ask by default
// (/proc/sys/fs/pipe-max-size). Anything else, and a refusal (a lower
// pipe-max-size), leaves w as it is: the output is the same, only
// written in more turns. The descriptor is reached through SyscallConn,
// which leaves its mode alone (Fd would make it blocking).
func growPipe(w io.Writer) {
	f, ok := pipe(w)
	if !ok {
		return
	}
	rc, err := f.SyscallConn()
	if err != nil {
		return
	}
	rc.Control(func(fd uintptr) {
		if n, err := unix.FcntlInt(fd, unix.F_GETPIPE_SZ, 0); err == nil && n < outputPipeSize {
			unix.FcntlInt(fd, unix.F_SETPIPE_SZ, outputPipeSize)
		}
	})
}
