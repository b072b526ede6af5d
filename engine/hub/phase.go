package hub

import (
	"fmt"
	"strings"
	"time"

	"github.com/siteops/siteops/engine"
	"github.com/siteops/siteops/engine/assisted"
)

// derivePhase sums the site up from what the controllers wrote. A site
// the engine holds back keeps the phase its objects show, with the
// engine's message; a site being deleted is Deleting.
func derivePhase(st *engine.SiteStatus, p *problem, deleting bool) {
	c := st.Cluster
	switch state := assisted.ClusterStatus(c.State); {
	case deleting:
		st.Phase, st.Message = engine.PhaseDeleting, "The site is being deleted in the teardown order; the installed cluster is not touched."
	case c.Installed || state.In(assisted.ClusterInstalled, assisted.ClusterAddingHosts):
		st.Phase, st.Message = engine.PhaseInstalled, orText(sentence(c.StateInfo), "The cluster is installed.")
		if failed := assisted.FailedToJoin(st.Hosts); len(failed) > 0 {
			st.Message += fmt.Sprintf(" %d host(s) failed to join: %s. Fix the machine, then remove it from the site and add it again.", len(failed), strings.Join(failed, "; "))
		}
	case state.In(assisted.ClusterFailedStatuses...):
		st.Phase, st.Message = engine.PhaseFailed, "The installation failed: "+c.StateInfo+assisted.FailedHosts(st.Hosts)+". Fix the cause, then delete the AgentClusterInstall (or the site) and apply it again to retry."
	case state.In(assisted.ClusterPreparingForInstallation, assisted.ClusterInstalling, assisted.ClusterInstallingPendingUserAction, assisted.ClusterFinalizing):
		st.Phase, st.Message = engine.PhaseInstalling, fmt.Sprintf("%s (%d%%).", c.StateInfo, c.Percent)
		if state == assisted.ClusterInstallingPendingUserAction {
			st.Message += " " + strings.Join(assisted.HostsIn(st.Hosts, assisted.HostInstallingPendingUserAction), "; ")
		}
		if f := assisted.FailedHosts(st.Hosts); f != "" {
			st.Message += " The installation goes on without the hosts that failed" + f + "."
		}
	case c.State == "" && registered(st.Hosts) == 0:
		st.Phase, st.Message = engine.PhasePending, "Applied; waiting for assisted-service to register the cluster."
	case registered(st.Hosts) > 0 || booting(st.Hosts) > 0:
		st.Phase, st.Message = engine.PhaseProvisioning, assisted.HostProblems(st.Hosts)
		switch {
		case st.Message != "":
		case state != assisted.ClusterReady && len(c.Validations) > 0:
			st.Message = assisted.ClusterValidationsMessage(c)
		default:
			st.Message = orText(c.StateInfo, "Hosts are registering.")
		}
	default:
		st.Phase, st.Message = engine.PhasePending, fmt.Sprintf("Waiting for the discovery image; %d host(s) to boot.", len(st.Hosts))
	}
	if p != nil {
		st.Reason, st.Message = p.reason, p.message
		if p.reason == reasonRefused && len(st.Resources) == 0 {
			st.Phase = engine.PhaseFailed
		}
	}
}

func registered(hosts []engine.HostStatus) int {
	n := 0
	for _, h := range hosts {
		if h.Agent != "" {
			n++
		}
	}
	return n
}

// sentence ends a status text with a full stop, as the site's message
// does.
func sentence(s string) string {
	if s == "" || strings.HasSuffix(s, ".") {
		return s
	}
	return s + "."
}

// booting counts the BareMetalHosts booting the discovery image.
func booting(hosts []engine.HostStatus) int {
	n := 0
	for _, h := range hosts {
		if h.ProvisioningState == assisted.BMHStateProvisioning || h.ProvisioningState == assisted.BMHStateProvisioned {
			n++
		}
	}
	return n
}

func orText(s, def string) string {
	if s == "" {
		return def
	}
	return s
}

// trackProgress restarts a site's stall clock when its progress changed
// since the last status, and reports which bounds passed: the one of its
// phase (NotRegistering, NoProgress) and the settle bound (failing
// validations). The clock of a site first seen starts at the latest time
// its objects record.
func (e *Engine) trackProgress(name string, st *engine.SiteStatus) assisted.Waited {
	key := assisted.ProgressKey(st)
	now := time.Now().UTC()
	e.mu.Lock()
	defer e.mu.Unlock()
	s := e.siteLocked(name)
	if key != s.progressKey {
		at := now
		if s.progressKey == "" {
			at = latestTime(st, now)
		}
		s.progressKey, s.progressAt = key, at
	}
	at := s.progressAt
	st.LastProgressAt = &at
	bound, ok := assisted.Stallable(st, e.o.bounds)
	s.stalled = ok && now.Sub(s.progressAt) >= bound
	settle, ok := assisted.Settleable(st, e.o.bounds)
	s.settled = ok && now.Sub(s.progressAt) >= settle
	return assisted.Waited{Stalled: s.stalled, Settled: s.settled}
}

// latestTime is the latest condition transition of the site's objects,
// or def when none is recorded.
func latestTime(st *engine.SiteStatus, def time.Time) time.Time {
	var t time.Time
	for _, r := range st.Resources {
		for _, c := range r.Conditions {
			if c.LastTransitionTime.After(t) {
				t = c.LastTransitionTime
			}
		}
	}
	if st.Cluster.InstallStartedAt != nil && st.Cluster.InstallStartedAt.After(t) {
		t = *st.Cluster.InstallStartedAt
	}
	if t.IsZero() || t.After(def) {
		return def
	}
	return t
}

// checkStalls notifies the sites whose stall state changed since their
// last status: the time bounds pass without an event on the hub.
func (e *Engine) checkStalls() {
	names, _ := e.Sites(e.ctx)
	for _, name := range names {
		e.mu.Lock()
		var was assisted.Waited
		if s := e.sites[name]; s != nil {
			was = assisted.Waited{Stalled: s.stalled, Settled: s.settled}
		}
		e.mu.Unlock()
		if _, err := e.Status(e.ctx, name); err != nil {
			continue
		}
		e.mu.Lock()
		var now assisted.Waited
		if s := e.sites[name]; s != nil {
			now = assisted.Waited{Stalled: s.stalled, Settled: s.settled}
		}
		e.mu.Unlock()
		if now != was {
			e.notify(name)
		}
	}
}
