// Package status is the document the loop writes for each site to
// status/<site>.yaml in the repository, and reads back: the engine's
// SiteStatus, the revision of the repository it reflects, and the policy
// findings that concern the site. docs/status.md describes it field by
// field.
package status
