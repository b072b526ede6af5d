package gittest

import (
	"bytes"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"sort"
	"strings"
	"testing"
)

// Remove as the content of a file given to Commit removes the file.
const Remove = "\x00remove"

// Seed creates the bare repository name holding, on branch main, one
// commit of the files under src (nothing is copied: src is used as the
// work tree of that commit). It returns the repository's URL.
func (s *Server) Seed(t testing.TB, name, src string) string {
	t.Helper()
	bare := s.initBare(t, name)
	abs, err := filepath.Abs(src)
	if err != nil {
		t.Fatal(err)
	}
	index := filepath.Join(t.TempDir(), "index")
	env := []string{"GIT_DIR=" + bare, "GIT_WORK_TREE=" + abs, "GIT_INDEX_FILE=" + index}
	run(t, abs, env, "add", "-A", ".")
	run(t, abs, env, "commit", "-q", "--allow-empty", "-m", "Initial fleet")
	return s.URL(name)
}

// SeedFiles is Seed with the files given by name and content. It streams
// them to git fast-import, so a repository of many thousand files is
// made in a moment.
func (s *Server) SeedFiles(t testing.TB, name string, files map[string]string) string {
	t.Helper()
	bare := s.initBare(t, name)
	paths := make([]string, 0, len(files))
	for p := range files {
		paths = append(paths, p)
	}
	sort.Strings(paths)
	var stream bytes.Buffer
	const msg = "Initial fleet"
	fmt.Fprintf(&stream, "commit refs/heads/main\ncommitter Human <human@example.com> 1767225600 +0000\ndata %d\n%s\n", len(msg), msg)
	for _, p := range paths {
		fmt.Fprintf(&stream, "M 100644 inline %s\ndata %d\n%s\n", p, len(files[p]), files[p])
	}
	cmd := exec.Command("git", "fast-import", "--quiet")
	cmd.Dir = bare
	cmd.Env = gitEnv(bare)
	cmd.Stdin = &stream
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("git fast-import: %v\n%s", err, out)
	}
	return s.URL(name)
}

// initBare creates the bare repository name, on branch main, that
// accepts pushes over http too.
func (s *Server) initBare(t testing.TB, name string) string {
	t.Helper()
	bare := filepath.Join(s.dir, name)
	Git(t, s.dir, "init", "-q", "--bare", "-b", "main", bare)
	Git(t, bare, "config", "http.receivepack", "true")
	return bare
}

// Commit records a commit by "Human <human@example.com>" on branch of
// the repository name, changing files (Remove removes one) on top of the
// branch's tip, the way a push of that commit would: the branch moves
// only if nobody moved it meanwhile. It returns the new commit id. It
// works while the server is stopped.
func (s *Server) Commit(t testing.TB, name, branch string, files map[string]string, message string) string {
	t.Helper()
	bare := filepath.Join(s.dir, name)
	tmp := t.TempDir()
	// An empty work tree: update-index wants one, and reads nothing from it.
	env := []string{"GIT_DIR=" + bare, "GIT_INDEX_FILE=" + filepath.Join(tmp, "index"), "GIT_WORK_TREE=" + tmp}
	parent := run(t, bare, env, "rev-parse", "--verify", "refs/heads/"+branch)
	run(t, bare, env, "read-tree", parent)
	paths := make([]string, 0, len(files))
	for p := range files {
		paths = append(paths, p)
	}
	sort.Strings(paths)
	for _, p := range paths {
		if files[p] == Remove {
			run(t, bare, env, "update-index", "--force-remove", p)
			continue
		}
		blob := filepath.Join(tmp, "blob")
		if err := os.WriteFile(blob, []byte(files[p]), 0o644); err != nil {
			t.Fatal(err)
		}
		id := run(t, bare, env, "hash-object", "-w", blob)
		run(t, bare, env, "update-index", "--add", "--cacheinfo", "100644,"+id+","+p)
	}
	tree := run(t, bare, env, "write-tree")
	commit := run(t, bare, env, "commit-tree", tree, "-p", parent, "-m", message)
	run(t, bare, env, "update-ref", "refs/heads/"+branch, commit, parent)
	return commit
}

// Head is the commit id at the tip of branch in the repository name, or
// "" when the branch does not exist.
func (s *Server) Head(t testing.TB, name, branch string) string {
	t.Helper()
	out, err := git(filepath.Join(s.dir, name), nil, "rev-parse", "--verify", "-q", "refs/heads/"+branch)
	if err != nil {
		return ""
	}
	return strings.TrimSpace(out)
}

// Files returns the files under dir (slash-separated, relative to the
// repository root) at revision rev of the repository name, by path.
func (s *Server) Files(t testing.TB, name, rev, dir string) map[string]string {
	t.Helper()
	bare := filepath.Join(s.dir, name)
	out := map[string]string{}
	list := Git(t, bare, "ls-tree", "-r", "--name-only", "-z", rev, "--", dir)
	for _, p := range strings.Split(list, "\x00") {
		if p != "" {
			content, err := git(bare, nil, "cat-file", "blob", rev+":"+p)
			if err != nil {
				t.Fatalf("read %s at %s: %v", p, rev, err)
			}
			out[p] = content
		}
	}
	return out
}

// run runs git with extra environment variables; the test fails if git
// does.
func run(t testing.TB, dir string, env []string, args ...string) string {
	t.Helper()
	out, err := git(dir, env, args...)
	if err != nil {
		t.Fatalf("git %s: %v\n%s", strings.Join(args, " "), err, out)
	}
	return strings.TrimSpace(out)
}
