// Package dashboard serves the fleet status page of `siteops run`: an
// http.Handler over the per-site status documents (reconciler/status),
// read afresh on each request through a function the loop provides.
//
// # Pages
//
//	/                    the fleet overview
//	/sites/<name>        one site
//	/api/sites           the overview as JSON (an Overview)
//	/api/sites/<name>    one site's status.Document as JSON
//	/assets/...          the stylesheet and the script, embedded
//
// The overview counts the sites per phase, filters by phase, by "needs
// attention" and by a case-insensitive search in the site name, and lists
// one page of sites at a time. Everything is in the query string
// (?q=sno&phase=Installing&attention=1&page=2), so the page works without
// JavaScript and a filtered view can be bookmarked; the JSON endpoint
// takes the same parameters. A parameter that makes no sense is a 400
// that says which one and what it accepts.
//
// Sites are sorted so that those needing a person come first: Failed,
// PolicyFailed, stuck, orphaned; then Deleting, Installing, Provisioning,
// Pending; Installed last; by name within each group. A site is stuck
// when it should still be moving but a host waits on a person: a host
// state such as pending-for-input or installing-pending-user-action, or a
// host validation that fails (attention.go holds the tables).
//
// The site page shows the phase and its message, cluster state and
// progress, a host table (state, stage, percent, failing validations),
// the policy findings with file:line and remediation, the conditions of
// each resource, and the latest events in the engine's virtual time.
//
// # Safety
//
// Site names and messages come from the repository and are untrusted.
// Pages are html/template (contextual escaping), link to site pages with
// path-escaped names, and are served with a Content-Security-Policy that
// allows nothing but the dashboard's own assets, which are embedded
// (go:embed): the page loads nothing from elsewhere. The dashboard shows
// the documents and the Summary it is given and nothing else; neither
// holds secret values.
//
// # Refresh
//
// A small script fetches the open page again every few seconds
// (WithRefresh) and swaps in its live parts; the filter form is left
// alone so that typing is not interrupted. Without the script the page
// is the same, refreshed by reloading.
//
// # Use
//
//	h := dashboard.New(loop.Documents,
//		dashboard.WithSummary(loop.Summary),
//		dashboard.WithRefresh(5*time.Second))
//	mux.Handle("/", h)
package dashboard
