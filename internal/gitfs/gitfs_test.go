package gitfs_test

import (
	"errors"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"testing/fstest"

	git "github.com/go-git/go-git/v5"
	"github.com/go-git/go-git/v5/storage/memory"

	"github.com/siteops/siteops/internal/gitfs"
	"github.com/siteops/siteops/internal/safefs"
)

// gitRepo is a real repository made with the git command in a temporary
// directory.
type gitRepo struct {
	t   *testing.T
	dir string
}

func newRepo(t *testing.T) *gitRepo {
	t.Helper()
	r := &gitRepo{t: t, dir: t.TempDir()}
	r.git("init", "-q", "-b", "main")
	return r
}

func (r *gitRepo) git(args ...string) string {
	r.t.Helper()
	cmd := exec.Command("git", args...)
	cmd.Dir = r.dir
	cmd.Env = append(os.Environ(), "GIT_AUTHOR_NAME=t", "GIT_AUTHOR_EMAIL=t@example.net",
		"GIT_COMMITTER_NAME=t", "GIT_COMMITTER_EMAIL=t@example.net", "GIT_CONFIG_GLOBAL=/dev/null", "GIT_CONFIG_NOSYSTEM=1")
	out, err := cmd.CombinedOutput()
	if err != nil {
		r.t.Fatalf("git %v: %v\n%s", args, err, out)
	}
	return strings.TrimSpace(string(out))
}

// write writes files (path -> content; "" removes the file) and commits.
func (r *gitRepo) commit(msg string, files map[string]string) string {
	r.t.Helper()
	for p, content := range files {
		full := filepath.Join(r.dir, p)
		if content == "" {
			os.Remove(full)
			continue
		}
		if err := os.MkdirAll(filepath.Dir(full), 0o755); err != nil {
			r.t.Fatal(err)
		}
		if err := os.WriteFile(full, []byte(content), 0o644); err != nil {
			r.t.Fatal(err)
		}
	}
	r.git("add", "-A")
	r.git("commit", "-q", "--allow-empty", "-m", msg)
	return r.git("rev-parse", "HEAD")
}

func (r *gitRepo) symlink(target, link string) {
	r.t.Helper()
	if err := os.Symlink(target, filepath.Join(r.dir, link)); err != nil {
		r.t.Fatal(err)
	}
}

func TestFSOfCommits(t *testing.T) {
	r := newRepo(t)
	first := r.commit("first", map[string]string{
		"README.md":           "top\n",
		"fleet/a.yaml":        "a: 1\n",
		"fleet/sub/b.yaml":    "b: 1\n",
		"fleet/status/a.yaml": "phase: Installed\n",
		"other/outside.yaml":  "x\n",
		"fleet/notes.txt":     "n\n",
	})
	r.git("tag", "v1")
	r.git("tag", "-a", "-m", "annotated", "v1-annotated")
	second := r.commit("second", map[string]string{"fleet/a.yaml": "a: 2\n", "fleet/c.yaml": "c: 1\n", "fleet/sub/b.yaml": ""})
	r.git("update-ref", "refs/remotes/origin/main", first)

	repo, err := gitfs.Open(filepath.Join(r.dir, "fleet"))
	if err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		rev, commit string
		files       map[string]string
	}{
		{"HEAD", second, map[string]string{"a.yaml": "a: 2\n", "c.yaml": "c: 1\n"}},
		{"main", second, nil},
		{"HEAD~1", first, map[string]string{"a.yaml": "a: 1\n", "sub/b.yaml": "b: 1\n", "status/a.yaml": "phase: Installed\n"}},
		{"v1", first, nil},
		{"v1-annotated", first, nil},
		{"origin/main", first, nil},
		{first[:8], first, nil},
		{first, first, nil},
	} {
		t.Run(tc.rev, func(t *testing.T) {
			if got, err := repo.Resolve(tc.rev); err != nil || got != tc.commit {
				t.Fatalf("Resolve = %s, %v; want %s", got, err, tc.commit)
			}
			fsys, err := repo.FS(tc.rev)
			if err != nil {
				t.Fatal(err)
			}
			if fsys.Commit() != tc.commit {
				t.Errorf("Commit = %s", fsys.Commit())
			}
			if tc.files == nil {
				return
			}
			var names []string
			for name, want := range tc.files {
				names = append(names, name)
				got, err := fs.ReadFile(fsys, name)
				if err != nil || string(got) != want {
					t.Errorf("%s = %q, %v; want %q", name, got, err, want)
				}
			}
			// The FS behaves as the fs package says an FS must.
			if err := fstest.TestFS(fsys, names...); err != nil {
				t.Error(err)
			}
			// Rooted at fleet/: nothing above it is reachable.
			if _, err := fsys.Open("../README.md"); err == nil {
				t.Error("../README.md opened")
			}
			if _, err := fs.Stat(fsys, "README.md"); !errors.Is(err, fs.ErrNotExist) {
				t.Errorf("README.md of the repository's top: %v", err)
			}
		})
	}
	// A file removed since is gone from the new commit only.
	head, _ := repo.FS("HEAD")
	if _, err := fs.ReadFile(head, "sub/b.yaml"); !errors.Is(err, fs.ErrNotExist) {
		t.Errorf("removed file: %v", err)
	}
}

func TestResolveErrors(t *testing.T) {
	r := newRepo(t)
	r.commit("only", map[string]string{"a.yaml": "a\n"})
	repo, err := gitfs.Open(r.dir)
	if err != nil {
		t.Fatal(err)
	}
	for _, rev := range []string{"HEAD~5", "nosuchbranch", "0123456789abcdef0123456789abcdef01234567", ""} {
		if _, err := repo.FS(rev); err == nil {
			t.Errorf("%q resolved", rev)
		} else if rev != "" && !strings.Contains(err.Error(), "is not in the repository") {
			t.Errorf("%q: %v", rev, err)
		}
	}
	if _, err := gitfs.Open(t.TempDir()); err == nil || !strings.Contains(err.Error(), "not inside a Git repository") {
		t.Errorf("Open outside a repository: %v", err)
	}
}

func TestLimits(t *testing.T) {
	r := newRepo(t)
	r.commit("files", map[string]string{
		"fleet/big.yaml":    strings.Repeat("x", 2000),
		"fleet/small.yaml":  "s\n",
		"fleet/dir/d.yaml":  "d\n",
		"secret/creds.yaml": "password: x\n",
	})
	r.symlink("small.yaml", "fleet/link.yaml")
	r.symlink("dir", "fleet/dirlink")
	r.symlink("../secret/creds.yaml", "fleet/escape.yaml")
	r.symlink("/etc/passwd", "fleet/absolute.yaml")
	r.symlink("loop.yaml", "fleet/loop.yaml")
	r.commit("links", nil)
	repo, err := gitfs.Open(filepath.Join(r.dir, "fleet"))
	if err != nil {
		t.Fatal(err)
	}
	fsys, err := repo.FS("HEAD", gitfs.WithMaxFileSize(1000))
	if err != nil {
		t.Fatal(err)
	}
	if _, err := fs.ReadFile(fsys, "big.yaml"); err == nil || !strings.Contains(err.Error(), "over the 1000-byte limit") {
		t.Errorf("big file: %v", err)
	}
	if _, err := safefs.ReadFile(fsys, "big.yaml", 1000); err == nil {
		t.Error("safefs read a file over the limit")
	}
	for name, want := range map[string]string{"link.yaml": "s\n", "dirlink/d.yaml": "d\n"} {
		if got, err := fs.ReadFile(fsys, name); err != nil || string(got) != want {
			t.Errorf("%s = %q, %v", name, got, err)
		}
	}
	for _, name := range []string{"escape.yaml", "absolute.yaml"} {
		_, err := safefs.ReadFile(fsys, name, 1000)
		if !errors.Is(err, safefs.ErrEscape) {
			t.Errorf("%s: %v, want a path that escapes the root", name, err)
		}
	}
	if _, err := fs.ReadFile(fsys, "loop.yaml"); err == nil || !strings.Contains(err.Error(), "symbolic links") {
		t.Errorf("link loop: %v", err)
	}
	// Listing shows links as links.
	entries, err := fs.ReadDir(fsys, ".")
	if err != nil {
		t.Fatal(err)
	}
	for _, e := range entries {
		if e.Name() == "link.yaml" && e.Type() != fs.ModeSymlink {
			t.Errorf("link.yaml listed as %v", e.Type())
		}
	}
}

// TestPrefixMissingInOldCommit: a fleet directory that did not exist yet
// is an empty tree, not an error: every site of it is new.
func TestPrefixMissingInOldCommit(t *testing.T) {
	r := newRepo(t)
	r.commit("before", map[string]string{"README.md": "x\n"})
	r.commit("fleet", map[string]string{"fleet/a.yaml": "a\n"})
	repo, err := gitfs.Open(filepath.Join(r.dir, "fleet"))
	if err != nil {
		t.Fatal(err)
	}
	fsys, err := repo.FS("HEAD~1")
	if err != nil {
		t.Fatal(err)
	}
	entries, err := fs.ReadDir(fsys, ".")
	if err != nil || len(entries) != 0 {
		t.Errorf("entries %v, %v; want an empty directory", entries, err)
	}
}

// TestNew reads a repository cloned in memory, as the loop holds one.
func TestNew(t *testing.T) {
	r := newRepo(t)
	head := r.commit("one", map[string]string{"sites/a.yaml": "a\n"})
	mem, err := git.Clone(memory.NewStorage(), nil, &git.CloneOptions{URL: r.dir})
	if err != nil {
		t.Fatal(err)
	}
	fsys, err := gitfs.New(mem, "sites/").FS("origin/main")
	if err != nil {
		t.Fatal(err)
	}
	if got, err := fs.ReadFile(fsys, "a.yaml"); err != nil || string(got) != "a\n" || fsys.Commit() != head {
		t.Errorf("a.yaml = %q, %v at %s", got, err, fsys.Commit())
	}
}
