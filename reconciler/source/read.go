package source

import (
	"context"
	"errors"
	"fmt"
	"github.com/siteops/siteops/internal/redact"
	"time"

	git "github.com/go-git/go-git/v5"
	"github.com/go-git/go-git/v5/config"
	"github.com/go-git/go-git/v5/plumbing"
	"github.com/go-git/go-git/v5/storage/memory"

	"github.com/siteops/siteops/internal/gitfs"
)

// ReadOptions says which branch ReadBranch reads and how.
type ReadOptions struct {
	// URL and Branch (default DefaultBranch) name the branch.
	URL, Branch string
	Auth        GitAuth
	// Timeout bounds the fetch (default DefaultTimeout).
	Timeout time.Duration
	// MaxFileSize bounds every file read from the tree (default
	// gitfs.DefaultMaxFileSize).
	MaxFileSize int64
}

// ReadBranch fetches the tip of a branch once, into memory (a shallow
// fetch of that branch alone, leaving nothing on disk), and returns its
// tree and commit id: what a command that only reads the status files of
// a fleet repository needs. Its errors are those of the loop's fetch,
// with no credential in them.
func ReadBranch(ctx context.Context, o ReadOptions) (*gitfs.FS, string, error) {
	if o.URL == "" {
		return nil, "", errors.New("no repository URL given")
	}
	if o.Branch == "" {
		o.Branch = DefaultBranch
	}
	if o.Timeout <= 0 {
		o.Timeout = DefaultTimeout
	}
	r, err := git.Init(memory.NewStorage(), nil)
	if err != nil {
		return nil, "", err
	}
	if _, err := r.CreateRemote(&config.RemoteConfig{Name: remoteName, URLs: []string{o.URL}}); err != nil {
		return nil, "", fmt.Errorf("fetch %s: %w", redact.URL(o.URL), err)
	}
	var opts []gitfs.Option
	if o.MaxFileSize > 0 {
		opts = append(opts, gitfs.WithMaxFileSize(o.MaxFileSize))
	}
	g := &Git{o: GitOptions{URL: o.URL, Branch: o.Branch, Auth: o.Auth, Timeout: o.Timeout}, repo: gitfs.New(r, opts...)}
	auth, err := o.Auth.method(o.URL)
	if err != nil {
		return nil, "", err
	}
	fetchCtx, cancel := context.WithTimeout(ctx, o.Timeout)
	defer cancel()
	spec := config.RefSpec(fmt.Sprintf("+%s:%s", plumbing.NewBranchReferenceName(o.Branch), remoteRef(o.Branch)))
	err = r.FetchContext(fetchCtx, &git.FetchOptions{RemoteName: remoteName, RefSpecs: []config.RefSpec{spec}, Auth: auth,
		Depth: 1, Tags: git.NoTags, Force: true})
	if err != nil {
		return nil, "", g.explain(fetchCtx, "fetch", o.Branch, err)
	}
	ref, err := r.Reference(remoteRef(o.Branch), true)
	if err != nil {
		return nil, "", fmt.Errorf("fetch %s: %w", redact.URL(o.URL), err)
	}
	fsys, err := g.repo.FS(ref.Hash())
	if err != nil {
		return nil, "", err
	}
	return fsys, ref.Hash().String(), nil
}
