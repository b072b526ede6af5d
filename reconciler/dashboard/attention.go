package dashboard

import (
	"github.com/siteops/siteops/engine"
	"github.com/siteops/siteops/policy/report"
	"github.com/siteops/siteops/reconciler/status"
)

// The overview sorts the sites that need a person first, the most severe
// reason first (engine.Reasons gives the order); then the others by
// phase, in engine.Phases order, installed last.

// rank places a site in the overview's order; a lower rank comes first.
func rank(d *status.Document) int {
	reasons := len(engine.Reasons())
	if status.NeedsAttention(d) {
		if d.Reason != "" {
			return min(d.Reason.Rank(), reasons)
		}
		return d.Phase.Rank() // a failed or blocked site whose reason is not known
	}
	return reasons + 1 + d.Phase.Rank()
}

// attention says why a site needs a person, with the host or validation
// it is about when the reason concerns one; "" when it needs none.
func attention(d *status.Document) string { return status.AttentionLine(d) }

// hostDone reports whether a host's part is over.
func hostDone(h engine.HostStatus) bool { return status.HostDone(h) }

// countFindings counts a document's deny and warn findings.
func countFindings(fs []report.Finding) (deny, warn int) { return status.CountFindings(fs) }
