package cli

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/spf13/pflag"

	"github.com/siteops/siteops/internal/statusview"
	"github.com/siteops/siteops/reconciler/source"
	"github.com/siteops/siteops/reconciler/status"
)

// bindGitAuthFlags binds the flags that say where Git credentials are.
func bindGitAuthFlags(fl *pflag.FlagSet, a *source.GitAuth) {
	fl.StringVar(&a.Username, "git-username", "", "user name for https (the password comes from --git-password-file or $"+source.EnvGitPassword+")")
	fl.StringVar(&a.PasswordFile, "git-password-file", "", "file holding the https password")
	fl.StringVar(&a.TokenFile, "git-token-file", "", "file holding an https access token (or $"+source.EnvGitToken+")")
	fl.BoolVar(&a.BearerToken, "git-bearer-token", false, "send the token as a bearer token instead of basic auth")
	fl.StringVar(&a.SSHKeyFile, "ssh-key-file", "", "private key for ssh:// and git@ URLs")
	fl.StringVar(&a.SSHPassphraseFile, "ssh-passphrase-file", "", "file holding the key's passphrase (or $"+source.EnvGitSSHPassphrase+")")
	fl.StringVar(&a.KnownHostsFile, "known-hosts-file", "", "known_hosts file for ssh (default ~/.ssh/known_hosts)")
}

// statusSourceFlags say where `status` and `wait` read the status
// documents: a fleet directory, a branch of the fleet repository, or a
// running loop.
type statusSourceFlags struct {
	dir, statusDir       string
	repo, branch, server string
	auth                 source.GitAuth
	interval             time.Duration
	// awaitDir lets the status directory not exist yet (wait: the loop
	// makes it with its first pass).
	awaitDir bool
}

func (f *statusSourceFlags) bind(fl *pflag.FlagSet, interval time.Duration) {
	fl.StringVar(&f.dir, "dir", ".", "fleet directory whose "+status.Dir+"/ holds the status files")
	fl.StringVar(&f.statusDir, "status-dir", "", "the status directory: with --dir a path (relative to the working directory), with --repo a folder of the repository (default "+status.Dir+")")
	fl.StringVar(&f.repo, "repo", "", "read the status files from this Git repository (https://, ssh://, git://, file://)")
	fl.StringVar(&f.branch, "branch", source.DefaultBranch, "with --repo: the branch the loop commits the status to (its --status-branch, if it has one)")
	fl.StringVar(&f.server, "server", "", "read the status from a running siteops run, such as http://127.0.0.1:8080")
	fl.DurationVar(&f.interval, "interval", interval, "how often to read the status again")
	bindGitAuthFlags(fl, &f.auth)
}

// source opens the source the flags name.
func (f *statusSourceFlags) source(fl *pflag.FlagSet) (statusview.Source, error) {
	given := 0
	for _, name := range []string{"dir", "repo", "server"} {
		if fl.Changed(name) {
			given++
		}
	}
	if given > 1 {
		return nil, usageError("give one of --dir, --repo and --server")
	}
	if f.interval <= 0 {
		return nil, usageError("--interval %s: give a positive duration such as 2s", f.interval)
	}
	switch {
	case f.server != "":
		if f.statusDir != "" {
			return nil, usageError("--status-dir goes with --dir or --repo; a running loop knows its own")
		}
		return statusview.Server{URL: strings.TrimRight(f.server, "/")}, nil
	case f.repo != "":
		return statusview.Git{Options: source.ReadOptions{URL: f.repo, Branch: f.branch, Auth: f.auth}, Dir: f.statusDir}, nil
	}
	dir := f.statusDir
	if dir == "" {
		dir = filepath.Join(f.dir, status.Dir)
	}
	if f.awaitDir {
		if _, err := os.Stat(filepath.Dir(filepath.Clean(dir))); err == nil {
			return statusview.Dir{Path: dir, MayNotExist: true}, nil
		}
	}
	if _, err := os.Stat(dir); err != nil {
		hint := "run it in a fleet repository the loop commits its status to, or give --dir, --repo or --server"
		if f.statusDir != "" || fl.Changed("dir") {
			hint = "check the path"
		}
		return nil, &exitError{code: ExitFailure, err: fmt.Errorf("no status directory at %s: %s", dir, hint)}
	}
	return statusview.Dir{Path: dir}, nil
}

// isTerminal reports whether f is a terminal (a character device).
func isTerminal(w any) bool {
	f, ok := w.(*os.File)
	if !ok {
		return false
	}
	info, err := f.Stat()
	return err == nil && info.Mode()&os.ModeCharDevice != 0
}
