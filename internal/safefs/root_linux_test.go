package safefs

import (
	"encoding/binary"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"golang.org/x/sys/unix"
)

// Where the kernel has openat2, the fast path is on, and it refuses by
// itself every lookup that leaves the root (os.Root then gives the
// error); directories are left to os.Root.
func TestFastRootRefusesEscapes(t *testing.T) {
	dir := rootTree(t)
	r := openRoot(t, dir)
	d, err := os.Open(dir)
	if err != nil {
		t.Fatal(err)
	}
	defer d.Close()
	fd, probe := unix.Openat2(int(d.Fd()), ".", &unix.OpenHow{Flags: unix.O_PATH | unix.O_CLOEXEC, Resolve: unix.RESOLVE_BENEATH})
	if probe == nil {
		unix.Close(fd)
	}
	if (probe == nil) != (r.fast != nil) {
		t.Fatalf("openat2 here: %v; fast path on: %v", probe, r.fast != nil)
	}
	if r.fast == nil {
		return // os.Root answers every lookup, as TestRootFSMatchesOSRoot checks
	}
	for name, want := range map[string]bool{
		"sites/b.yaml": true, "sites/up": true, "link-dir/c.yaml": true, "sites/deep/c.yaml": true,
		"sites/link-out": false, "sites/link-abs-out": false, "sites/link-proc": false, "sites/link-dir-out/secret": false,
		"sites/deep": false, "sites/missing": false, "sites/../site.yaml": false,
		// A name in the root itself is os.Root's: one call there too.
		"site.yaml": false, "link-in": false, "link-out": false, ".": false,
	} {
		f, ok := r.fast.open(name)
		if ok != want {
			t.Errorf("fast open of %q: %v, want %v", name, ok, want)
		}
		if f != nil {
			f.Close()
		}
		if _, ok := r.fast.stat(name, false); want && !ok {
			t.Errorf("fast stat of %q refused", name)
		}
	}
	for _, name := range []string{"sites/link-out", "sites/link-abs-out", "sites/link-proc"} {
		if _, ok := r.fast.stat(name, false); ok {
			t.Errorf("fast stat of %q followed the link out of the root", name)
		}
		if _, ok := r.fast.stat(name, true); !ok {
			t.Errorf("fast lstat of the link %q refused", name)
		}
	}
}

// The fast read takes a regular file inside the root, in the root itself
// too, whole; it leaves everything else to the slow path (which gives
// the error): escapes, directories, named pipes, files over the limit.
func TestFastReadFile(t *testing.T) {
	dir := rootTree(t)
	big := strings.Repeat("0123456789abcdef", 40000) // 640 KB
	if err := os.WriteFile(filepath.Join(dir, "sites", "big.yaml"), []byte(big), 0o644); err != nil {
		t.Fatal(err)
	}
	r := openRoot(t, dir)
	if r.fast == nil {
		t.Skip("no openat2 here: os.Root reads every file, as TestRootFSMatchesOSRoot checks")
	}
	for _, tt := range []struct {
		name string
		max  int64
		want string // "" for left to the slow path
	}{
		{"site.yaml", 1 << 20, "a: 1\n"},
		{"site.yaml", 5, "a: 1\n"},
		{"site.yaml", 4, ""},
		{"sites/b.yaml", 1 << 20, "b: 2\n"},
		{"link-in", 1 << 20, "b: 2\n"},
		{"sites/up", 1 << 20, "a: 1\n"},
		{"sites/big.yaml", 1 << 20, big},
		{"sites/big.yaml", int64(len(big)), big},
		{"sites/big.yaml", int64(len(big)) - 1, ""},
		{"link-out", 1 << 20, ""},
		{"sites/link-out", 1 << 20, ""},
		{"link-proc", 1 << 20, ""},
		{"sites", 1 << 20, ""},
		{"fifo", 1 << 20, ""},
		{"missing", 1 << 20, ""},
		{"../secret", 1 << 20, ""},
		{"/site.yaml", 1 << 20, ""},
	} {
		got, ok := r.fast.readFile(tt.name, tt.max)
		if ok != (tt.want != "") || string(got) != tt.want {
			t.Errorf("fast read of %q (limit %d) = %d bytes, %v; want %d bytes", tt.name, tt.max, len(got), ok, len(tt.want))
		}
		// A file read as listed, opened before it is described, is
		// taken or left alike; the named pipe is opened without
		// waiting for a writer.
		got, ok = r.fast.readListed(tt.name, tt.max)
		if ok != (tt.want != "") || string(got) != tt.want {
			t.Errorf("fast read of the listed %q (limit %d) = %d bytes, %v; want %d bytes", tt.name, tt.max, len(got), ok, len(tt.want))
		}
	}
}

// ReadListedFile gives what ReadFile gives, errors included, for a name
// that is a regular file as for one that is no longer.
func TestReadListedFileMatchesReadFile(t *testing.T) {
	dir := rootTree(t)
	r := openRoot(t, dir)
	for _, name := range []string{"site.yaml", "sites/b.yaml", "sites/up", "sites/link-out", "sites/link-proc", "fifo", "sites", "missing", "../secret"} {
		for _, max := range []int64{1 << 20, 4} {
			want, wantErr := ReadFile(r.FS(), name, max)
			got, err := ReadListedFile(r.FS(), name, max)
			if string(got) != string(want) || fmt.Sprint(err) != fmt.Sprint(wantErr) {
				t.Errorf("ReadListedFile(%q, %d) = %q, %v; ReadFile gives %q, %v", name, max, got, err, want, wantErr)
			}
		}
	}
}

// The read loop takes a file whole whatever size it was described with
// (a file can grow or shrink after its stat), up to the limit exactly,
// and refuses one byte more.
func TestReadFDGrowsToTheLimit(t *testing.T) {
	content := strings.Repeat("0123456789abcdef", 4096) // 64 KiB, many of the first buffer
	p := filepath.Join(t.TempDir(), "f")
	if err := os.WriteFile(p, []byte(content), 0o644); err != nil {
		t.Fatal(err)
	}
	n := int64(len(content))
	for _, tt := range []struct {
		size, most int64
		ok         bool
	}{
		{n, n, true},
		{0, n, true},     // described empty: grown since
		{100, n, true},   // grown past the first buffer
		{2 * n, n, true}, // shrunk since
		{0, n + 1, true},
		{0, n - 1, false}, // one byte over the limit, found while reading
		{n, n - 1, false},
		{0, 0, false},
	} {
		fd, err := unix.Open(p, unix.O_RDONLY|unix.O_CLOEXEC, 0)
		if err != nil {
			t.Fatal(err)
		}
		got, ok := readFD(fd, tt.size, tt.most)
		unix.Close(fd)
		if ok != tt.ok || ok && string(got) != content {
			t.Errorf("readFD(size %d, most %d) = %d bytes, %v; want %v", tt.size, tt.most, len(got), ok, tt.ok)
		}
	}
}

// A read that returns exactly the size described is the whole file: the
// read that would return end of file is not made. A pipe whose writer
// stays open shows it, since that read would wait forever; a pipe holding
// other than the size described is read on, to its end.
func TestReadFDStopsAtTheSizeDescribed(t *testing.T) {
	for _, tt := range []struct {
		name          string
		size, written int64
		wantEOFRead   bool
	}{
		{"exactly the size", 5, 5, false},
		{"less than the size", 9, 5, true},
		{"more than the size", 3, 5, true},
		{"described empty", 0, 5, true},
	} {
		t.Run(tt.name, func(t *testing.T) {
			var p [2]int
			if err := unix.Pipe2(p[:], unix.O_CLOEXEC); err != nil {
				t.Fatal(err)
			}
			defer unix.Close(p[0])
			closeWriter := sync.OnceFunc(func() { unix.Close(p[1]) })
			defer closeWriter()
			if _, err := unix.Write(p[1], []byte("abcde")[:tt.written]); err != nil {
				t.Fatal(err)
			}
			done := make(chan []byte, 1)
			go func() {
				got, _ := readFD(p[0], tt.size, 1<<20)
				done <- got
			}()
			select {
			case got := <-done:
				if tt.wantEOFRead {
					t.Fatalf("readFD returned %q before the end of the pipe", got)
				}
				if string(got) != "abcde" {
					t.Fatalf("readFD = %q, want %q", got, "abcde")
				}
			case <-time.After(200 * time.Millisecond):
				if !tt.wantEOFRead {
					t.Fatal("readFD waits for the end of a pipe that holds the size described")
				}
				closeWriter()
				if got := <-done; string(got) != "abcde" {
					t.Fatalf("readFD = %q, want %q", got, "abcde")
				}
			}
		})
	}
}

// A directory of thousands of entries, more than one getdents call
// returns, lists as os.Root lists it: every name, in order, each with
// its type and what Info says of it. And the listing is the fast one:
// the root's own directory and one below it.
func TestFastReadDirMatchesOSRoot(t *testing.T) {
	dir := rootTree(t)
	many := filepath.Join(dir, "sites", "many")
	if err := os.Mkdir(many, 0o755); err != nil {
		t.Fatal(err)
	}
	for i := range 3000 {
		var err error
		name := filepath.Join(many, fmt.Sprintf("site-%04d-%s.yaml", 2999-i, strings.Repeat("x", i%40)))
		switch i % 5 {
		case 0:
			err = os.Mkdir(name, 0o755)
		case 1:
			err = os.Symlink("../b.yaml", name)
		default:
			err = os.WriteFile(name, []byte(strings.Repeat("y", i)), 0o644)
		}
		if err != nil {
			t.Fatal(err)
		}
	}
	want, got := openBoth(t, dir)
	if got.fast == nil {
		t.Skip("no openat2 here: os.Root lists every directory, as TestRootFSMatchesOSRoot checks")
	}
	gfs := got.FS().(*rootFS)
	for _, name := range []string{".", "sites", "sites/many", "link-dir"} {
		if _, ok := gfs.fast.readDir(name, gfs.Lstat); !ok {
			t.Errorf("fast listing of %q refused", name)
		}
		wl, werr := fs.ReadDir(want.FS(), name)
		gl, gerr := fs.ReadDir(gfs, name)
		if werr != nil || gerr != nil {
			t.Fatalf("ReadDir(%q): %v, want %v", name, gerr, werr)
		}
		if len(gl) != len(wl) {
			t.Fatalf("ReadDir(%q): %d entries, want %d", name, len(gl), len(wl))
		}
		for i := range wl {
			w, g := describeEntry(wl[i]), describeEntry(gl[i])
			if w != g {
				t.Errorf("ReadDir(%q)[%d] = %s, want %s", name, i, g, w)
			}
		}
	}
	// A named pipe, a file, a missing name and an escape are not listed
	// here: os.Root gives the error.
	for _, name := range []string{"fifo", "site.yaml", "missing", "sites/link-dir-out", "../fleet", "/"} {
		if _, ok := gfs.fast.readDir(name, gfs.Lstat); ok {
			t.Errorf("fast listing of %q was not refused", name)
		}
	}
}

func describeEntry(e fs.DirEntry) string {
	fi, err := e.Info()
	if err != nil {
		return fmt.Sprintf("%s %v %v: %v", e.Name(), e.IsDir(), e.Type(), err)
	}
	return fmt.Sprintf("%s %v %v: %s %v %d %v", e.Name(), e.IsDir(), e.Type(), fi.Name(), fi.Mode(), fi.Size(), fi.ModTime())
}

// Records the kernel writes are read whole; a record cut short, or an
// entry whose type the file system left unknown, sends the listing to
// os.Root.
func TestAppendDirents(t *testing.T) {
	record := func(name string, typ byte, pad int) []byte {
		n := direntName + len(name) + 1 + pad
		rec := make([]byte, n)
		binary.NativeEndian.PutUint64(rec, 42)
		binary.NativeEndian.PutUint16(rec[direntReclen:], uint16(n))
		rec[direntType] = typ
		copy(rec[direntName:], name)
		return rec
	}
	lstat := func(string) (fs.FileInfo, error) { return nil, fs.ErrNotExist }
	buf := slices.Concat(record(".", unix.DT_DIR, 4), record("..", unix.DT_DIR, 3), record("a.yaml", unix.DT_REG, 0),
		record("d", unix.DT_DIR, 6), record("l", unix.DT_LNK, 0), record("p", unix.DT_FIFO, 2), record("s", unix.DT_SOCK, 0),
		record("c", unix.DT_CHR, 0), record("b", unix.DT_BLK, 1))
	got, ok := appendDirents(nil, buf, &listing{dir: "sites", lstat: lstat})
	if !ok {
		t.Fatal("well-formed records refused")
	}
	var names []string
	for _, e := range got {
		names = append(names, fmt.Sprintf("%s %v", e.Name(), e.Type()))
	}
	if w, g := "a.yaml ----------; d d---------; l L---------; p p---------; s S---------; c Dc---------; b D---------", strings.Join(names, "; "); g != w {
		t.Errorf("entries %s, want %s", g, w)
	}
	for what, bad := range map[string][]byte{
		"unknown type":      record("u", unix.DT_UNKNOWN, 0),
		"cut in the header": record("a.yaml", unix.DT_REG, 0)[:direntName-1],
		"cut in the name":   record("a.yaml", unix.DT_REG, 0)[:direntName+2],
		"zero length":       make([]byte, direntName+8),
	} {
		if _, ok := appendDirents(nil, slices.Concat(record("a.yaml", unix.DT_REG, 0), bad), &listing{dir: "sites", lstat: lstat}); ok {
			t.Errorf("%s: accepted", what)
		}
	}
}
