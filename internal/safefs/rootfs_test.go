package safefs

import (
	"os"
	"path/filepath"
	"testing"
	"testing/fstest"
)

func TestRootFSIsAFileSystem(t *testing.T) {
	dir := t.TempDir()
	for _, p := range []string{"a.yaml", "sites/b.yaml", "sites/deep/c.yaml"} {
		os.MkdirAll(filepath.Join(dir, filepath.Dir(p)), 0o755)
		if err := os.WriteFile(filepath.Join(dir, p), []byte(p), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	r := openRoot(t, dir)
	if err := fstest.TestFS(r.FS(), "a.yaml", "sites/b.yaml", "sites/deep/c.yaml"); err != nil {
		t.Fatal(err)
	}
}
