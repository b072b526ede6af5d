// Package reconciler is the loop of `siteops run`: it takes revisions of a
// fleet repository from a source (reconciler/source), loads, renders and
// checks the sites that changed, hands their bundles to an engine, and
// writes each site's status back to the source, where the people who own
// the sites read it. It knows nothing of how a resource is rendered or a
// rule evaluated: sites, render, policy and engine do that.
//
//	loop := reconciler.New(src, eng, reconciler.WithPolicy(pol), reconciler.WithPrune(true))
//	http.Handle("/", loop.Handler()) // dashboard, /metrics, /healthz, /readyz, /hooks/git
//	err := loop.Run(ctx)
//
// # One pass
//
// Each revision is one pass: load what changed (sites.Stream), render it
// (render.Renderer) and check each site as it renders (policy.Run: the
// rules that read one site at once, those that read the fleet once every
// site is in), apply the bundles whose hash changed
// (engine.Engine.Apply), handle the sites no longer defined, and write
// the status once. A deny finding blocks its site
// only: the engine keeps what it had, and the site's document says
// PolicyFailed and why. A site that no longer loads or renders is
// reported the same way: an error never tears anything down.
//
// # What a change concerns
//
// The tree is cut into load units, each of which sites.Load reads alone
// with the same result as the whole tree (units.go): a plain YAML file
// outside any kustomization, or a kustomization that no kustomization
// contains. The index (index.go) maps each path to what depends on it: a
// site's own file and the files and extra-manifest directories it refers
// to; for a kustomize tree, every path its build read (recorded by a
// file-system view, fsview.go). A SiteConfig listed under a
// kustomization's generators: is reloaded alone, through a view that
// shows the loader a kustomization listing only it. A kustomization that
// appears or disappears outside every unit reloads the whole tree.
//
// # Status
//
// status/<site>.yaml is the site's reconciler/status.Document, keys
// sorted, written only when its bytes change; status/README.md is a
// fleet table in Markdown, whose rows go to status/pages/NN.md past
// readmePagedAbove sites (readme.go). Installation progress between revisions is
// written at most every WithStatusInterval, and never sooner after a
// write than twice the time that write took.
//
// # Memory
//
// Between passes the loop keeps, per site, a record (where it comes from,
// what it depends on, the hash of the bundle applied, its findings) and
// its encoded document; never a site or a bundle. Within a pass, a site
// is checked as it renders, and keeps its definition, its policy check
// and (within a budget) its bundle only until it is decided, and then
// only what its apply needs (loaded.release). The hashes and revisions
// applied are kept in the state directory (WithStateDir), so a restart
// applies only what changed while the loop was stopped.
package reconciler
