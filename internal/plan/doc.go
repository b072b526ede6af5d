// Package plan says what a change to a fleet repository does, site by
// site, without applying anything: the sites it adds, removes and
// changes, and for each changed site the rendered objects added, removed
// and changed, down to the field. It is `siteops plan`: the review of a
// pull request.
//
// Values that may be credentials (a Secret's data, passwords, tokens,
// keys, ignition overrides) are never shown: the diff says that they
// changed, not what they are. The change rules (immutable fields of a
// started installation, the deletion budget) come from package policy,
// and their findings are shown beside the site they concern.
package plan
