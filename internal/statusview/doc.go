// Package statusview shows the status documents of a fleet to a person
// at a terminal: where they come from (a status directory, a branch of
// the fleet repository, or a running loop's JSON API), the fleet table
// and one site's page that `siteops status` prints, and the per-host
// progress that `siteops wait` follows until its sites are done.
//
// It reads documents through package reconciler/status and phases and
// reasons through package engine; it keeps no state of its own, so a
// wait that is interrupted continues where the documents are when it is
// run again.
package statusview
