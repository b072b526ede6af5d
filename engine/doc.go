// Package engine drives the installation of sites. Engine is the
// interface the reconcile loop talks to; its default implementation is an
// embedded simulation of assisted-service and the bare-metal operator
// (engine/sim), and a second one applies the bundles to a real hub.
//
// An Engine takes the desired state of one site at a time (Apply, with
// the revision it was rendered from), tears a site down (Delete) and
// reports each site's SiteStatus, the shape the loop writes to Git
// (docs/status.md). Subscribe tells a consumer which sites' statuses
// changed, so that it reads only those.
package engine
