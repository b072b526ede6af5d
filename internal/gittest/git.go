package gittest

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// gitEnv is the environment of every git command.
func gitEnv(home string) []string { return append(os.Environ(), gitVars(home)...) }

// gitVars isolate git: no user or system configuration, a fixed
// identity, and no background gc (it would outlive the test's
// directory).
func gitVars(home string) []string {
	return []string{
		"HOME=" + home,
		"GIT_CONFIG_GLOBAL=/dev/null", "GIT_CONFIG_NOSYSTEM=1",
		"GIT_CONFIG_COUNT=1", "GIT_CONFIG_KEY_0=gc.auto", "GIT_CONFIG_VALUE_0=0",
		"GIT_AUTHOR_NAME=Human", "GIT_AUTHOR_EMAIL=human@example.com",
		"GIT_COMMITTER_NAME=Human", "GIT_COMMITTER_EMAIL=human@example.com",
		"GIT_TERMINAL_PROMPT=0",
	}
}

// Git runs the git command line in dir and returns its output, trimmed.
// The test fails if git does.
func Git(t testing.TB, dir string, args ...string) string {
	t.Helper()
	out, err := git(dir, nil, args...)
	if err != nil {
		t.Fatalf("git %s: %v\n%s", strings.Join(args, " "), err, out)
	}
	return strings.TrimSpace(out)
}

// git runs git with extra environment variables and returns its output
// as is.
func git(dir string, env []string, args ...string) (string, error) {
	cmd := exec.Command("git", args...)
	cmd.Dir = dir
	cmd.Env = append(gitEnv(dir), env...)
	out, err := cmd.CombinedOutput()
	return string(out), err
}

// WriteFiles writes files (slash-separated paths, relative to dir),
// making directories as needed.
func WriteFiles(t testing.TB, dir string, files map[string]string) {
	t.Helper()
	for name, content := range files {
		p := filepath.Join(dir, filepath.FromSlash(name))
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
	}
}
