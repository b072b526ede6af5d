package cli

import (
	"context"
	"io"
	"os"
	"path/filepath"
	"testing"

	"golang.org/x/sys/unix"
)

// An output pipe grows to outputPipeSize where the system lets this
// process ask that much (learnt on a pipe of its own), and keeps its size
// otherwise; either way it stays non-blocking. A file is left alone.
func TestGrowPipe(t *testing.T) {
	_, w := newPipe(t)
	var before, flags int
	control(t, w, func(fd uintptr) {
		before, _ = unix.FcntlInt(fd, unix.F_GETPIPE_SZ, 0)
		flags, _ = unix.FcntlInt(fd, unix.F_GETFL, 0)
	})
	if flags&unix.O_NONBLOCK == 0 {
		t.Fatal("os.Pipe gave a blocking pipe; the test expects a non-blocking one")
	}
	expect := grownPipeSize(t, before)
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

// Every command grows its output pipe: Main does it.
func TestMainGrowsTheOutputPipe(t *testing.T) {
	r, w := newPipe(t)
	before := pipeSize(t, w)
	go io.Copy(io.Discard, r)
	if code := Main(context.Background(), []string{"--help"}, w, io.Discard); code != ExitOK {
		t.Fatalf("siteops --help exited %d", code)
	}
	if got, want := pipeSize(t, w), grownPipeSize(t, before); got != want {
		t.Errorf("output pipe of %d bytes, want %d (it was %d)", got, want, before)
	}
}

// grownPipeSize is the size growPipe can give a pipe of size before: what
// this process may ask, learnt on a pipe of its own.
func grownPipeSize(t *testing.T, before int) int {
	t.Helper()
	_, w := newPipe(t)
	grown := before
	control(t, w, func(fd uintptr) {
		if _, err := unix.FcntlInt(fd, unix.F_SETPIPE_SZ, outputPipeSize); err == nil {
			grown = outputPipeSize
		}
	})
	return grown
}

// newPipe makes a pipe closed when the test ends.
func newPipe(t *testing.T) (r, w *os.File) {
	t.Helper()
	r, w, err := os.Pipe()
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { r.Close(); w.Close() })
	return r, w
}

func pipeSize(t *testing.T, f *os.File) int {
	t.Helper()
	var n int
	control(t, f, func(fd uintptr) { n, _ = unix.FcntlInt(fd, unix.F_GETPIPE_SZ, 0) })
	return n
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
