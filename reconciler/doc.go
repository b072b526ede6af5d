// Package reconciler is the loop of `siteops run`: it takes revisions of a
// fleet repository from a source (reconciler/source), loads, renders and
// checks the sites that changed, hands their bundles to an engine, and
// writes each site's status back to the source, where the people who own
// the sites read it.
package reconciler
