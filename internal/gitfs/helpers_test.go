package gitfs

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/siteops/siteops/internal/gittest"
)

// run runs the git command line in dir, isolated from the user's
// configuration.
var run = gittest.Git

// newRepo makes a repository on branch main in a temporary directory.
func newRepo(t testing.TB) string {
	t.Helper()
	dir := t.TempDir()
	run(t, dir, "init", "-q", "-b", "main")
	return dir
}

// writeFiles writes files (slash-separated paths) under dir; a value
// starting with "-> " makes a symlink to the rest.
func writeFiles(t testing.TB, dir string, files map[string]string) {
	t.Helper()
	plain := map[string]string{}
	for name, content := range files {
		target, ok := strings.CutPrefix(content, "-> ")
		if !ok {
			plain[name] = content
			continue
		}
		p := filepath.Join(dir, filepath.FromSlash(name))
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.Symlink(target, p); err != nil {
			t.Fatal(err)
		}
	}
	gittest.WriteFiles(t, dir, plain)
}

// commitAll commits everything in dir and returns the commit id.
func commitAll(t testing.TB, dir, msg string) string {
	t.Helper()
	run(t, dir, "add", "-A")
	run(t, dir, "commit", "-q", "--allow-empty", "-m", msg)
	return run(t, dir, "rev-parse", "HEAD")
}
