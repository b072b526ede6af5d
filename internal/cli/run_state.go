package cli

import (
	"errors"
	"fmt"
	"github.com/siteops/siteops/internal/redact"
	"io/fs"
	"os"
	"path/filepath"
	"strings"

	"github.com/siteops/siteops/internal/safefs"
)

// stateSourceFile, in the state directory, names the source whose state
// the directory keeps: the engine's sites and the loop's memory belong to
// that source, and another source must not inherit them.
const stateSourceFile = "source"

// demoSource names the example fleet run without --repo or --dir.
const demoSource = "the example fleet (no --repo or --dir)"

// stateSource names the source the flags give, as stateSourceFile holds
// it: an absolute directory, a repository URL without credentials and its
// branch, or the example fleet.
func stateSource(f *runFlags) (string, error) {
	switch {
	case f.dir != "":
		abs, err := filepath.Abs(f.dir)
		if err != nil {
			return "", err
		}
		return "dir " + abs, nil
	case f.repo != "":
		return "repo " + redact.URL(f.repo) + " " + f.branch, nil
	}
	return demoSource, nil
}

// claimStateDir records in the state directory which source it keeps the
// state of, or refuses a state directory that keeps another source's. A
// directory that names no source yet is claimed.
func claimStateDir(dir string, f *runFlags) error {
	want, err := stateSource(f)
	if err != nil {
		return err
	}
	p := filepath.Join(dir, stateSourceFile)
	data, err := os.ReadFile(p)
	switch {
	case errors.Is(err, fs.ErrNotExist):
		return safefs.WriteFileAtomic(p, []byte(want+"\n"))
	case err != nil:
		return fmt.Errorf("--state-dir: %w", err)
	}
	if have := strings.TrimSpace(string(data)); have != want {
		return usageError("--state-dir %s keeps the state of %s, not of %s: its engine holds that source's sites. Give this source a --state-dir of its own, or remove %s to start over",
			dir, have, want, dir)
	}
	return nil
}
