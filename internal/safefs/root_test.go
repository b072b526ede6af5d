//go:build unix

package safefs

import (
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
)

// openRoot opens dir as a Root, closed when the test ends.
func openRoot(t *testing.T, dir string) *Root {
	t.Helper()
	r, err := OpenRoot(dir)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { r.Close() })
	return r
}

// rootTree makes a directory with files, a subdirectory, and symlinks
// that stay inside it, leave it, point at an absolute path (inside it
// and out) or loop; next to it, a file the links try to reach.
func rootTree(t *testing.T) string {
	t.Helper()
	base := t.TempDir()
	dir := filepath.Join(base, "fleet")
	for p, data := range map[string]string{
		"fleet/site.yaml":         "a: 1\n",
		"fleet/sites/b.yaml":      "b: 2\n",
		"fleet/sites/deep/c.yaml": "c: 3\n",
		"secret":                  "outside\n",
	} {
		p = filepath.Join(base, p)
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(data), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	for name, target := range map[string]string{
		"link-in":        "sites/b.yaml",
		"sites/up":       "../site.yaml",
		"link-dir":       "sites/deep",
		"link-out":       "../secret",
		"link-abs-in":    filepath.Join(dir, "site.yaml"),
		"link-abs-out":   filepath.Join(base, "secret"),
		"link-proc":      "/proc/self/root/etc/hostname",
		"loop-a":         "loop-b",
		"loop-b":         "loop-a",
		"sites/dangling": "nowhere.yaml",
		// The same escapes one directory down, where the fast path
		// looks them up (a name in the root goes to os.Root).
		"sites/link-out":     "../../secret",
		"sites/link-abs-out": filepath.Join(base, "secret"),
		"sites/link-proc":    "/proc/self/root/etc/hostname",
		"sites/link-dir-out": "../..",
	} {
		if err := os.Symlink(target, filepath.Join(dir, name)); err != nil {
			t.Fatal(err)
		}
	}
	if err := syscall.Mkfifo(filepath.Join(dir, "fifo"), 0o644); err != nil {
		t.Fatal(err)
	}
	return dir
}

// What the fast file system reads, and what it refuses with which error,
// is what os.Root's reads and refuses, name by name.
func TestRootFSMatchesOSRoot(t *testing.T) {
	want, got := openBoth(t, rootTree(t))
	wfs, gfs := want.FS().(osRootFS), got.FS().(osRootFS)
	names := []string{
		".", "site.yaml", "sites", "sites/b.yaml", "sites/deep", "sites/deep/c.yaml", "sites/up", "sites/dangling",
		"link-in", "link-dir", "link-dir/c.yaml", "link-out", "link-abs-in", "link-abs-out", "link-proc", "loop-a",
		"sites/link-out", "sites/link-abs-out", "sites/link-proc", "sites/link-dir-out/secret", "sites/deep/../b.yaml",
		"missing", "sites/missing/x", "site.yaml/x", "", "/site.yaml", "sites/../site.yaml", "./site.yaml", "sites/", `sites\b.yaml`,
	}
	describe := func(fi fs.FileInfo, err error) string {
		if err != nil {
			return "error " + err.Error()
		}
		return fmt.Sprintf("%s %v %d", fi.Name(), fi.Mode(), fi.Size())
	}
	for _, name := range append(names, "fifo") {
		if w, g := describe(wfs.Stat(name)), describe(gfs.Stat(name)); w != g {
			t.Errorf("Stat(%q) = %s, want %s", name, g, w)
		}
		if w, g := describe(wfs.Lstat(name)), describe(gfs.Lstat(name)); w != g {
			t.Errorf("Lstat(%q) = %s, want %s", name, g, w)
		}
	}
	for _, name := range names {
		wd, werr := wfs.ReadFile(name)
		gd, gerr := gfs.ReadFile(name)
		if fmt.Sprint(werr) != fmt.Sprint(gerr) || string(wd) != string(gd) {
			t.Errorf("ReadFile(%q) = %q, %v; want %q, %v", name, gd, gerr, wd, werr)
		}
		wl, werr := wfs.ReadDir(name)
		gl, gerr := gfs.ReadDir(name)
		entries := func(l []fs.DirEntry) string {
			var b strings.Builder
			for _, e := range l {
				fmt.Fprintf(&b, "%s %v: %s; ", e.Name(), e.Type(), describe(e.Info()))
			}
			return b.String()
		}
		if fmt.Sprint(werr) != fmt.Sprint(gerr) || entries(wl) != entries(gl) {
			t.Errorf("ReadDir(%q) = %s, %v; want %s, %v", name, entries(gl), gerr, entries(wl), werr)
		}
		wf, werr := wfs.Open(name)
		gf, gerr := gfs.Open(name)
		if fmt.Sprint(werr) != fmt.Sprint(gerr) {
			t.Errorf("Open(%q): error %v, want %v", name, gerr, werr)
		}
		if wf != nil && gf != nil {
			wn, gn := wf.(*os.File).Name(), gf.(*os.File).Name()
			if wn != gn || describe(wf.Stat()) != describe(gf.Stat()) {
				t.Errorf("Open(%q) = %s (%s), want %s (%s)", name, gn, describe(gf.Stat()), wn, describe(wf.Stat()))
			}
		}
		for _, f := range []fs.File{wf, gf} {
			if f != nil {
				f.Close()
			}
		}
	}
	// This package's ReadFile takes a path of its own through the fast
	// root; the named pipe is refused by both without being opened.
	for _, name := range append(names, "fifo") {
		for _, max := range []int64{1 << 20, 4, 5, 0} { // the files hold 5 bytes
			wd, werr := ReadFile(wfs, name, max)
			gd, gerr := ReadFile(gfs, name, max)
			if fmt.Sprint(werr) != fmt.Sprint(gerr) || string(wd) != string(gd) {
				t.Errorf("safefs.ReadFile(%q, %d) = %q, %v; want %q, %v", name, max, gd, gerr, wd, werr)
			}
		}
	}
}

// openBoth opens dir as an os.Root and as a Root, both closed when the
// test ends.
func openBoth(t *testing.T, dir string) (*os.Root, *Root) {
	t.Helper()
	want, err := os.OpenRoot(dir)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { want.Close() })
	got, err := OpenRoot(dir)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { got.Close() })
	return want, got
}
