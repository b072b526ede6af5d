package safefs

import (
	"os"
	"path/filepath"
	"testing"
)

func TestWriteFileAtomic(t *testing.T) {
	dir := t.TempDir()
	name := filepath.Join(dir, "out.yaml")
	for _, content := range []string{"first\n", "second, longer\n"} {
		if err := WriteFileAtomic(name, []byte(content)); err != nil {
			t.Fatal(err)
		}
		got, err := os.ReadFile(name)
		if err != nil || string(got) != content {
			t.Fatalf("read %q, %v; want %q", got, err, content)
		}
	}
	st, err := os.Stat(name)
	if err != nil || st.Mode().Perm() != 0o644 {
		t.Errorf("mode %v (%v), want 0644", st.Mode().Perm(), err)
	}
	entries, _ := os.ReadDir(dir)
	if len(entries) != 1 {
		t.Errorf("directory holds %d entries, want only the file (no temporary left)", len(entries))
	}
	if err := WriteFileAtomic(filepath.Join(dir, "missing", "x"), nil); err == nil {
		t.Error("writing into a missing directory succeeded")
	}
}

func TestWriteAtomicStaysInsideRoot(t *testing.T) {
	dir, outside := t.TempDir(), t.TempDir()
	if err := os.Symlink(outside, filepath.Join(dir, "out")); err != nil {
		t.Fatal(err)
	}
	root, err := os.OpenRoot(dir)
	if err != nil {
		t.Fatal(err)
	}
	defer root.Close()
	if err := WriteAtomic(root, "out/x", []byte("x")); err == nil {
		t.Error("wrote through a symlink that leads out of the root")
	}
	if entries, _ := os.ReadDir(outside); len(entries) != 0 {
		t.Errorf("%d files written outside the root", len(entries))
	}
	if err := WriteAtomic(root, "in.txt", []byte("in")); err != nil {
		t.Fatal(err)
	}
}

// An AtomicFile is seen under its name only once committed, whole; an
// aborted one leaves nothing behind.
func TestAtomicFile(t *testing.T) {
	dir := t.TempDir()
	root, f := createAtomicIn(t, dir)
	for _, part := range []string{"one ", "two"} {
		if _, err := f.Write([]byte(part)); err != nil {
			t.Fatal(err)
		}
	}
	if _, err := os.Stat(filepath.Join(dir, "named")); !os.IsNotExist(err) {
		t.Fatalf("the file has its name before Commit: %v", err)
	}
	if err := f.Commit("named"); err != nil {
		t.Fatal(err)
	}
	if got, err := os.ReadFile(filepath.Join(dir, "named")); err != nil || string(got) != "one two" {
		t.Errorf("committed file = %q, %v", got, err)
	}

	g, err := CreateAtomic(root, "tmp_")
	if err != nil {
		t.Fatal(err)
	}
	g.Write([]byte("dropped"))
	g.Abort()
	if left, _ := filepath.Glob(filepath.Join(dir, "tmp_*")); len(left) > 0 {
		t.Errorf("temporary files left: %v", left)
	}
}

// A Commit that cannot rename (the name is a directory that is not
// empty) fails and leaves no temporary file.
func TestAtomicFileCommitFails(t *testing.T) {
	dir := t.TempDir()
	if err := os.MkdirAll(filepath.Join(dir, "taken", "inside"), 0o755); err != nil {
		t.Fatal(err)
	}
	_, f := createAtomicIn(t, dir)
	f.Write([]byte("data"))
	if err := f.Commit("taken"); err == nil {
		t.Fatal("Commit onto a directory that is not empty succeeded")
	}
	if left, _ := filepath.Glob(filepath.Join(dir, "tmp_*")); len(left) > 0 {
		t.Errorf("temporary files left: %v", left)
	}
}

// createAtomicIn opens dir as a root, closed when the test ends, and
// creates an AtomicFile in it.
func createAtomicIn(t *testing.T, dir string) (*os.Root, *AtomicFile) {
	t.Helper()
	root, err := os.OpenRoot(dir)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { root.Close() })
	f, err := CreateAtomic(root, "tmp_")
	if err != nil {
		t.Fatal(err)
	}
	return root, f
}
