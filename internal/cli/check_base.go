package cli

import (
	"cmp"
	"context"
	"fmt"
	"io"
	"io/fs"

	"github.com/siteops/siteops/internal/gitfs"
	"github.com/siteops/siteops/policy"
	"github.com/siteops/siteops/reconciler/status"
	"github.com/siteops/siteops/render"
	"github.com/siteops/siteops/sites"
)

// checkBase is the previous revision siteops check --base compares with.
type checkBase struct {
	change  policy.Change
	bundles map[string]*render.Bundle
}

// loadBase loads and renders the fleet at --base from the Git repository
// holding --root, and reads which of its sites had started installing
// from the status files committed at that revision.
// keep, when not nil, says which rendered objects to hold (see
// loadForCheck).
func loadBase(ctx context.Context, engine *policy.Engine, f *checkFlags, paths []string,
	loadOpts []sites.Option, renderOpts []render.Option, keep func(*render.Object) bool, stderr io.Writer) (*checkBase, error) {
	repo, err := gitfs.Open(f.root)
	if err != nil {
		return nil, usageError("--base %s: %v", f.base, err)
	}
	defer repo.Close()
	commit, err := repo.Resolve(f.base)
	if err != nil {
		return nil, usageError("--base: %v", err)
	}
	tree, err := repo.FS(commit)
	if err != nil {
		return nil, usageError("--base: %v", err)
	}
	// The tree is the whole repository's; the fleet is the part under --root.
	fsys, err := tree.Sub(repo.Dir())
	if err != nil {
		return nil, usageError("--base: %v", err)
	}
	fleet, bundles, err := loadForCheck(ctx, fsys, paths, loadOpts, renderOpts, keep)
	if err != nil {
		return nil, fmt.Errorf("load the sites of %s: %w", f.base, err)
	}
	started, hosts := readStarted(fsys, f.statusDir, stderr)
	return &checkBase{
		change: policy.Change{Base: fleet, BaseRevision: f.base, Started: started, StartedHosts: hosts,
			AllowDeletions: f.allowDeletions},
		bundles: bundles,
	}, nil
}

// readStarted reads dir/<site>.yaml of the base revision: the sites whose
// installation has started, and for each the hosts that have. A status
// file that cannot be read counts its site as started, with a warning:
// the change rules then err on the side of refusing. No status directory
// means no site has started.
func readStarted(fsys fs.FS, dir string, stderr io.Writer) (map[string]bool, map[string]map[string]bool) {
	started, hosts := map[string]bool{}, map[string]map[string]bool{}
	entries, err := status.ReadDir(fsys, dir)
	if err != nil {
		return started, hosts
	}
	for _, e := range entries {
		if e.Err != nil {
			fmt.Fprintf(stderr, "siteops: warning: %s at the base revision: %v; site %s counts as installing\n", e.File, e.Err, e.Site)
			started[e.Site] = true
			continue
		}
		st := e.Doc
		if !policy.InstallStarted(string(st.Phase), st.Cluster.State) {
			continue
		}
		started[e.Site] = true
		if len(st.Hosts) > 0 {
			h := map[string]bool{}
			for _, host := range st.Hosts {
				if policy.HostInstallStarted(host.State) {
					h[cmp.Or(host.Hostname, host.Name)] = true
				}
			}
			hosts[e.Site] = h
		}
	}
	return started, hosts
}
