package source

import (
	"context"
	"io/fs"
)

// Snapshot is one revision of the fleet.
type Snapshot struct {
	// Revision names the revision: a commit id for Git, a digest of the
	// content for a directory.
	Revision string
	// FS is the tree of that revision, read-only. It stays valid until
	// the next call to Next.
	FS fs.FS
	// Changed lists the slash-separated paths that differ from the
	// previous snapshot Next returned (added, modified or removed). Nil
	// means everything may have changed (the first snapshot, or history
	// that cannot be compared).
	Changed []string
}

// Source is where the loop reads sites and writes status.
type Source interface {
	// Next blocks until there is a revision newer than the last one it
	// returned (or the first one) and returns it. Revisions that change
	// only the status directory are not returned: the loop never reacts
	// to its own status commits.
	Next(ctx context.Context) (Snapshot, error)
	// Trigger asks for a fetch now (a webhook), instead of at the next
	// interval.
	Trigger()
	// WriteStatus makes the status directory hold exactly files (paths
	// relative to it, slash-separated), recording message when that
	// changes anything (a Git commit, pushed). It reports whether
	// anything changed. A source remembers the content it last wrote:
	// given the same StatusFiles again, it writes only what changed
	// since.
	WriteStatus(ctx context.Context, files *StatusFiles, message string) (changed bool, err error)
	// Close releases the source.
	Close() error
}

// ReconcileMarker is implemented by sources that remember, across
// restarts, the last revision the loop finished with: after a restart
// their first snapshot lists in Changed what differs from it, instead of
// everything.
type ReconcileMarker interface {
	// MarkReconciled records revision, one that Next returned.
	MarkReconciled(revision string) error
}
