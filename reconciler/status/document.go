package status

import (
	"github.com/siteops/siteops/engine"
	"github.com/siteops/siteops/policy/report"
)

// Document is the status of one site as committed to Git.
type Document struct {
	engine.SiteStatus `json:",inline"`
	// ObservedRevision is the repository revision this document reflects:
	// the newest one the loop has reconciled, which may be newer than the
	// revision applied (Revision) when that revision was blocked or broken.
	ObservedRevision string `json:"observedRevision,omitempty"`
	// Orphaned is set when the site is no longer defined in the
	// repository but was not deleted (no --prune, or over the deletion
	// budget).
	Orphaned bool `json:"orphaned,omitempty"`
	// Findings are the policy findings of the observed revision for this
	// site, deny and warn.
	Findings []report.Finding `json:"findings,omitempty"`
}
