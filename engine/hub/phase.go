package hub

import (
	"fmt"

	"github.com/siteops/siteops/engine"
	"github.com/siteops/siteops/engine/assisted"
)

// derivePhase sums the site up from what the controllers wrote, unless
// the engine holds it back or deletes it.
func derivePhase(st *engine.SiteStatus, p *problem, deleting bool) {
	switch {
	case deleting:
		st.Phase, st.Message = engine.PhaseDeleting, "The site is being deleted in the teardown order; the installed cluster is not touched."
		if p != nil {
			st.Message = p.message
		}
		return
	case p != nil:
		st.Phase, st.Message = engine.PhasePending, p.message
		return
	}
	c := st.Cluster
	switch state := assisted.ClusterStatus(c.State); {
	case c.Installed || state.In(assisted.ClusterInstalled, assisted.ClusterAddingHosts):
		st.Phase, st.Message = engine.PhaseInstalled, orText(c.StateInfo, "The cluster is installed.")
	case state.In(assisted.ClusterError, assisted.ClusterCancelled):
		st.Phase, st.Message = engine.PhaseFailed, "The installation failed: "+c.StateInfo
	case state.In(assisted.ClusterPreparingForInstallation, assisted.ClusterInstalling, assisted.ClusterInstallingPendingUserAction, assisted.ClusterFinalizing):
		st.Phase, st.Message = engine.PhaseInstalling, fmt.Sprintf("%s (%d%%).", c.StateInfo, c.Percent)
	case registered(st.Hosts) > 0:
		st.Phase, st.Message = engine.PhaseProvisioning, orText(c.StateInfo, "Hosts are registering.")
	case c.State == "":
		st.Phase, st.Message = engine.PhasePending, "Applied; waiting for assisted-service to register the cluster."
	default:
		st.Phase, st.Message = engine.PhasePending, fmt.Sprintf("Waiting for the discovery image; %d host(s) to boot.", len(st.Hosts))
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

func orText(s, def string) string {
	if s == "" {
		return def
	}
	return s
}
