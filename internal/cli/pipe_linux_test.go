package cli

import (
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"golang.org/x/sys/unix"
)

// An output pipe grows to outputPipeSize, unless the system allows an
// unprivileged process less (then it keeps its size); a file is left
// alone.
func TestGrowPipe(t *testing.T) {
	r, w, err := os.Pipe()
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	defer w.Close()
	before, err := unix.FcntlInt(w.Fd(), unix.F_GETPIPE_SZ, 0)
	if err != nil {
		t.Fatal(err)
	}
	want := outputPipeSize
	if raw, err := os.ReadFile("/proc/sys/fs/pipe-max-size"); err == nil && os.Geteuid() != 0 {
		if most, err := strconv.Atoi(strings.TrimSpace(string(raw))); err == nil && most < want {
			want = before // the kernel refuses more than the most
		}
	}
	growPipe(w)
	if got, err := unix.FcntlInt(w.Fd(), unix.F_GETPIPE_SZ, 0); err != nil || got != want {
		t.Errorf("pipe size = %d (%v), want %d (it was %d)", got, err, want, before)
	}

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
