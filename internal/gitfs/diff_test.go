package gitfs

import (
	"math/rand/v2"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/go-git/go-git/v5/plumbing"
)

// TestChangedMatchesGitDiff holds Changed to `git diff --name-only` over
// random sequences of commits whose names sort differently as files and
// as directories in Git's order ("x", "x-y", "x.z", "x/", "x0"), with
// files that become directories and the reverse, modes that change and
// files removed.
func TestChangedMatchesGitDiff(t *testing.T) {
	names := []string{"x", "x-y", "x.z", "x0", "a", "a-b/c"}
	for seed := range uint64(4) {
		rng := rand.New(rand.NewPCG(seed, 7))
		dir := newRepo(t)
		var commits []string
		for range 12 {
			for range 1 + rng.IntN(4) {
				name := names[rng.IntN(len(names))]
				p := filepath.Join(dir, filepath.FromSlash(name))
				switch rng.IntN(5) {
				case 0: // a file, or a directory replaced by one
					must(t, os.RemoveAll(p))
					writeFiles(t, dir, map[string]string{name: "f" + strings.Repeat("!", rng.IntN(3))})
				case 1: // a directory, or a file replaced by one
					if fi, err := os.Stat(p); err == nil && !fi.IsDir() {
						must(t, os.Remove(p))
					}
					writeFiles(t, dir, map[string]string{name + "/" + names[rng.IntN(len(names))]: "d" + strings.Repeat("!", rng.IntN(3))})
				case 2:
					must(t, os.RemoveAll(p))
				case 3:
					if fi, err := os.Stat(p); err == nil && !fi.IsDir() {
						must(t, os.Chmod(p, fi.Mode()^0o100))
					}
				case 4: // nothing changes here
				}
			}
			commits = append(commits, commitAll(t, dir, "step"))
		}
		r, err := Open(dir)
		if err != nil {
			t.Fatal(err)
		}
		for i := range commits {
			from, to := commits[rng.IntN(len(commits))], commits[i]
			got, err := r.Changed(plumbing.NewHash(from), plumbing.NewHash(to))
			if err != nil {
				t.Fatal(err)
			}
			out := run(t, dir, "-c", "core.quotePath=false", "diff", "--name-only", "--no-renames", from, to)
			var want []string
			if out != "" {
				want = strings.Split(out, "\n")
			}
			slices.Sort(want)
			if !slices.Equal(got, want) {
				t.Errorf("seed %d, %s..%s: Changed =\n%q\ngit diff =\n%q", seed, from[:7], to[:7], got, want)
			}
		}
	}
}
