// Package source gives the loop the revisions of a fleet repository and
// takes its status back: a remote Git repository (cloned once into the
// state directory, fetched on an interval and on demand) or a local
// directory watched for changes. Both implement Source.
//
// # Git
//
//	src, err := source.NewGit(ctx, source.GitOptions{
//		URL:      "https://git.example.com/fleet.git",
//		Branch:   "main",
//		StateDir: stateDir,
//		Auth:     source.GitAuth{TokenFile: "/run/secrets/git-token"},
//	})
//
// The clone is bare, under StateDir/git/<key>/repo.git (key from URL and
// branch); revisions are read from its object store through
// internal/gitfs, without a checkout. Next fetches, diffs the new tip's
// tree against the last snapshot's, leaves out the status directory, and
// returns nothing for a commit that changes only that directory: the loop
// never reacts to its own status commits. MarkReconciled records the
// revision the loop finished with (StateDir/git/<key>/reconciled); after
// a restart the first snapshot lists what changed since it.
//
// WriteStatus builds, on the status branch's tip, a tree whose status
// directory holds exactly the given files, commits it as siteops (unless
// nothing differs) and pushes. The loop hands it a StatusFiles, which
// numbers its changes: the source keeps the status tree it last built,
// hashes only the files changed since and encodes only the trees above
// them, and pushes a pack of just what the remote lacks (the commit, those
// trees and files), so that a write costs what changed, not the size of
// the fleet. It commits on the tip it last saw; when the push finds that
// the branch has moved, it fetches and commits again at once. A refused
// push on a fetched tip, or a failed one (the server is down), is tried
// again after a backoff; the status directory belongs to siteops, so its
// content wins. A separate status branch is created from the source
// branch and pushed with force. The object store is not safe for
// concurrent use: reading a snapshot waits while a fetch or a push holds
// it.
//
// Errors wrap ErrAuthentication, ErrBranchNotFound or ErrUnreachable and
// say what to do; no credential appears in an error, a log line or a
// metric. Credentials are read from files (or environment variables) at
// every fetch and push.
//
// # Directory
//
//	src, err := source.NewDir(ctx, source.DirOptions{Dir: "examples/fleet"})
//
// The directory and every directory under it (but dot folders and the
// status directory) are watched with fsnotify; changes are read once the
// tree has been quiet for the debounce time. A revision is the digest of
// the content; Changed lists the files whose content differs. Status
// files are written atomically under the status directory, and stale ones
// removed.
//
// # State directory
//
// Lock takes a state directory for one process (an flock the kernel drops
// when the process dies); a second process is told the holder's pid.
package source
