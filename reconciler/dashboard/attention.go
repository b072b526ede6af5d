package dashboard

import (
	"fmt"

	"github.com/siteops/siteops/engine"
	"github.com/siteops/siteops/policy/report"
	"github.com/siteops/siteops/reconciler/status"
)

// phaseOrder lists the engine's phases in the order the overview shows
// their counts and the filter offers them.
var phaseOrder = []engine.Phase{
	engine.PhaseFailed,
	engine.PhasePolicyFailed,
	engine.PhasePending,
	engine.PhaseProvisioning,
	engine.PhaseInstalling,
	engine.PhaseInstalled,
	engine.PhaseDeleting,
}

// Ranks sort the overview: sites that need a person first, then those
// still moving, installed ones last. A lower rank comes first.
const (
	rankFailed       = iota // the installation failed
	rankPolicyFailed        // a deny finding blocks the site
	rankStuck               // waits on a person (see waitingHostStates)
	rankOrphaned            // no longer in the repository, not deleted
	rankDeleting
	rankInstalling
	rankProvisioning
	rankPending
	rankOther // a phase this dashboard does not know
	rankInstalled
)

// phaseRank places each phase of a site that is not stuck or orphaned.
var phaseRank = map[engine.Phase]int{
	engine.PhaseFailed:       rankFailed,
	engine.PhasePolicyFailed: rankPolicyFailed,
	engine.PhaseDeleting:     rankDeleting,
	engine.PhaseInstalling:   rankInstalling,
	engine.PhaseProvisioning: rankProvisioning,
	engine.PhasePending:      rankPending,
	engine.PhaseInstalled:    rankInstalled,
}

// waitingHostStates are the assisted-service host states that do not move
// on without a person: a fix to the site, the hardware or the boot order
// (assisted-engine.md §1.1 and the status-info texts of §1.3). Transient
// states such as discovering or insufficient while validations are still
// pending are left out; a host validation that fails is caught apart.
var waitingHostStates = map[string]bool{
	"disconnected":                   true, // the agent stopped talking to the service
	"pending-for-input":              true, // required input is missing from the site
	"preparing-failed":               true, // disk speed or image checks failed
	"installing-pending-user-action": true, // wrong boot order after the reboot stage
	"resetting-pending-user-action":  true, // needs booting into the discovery image
	"unbinding-pending-user-action":  true, // needs a reboot to be released
	"error":                          true, // the host failed to install
	"cancelled":                      true,
}

// failingValidationStatuses are the validation statuses that say
// something is wrong rather than not yet known (assisted-engine.md §3:
// pending blocks too, but resolves by itself).
var failingValidationStatuses = map[string]bool{
	"failure": true,
	"error":   true,
}

// stuckReason says why a site waits on a person, or "" when it does not.
// Only sites in a phase that should still be moving can be stuck: Failed,
// PolicyFailed and Installed say all there is to say.
func stuckReason(d *status.Document) string {
	switch d.Phase {
	case engine.PhaseFailed, engine.PhasePolicyFailed, engine.PhaseInstalled:
		return ""
	}
	for _, h := range d.Hosts {
		if waitingHostStates[h.State] {
			info := h.StateInfo
			if info == "" {
				info = h.State
			}
			return fmt.Sprintf("host %s is %s: %s", hostLabel(h), h.State, info)
		}
	}
	for _, h := range d.Hosts {
		for _, v := range h.Validations {
			if failingValidationStatuses[v.Status] {
				return fmt.Sprintf("host %s: %s", hostLabel(h), v.Message)
			}
		}
	}
	return ""
}

// hostLabel names a host the way its owner knows it.
func hostLabel(h engine.HostStatus) string {
	if h.Hostname != "" {
		return h.Hostname
	}
	return h.Name
}

// rank places a site in the overview's order.
func rank(d *status.Document, stuck string) int {
	switch {
	case d.Phase == engine.PhaseFailed:
		return rankFailed
	case d.Phase == engine.PhasePolicyFailed:
		return rankPolicyFailed
	case stuck != "":
		return rankStuck
	case d.Orphaned:
		return rankOrphaned
	}
	if r, ok := phaseRank[d.Phase]; ok {
		return r
	}
	return rankOther
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

// doneHostStates are the host states of a host whose part is over
// (assisted-engine.md §1.1: installed for day 1, added-to-existing-cluster
// for day 2).
var doneHostStates = map[string]bool{
	"installed":                 true,
	"added-to-existing-cluster": true,
}
