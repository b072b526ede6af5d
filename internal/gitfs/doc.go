// Package gitfs reads the trees of a Git repository's commits without a
// checkout: the file system of one commit as an fs.FS, and the paths that
// differ between two commits.
//
// It serves two callers: `siteops check --base REV`, which compares the
// fleet at a base revision with the working tree, and the Git source of
// the loop, which reads every revision it reconciles straight from its
// clone's object store.
//
//	repo, err := gitfs.Open(".")           // finds the enclosing repository
//	defer repo.Close()
//	base, err := repo.Resolve("HEAD~1")    // branch, tag, sha, short sha, rev~n
//	tree, err := repo.FS(base)             // the whole repository at base
//	fleet, err := tree.Sub(repo.Dir())     // the directory Open was given
//	changed, err := repo.Changed(base, head)
//
// Trees are read as raw Git tree objects (ReadRawTree, RawEntryAt), whose
// entries' names point into the object's data: a fleet's root may hold an
// entry per site, and opening one file or listing what changed between two
// commits then makes no string of the other entries. The loop's status
// writer splices its directory into such trees the same way.
//
// # Safety
//
// The tree is read-only and treated as untrusted input, as internal/safefs
// treats files on disk: every file is limited in size (WithMaxFileSize),
// symlinks are followed only while they stay inside the tree (one that
// leaves it, or is absolute, is an error wrapping safefs.ErrEscape), and
// submodules are shown as irregular entries that cannot be opened.
//
// # Concurrency
//
// go-git's object store is not safe for concurrent use, so a Repo
// serialises every object read behind one mutex; an FS and its files may
// be used from many goroutines. Code that changes the repository (fetch,
// commit) runs through Repo.Locked so that it never overlaps a read.
package gitfs
