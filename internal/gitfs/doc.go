// Package gitfs reads the files of one commit of a Git repository as an
// fs.FS, without a checkout: what `siteops check --base REV` loads the
// previous fleet from, and what the loop reads a fetched revision with.
//
// # Use
//
//	repo, err := gitfs.Open("fleet/")       // the repository containing fleet/
//	base, err := repo.FS("origin/main")    // branch, tag, SHA (short too), HEAD~1, ...
//	fleet, err := sites.Load(ctx, base, []string{"."})
//
// The FS is rooted where the repository was opened (fleet/ above), so the
// same paths work on the working tree and on any revision. A repository
// the caller already holds (cloned in memory, say) is wrapped with New.
//
// # Limits
//
// Repository content is untrusted, as with internal/safefs: the FS is
// read-only, a file larger than the size limit (DefaultMaxFileSize unless
// WithMaxFileSize says otherwise) cannot be opened, and a symbolic link is
// followed only while it stays inside the FS's root; one that leads
// outside (an absolute target, or too many ..) fails with a "path escapes
// from parent" error, which safefs.Explain words for people. Submodules are
// not part of the commit and cannot be opened.
package gitfs
