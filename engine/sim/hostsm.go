package sim

import (
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/siteops/siteops/engine/assisted"
)

// hostMonitor is the host monitor's pass (every 8 s upstream): each host's
// validations are computed and the RefreshHost rules applied (internal/host/statemachine.go, internal/host/pool_host_statemachine.go).
func (o *op) hostMonitor() {
	if o.st.Deleting != nil {
		return
	}
	o.suggestRoles()
	for _, h := range o.st.Hosts {
		if h.Removing != "" {
			continue
		}
		o.refreshHost(h)
	}
}

func (o *op) refreshHost(h *host) {
	in := o.hostInput(h)
	// The operator validations (assisted.OperatorResults) all pass: no
	// site enables an operator, so they change neither gates nor status.
	// The results are read here and by the refresh rules, never kept
	// (NotPassing copies): one list serves every refresh.
	rs := assisted.AppendHostResults(o.e.hostResults[:0], in)
	o.e.hostResults = rs
	np := assisted.NotPassing(rs)
	if !h.Validated || !equalResults(h.Validations, np) {
		h.Validations, h.Validated = np, true
		o.changed = true
	}
	if dp := in.DiskProblems(); !slices.Equal(dp, h.DiskProblems) {
		h.DiskProblems = dp
		o.changed = true
	}
	g := assisted.Gates(rs)
	if h.Bound {
		o.refreshBound(h, g, rs)
	} else {
		o.refreshPool(h, g, rs)
	}
}

// hostInput gathers what the host validations read.
func (o *op) hostInput(h *host) *assisted.HostInput {
	hw := o.hw(h.Hardware)
	in := &assisted.HostInput{
		ID:                h.ID,
		Inventory:         h.Inventory,
		Role:              effectiveRole(h),
		Bootstrap:         h.Bootstrap,
		Day2:              h.Day2,
		RequestedHostname: h.Hostname,
		CheckedIn:         o.checkedIn(h),
		MediaDisconnected: h.MediaDisconnected,
		Stage:             h.Stage,
		InstallDisk:       h.InstallDisk,
		DiskSpeed:         h.DiskSpeed,
		FailedImages:      h.ImagesFailed,
		APIConnectivity:   h.APIConn,
		NTPSynced:         !hw.NTPUnsynced,
		ServiceTime:       o.now,
		HostClockAheadMin: hw.ClockOffsetMin,
		DNSResolves:       hw.DNS != dnsFail,
		DNSSelf:           hw.DNS == dnsSelf,
	}
	if hw.DNS == dnsWildcard {
		in.WildcardAddrs = []string{wildcardAddress}
	}
	c := o.st.Cluster
	if !h.Bound || c == nil {
		return in
	}
	in.Stages = o.stagesOf(h)
	d := o.st.Desired
	facts := &assisted.ClusterFacts{
		Version:         c.Version,
		SNO:             c.SNO,
		UMN:             c.UMN,
		Platform:        c.Platform,
		MachineNetworks: c.MachineNetworks,
		Hostnames:       map[string]int{},
		MajorityGroups:  c.Connectivity,
		InMajority:      true,
		Day2:            c.Kind == assisted.KindAddHostsCluster,
		Imported:        c.Kind == assisted.KindAddHostsCluster && c.InstallStartedAt.IsZero(),
	}
	if d != nil && d.ACI != nil {
		facts.UserManagedLB = d.ACI.LoadBalancer == assisted.LoadBalancerUserManaged
	}
	if d != nil && d.CD != nil {
		facts.Name, facts.BaseDomain = d.CD.ClusterName, d.CD.BaseDomain
	}
	for _, p := range o.st.clusterHosts() {
		facts.HostCount++
		if p.Inventory != nil {
			facts.Hostnames[realHostname(p)]++
		}
		facts.ImportedAPIReached = facts.ImportedAPIReached || p.APIConn.OK
	}
	in.Cluster = facts
	in.HasConnectivity = c.Connectivity
	in.Peers = o.peers(h, hw)
	if d != nil && d.ACI != nil {
		in.Ignored = assisted.ParseIgnored(d.ACI.Annotations[assisted.AnnotationIgnoredHostValidations])
	}
	return in
}

func realHostname(h *host) string {
	if h.Hostname != "" {
		return h.Hostname
	}
	if h.Inventory != nil {
		return h.Inventory.Hostname
	}
	return ""
}

// peers are the other hosts of the cluster as the host's connectivity
// report measures them: each machine adds its own latency, the worse of
// two machines' packet loss counts, and a machine with a broken MTU breaks
// its paths.
func (o *op) peers(h *host, hw hardware) []assisted.Peer {
	var out []assisted.Peer
	for _, p := range o.st.clusterHosts() {
		if p == h || p.Inventory == nil {
			continue
		}
		phw := o.hw(p.Hardware)
		addr := ""
		if a := p.Inventory.Addresses(); len(a) > 0 {
			addr = a[0].String()
		}
		out = append(out, assisted.Peer{
			Hostname:      realHostname(p),
			Role:          effectiveRole(p),
			Address:       addr,
			LatencyMs:     hw.LatencyMs + phw.LatencyMs,
			PacketLossPct: max(hw.PacketLossPct, phw.PacketLossPct),
			MTUBroken:     hw.MTUBroken || phw.MTUBroken,
		})
	}
	// Upstream lists peers in the order of the agent's connectivity
	// report; the simulation lists them by hostname, the same on every
	// run.
	slices.SortStableFunc(out, func(a, b assisted.Peer) int { return strings.Compare(a.Hostname, b.Hostname) })
	return out
}

// checkedIn is the connected validation's clock: the agent reported
// within the disconnection limit (3 min, 5 for the bootstrap).
func (o *op) checkedIn(h *host) bool {
	if h.AgentUp {
		return true
	}
	limit := assisted.HostMaxDisconnection
	if h.Bootstrap {
		limit = assisted.BootstrapMaxDisconnection
	}
	return !o.now.After(h.LastSeen.Add(limit))
}

func (o *op) stagesOf(h *host) []assisted.Stage {
	c := o.st.Cluster
	sno := c != nil && c.SNO
	return assisted.StagesFor(effectiveRole(h), h.Bootstrap, sno)
}

// refreshBound applies the RefreshHost rules of a bound host, in the
// order the state machine registers them (internal/host/statemachine.go).
func (o *op) refreshBound(h *host, g assisted.HostGates, rs []assisted.Result) {
	c := o.st.Cluster
	if c == nil {
		return
	}
	s := h.Status
	connected := g.Connected && g.MediaConnected
	lost := assisted.InfoDisconnected
	if !g.MediaConnected {
		lost = assisted.InfoMediaDisconnected
	}
	role := effectiveRole(h)
	explicitRole := h.Role == assisted.RoleMaster || h.Role == assisted.RoleArbiter || h.Role == assisted.RoleWorker
	diskSpeedFailing := h.DiskSpeed.Tested && !h.DiskSpeed.OK
	_ = role

	if !h.Day2 && c.Status == assisted.ClusterError && s.In(assisted.HostInstalling, assisted.HostInstallingInProgress, assisted.HostInstalled, assisted.HostResettingPendingUserAction, assisted.HostInstallingPendingUserAction) {
		o.setHostStatus(h, assisted.HostError, assisted.InfoClusterError)
		return
	}
	switch {
	case s.In(assisted.HostDiscovering, assisted.HostInsufficient, assisted.HostKnown, assisted.HostPendingForInput, assisted.HostDisconnected, assisted.HostPreparingFailed) && !connected:
		o.setHostStatus(h, assisted.HostDisconnected, lost)
	case s.In(assisted.HostDisconnected, assisted.HostDiscovering) && !g.Inventory:
		o.setHostStatus(h, assisted.HostDiscovering, assisted.InfoDiscovering)
	case s.In(assisted.HostDisconnected, assisted.HostDiscovering, assisted.HostInsufficient, assisted.HostKnown, assisted.HostPendingForInput):
		switch {
		case !g.MinHW:
			o.setHostStatus(h, assisted.HostInsufficient, assisted.InfoInsufficientMinHW(g.Failing))
		case !g.Input:
			o.setHostStatus(h, assisted.HostPendingForInput, assisted.InfoPendingForInput(g.Failing))
		case !g.Sufficient:
			o.setHostStatus(h, assisted.HostInsufficient, assisted.InfoNotReady(g.Failing))
		case s == assisted.HostKnown && c.Status == assisted.ClusterPreparingForInstallation && explicitRole:
			// The text written on entry is the "successful" one
			// (internal/host/common.go: the preparing constant is never used).
			o.setHostStatus(h, assisted.HostPreparingForInstallation, assisted.InfoPreparingSuccessful)
		default:
			o.setHostStatus(h, assisted.HostKnown, assisted.InfoKnown)
		}
	case s == assisted.HostPreparingForInstallation:
		// The preparation rules in the order the state machine registers
		// them (internal/host/statemachine.go, "Refresh successfully
		// preparing host" to "Stay in preparing for installation").
		imagesFailed := len(h.ImagesFailed) > 0
		allOK := h.DiskSpeed.Tested && h.DiskSpeed.OK && h.ImagesDone && !imagesFailed
		allOKOrUnknown := !diskSpeedFailing && !imagesFailed
		unknown := !h.DiskSpeed.Tested || !h.ImagesDone
		preparing := c.Status == assisted.ClusterPreparingForInstallation
		switch {
		case !connected:
			o.setHostStatus(h, assisted.HostDisconnected, assisted.InfoDisconnectedPreparing)
		case allOK && preparing:
			o.setHostStatus(h, assisted.HostPreparingSuccessful, assisted.InfoPreparingSuccessful)
		case allOKOrUnknown && !preparing:
			o.setHostStatus(h, assisted.HostKnown, assisted.InfoKnown)
		case diskSpeedFailing:
			o.setHostStatus(h, assisted.HostInsufficient, assisted.InfoNotReady(g.Failing))
		case unknown && allOKOrUnknown && !o.now.Before(h.StatusAt.Add(assisted.HostPrepareTimeout)):
			var reasons []string
			if !h.DiskSpeed.Tested {
				reasons = append(reasons, assisted.InfoPreparingTimeoutDiskSpeed)
			}
			if !h.ImagesDone {
				reasons = append(reasons, assisted.InfoPreparingTimeoutImages)
			}
			o.setHostStatus(h, assisted.HostPreparingFailed, assisted.InfoPreparingTimeout(reasons))
		case imagesFailed:
			o.setHostStatus(h, assisted.HostPreparingFailed, assisted.InfoPreparingFailedImages(g.Failing))
		}
	case s == assisted.HostPreparingFailed:
		switch {
		case diskSpeedFailing:
			o.setHostStatus(h, assisted.HostInsufficient, assisted.InfoNotReady(g.Failing))
		case c.Status != assisted.ClusterPreparingForInstallation:
			o.setHostStatus(h, assisted.HostKnown, assisted.InfoKnown)
		}
	case s == assisted.HostPreparingSuccessful:
		switch {
		case !connected:
			o.setHostStatus(h, assisted.HostDisconnected, assisted.InfoDisconnectedPreparing)
		case c.Status == assisted.ClusterInstalling:
			o.setHostStatus(h, assisted.HostInstalling, assisted.InfoInstalling)
		case c.Status != assisted.ClusterPreparingForInstallation:
			o.setHostStatus(h, assisted.HostKnown, assisted.InfoKnown)
		}
	case s == assisted.HostInstalling:
		switch {
		case !o.now.Before(h.StatusAt.Add(assisted.HostInstallationTimeout)):
			o.setHostStatus(h, assisted.HostError, assisted.InfoInstallNeverStarted)
		case !connected && !o.e.opts.SoftTimeouts:
			o.setHostStatus(h, assisted.HostError, assisted.InfoDisconnectedInstalling)
		}
	case s == assisted.HostInstallingInProgress:
		limit := assisted.StageTimeout(h.Stage, c.SNO)
		switch {
		case c.Status == assisted.ClusterInstallingPendingUserAction && h.Stage.In(assisted.StageWaitingForControlPlan, assisted.StageWaitingForController, assisted.StageWaitingForBootkube, assisted.StageRebooting):
			h.StageUpdatedAt = o.now
			o.changed = true
		case !connected && !o.e.opts.SoftTimeouts:
			o.setHostStatus(h, assisted.HostError, assisted.InfoDisconnectedInstalling)
		case !connected:
			// With soft timeouts a disconnection only warns.
		case !o.now.Before(h.StageUpdatedAt.Add(limit)) && o.e.opts.SoftTimeouts && h.Stage != assisted.StageRebooting:
			// With soft timeouts a slow stage only warns
			// (stage_timed_out).
		case !o.now.Before(h.StageUpdatedAt.Add(limit)):
			if h.Stage == assisted.StageRebooting {
				o.setHostStatus(h, assisted.HostInstallingPendingUserAction, assisted.InfoRebootTimeout(o.diskLabel(h)))
			} else {
				o.setHostStatus(h, assisted.HostError, assisted.InfoStageTimeout(h.Stage, limit))
			}
		}
	case s == assisted.HostInstallingPendingUserAction:
		if !o.now.Before(h.StatusAt.Add(assisted.PendingUserActionTimeout)) && o.succeedsWithout(h) && !c.Status.In(assisted.ClusterInstalled, assisted.ClusterAddingHosts) {
			o.setHostStatus(h, assisted.HostError, assisted.InfoPendingUserActionTimeout)
		}
	}
}

// succeedsWithout reports whether the cluster would still install without
// the host.
func (o *op) succeedsWithout(h *host) bool {
	var others []*host
	for _, p := range o.day1Hosts() {
		if p != h {
			others = append(others, p)
		}
	}
	return o.hasEnough(others, assisted.HostInstalling, assisted.HostInstallingInProgress, assisted.HostInstalled, assisted.HostPreparingSuccessful)
}

func (o *op) diskLabel(h *host) string {
	d, ok := o.hostInput(h).InstallationDisk()
	if !ok {
		return assisted.DiskLabel("", h.InstallDisk)
	}
	return assisted.DiskLabel(d.Name, d.ID)
}

// refreshPool applies the pool (late-binding) host rules (internal/host/pool_host_statemachine.go).
func (o *op) refreshPool(h *host, g assisted.HostGates, rs []assisted.Result) {
	s := h.Status
	connected := g.Connected && g.MediaConnected
	switch {
	case s.In(assisted.HostDiscoveringUnbound, assisted.HostInsufficientUnbound, assisted.HostKnownUnbound, assisted.HostDisconnectedUnbound, assisted.HostUnbinding) && !connected:
		o.setHostStatus(h, assisted.HostDisconnectedUnbound, assisted.InfoDisconnected)
	case s.In(assisted.HostDisconnectedUnbound, assisted.HostDiscoveringUnbound) && !g.Inventory:
		o.setHostStatus(h, assisted.HostDiscoveringUnbound, assisted.InfoDiscovering)
	case s.Unbound() && !assisted.PoolReady(rs):
		o.setHostStatus(h, assisted.HostInsufficientUnbound, assisted.InfoInsufficientMinHW(g.Failing))
	case s.Unbound():
		o.setHostStatus(h, assisted.HostKnownUnbound, assisted.InfoKnownUnbound)
	}
}

// registerHost is the RegisterHost event of an existing host: its agent
// (re)started and registered (internal/host/statemachine.go registration, internal/host/pool_host_statemachine.go).
func (o *op) registerHost(h *host) {
	s := h.Status
	reset := func(status assisted.HostStatus) {
		h.Inventory, h.Validations, h.Validated = nil, nil, false
		h.Stage, h.ProgressInfo, h.Waiting = "", "", false
		h.StageStartedAt, h.StageUpdatedAt = time.Time{}, time.Time{}
		o.setHostStatus(h, status, assisted.InfoDiscovering)
	}
	switch {
	case !h.Bound && (s.Unbound() || s.In(assisted.HostUnbinding, assisted.HostUnbindingPendingUserAction, assisted.HostReclaimingRebooting, "")):
		reset(assisted.HostDiscoveringUnbound)
	case s.In(assisted.HostDiscovering, assisted.HostKnown, assisted.HostDisconnected, assisted.HostInsufficient, assisted.HostResettingPendingUserAction, assisted.HostBinding, assisted.HostPendingForInput, ""):
		reset(assisted.HostDiscovering)
	case s.In(assisted.HostPreparingForInstallation, assisted.HostPreparingSuccessful):
		if c := o.st.Cluster; c != nil {
			c.PrepStatus, c.PrepReason = assisted.PrepNotStarted, assisted.PrepReasonNotPerformed
		}
		o.setHostStatus(h, assisted.HostKnown, assisted.InfoKnown)
	case s == assisted.HostResetting && h.Stage == assisted.StageRebooting:
	case s == assisted.HostResetting:
		reset(assisted.HostDiscovering)
	case s.In(assisted.HostInstallingInProgress, assisted.HostInstallingPendingUserAction, assisted.HostAddedToExistingCluster) &&
		(h.Stage == assisted.StageRebooting || h.Day2 && h.Stage == assisted.StageDone):
		model, serial := "", ""
		if d, ok := o.hostInput(h).InstallationDisk(); ok {
			model, serial = d.Model, d.Serial
		}
		o.setHostStatus(h, assisted.HostInstallingPendingUserAction, assisted.InfoWrongBootOrder(model, serial, o.diskLabel(h)))
	case s.In(assisted.HostInstalling, assisted.HostInstallingInProgress):
		o.setHostStatus(h, assisted.HostError, "The host unexpectedly restarted during the installation")
	}
}

// progress is HostProgressChanged: the installer (or, after the reboot,
// the installer controller) reports a stage (internal/host/statemachine.go progress, host.go
// UpdateInstallProgress).
func (o *op) progress(h *host, stage assisted.Stage, info string) {
	if !h.Status.In(assisted.InstallingStatuses...) {
		return // 409: Can't set progress <stage> to host in status <status>
	}
	if stage == assisted.StageFailed {
		h.Stage, h.ProgressInfo = stage, info
		h.StageUpdatedAt = o.now
		o.setHostStatus(h, assisted.HostError, assisted.InfoProgressFailed(info))
		o.updateProgress()
		return
	}
	stages := o.stagesOf(h)
	ni, ci := assisted.StageIndex(stages, stage), assisted.StageIndex(stages, h.Stage)
	if ni < 0 || ni < ci {
		return // 409: not in the role's list, or going backwards
	}
	if h.Stage != stage {
		h.StageStartedAt = o.now
		o.event(agentRef(h), evStage, fmt.Sprintf("Host %s: reached installation stage %s", h.name(), stage))
		if stage == assisted.StageJoined {
			o.addNode(realHostname(h))
		}
	}
	h.Stage, h.ProgressInfo, h.StageUpdatedAt = stage, info, o.now
	o.changed = true
	switch {
	case stage == assisted.StageDone && h.Day2:
		o.setHostStatus(h, assisted.HostAddedToExistingCluster, string(stage))
	case stage == assisted.StageDone:
		o.setHostStatus(h, assisted.HostInstalled, string(stage))
	case stage == assisted.StageRebooting && h.Day2:
		o.setHostStatus(h, assisted.HostInstallingInProgress, string(stage))
	default:
		o.setHostStatus(h, assisted.HostInstallingInProgress, string(stage))
	}
	o.updateProgress()
	o.scheduleStage(h)
}

// mediaDisconnect is the MediaDisconnect event: the agent reports that
// it cannot read the discovery media (internal/host/statemachine.go other events).
func (o *op) mediaDisconnect(h *host) {
	h.MediaDisconnected = true
	o.changed = true
	o.event(agentRef(h), evInjected, fmt.Sprintf("Host %s: the discovery media was disconnected (%s mediaAt)", h.name(), AnnotationHardware))
	switch s := h.Status; {
	case s.Unbound():
		o.setHostStatus(h, assisted.HostDisconnectedUnbound, assisted.InfoMediaDisconnected)
	case s.In(assisted.HostDiscovering, assisted.HostInsufficient, assisted.HostKnown, assisted.HostPendingForInput, assisted.HostDisconnected, assisted.HostBinding):
		o.setHostStatus(h, assisted.HostDisconnected, assisted.InfoMediaDisconnected)
	case s.In(assisted.HostPreparingForInstallation, assisted.HostPreparingFailed, assisted.HostPreparingSuccessful, assisted.HostInstalling, assisted.HostInstallingInProgress, assisted.HostError):
		o.setHostStatus(h, assisted.HostError, assisted.InfoMediaDisconnected)
	}
}

// onHostStatus reacts to a host entering a status: the agent's next steps.
func (o *op) onHostStatus(h *host, old assisted.HostStatus) {
	hw := o.hw(h.Hardware)
	switch h.Status {
	case assisted.HostPreparingForInstallation:
		if hw.DisconnectAt == disconnectPreparing {
			o.agentStops(h, "preparing for installation")
			return
		}
		if h.AgentUp {
			h.ImagesDone, h.ImagesFailed = false, nil
			o.schedule(tkPrepareChecks, h.ID, o.after(timing.PrepareChecks, h.ID+"prepare"))
		}
	case assisted.HostInstalling:
		if h.AgentUp {
			o.schedule(tkInstallPickup, h.ID, o.after(timing.InstallPickup, h.ID+"pickup"))
		}
	case assisted.HostError, assisted.HostCancelled, assisted.HostInstalled, assisted.HostAddedToExistingCluster:
		o.cancel(tkStage, h.ID)
		o.cancel(tkFail, h.ID)
		o.cancel(tkInstallPickup, h.ID)
		h.Waiting = false
	}
}

// hostDeadline is the next time a host timeout needs a monitor pass.
func (o *op) hostDeadline(h *host) (time.Time, bool) {
	var at time.Time
	consider := func(t time.Time) {
		if at.IsZero() || t.Before(at) {
			at = t
		}
	}
	if !h.AgentUp && !h.LastSeen.IsZero() && h.Status != "" {
		limit := assisted.HostMaxDisconnection
		if h.Bootstrap {
			limit = assisted.BootstrapMaxDisconnection
		}
		if t := h.LastSeen.Add(limit).Add(time.Nanosecond); t.After(o.now) {
			consider(t)
		}
	}
	c := o.st.Cluster
	switch h.Status {
	case assisted.HostPreparingForInstallation:
		consider(h.StatusAt.Add(assisted.HostPrepareTimeout))
	case assisted.HostInstalling:
		consider(h.StatusAt.Add(assisted.HostInstallationTimeout))
	case assisted.HostInstallingInProgress:
		if c != nil {
			consider(h.StageUpdatedAt.Add(assisted.StageTimeout(h.Stage, c.SNO)))
		}
	case assisted.HostInstallingPendingUserAction:
		consider(h.StatusAt.Add(assisted.PendingUserActionTimeout))
	}
	return at, !at.IsZero()
}

// scheduleDeadlines makes sure a monitor pass runs when a timeout expires.
func (o *op) scheduleDeadlines() {
	for _, h := range o.st.Hosts {
		if t, ok := o.hostDeadline(h); ok && t.After(o.now) {
			o.scheduleBy(tkHostMonitor, "", tickAfter(t.Add(-time.Nanosecond), assisted.HostMonitorInterval))
		}
	}
	if t, ok := o.clusterDeadline(); ok && t.After(o.now) {
		o.scheduleBy(tkClusterMonitor, "", tickAfter(t.Add(-time.Nanosecond), assisted.ClusterMonitorInterval))
	}
}
