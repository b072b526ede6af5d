package cli

import (
	"os"
	"path/filepath"
	"testing"

	"golang.org/x/sys/unix"
)

// An output pipe grows to outputPipeSize where the system lets this
// process ask that much (learnt on a pipe of its own), and keeps its size
// otherwise; either way it stays non-blocking. A file is left alone.
func TestGrowPipe(t *testing.T) {
	want := func(before int) int {
		r, w, err := os.Pipe()
		if err != nil {
			t.Fatal(err)
		}
		defer r.Close()
		defer w.Close()
		grown := before
		control(t, w, func(fd uintptr) {
			if _, err := unix.FcntlInt(fd, unix.F_SETPIPE_SZ, outputPipeSize); err == nil {
				grown = outputPipeSize
			}
		})
		return grown
	}
	r, w, err := os.Pipe()
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	defer w.Close()
	var before, flags int
	control(t, w, func(fd uintptr) {
		before, _ = unix.FcntlInt(fd, unix.F_GETPIPE_SZ, 0)
		flags, _ = unix.FcntlInt(fd, unix.F_GETFL, 0)
	})
	if flags&unix.O_NONBLOCK == 0 {
		t.Fatal("os.Pipe gave a blocking pipe; the test expects a non-blocking one")
	}
	expect := want(before)
	growPipe(w)
	control(t, w, func(fd uintptr) {
		if got, err := unix.FcntlInt(fd, unix.F_GETPIPE_SZ, 0); err != nil || got != expect {
			t.Errorf("pipe size = %d (%v), want %d (it was %d)", got, err, expect, before)
		}
		if got, _ := unix.FcntlInt(fd, unix.F_GETFL, 0); got&unix.O_NONBLOCK == 0 {
			t.Error("growPipe made the pipe blocking")
		}
	})

	f, err := os.Create(filepath.Join(t.TempDir(), "out"))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	growPipe(f) // must neither fail nor change the file
	if st, err := f.Stat(); err != nil || st.Size() != 0 || !st.Mode().IsRegular() {
		t.Errorf("the file was changed: %v %v", st, err)
	}
}

// control runs fn on f's descriptor without changing its mode.
func control(t *testing.T, f *os.File, fn func(fd uintptr)) {
	t.Helper()
	rc, err := f.SyscallConn()
	if err != nil {
		t.Fatal(err)
	}
	if err := rc.Control(fn); err != nil {
		t.Fatal(err)
	}
}
