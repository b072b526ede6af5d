// Package sites reads site definitions: SiteConfig documents
// (ran.openshift.io/v1 and /v2) decoded into one Site per cluster, with
// the position of every field, the upstream generator's defaults and
// checks, and the contents of the files each site refers to.
//
// # Finding sites
//
// Load and Stream take paths inside an fs.FS rooted at the fleet
// repository (os.Root's FS in production, so that neither a path nor a
// symlink can lead outside it). Files are read whatever their name;
// directories are walked, skipping dot-folders and status/; a directory
// with a kustomization.yaml is read the ZTP way: the SiteConfig files its
// generators: list are the sites. No kustomize plugin is ever run.
//
//	fleet, err := sites.Load(ctx, root.FS(), []string{"."})
//	for _, p := range fleet.Problems { fmt.Println(p) } // file:line:col: site S: field: message (fix)
//	for _, s := range fleet.Sites { ... }              // one per cluster, sorted by name
//
// Load holds the whole fleet; Stream hands sites to a callback in file
// order, decoding on all CPUs, and keeps memory flat. WithDocuments adds
// YAML that is not a file of the fleet (standard input, a KRM function's
// items): decoded the same way, with its own positions or, for a copy
// passed on by kustomize, those of the file it came from.
//
// # Problems
//
// Nothing here stops at the first error. Every problem is a Problem with
// file, line, column, site and field path, a message and a hint; a site
// with an error is left out and every other site goes on. Unknown fields
// are warnings with a did-you-mean suggestion (errors under WithStrict).
// Files are size-limited and YAML aliases are bounded, so a repository
// cannot exhaust memory.
//
// # The normalized model
//
// Site.Model gives the site in one shape for both formats (ClusterModel,
// NodeModel) with the document path of every field: what policies, the
// fleet index, the change rules and the converter compare.
//
// # What this package does not know
//
// Git, rendering and policies: a Site is input, fully read, and
// rendering it needs no further I/O.
package sites
