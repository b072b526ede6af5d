package cli

import (
	"io/fs"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/siteops/siteops/examples"
)

// git runs the git command line on a repository and returns its output.
func gitOutput(t *testing.T, dir string, args ...string) string {
	t.Helper()
	cmd := exec.Command("git", append([]string{"--git-dir", dir}, args...)...)
	cmd.Env = append(cmd.Environ(), "GIT_CONFIG_NOSYSTEM=1", "HOME="+t.TempDir())
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("git %v: %v\n%s", args, err, out)
	}
	return string(out)
}

func TestSeedRepositoryHoldsTheFleetOnce(t *testing.T) {
	dir := filepath.Join(t.TempDir(), demoRepoDir)
	url, err := seedRepository(dir, examples.FS, examples.FleetDir)
	if err != nil {
		t.Fatal(err)
	}
	if want := "file://" + dir; url != want {
		t.Errorf("url = %q, want %q", url, want)
	}
	gitOutput(t, dir, "fsck", "--strict")
	var want []string
	fs.WalkDir(examples.FS, examples.FleetDir, func(p string, d fs.DirEntry, err error) error {
		if err == nil && !d.IsDir() {
			want = append(want, strings.TrimPrefix(p, examples.FleetDir+"/"))
		}
		return err
	})
	got := strings.Fields(gitOutput(t, dir, "ls-tree", "-r", "--name-only", demoBranch))
	slices.Sort(want)
	if !slices.Equal(got, want) || len(want) < 5 {
		t.Errorf("files in %s = %v, want %v", demoBranch, got, want)
	}
	data, _ := fs.ReadFile(examples.FS, examples.FleetDir+"/kustomization.yaml")
	if show := gitOutput(t, dir, "show", demoBranch+":kustomization.yaml"); show != string(data) {
		t.Errorf("kustomization.yaml differs from the embedded one")
	}
	head := gitOutput(t, dir, "rev-parse", "HEAD")
	if _, err := seedRepository(dir, examples.FS, examples.FleetDir); err != nil {
		t.Fatal(err)
	}
	if again := gitOutput(t, dir, "rev-parse", "HEAD"); again != head {
		t.Errorf("a second run made a new commit: %s, was %s", again, head)
	}
}
