package source

import (
	"context"
	"errors"
	"fmt"
	"net"
	"sort"
	"strings"

	git "github.com/go-git/go-git/v5"
	"github.com/go-git/go-git/v5/plumbing"
	"github.com/go-git/go-git/v5/plumbing/transport"

	"github.com/siteops/siteops/internal/redact"
)

// The kinds of Git errors, for errors.Is. The first two need a person to
// act; ErrUnreachable passes when the server comes back.
var (
	ErrAuthentication = errors.New("authentication failed")
	ErrBranchNotFound = errors.New("branch not found")
	ErrUnreachable    = errors.New("repository unreachable")
	// ErrPushRefused: the remote refuses the push whatever its content
	// (its branch is checked out in a non-bare repository); trying
	// again does not help.
	ErrPushRefused = errors.New("push refused")
)

// explain turns a go-git error of op ("fetch", "push") on branch into one
// that says what happened and what to do, with no credential in it.
func (g *Git) explain(ctx context.Context, op, branch string, err error) error {
	u := redact.URL(g.o.URL)
	var noRef git.NoMatchingRefSpecError
	switch {
	case errors.Is(err, transport.ErrAuthenticationRequired), errors.Is(err, transport.ErrAuthorizationFailed),
		strings.Contains(err.Error(), "unable to authenticate"): // ssh
		return fmt.Errorf("%s: authentication failed for %s: %s: %w", op, u, g.o.Auth.hint(), ErrAuthentication)
	case errors.As(err, &noRef):
		return fmt.Errorf("%s: branch %q not found in %s; branches: %s: %w", op, branch, u, g.remoteBranches(ctx), ErrBranchNotFound)
	case errors.Is(err, transport.ErrRepositoryNotFound):
		return fmt.Errorf("%s: no repository at %s: check the URL", op, u)
	case errors.Is(err, transport.ErrEmptyRemoteRepository):
		return fmt.Errorf("%s: %s is an empty repository: push a first commit to branch %q: %w", op, u, branch, ErrBranchNotFound)
	case strings.Contains(err.Error(), "knownhosts"):
		return fmt.Errorf("%s: the ssh host key of %s is not accepted (%s): add it to the known hosts file (ssh-keyscan)", op, u, redact.Text(err.Error()))
	case errors.Is(err, context.DeadlineExceeded):
		return fmt.Errorf("%s: %s did not answer within %s: %w", op, u, g.o.Timeout, ErrUnreachable)
	case isNetwork(err):
		return fmt.Errorf("%s: cannot reach %s (%s): %w", op, u, redact.Text(err.Error()), ErrUnreachable)
	}
	return fmt.Errorf("%s %s: %s", op, u, redact.Text(err.Error()))
}

// isNetwork reports errors of the connection rather than of Git.
func isNetwork(err error) bool {
	var ne net.Error
	if errors.As(err, &ne) {
		return true
	}
	msg := err.Error()
	for _, s := range []string{"connection refused", "connection reset", "EOF", "no such host", "broken pipe", "i/o timeout"} {
		if strings.Contains(msg, s) {
			return true
		}
	}
	return false
}

// remoteBranches lists the branches of the remote, for an error message.
func (g *Git) remoteBranches(ctx context.Context) string {
	auth, err := g.o.Auth.method(g.o.URL)
	if err != nil {
		return "(unknown)"
	}
	var names []string
	listErr := g.repo.Locked(func(r *git.Repository) error {
		remote, err := r.Remote(remoteName)
		if err != nil {
			return err
		}
		refs, err := remote.ListContext(ctx, &git.ListOptions{Auth: auth})
		for _, ref := range refs {
			if ref.Name().IsBranch() {
				names = append(names, ref.Name().Short())
			}
		}
		return err
	})
	if listErr != nil && !errors.Is(listErr, transport.ErrEmptyRemoteRepository) {
		return "(cannot list them)"
	}
	if len(names) == 0 {
		return "none"
	}
	sort.Strings(names)
	return strings.Join(names, ", ")
}

// isCheckedOut reports a push refused because the remote's branch is
// checked out in its work tree (receive.denyCurrentBranch), as git and
// go-git's file transport say it.
func isCheckedOut(err error) bool {
	msg := err.Error()
	return strings.Contains(msg, "branch is currently checked out") || strings.Contains(msg, "refusing to update checked out branch")
}

// isRejected reports a push refused because the branch moved.
func isRejected(err error) bool {
	msg := err.Error()
	return errors.Is(err, git.ErrForceNeeded) || errors.Is(err, plumbing.ErrObjectNotFound) ||
		strings.Contains(msg, "non-fast-forward") || strings.Contains(msg, "fetch first") ||
		strings.Contains(msg, "stale info") || strings.Contains(msg, "failed to update ref")
}
