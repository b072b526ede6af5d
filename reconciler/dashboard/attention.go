package dashboard

import (
	"fmt"

	"github.com/siteops/siteops/engine"
	"github.com/siteops/siteops/engine/assisted"
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
func attention(d *status.Document) string {
	line := status.Attention(d)
	if line == "" {
		return ""
	}
	if detail := attentionDetail(d); detail != "" {
		line += " (" + detail + ")"
	}
	return line
}

// attentionDetail names the first host or validation behind a reason
// that concerns hosts.
func attentionDetail(d *status.Document) string {
	switch d.Reason {
	case engine.ReasonHostNeedsAction:
		for _, h := range d.Hosts {
			if assisted.HostStatus(h.State).In(assisted.HostNeedsActionStatuses...) {
				return fmt.Sprintf("host %s is %s: %s", hostLabel(h), h.State, orState(h))
			}
		}
	case engine.ReasonPartiallyInstalled:
		for _, h := range d.Hosts {
			if assisted.HostStatus(h.State).In(assisted.HostFailedStatuses...) {
				return fmt.Sprintf("host %s is %s: %s", hostLabel(h), h.State, orState(h))
			}
		}
	case engine.ReasonValidationsFailing:
		for _, h := range d.Hosts {
			for _, v := range h.Validations {
				if assisted.ValidationFailing(v.Status) {
					return fmt.Sprintf("host %s: %s", hostLabel(h), v.Message)
				}
			}
		}
		for _, v := range d.Cluster.Validations {
			if assisted.ValidationFailing(v.Status) {
				return "cluster: " + v.Message
			}
		}
	}
	return ""
}

func orState(h engine.HostStatus) string {
	if h.StateInfo != "" {
		return h.StateInfo
	}
	return h.State
}

// hostLabel names a host the way its owner knows it.
func hostLabel(h engine.HostStatus) string {
	if h.Hostname != "" {
		return h.Hostname
	}
	return h.Name
}

// hostDone reports whether a host's part is over.
func hostDone(h engine.HostStatus) bool {
	return assisted.HostStatus(h.State).In(assisted.HostDoneStatuses...)
}

// countFindings counts a document's deny and warn findings; waived ones
// block nothing and are left out.
func countFindings(fs []report.Finding) (deny, warn int) {
	for _, f := range fs {
		if f.Waived != "" {
			continue
		}
		switch f.Severity {
		case report.Deny:
			deny++
		case report.Warn:
			warn++
		}
	}
	return deny, warn
}
