package gitfs

import (
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"
	"testing/fstest"

	"github.com/go-git/go-git/v5/plumbing"

	"github.com/siteops/siteops/internal/safefs"
)

func TestOpenFindsEnclosingRepository(t *testing.T) {
	dir := newRepo(t)
	writeFiles(t, dir, map[string]string{"fleet/sites/a.yaml": "a"})
	head := commitAll(t, dir, "first")
	bare := filepath.Join(t.TempDir(), "fleet.git")
	run(t, dir, "clone", "-q", "--bare", dir, bare)
	tests := []struct {
		name, open, wantDir string
	}{
		{"root", dir, "."},
		{"subdirectory", filepath.Join(dir, "fleet", "sites"), "fleet/sites"},
		{"bare repository", bare, "."},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r, err := Open(tt.open)
			if err != nil {
				t.Fatal(err)
			}
			defer r.Close()
			if r.Dir() != tt.wantDir {
				t.Errorf("Dir() = %q, want %q", r.Dir(), tt.wantDir)
			}
			if h, err := r.Resolve("main"); err != nil || h.String() != head {
				t.Errorf("Resolve(main) = %s, %v; want %s", h, err, head)
			}
		})
	}
}

func TestOpenOutsideRepository(t *testing.T) {
	_, err := Open(t.TempDir())
	if err == nil || !strings.Contains(err.Error(), "is not inside a Git repository") {
		t.Fatalf("err = %v, want one saying the directory is not inside a repository", err)
	}
}

func TestOpenLinkedWorktree(t *testing.T) {
	dir := newRepo(t)
	writeFiles(t, dir, map[string]string{"a.yaml": "a"})
	commitAll(t, dir, "first")
	wt := filepath.Join(t.TempDir(), "wt")
	run(t, dir, "worktree", "add", "-q", "-b", "feature", wt)
	writeFiles(t, wt, map[string]string{"b.yaml": "b"})
	commitAll(t, wt, "on feature")

	r, err := Open(wt)
	if err != nil {
		t.Fatal(err)
	}
	for _, rev := range []string{"main", "feature"} {
		if _, err := r.Resolve(rev); err != nil {
			t.Errorf("Resolve(%q) in a linked worktree: %v", rev, err)
		}
	}
}

func TestResolve(t *testing.T) {
	dir := newRepo(t)
	writeFiles(t, dir, map[string]string{"a.yaml": "one"})
	first := commitAll(t, dir, "first")
	run(t, dir, "tag", "light")
	run(t, dir, "tag", "-a", "-m", "annotated", "v1")
	writeFiles(t, dir, map[string]string{"a.yaml": "two"})
	second := commitAll(t, dir, "second")
	run(t, dir, "branch", "other", first)

	r, err := Open(dir)
	if err != nil {
		t.Fatal(err)
	}
	tests := []struct{ rev, want string }{
		{"main", second},
		{"HEAD", second},
		{"HEAD~1", first},
		{"main^", first},
		{"other", first},
		{"light", first},
		{"v1", first},
		{second, second},
		{second[:7], second},
	}
	for _, tt := range tests {
		t.Run(tt.rev, func(t *testing.T) {
			h, err := r.Resolve(tt.rev)
			if err != nil {
				t.Fatal(err)
			}
			if h.String() != tt.want {
				t.Errorf("Resolve(%q) = %s, want %s", tt.rev, h, tt.want)
			}
		})
	}
	_, err = r.Resolve("nope")
	if err == nil || !strings.Contains(err.Error(), `revision "nope" not found`) || !strings.Contains(err.Error(), "main, other") {
		t.Errorf("unknown revision: err = %v, want one naming it and listing the branches", err)
	}
}

// TestFSConformance runs the standard library's file-system checks on a
// commit's tree, with symlinks that stay inside it.
func TestFSConformance(t *testing.T) {
	dir := newRepo(t)
	writeFiles(t, dir, map[string]string{
		"README.md":                  "fleet",
		"sites/sno1/siteconfig.yaml": "kind: SiteConfig",
		"sites/sno1/extra/a.yaml":    "a",
		"sites/ha1/siteconfig.yaml":  "kind: SiteConfig\n",
		"sites/a-b/x.yaml":           "sorts before a/ in Git order",
		"sites/ha1/base.yaml":        "-> ../sno1/siteconfig.yaml",
		"sites/ha1/common":           "-> ../sno1/extra",
	})
	h := commitAll(t, dir, "first")
	r, err := Open(dir)
	if err != nil {
		t.Fatal(err)
	}
	fsys, err := r.FS(plumbing.NewHash(h))
	if err != nil {
		t.Fatal(err)
	}
	if err := fstest.TestFS(fsys, "README.md", "sites/sno1/siteconfig.yaml", "sites/ha1/base.yaml", "sites/a-b/x.yaml"); err != nil {
		t.Fatal(err)
	}
	got, err := fs.ReadFile(fsys, "sites/ha1/common/a.yaml")
	if err != nil || string(got) != "a" {
		t.Errorf("read through a directory symlink = %q, %v; want %q", got, err, "a")
	}
	if target, err := fsys.ReadLink("sites/ha1/base.yaml"); err != nil || target != "../sno1/siteconfig.yaml" {
		t.Errorf("ReadLink = %q, %v", target, err)
	}
	st, err := fsys.Lstat("sites/ha1/base.yaml")
	if err != nil || st.Mode()&fs.ModeSymlink == 0 {
		t.Errorf("Lstat of a symlink = %v, %v; want a symlink mode", st, err)
	}
}

func TestFSMatchesWorktree(t *testing.T) {
	dir := newRepo(t)
	files := map[string]string{
		"a.yaml":     "a",
		"x/b.yaml":   "bb",
		"x/y/c.yaml": "ccc",
	}
	writeFiles(t, dir, files)
	if err := os.Chmod(filepath.Join(dir, "x", "b.yaml"), 0o755); err != nil {
		t.Fatal(err)
	}
	h := commitAll(t, dir, "first")
	r, _ := Open(filepath.Join(dir, "x"))
	fsys, err := r.FS(plumbing.NewHash(h))
	if err != nil {
		t.Fatal(err)
	}
	sub, err := fsys.Sub(r.Dir())
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	err = fs.WalkDir(sub, ".", func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		data, err := fs.ReadFile(sub, p)
		got = append(got, p+"="+string(data))
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	want := []string{"b.yaml=bb", "y/c.yaml=ccc"}
	if !slices.Equal(got, want) {
		t.Errorf("files of the sub tree = %q, want %q", got, want)
	}
	st, err := fs.Stat(sub, "b.yaml")
	if err != nil || st.Mode().Perm()&0o100 == 0 || st.Size() != 2 {
		t.Errorf("Stat(b.yaml) = %v, %v; want an executable of 2 bytes", st, err)
	}
}

func TestFSRefusesWhatLeavesTheTree(t *testing.T) {
	dir := newRepo(t)
	writeFiles(t, dir, map[string]string{
		"fleet/site.yaml":     "x",
		"fleet/up.yaml":       "-> ../outside.yaml",
		"fleet/abs.yaml":      "-> /etc/passwd",
		"fleet/loop.yaml":     "-> loop.yaml",
		"fleet/big.yaml":      strings.Repeat("x", 11),
		"fleet/dir/in.yaml":   "-> ../site.yaml",
		"fleet/dirlink":       "-> ..",
		"outside.yaml":        "secret",
		"fleet/escape-by-dir": "-> dirlink/..",
	})
	h := commitAll(t, dir, "first")
	r, err := Open(dir, WithMaxFileSize(10))
	if err != nil {
		t.Fatal(err)
	}
	root, err := r.FS(plumbing.NewHash(h))
	if err != nil {
		t.Fatal(err)
	}
	fleet, err := root.Sub("fleet")
	if err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		name, path, want string
		escape           bool
	}{
		{"symlink up and out", "up.yaml", "leads outside the tree", true},
		{"absolute symlink", "abs.yaml", "absolute path", true},
		{"symlink loop", "loop.yaml", "too many levels of symbolic links", false},
		{"file over the size limit", "big.yaml", "big.yaml is 11 bytes, over the 10-byte limit", false},
		{"directory symlink out", "dirlink/outside.yaml", "leads outside the tree", true},
		{"missing", "none.yaml", "file does not exist", false},
		{"invalid path", "../outside.yaml", "invalid argument", false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := fs.ReadFile(fleet, tt.path)
			if err == nil || !strings.Contains(err.Error(), tt.want) {
				t.Fatalf("ReadFile(%s) err = %v, want it to contain %q", tt.path, err, tt.want)
			}
			if tt.escape != errors.Is(err, safefs.ErrEscape) {
				t.Errorf("errors.Is(err, safefs.ErrEscape) = %v, want %v", !tt.escape, tt.escape)
			}
		})
	}
	if data, err := fs.ReadFile(fleet, "dir/in.yaml"); err != nil || string(data) != "x" {
		t.Errorf("a symlink that stays inside: %q, %v", data, err)
	}
	if st, err := fs.Stat(fleet, "big.yaml"); err != nil || st.Size() != 11 {
		t.Errorf("Stat of a file over the limit = %v, %v; want its size", st, err)
	}
	// From the repository root, the same link stays inside.
	if data, err := fs.ReadFile(root, "fleet/up.yaml"); err != nil || string(data) != "secret" {
		t.Errorf("from the root: %q, %v", data, err)
	}
}

func TestSubmoduleIsIrregular(t *testing.T) {
	dir := newRepo(t)
	writeFiles(t, dir, map[string]string{"a.yaml": "a"})
	h := commitAll(t, dir, "first")
	run(t, dir, "update-index", "--add", "--cacheinfo", "160000,"+h+",vendor/mod")
	run(t, dir, "commit", "-q", "-m", "submodule")
	h = run(t, dir, "rev-parse", "HEAD")
	r, _ := Open(dir)
	fsys, err := r.FS(plumbing.NewHash(h))
	if err != nil {
		t.Fatal(err)
	}
	st, err := fs.Stat(fsys, "vendor/mod")
	if err != nil || st.Mode()&fs.ModeIrregular == 0 {
		t.Errorf("Stat(submodule) = %v, %v; want an irregular entry", st, err)
	}
	if _, err := fsys.Open("vendor/mod"); err == nil || !strings.Contains(err.Error(), "submodule") {
		t.Errorf("Open(submodule) err = %v, want one naming the submodule", err)
	}
}

func TestChanged(t *testing.T) {
	base := map[string]string{
		"keep.yaml":        "k",
		"edit.yaml":        "e1",
		"gone.yaml":        "g",
		"mode.sh":          "m",
		"dir/a.yaml":       "a",
		"dir/deep/b.yaml":  "b",
		"becomes-dir":      "file",
		"tree/x.yaml":      "x",
		"same/tree/y.yaml": "y",
	}
	dir := newRepo(t)
	writeFiles(t, dir, base)
	from := commitAll(t, dir, "base")

	writeFiles(t, dir, map[string]string{"edit.yaml": "e2", "new/n.yaml": "n"})
	must(t, os.Remove(filepath.Join(dir, "gone.yaml")))
	must(t, os.Chmod(filepath.Join(dir, "mode.sh"), 0o755))
	must(t, os.Rename(filepath.Join(dir, "dir"), filepath.Join(dir, "moved")))
	must(t, os.Remove(filepath.Join(dir, "becomes-dir")))
	writeFiles(t, dir, map[string]string{"becomes-dir/f.yaml": "f"})
	must(t, os.RemoveAll(filepath.Join(dir, "tree")))
	writeFiles(t, dir, map[string]string{"tree": "now a file"})
	to := commitAll(t, dir, "change")

	r, _ := Open(dir)
	tests := []struct {
		name     string
		from, to string
		skip     []string
		want     []string
	}{
		{"same commit", from, from, nil, nil},
		{"every kind of change", from, to, nil, []string{
			"becomes-dir", "becomes-dir/f.yaml", "dir/a.yaml", "dir/deep/b.yaml", "edit.yaml", "gone.yaml",
			"mode.sh", "moved/a.yaml", "moved/deep/b.yaml", "new/n.yaml", "tree", "tree/x.yaml",
		}},
		{"directories skipped, whether files or directories on either side", from, to, []string{"dir/deep", "becomes-dir", "tree", "new", "mov"}, []string{
			"dir/a.yaml", "edit.yaml", "gone.yaml", "mode.sh", "moved/a.yaml", "moved/deep/b.yaml",
		}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := r.Changed(plumbing.NewHash(tt.from), plumbing.NewHash(tt.to), tt.skip...)
			if err != nil {
				t.Fatal(err)
			}
			if !slices.Equal(got, tt.want) {
				t.Errorf("Changed =\n%q\nwant\n%q", got, tt.want)
			}
		})
	}
	back, err := r.Changed(plumbing.NewHash(to), plumbing.NewHash(from))
	if err != nil {
		t.Fatal(err)
	}
	if len(back) != len(tests[1].want) {
		t.Errorf("Changed backwards lists %d paths, want the same %d", len(back), len(tests[1].want))
	}
}

// TestConcurrentReads reads one tree from many goroutines while another
// goroutine resolves revisions (run with -race).
func TestConcurrentReads(t *testing.T) {
	dir := newRepo(t)
	files := map[string]string{}
	for i := range 50 {
		files[filepath.ToSlash(filepath.Join("sites", string(rune('a'+i%26)), strings.Repeat("f", i%5+1)+".yaml"))] = strings.Repeat("x", i)
	}
	writeFiles(t, dir, files)
	h := commitAll(t, dir, "first")
	r, _ := Open(dir)
	fsys, err := r.FS(plumbing.NewHash(h))
	if err != nil {
		t.Fatal(err)
	}
	var wg sync.WaitGroup
	errs := make(chan error, 100)
	for range 4 {
		wg.Go(func() {
			for p, want := range files {
				data, err := fsys.ReadFile(p)
				if err != nil || string(data) != want {
					errs <- errors.Join(err, errors.New(p+": wrong content"))
					return
				}
			}
		})
	}
	wg.Go(func() {
		for range 50 {
			if _, err := r.Resolve("HEAD"); err != nil {
				errs <- err
				return
			}
		}
	})
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Error(err)
	}
}

func must(t testing.TB, err error) {
	t.Helper()
	if err != nil {
		t.Fatal(err)
	}
}
