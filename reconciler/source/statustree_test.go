package source

import (
	"context"
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/siteops/siteops/internal/gittest"
)

// TestGitStatusIncrementalTree writes random sequences of status changes
// (new sites, changed and removed ones, files that become directories
// and the reverse, nested files, a person's edit of the status directory
// in between) through one StatusFiles, so that each write hashes and
// sends only what changed, and holds every status tree pushed to the one
// git itself makes of the same files from scratch, and the rest of the
// repository to what it was.
func TestGitStatusIncrementalTree(t *testing.T) {
	tests := []struct {
		name         string
		statusDir    string
		statusBranch string
		seed         uint64
	}{
		{"status on the source branch", "", "", 1},
		{"nested status directory", ".siteops/status", "", 2},
		{"status branch of its own", "", "status", 3},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			srv, url := servers[0].url(t)
			g := newTestGit(t, GitOptions{URL: url, StatusDir: tt.statusDir, StatusBranch: tt.statusBranch})
			mustNext(t, g)
			branch := g.o.StatusBranch
			sites := srv.Files(t, "fleet.git", "main", "sites")
			rng := rand.New(rand.NewPCG(tt.seed, 0))
			files := NewStatusFiles()
			want := map[string]string{}
			for step := range 26 {
				change := randomChange(rng, want, step)
				if step%13 == 12 {
					// A person edits the status directory: the next write
					// compares with what the branch holds, not with what
					// it wrote last.
					srv.Commit(t, "fleet.git", branch, map[string]string{g.o.StatusDir + "/by-hand.yaml": fmt.Sprintf("step %d\n", step)}, "status by hand")
				}
				for p, v := range change {
					if v == gittest.Remove {
						files.Delete(p)
						delete(want, p)
					} else {
						files.Set(p, []byte(v))
						want[p] = v
					}
				}
				if _, err := g.WriteStatus(context.Background(), files, fmt.Sprintf("Status %d", step)); err != nil {
					t.Fatalf("step %d: %v", step, err)
				}
				repo := filepath.Join(srv.Dir(), "fleet.git")
				got := gittest.Git(t, repo, "rev-parse", "--verify", "-q", branch+"^{tree}")
				if len(want) == 0 {
					if out := gittest.Git(t, repo, "ls-tree", "--name-only", got); strings.Contains(out, strings.Split(g.o.StatusDir, "/")[0]) {
						t.Fatalf("step %d: the status directory is still there: %q", step, out)
					}
				} else if status, ref := gittest.Git(t, repo, "rev-parse", branch+":"+g.o.StatusDir), referenceTree(t, want); status != ref {
					t.Fatalf("step %d: status tree %s, git makes %s of the same files (%d files)", step, status, ref, len(want))
				}
				if got := srv.Files(t, "fleet.git", branch, "sites"); len(got) != len(sites) {
					t.Fatalf("step %d: the sites changed: %q", step, got)
				}
			}
			// The server takes the pushed objects as a whole repository.
			gittest.Git(t, filepath.Join(srv.Dir(), "fleet.git"), "fsck", "--strict", "--no-dangling")
		})
	}
}

// randomChange changes a few of the files of want: new ones, changed
// ones, removed ones, now and then a file that becomes a directory or
// the reverse, and at times everything.
func randomChange(rng *rand.Rand, want map[string]string, step int) map[string]string {
	change := map[string]string{}
	names := make([]string, 0, len(want))
	for p := range want {
		if !strings.HasPrefix(p, "dir-or-file") {
			names = append(names, p)
		}
	}
	switch {
	case step == 0:
		for i := range 300 {
			change[fmt.Sprintf("site-%03d.yaml", i)] = fmt.Sprintf("site: %d\nphase: Pending\n", i)
		}
		change["README.md"] = "# Fleet status\n"
		change["hosts/h1.yaml"] = "h1\n"
	case step%11 == 10:
		for _, p := range names {
			change[p] = gittest.Remove
		}
	case step%7 == 6:
		if _, ok := want["dir-or-file"]; ok {
			change["dir-or-file"] = gittest.Remove
			change["dir-or-file/inside.yaml"] = "inside\n"
		} else {
			change["dir-or-file/inside.yaml"] = gittest.Remove
			change["dir-or-file"] = "a file again\n"
		}
	}
	for range 1 + rng.IntN(6) {
		switch k := rng.IntN(10); {
		case k < 4 && len(names) > 0:
			p := names[rng.IntN(len(names))]
			change[p] = fmt.Sprintf("%s changed at %d\n", p, step)
		case k < 6 && len(names) > 0:
			change[names[rng.IntN(len(names))]] = gittest.Remove
		case k < 8:
			change[fmt.Sprintf("site-%03d.yaml", 300+rng.IntN(100))] = fmt.Sprintf("new at %d\n", step)
		default:
			change[fmt.Sprintf("hosts/h%d.yaml", rng.IntN(5))] = fmt.Sprintf("host at %d\n", step)
		}
	}
	return change
}

// referenceTree is the tree git itself makes of files, written from
// scratch.
func referenceTree(t *testing.T, files map[string]string) string {
	t.Helper()
	dir := t.TempDir()
	gittest.Git(t, dir, "init", "-q")
	gittest.WriteFiles(t, dir, files)
	if err := os.WriteFile(filepath.Join(dir, ".git", "info", "exclude"), nil, 0o644); err != nil {
		t.Fatal(err)
	}
	gittest.Git(t, dir, "add", "-A")
	return gittest.Git(t, dir, "write-tree")
}

// TestGitStatusPushesTreesAsDeltas writes a one-file change of a status
// directory of 300 files, on a fleet whose 200 site files sit at the
// root, through every transport: the pack pushed holds both large trees
// as deltas on their previous versions, and the server takes them.
func TestGitStatusPushesTreesAsDeltas(t *testing.T) {
	for _, tt := range servers {
		t.Run(tt.name, func(t *testing.T) {
			srv, url := tt.url(t)
			for step, n := range pushOneFileChanges(t, srv, url) {
				// Whole, the status tree is 300 entries of 43 bytes and
				// the root 200 of 42: 21 KB.
				// Zero is what a push through go-git's fallback logs.
				if step > 0 && (n <= 0 || n > 1024) {
					t.Errorf("step %d: pushed %d bytes for one file changed", step, n)
				}
			}
		})
	}
}

// pushOneFileChanges writes a status directory of 300 files on a fleet
// with 200 site files at the root, then changes one file at a time,
// checking each pushed tree against git's and the server with git fsck.
// It returns the size of each pack pushed.
func pushOneFileChanges(t *testing.T, srv *gittest.Server, url string) []int {
	t.Helper()
	root := map[string]string{}
	for i := range 200 {
		root[fmt.Sprintf("site-%03d.yaml", i)] = fmt.Sprintf("name: site-%03d\n", i)
	}
	srv.Commit(t, "fleet.git", "main", root, "a fleet of files at the root")
	g := newTestGit(t, GitOptions{URL: url})
	mustNext(t, g)
	files := NewStatusFiles()
	want := map[string]string{}
	for i := range 300 {
		p := fmt.Sprintf("site-%03d.yaml", i)
		want[p] = fmt.Sprintf("site: %d\n", i)
		files.Set(p, []byte(want[p]))
	}
	repo := filepath.Join(srv.Dir(), "fleet.git")
	var sizes []int
	for step := range 4 {
		if step > 0 {
			p := fmt.Sprintf("site-%03d.yaml", 97*step)
			want[p] = fmt.Sprintf("site: %d\nstep: %d\n", 97*step, step)
			files.Set(p, []byte(want[p]))
		}
		if _, err := g.WriteStatus(context.Background(), files, fmt.Sprintf("Status %d", step)); err != nil {
			t.Fatalf("step %d: %v", step, err)
		}
		if got, ref := gittest.Git(t, repo, "rev-parse", "main:status"), referenceTree(t, want); got != ref {
			t.Fatalf("step %d: status tree %s, git makes %s of the same files", step, got, ref)
		}
		if got := srv.Files(t, "fleet.git", "main", "."); len(got) != len(root)+len(fleet)+len(want) {
			t.Fatalf("step %d: the branch holds %d files; want %d", step, len(got), len(root)+len(fleet)+len(want))
		}
		logs := g.logs.String()
		last := logs[strings.LastIndex(logs, "msg=\"pushed status\""):]
		var n int
		if _, err := fmt.Sscanf(last[strings.Index(last, " bytes=")+1:], "bytes=%d", &n); err != nil {
			t.Fatalf("step %d: no size in %q", step, last)
		}
		sizes = append(sizes, n)
	}
	gittest.Git(t, repo, "fsck", "--strict", "--no-dangling")
	return sizes
}
