package sim

import (
	"fmt"
	"sort"
	"strings"

	"github.com/siteops/siteops/engine"
	"github.com/siteops/siteops/engine/assisted"
	"github.com/siteops/siteops/render"
)

// buildStatus is the site's status document, derived from its state
// alone: the same state always gives the same status (docs/status.md).
func buildStatus(st *siteState, mode ApproveMode) engine.SiteStatus {
	out := engine.SiteStatus{Site: st.Name, Revision: st.Revision}
	c := st.Cluster
	if c != nil {
		out.Cluster = engine.ClusterStatus{
			State:       string(c.Status),
			StateInfo:   c.StatusInfo,
			Percent:     c.TotalPercent,
			Validations: validations(c.Validations),
			Installed:   c.Installed,
		}
		if !c.RequirementsMetAt.IsZero() {
			t := c.RequirementsMetAt
			out.Cluster.InstallStartedAt = &t
		}
		if !c.InstalledAt.IsZero() {
			t := c.InstalledAt
			out.Cluster.InstalledAt = &t
		}
		if c.Metadata != nil {
			m := *c.Metadata
			out.Cluster.Metadata = &m
		}
	}
	out.Hosts = hostStatuses(st)
	for _, rc := range st.Conditions {
		rs := engine.ResourceStatus{
			Kind: rc.Kind, Namespace: rc.Namespace, Name: rc.Name,
			Conditions: shared(rc.Conditions),
		}
		if rc.Kind == render.KindInfraEnv {
			if ie := st.infraEnv(rc.Namespace, rc.Name); ie != nil {
				rs.ISODownloadURL = ie.ISOURL
			}
		}
		out.Resources = append(out.Resources, rs)
	}
	out.Resources = withoutConditions(st, out.Resources)
	out.Events = shared(st.Events)
	out.Phase, out.Reason, out.Message = phase(st, mode, out)
	out.RefusedRevision = st.RefusedRevision
	if !st.ProgressAt.IsZero() {
		t := st.ProgressAt
		out.LastProgressAt = &t
	}
	out.Reason = assisted.Assess(&out, assisted.Waited{Stalled: st.Stalled, Settled: st.Settled})
	return out
}

// shared is a list of the state a status shares instead of copying it
// (nil when empty, as a copy would be): the engine never writes over an
// element of a site's conditions or events once they are in the state
// (assisted.SetConditions builds a new list for a change, appendEvent
// writes after the list), and its length is capped so that appending to
// the status's list copies it.
func shared[T any](l []T) []T {
	if len(l) == 0 {
		return nil
	}
	return l[:len(l):len(l)]
}

// withoutConditions adds the bundle's objects that carry no condition,
// so that the status lists every object applied, in the order of
// engine.SortResources.
func withoutConditions(st *siteState, rs []engine.ResourceStatus) []engine.ResourceStatus {
	if st.Desired == nil || st.Deleting != nil {
		return rs
	}
	have := make(map[string]bool, len(rs))
	for _, r := range rs {
		have[r.Kind+" "+r.Namespace+"/"+r.Name] = true
	}
	added := false
	for _, o := range st.Desired.Objects {
		if !have[o.Kind+" "+o.Namespace+"/"+o.Name] {
			have[o.Kind+" "+o.Namespace+"/"+o.Name] = true
			rs = append(rs, engine.ResourceStatus{Kind: o.Kind, Namespace: o.Namespace, Name: o.Name})
			added = true
		}
	}
	if added {
		engine.SortResources(rs)
	}
	return rs
}

func validations(rs []assisted.Result) []engine.Validation {
	var out []engine.Validation
	for _, r := range rs {
		out = append(out, engine.Validation{ID: r.ID, Status: string(r.Status), Message: r.Message})
	}
	return out
}

// hostStatuses lists the site's machines (by BareMetalHost name) with
// their Agents, then Agents without a BareMetalHost.
func hostStatuses(st *siteState) []engine.HostStatus {
	var out []engine.HostStatus
	seen := map[*host]bool{}
	bmhs := append([]*bmh(nil), st.BMHs...)
	sort.Slice(bmhs, func(i, j int) bool {
		if bmhs[i].Namespace != bmhs[j].Namespace {
			return bmhs[i].Namespace < bmhs[j].Namespace
		}
		return bmhs[i].Name < bmhs[j].Name
	})
	for _, b := range bmhs {
		hs := engine.HostStatus{Name: b.Name, ProvisioningState: b.State}
		for _, h := range st.Hosts {
			if h.Namespace == b.Namespace && h.Machine == b.Name && !seen[h] {
				seen[h] = true
				fillHost(st, &hs, h)
				break
			}
		}
		out = append(out, hs)
	}
	hosts := append([]*host(nil), st.Hosts...)
	sortHosts(hosts)
	for _, h := range hosts {
		if !seen[h] {
			hs := engine.HostStatus{Name: h.Machine}
			fillHost(st, &hs, h)
			out = append(out, hs)
		}
	}
	return out
}

func fillHost(st *siteState, hs *engine.HostStatus, h *host) {
	hs.Agent = h.ID
	hs.Hostname = realHostname(h)
	hs.Role = statusRole(h)
	hs.State, hs.StateInfo = string(h.Status), h.StatusInfo
	hs.Stage = string(h.Stage)
	hs.Approved = h.Approved
	hs.Percent = hostPercent(h, st.Cluster != nil && st.Cluster.SNO)
	hs.Validations = validations(h.Validations)
	hs.DiskProblems = append([]string(nil), h.DiskProblems...)
}

// statusRole is the role a host reports: its own or the suggested one,
// none before its first status.
func statusRole(h *host) string {
	r := string(effectiveRole(h))
	if r == string(assisted.RoleAutoAssign) && h.Status == "" {
		return ""
	}
	return r
}

// hostPercent is the host's installation progress.
func hostPercent(h *host, sno bool) int {
	if h.Status.In(assisted.HostInstalled, assisted.HostAddedToExistingCluster) {
		return 100
	}
	return assisted.HostPercent(assisted.StagesFor(effectiveRole(h), h.Bootstrap, sno), h.Stage)
}

// phase sums the site up in one word and one sentence (docs/status.md
// has the table).
func phase(st *siteState, mode ApproveMode, out engine.SiteStatus) (engine.Phase, engine.Reason, string) {
	refused := ""
	if len(st.Refusals) > 0 {
		refused = "Refused: " + st.Refusals[0].Message
		if n := len(st.Refusals); n > 1 {
			refused += fmt.Sprintf(" (and %d more, see the Accepted conditions)", n-1)
		}
	}
	withRefusal := func(p engine.Phase, msg string) (engine.Phase, engine.Reason, string) {
		if refused != "" {
			return p, "", refused + ". Meanwhile: " + msg
		}
		return p, "", msg
	}
	because := func(r engine.Reason, p engine.Phase, msg string) (engine.Phase, engine.Reason, string) {
		p, _, msg = withRefusal(p, msg)
		return p, r, msg
	}
	d, c := st.Desired, st.Cluster
	switch {
	case st.Deleting != nil:
		step := teardownSteps[min(st.Deleting.Step, len(teardownSteps)-1)]
		return engine.PhaseDeleting, "", "The site is being deleted (" + step + "); the installed cluster is not touched."
	case d == nil:
		return engine.PhaseFailed, engine.ReasonChangeRefused, refused + "."
	case d.CD == nil || d.ACI == nil:
		return withRefusal(engine.PhasePending, "The site renders no ClusterDeployment and AgentClusterInstall: there is no cluster to install.")
	case c == nil && st.ClusterSync != nil:
		return because(engine.ReasonInputError, engine.PhaseFailed, fmt.Sprintf("AgentClusterInstall %s/%s cannot be synced: %s. Fix the site definition.", d.ACI.Namespace, d.ACI.Name, st.ClusterSync.Message))
	case c == nil:
		return withRefusal(engine.PhasePending, "Registering the cluster.")
	}
	switch c.Status {
	case assisted.ClusterError:
		return withRefusal(engine.PhaseFailed, "The installation failed: "+c.StatusInfo+assisted.FailedHosts(out.Hosts)+". Fix the cause, then delete the AgentClusterInstall (or the site) and apply it again to retry.")
	case assisted.ClusterCancelled:
		return withRefusal(engine.PhaseFailed, "The installation was cancelled. Delete the AgentClusterInstall (or the site) and apply it again to retry.")
	case assisted.ClusterInstalled, assisted.ClusterAddingHosts:
		msg := c.StatusInfo + "."
		if c.Status == assisted.ClusterAddingHosts {
			msg = assisted.ClusterInfoInstalled + "."
			if c.InstalledInfo != "" {
				msg = c.InstalledInfo + "."
			}
		}
		if n := day2Installing(st); n > 0 {
			msg += fmt.Sprintf(" %d host(s) are being added.", n)
		}
		if waiting := day2Unapproved(st); len(waiting) > 0 {
			msg += fmt.Sprintf(" %d host(s) wait for approval: %s.", len(waiting), strings.Join(waiting, ", "))
		}
		if failed := assisted.FailedToJoin(out.Hosts); len(failed) > 0 {
			msg += fmt.Sprintf(" %d host(s) failed to join: %s. Fix the machine, then remove it from the site and add it again.", len(failed), strings.Join(failed, "; "))
		}
		return withRefusal(engine.PhaseInstalled, msg)
	case assisted.ClusterPreparingForInstallation, assisted.ClusterInstalling, assisted.ClusterInstallingPendingUserAction, assisted.ClusterFinalizing:
		msg := fmt.Sprintf("%s (%d%%).", c.StatusInfo, c.TotalPercent)
		if c.Status == assisted.ClusterInstallingPendingUserAction {
			msg += " " + strings.Join(assisted.HostsIn(out.Hosts, assisted.HostInstallingPendingUserAction), "; ")
		}
		if f := assisted.FailedHosts(out.Hosts); f != "" {
			msg += " The installation goes on without the hosts that failed" + f + "."
		}
		return withRefusal(engine.PhaseInstalling, msg)
	}
	// insufficient, pending-for-input, ready: discovery and validation.
	if c.Sync != nil {
		return because(engine.ReasonInputError, engine.PhaseFailed, fmt.Sprintf("AgentClusterInstall %s/%s cannot be synced: %s. Fix the site definition.", d.ACI.Namespace, d.ACI.Name, c.Sync.Message))
	}
	if len(st.Hosts) == 0 {
		booting := 0
		for _, b := range st.BMHs {
			if b.State == assisted.BMHStateProvisioning || b.State == assisted.BMHStateProvisioned {
				booting++
			}
		}
		if booting == 0 {
			return withRefusal(engine.PhasePending, fmt.Sprintf("Waiting for the discovery image; %d host(s) to boot.", len(d.BMHs)))
		}
	}
	if msg := assisted.HostProblems(out.Hosts); msg != "" {
		return withRefusal(engine.PhaseProvisioning, msg)
	}
	if c.Status == assisted.ClusterReady {
		var unapproved []string
		for _, h := range st.clusterHosts() {
			if !h.Approved {
				unapproved = append(unapproved, h.BMH+" (agent "+h.ID+")")
			}
		}
		switch {
		case d.ACI.Hold:
			return because(engine.ReasonHeld, engine.PhasePending, "The cluster is ready; the installation is on hold (spec.holdInstallation).")
		case d.CD.Annotations[assisted.AnnotationReconcilePause] == "true":
			return because(engine.ReasonHeld, engine.PhasePending, "The cluster is ready; the ClusterDeployment has "+assisted.AnnotationReconcilePause+"=true.")
		case len(unapproved) > 0:
			how := "approve them (--approve manual leaves approval to you)"
			if mode == ApproveAuto {
				how = "their machines match no BareMetalHost of the site by boot MAC; approve them by hand or fix the bootMACAddress"
			}
			return because(engine.ReasonAwaitingApproval, engine.PhasePending, fmt.Sprintf("The installation waits for the approval of %s: %s.", strings.Join(unapproved, ", "), how))
		}
		for _, rc := range st.Conditions {
			if rc.Kind == "AgentClusterInstall" {
				if rm, ok := assisted.FindCondition(rc.Conditions, assisted.CondRequirementsMet); ok && rm.Status != assisted.True {
					return withRefusal(engine.PhasePending, rm.Message+"."+requirementsFix[rm.Reason])
				}
			}
		}
		return withRefusal(engine.PhaseProvisioning, "The cluster is ready to be installed.")
	}
	return withRefusal(engine.PhaseProvisioning, assisted.ClusterValidationsMessage(out.Cluster))
}

// requirementsFix says what to do about a RequirementsMet reason that
// holds a ready cluster back.
var requirementsFix = map[string]string{
	assisted.ReasonInsufficientAgents: " Make the site's BareMetalHosts and their roles match provisionRequirements.",
	assisted.ReasonUnsyncedAgents:     " Fix the Agents whose SpecSynced condition is False.",
}

// day2Unapproved names the day-2 hosts the controller would install but
// for their approval.
func day2Unapproved(st *siteState) []string {
	var out []string
	for _, h := range st.clusterHosts() {
		if h.Day2 && h.Status == assisted.HostKnown && !h.Approved {
			out = append(out, h.BMH+" (agent "+h.ID+")")
		}
	}
	return out
}

func day2Installing(st *siteState) int {
	n := 0
	for _, h := range st.clusterHosts() {
		if h.Day2 && !h.Status.In(assisted.HostAddedToExistingCluster, assisted.HostError) && !(h.Status == assisted.HostKnown && !h.Approved) {
			n++
		}
	}
	return n
}
