package assisted

import (
	"strconv"
	"strings"
	"time"

	"github.com/siteops/siteops/engine"
)

// The host and cluster statuses grouped by what they tell a person
// (assisted-service models/host.go and models/cluster.go; the transitions
// in internal/host/statemachine.go and internal/cluster/statemachine.go).
// Every engine, the policy change rules and the dashboard read them here.
var (
	// HostNeedsActionStatuses do not move on without a person: a fix to
	// the site, the hardware, the network or the boot order.
	HostNeedsActionStatuses = []HostStatus{
		HostDisconnected,                // the agent stopped talking to the service
		HostPendingForInput,             // required input is missing from the site
		HostPreparingFailed,             // disk speed or image checks failed
		HostInstallingPendingUserAction, // wrong boot order after the reboot stage
		HostResettingPendingUserAction,  // needs booting into the discovery image
		HostUnbindingPendingUserAction,  // needs a reboot to be released
	}
	// HostFailedStatuses are those of a host whose installation failed.
	HostFailedStatuses = []HostStatus{HostError, HostCancelled}
	// HostDoneStatuses are those of a host whose part is over: installed
	// for day 1, added-to-existing-cluster for day 2.
	HostDoneStatuses = []HostStatus{HostInstalled, HostAddedToExistingCluster}
	// HostStartedStatuses are those from the preparation of the
	// installation on: the host takes no change to immutable fields.
	HostStartedStatuses = []HostStatus{HostPreparingForInstallation, HostPreparingSuccessful, HostInstalling,
		HostInstallingInProgress, HostInstallingPendingUserAction, HostInstalled, HostAddedToExistingCluster, HostError}

	// ClusterStartedStatuses are those from the trigger of the
	// installation on.
	ClusterStartedStatuses = []ClusterStatus{ClusterPreparingForInstallation, ClusterInstalling,
		ClusterInstallingPendingUserAction, ClusterFinalizing, ClusterInstalled, ClusterError, ClusterAddingHosts}
	// ClusterFailedStatuses are those of a cluster whose installation
	// failed or was cancelled.
	ClusterFailedStatuses = []ClusterStatus{ClusterError, ClusterCancelled}
)

// ValidationFailing tells whether a validation status says something is
// wrong rather than not known yet: pending blocks too, but resolves by
// itself (internal/host/validator.go).
func ValidationFailing(status string) bool {
	return status == string(ValidationFailure) || status == string(ValidationError)
}

// Waited says which of the time bounds (engine.Bounds) passed since the
// site last moved: Stalled the one its phase is watched against
// (Stallable), Settled the settle bound (Settleable).
type Waited struct{ Stalled, Settled bool }

// Assess derives a site's reason from what an engine reports of it: the
// phase, the cluster and host statuses, the validations, the refused
// revision and which time bounds passed. A reason the engine
// set itself (Held, InputError, AwaitingApproval, a hub's reasons) is
// kept unless a more severe one applies. Both engines call it, so that
// one site reads the same whichever engine installs it.
func Assess(s *engine.SiteStatus, w Waited) engine.Reason {
	r := s.Reason
	if s.RefusedRevision != "" {
		r = engine.Worse(r, engine.ReasonChangeRefused)
	}
	cluster := ClusterStatus(s.Cluster.State)
	switch s.Phase {
	case engine.PhaseFailed:
		if cluster.In(ClusterFailedStatuses...) || r == "" {
			r = engine.Worse(r, engine.ReasonInstallFailed)
		}
		return r
	case engine.PhaseDeleting:
		return r
	}
	registered, failed, needsAction, validationFails := false, false, false, false
	for _, h := range s.Hosts {
		st := HostStatus(h.State)
		registered = registered || h.Agent != ""
		failed = failed || st.In(HostFailedStatuses...)
		needsAction = needsAction || st.In(HostNeedsActionStatuses...)
		// A host's validations settle after its inventory; they hold the
		// installation back once the host is insufficient.
		if st.In(HostInsufficient, HostInsufficientUnbound) {
			for _, v := range h.Validations {
				validationFails = validationFails || ValidationFailing(v.Status)
			}
		}
	}
	// Cluster validations fail as a matter of course while hosts
	// register (too few masters, no VIP yet): they count once every host
	// of the site registered.
	if registeredAll(s.Hosts) {
		for _, v := range s.Cluster.Validations {
			if ValidationFailing(v.Status) && v.ID != CVAllHostsReady {
				validationFails = true
			}
		}
	}
	switch s.Phase {
	case engine.PhaseInstalled, engine.PhaseInstalling:
		if failed {
			r = engine.Worse(r, engine.ReasonPartiallyInstalled)
		}
		if needsAction {
			r = engine.Worse(r, engine.ReasonHostNeedsAction)
		}
		if w.Stalled && s.Phase == engine.PhaseInstalling {
			r = engine.Worse(r, engine.ReasonNoProgress)
		}
	case engine.PhasePending, engine.PhaseProvisioning:
		if needsAction {
			r = engine.Worse(r, engine.ReasonHostNeedsAction)
		}
		if validationFails && w.Settled {
			r = engine.Worse(r, engine.ReasonValidationsFailing)
		}
		if w.Stalled && !registered {
			r = engine.Worse(r, engine.ReasonNotRegistering)
		}
	}
	return r
}

func registeredAll(hosts []engine.HostStatus) bool {
	for _, h := range hosts {
		if h.Agent == "" {
			return false
		}
	}
	return len(hosts) > 0
}

// Stallable reports whether a site in this phase is watched for a stall,
// and against which bound: registration while nothing registered yet,
// progress while installing.
func Stallable(s *engine.SiteStatus, b engine.Bounds) (time.Duration, bool) {
	switch s.Phase {
	case engine.PhaseInstalling:
		return b.NoProgressAfter, b.NoProgressAfter > 0
	case engine.PhasePending, engine.PhaseProvisioning:
		if s.Reason == engine.ReasonHeld || s.Reason == engine.ReasonAwaitingApproval {
			return 0, false
		}
		for _, h := range s.Hosts {
			if h.Agent != "" {
				return 0, false
			}
		}
		return b.StuckAfter, b.StuckAfter > 0
	}
	return 0, false
}

// Settleable reports whether a site in this phase waits for the settle
// bound: failing validations count once it passed.
func Settleable(s *engine.SiteStatus, b engine.Bounds) (time.Duration, bool) {
	switch s.Phase {
	case engine.PhasePending, engine.PhaseProvisioning:
		return b.SettleAfter, b.SettleAfter > 0
	}
	return 0, false
}

// ProgressKey sums up what counts as progress of a site: its phase, the
// cluster's status and percent, and each host's status, stage and
// percent. When it changes the stall clock starts again.
func ProgressKey(s *engine.SiteStatus) string {
	var b strings.Builder
	b.WriteString(string(s.Phase))
	b.WriteByte('|')
	b.WriteString(s.Cluster.State)
	b.WriteByte('|')
	b.WriteString(strconv.Itoa(s.Cluster.Percent))
	for _, h := range s.Hosts {
		b.WriteByte('|')
		b.WriteString(h.Name)
		b.WriteByte(':')
		b.WriteString(h.Agent)
		b.WriteByte(':')
		b.WriteString(h.State)
		b.WriteByte(':')
		b.WriteString(h.Stage)
		b.WriteByte(':')
		b.WriteString(strconv.Itoa(h.Percent))
	}
	return b.String()
}
