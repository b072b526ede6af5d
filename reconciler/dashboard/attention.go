package dashboard

import (
	"github.com/siteops/siteops/engine"
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
