package sim

import (
	"time"

	"github.com/siteops/siteops/engine/assisted"
)

// clusterMonitor is the cluster monitor's pass (every 10 s upstream): it
// computes the validations and applies the RefreshStatus rules (internal/cluster/statemachine.go).
func (o *op) clusterMonitor() {
	c := o.st.Cluster
	if c == nil || o.st.Deleting != nil {
		return
	}
	var rs []assisted.Result
	if c.Status.In(assisted.ClusterInsufficient, assisted.ClusterReady, assisted.ClusterPendingForInput, assisted.ClusterPreparingForInstallation) {
		rs = o.computeClusterValidations()
	}
	o.refreshCluster(rs)
}

func (o *op) computeClusterValidations() []assisted.Result {
	// The operator validations all pass (no operator is enabled).
	rs := assisted.EvaluateCluster(o.clusterInput())
	o.setClusterValidations(rs)
	return rs
}

// clusterInput gathers what the cluster validations read.
func (o *op) clusterInput() *assisted.ClusterInput {
	c, d := o.st.Cluster, o.st.Desired
	in := &assisted.ClusterInput{
		Name:              d.CD.ClusterName,
		BaseDomain:        d.CD.BaseDomain,
		SNO:               c.SNO,
		UMN:               c.UMN,
		ControlPlaneCount: d.ACI.ControlPlane,
		ClusterNetworks:   d.ACI.ClusterNetworks,
		ServiceNetworks:   d.ACI.ServiceNetworks,
		MachineNetworks:   c.MachineNetworks,
		APIVIPs:           c.APIVIPs,
		IngressVIPs:       c.IngressVIPs,
		VIPsVerified:      c.Connectivity,
		PullSecretSet:     d.CD.PullSecret != "",
		NetworkType:       c.NetworkType,
		Day2:              c.Kind == assisted.KindAddHostsCluster,
		UserManagedLB:     d.ACI.LoadBalancer == assisted.LoadBalancerUserManaged,
		Ignored:           assisted.ParseIgnored(d.ACI.Annotations[assisted.AnnotationIgnoredClusterValids]),
	}
	if len(in.ClusterNetworks) == 0 {
		in.ClusterNetworks = []assisted.ClusterNetwork{assisted.DefaultClusterNetwork}
	}
	if len(in.ServiceNetworks) == 0 {
		in.ServiceNetworks = []string{assisted.DefaultServiceNetwork}
	}
	in.CustomManifests = d.ACI.ManifestsRef
	var minClock, maxClock float64
	seen := false
	for _, h := range o.st.clusterHosts() {
		// Hosts that report a clock: those with an inventory, not
		// disconnected or discovering (internal/common/common.go
		// IsNtpSynced).
		if h.Inventory != nil && !h.Status.In(assisted.HostDisconnected, assisted.HostDiscovering, assisted.HostResettingPendingUserAction) {
			off := o.hw(h.Hardware).ClockOffsetMin
			if !seen || off < minClock {
				minClock = off
			}
			if !seen || off > maxClock {
				maxClock = off
			}
			seen = true
		}
		in.Hosts = append(in.Hosts, assisted.ClusterHost{
			Status:           h.Status,
			Role:             effectiveRole(h),
			MasterCandidate:  o.qualifiesAsMaster(h),
			ArbiterCandidate: o.qualifiesAs(h, assisted.RoleArbiter),
			Inventory:        h.Inventory,
		})
	}
	in.ClockSpreadMinutes = maxClock - minClock
	return in
}

func (o *op) setClusterValidations(rs []assisted.Result) {
	c := o.st.Cluster
	np := assisted.NotPassing(rs)
	if !c.Validated || !equalResults(c.Validations, np) {
		c.Validations, c.Validated = np, true
		o.changed = true
	}
}

func equalResults(a, b []assisted.Result) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if a[i] != b[i] {
			return false
		}
	}
	return true
}

// refreshCluster applies the cluster refresh rules of internal/cluster/statemachine.go; rs are the
// validations just computed (for the statuses that compute them).
func (o *op) refreshCluster(rs []assisted.Result) {
	c := o.st.Cluster
	hosts := o.day1Hosts()
	switch c.Status {
	case assisted.ClusterPendingForInput, assisted.ClusterReady, assisted.ClusterInsufficient:
		pendingOK, requiredOK := assisted.ClusterGates(rs)
		switch {
		case !pendingOK:
			o.setClusterStatus(assisted.ClusterPendingForInput, assisted.ClusterInfoPendingForInput)
		case !requiredOK:
			o.setClusterStatus(assisted.ClusterInsufficient, assisted.ClusterInfoInsufficient)
		default:
			o.setClusterStatus(assisted.ClusterReady, assisted.ClusterInfoReady)
		}
	case assisted.ClusterPreparingForInstallation:
		allSuccessful, outside, failed := true, false, false
		for _, h := range hosts {
			if h.Status != assisted.HostPreparingSuccessful {
				allSuccessful = false
			}
			if !h.Status.In(assisted.HostPreparingForInstallation, assisted.HostPreparingSuccessful, assisted.HostPreparingFailed, assisted.HostKnown) {
				outside = true
			}
			if h.Status == assisted.HostPreparingFailed {
				failed = true
			}
		}
		switch {
		case allSuccessful && c.PrepStatus == assisted.PrepSuccess:
			o.setClusterStatus(assisted.ClusterInstalling, assisted.ClusterInfoInstalling)
			o.startInstall()
		case outside:
			o.setClusterStatus(assisted.ClusterInsufficient, assisted.ClusterInfoHostStoppedPreparing)
		case failed || c.PrepStatus == assisted.PrepFailed:
			o.setClusterStatus(assisted.ClusterReady, assisted.ClusterInfoPreparationFailed)
		case !o.now.Before(c.StatusAt.Add(assisted.ClusterPrepareTimeout)):
			c.PrepStatus, c.PrepReason = assisted.PrepFailed, assisted.PrepReasonTimeout
			o.setClusterStatus(assisted.ClusterReady, assisted.ClusterInfoPreparingTimeout)
		}
	case assisted.ClusterInstalling:
		switch {
		case o.anyPendingUser(hosts):
			c.BeforePending = c.Status
			o.setClusterStatus(assisted.ClusterInstallingPendingUserAction, assisted.ClusterInfoPendingUserAction)
		case o.installTimedOut():
			o.setClusterStatus(assisted.ClusterError, assisted.ClusterInfoInstallTimeout(int(assisted.ClusterInstallationTimeout/time.Minute)))
		case o.hasEnough(hosts, assisted.HostInstalled):
			o.setClusterStatus(assisted.ClusterFinalizing, assisted.ClusterInfoFinalizing)
		case o.hasEnough(hosts, assisted.HostInstalling, assisted.HostInstallingInProgress, assisted.HostInstalled, assisted.HostInstallingPendingUserAction, assisted.HostPreparingSuccessful):
		default:
			o.setClusterStatus(assisted.ClusterError, assisted.ClusterInfoHostsInError)
		}
	case assisted.ClusterFinalizing:
		switch {
		case o.anyPendingUser(hosts):
			c.BeforePending = c.Status
			o.setClusterStatus(assisted.ClusterInstallingPendingUserAction, assisted.ClusterInfoPendingUserAction)
		case !o.e.opts.SoftTimeouts && !o.now.Before(c.FinalizingAt.Add(assisted.FinalizingTimeout)):
			o.setClusterStatus(assisted.ClusterError, assisted.ClusterInfoFinalizingTimeout)
		case o.installTimedOut():
			o.setClusterStatus(assisted.ClusterError, assisted.ClusterInfoInstallTimeout(int(assisted.ClusterInstallationTimeout/time.Minute)))
		case o.allDone(hosts) && c.Kubeconfig && o.operatorsDone():
			info := assisted.ClusterInfoInstalled
			for _, h := range hosts {
				if effectiveRole(h) == assisted.RoleWorker && h.Status == assisted.HostError {
					info = assisted.ClusterInfoWorkersNotJoined
				}
			}
			o.setClusterStatus(assisted.ClusterInstalled, info)
		}
	case assisted.ClusterInstallingPendingUserAction:
		switch {
		case !o.now.Before(c.InstallStartedAt.Add(assisted.ClusterInstallationTimeout)):
			o.setClusterStatus(assisted.ClusterError, assisted.ClusterInfoPendingUserActionTimeout)
		case !o.anyPendingUser(hosts):
			back := c.BeforePending
			if back != assisted.ClusterFinalizing {
				back = assisted.ClusterInstalling
			}
			info := assisted.ClusterInfoInstalling
			if back == assisted.ClusterFinalizing {
				info = assisted.ClusterInfoFinalizing
			}
			o.setClusterStatus(back, info)
		}
	}
	o.updateProgress()
}

// installTimedOut is the 24-hour installation timeout of installing and
// finalizing clusters, which applies only with soft timeouts
// (internal/cluster/statemachine.go, SoftTimeoutsEnabled).
func (o *op) installTimedOut() bool {
	c := o.st.Cluster
	return o.e.opts.SoftTimeouts && !c.InstallStartedAt.IsZero() && !o.now.Before(c.InstallStartedAt.Add(assisted.ClusterInstallationTimeout))
}

// startInstall runs what the preparing → installing transition does: the
// single-node VIPs become the host's address (updateSNOClusterVips).
func (o *op) startInstall() {
	c := o.st.Cluster
	if !c.SNO {
		return
	}
	for _, h := range o.day1Hosts() {
		if h.Inventory == nil {
			continue
		}
		for _, a := range h.Inventory.Addresses() {
			if a.Is4() {
				c.APIVIPs, c.IngressVIPs = []string{a.String()}, []string{a.String()}
				return
			}
		}
	}
}

func (o *op) day1Hosts() []*host {
	var out []*host
	for _, h := range o.st.Hosts {
		if h.Bound && !h.Day2 {
			out = append(out, h)
		}
	}
	return out
}

func (o *op) anyPendingUser(hosts []*host) bool {
	for _, h := range hosts {
		if h.Status == assisted.HostInstallingPendingUserAction {
			return true
		}
	}
	return false
}

func (o *op) allDone(hosts []*host) bool {
	for _, h := range hosts {
		if !h.Status.In(assisted.HostInstalled, assisted.HostError) {
			return false
		}
	}
	return true
}

func (o *op) operatorsDone() bool {
	c := o.st.Cluster
	for _, op := range assisted.BuiltinOperators {
		if c.Operators[op] != "available" {
			return false
		}
	}
	return true
}

// hasEnough is HasEnoughMastersAndWorkers (internal/cluster/statemachine.go): whether enough of the
// cluster's hosts are in the statuses for the installation to go on.
func (o *op) hasEnough(hosts []*host, statuses ...assisted.HostStatus) bool {
	var masters, mastersIn, arbiters, arbitersIn, workers, workersIn int
	for _, h := range hosts {
		in := h.Status.In(statuses...)
		switch effectiveRole(h) {
		case assisted.RoleMaster:
			masters++
			if in {
				mastersIn++
			}
		case assisted.RoleArbiter:
			arbiters++
			if in {
				arbitersIn++
			}
		default:
			workers++
			if in {
				workersIn++
			}
		}
	}
	if o.st.Cluster.SNO {
		return mastersIn == 1 && workersIn == 0
	}
	if mastersIn != masters {
		return false
	}
	switch {
	case arbiters > 0:
		if mastersIn < 2 || arbitersIn < 1 {
			return false
		}
	case o.st.Desired.ACI.ControlPlane == 2:
		if mastersIn < 2 {
			return false
		}
	default:
		if mastersIn < 3 {
			return false
		}
	}
	if workers >= 2 && workersIn < 2 {
		return false
	}
	return true
}

// updateProgress recomputes the cluster's percentages (internal/host/common.go): the total
// never goes down before the cluster is installed.
func (o *op) updateProgress() {
	c := o.st.Cluster
	if c == nil {
		return
	}
	var hs []assisted.HostStages
	for _, h := range o.day1Hosts() {
		hs = append(hs, assisted.HostStages{Stages: o.stagesOf(h), Current: h.Stage})
	}
	if c.Status.In(assisted.ClusterInstalling, assisted.ClusterFinalizing, assisted.ClusterInstallingPendingUserAction, assisted.ClusterInstalled, assisted.ClusterError) {
		c.InstallPercent = assisted.InstallingPercent(hs)
	}
	total := assisted.TotalPercent(c.PrepPercent, c.InstallPercent, c.FinalizePercent)
	if c.Status.In(assisted.ClusterInstalled, assisted.ClusterAddingHosts) {
		total = 100
	}
	if total > c.TotalPercent {
		c.TotalPercent = total
		o.changed = true
	}
}

// finalizeStep moves the finalizing cluster on: the installer controller
// uploads the kubeconfig, the console and cluster-version operators become
// available, then the finalizing stages run to Done.
func (o *op) finalizeStep() {
	c := o.st.Cluster
	if c == nil || c.Status != assisted.ClusterFinalizing && c.Status != assisted.ClusterInstallingPendingUserAction {
		return
	}
	since := o.now.Sub(c.FinalizingAt)
	if !c.Kubeconfig && since >= timing.KubeconfigUpload {
		c.Kubeconfig = true
		o.changed = true
	}
	for _, m := range []struct {
		op string
		at time.Duration
	}{{assisted.OperatorConsole, timing.ConsoleAvailable}, {assisted.OperatorCVO, timing.CVOAvailable}} {
		if c.Operators[m.op] != "available" && since >= m.at {
			c.Operators[m.op] = "available"
			o.changed = true
		}
	}
	done := 0
	for _, op := range assisted.BuiltinOperators {
		if c.Operators[op] == "available" {
			done++
		}
	}
	c.FinalizePercent = assisted.FinalizingPercent(done, len(assisted.BuiltinOperators))
	o.updateProgress()
	next := time.Duration(0)
	switch {
	case !c.Kubeconfig:
		next = timing.KubeconfigUpload
	case c.Operators[assisted.OperatorConsole] != "available":
		next = timing.ConsoleAvailable
	case c.Operators[assisted.OperatorCVO] != "available":
		next = timing.CVOAvailable
	}
	if next > 0 {
		o.schedule(tkFinalize, "", c.FinalizingAt.Add(next))
		return
	}
	// Operators are up: walk the remaining finalizing stages.
	for i, s := range assisted.FinalizingStages {
		if s.Stage == c.FinalizingStage && i+1 < len(assisted.FinalizingStages) {
			c.FinalizingStage = assisted.FinalizingStages[i+1].Stage
			o.event(o.aciRef(), evFinalizing, "Finalizing stage: "+string(c.FinalizingStage))
			o.changed = true
			if c.FinalizingStage != assisted.FinalizingDone {
				o.schedule(tkFinalize, "", o.now.Add(timing.FinalizingStep))
			}
			break
		}
	}
}

// clusterDeadline is the next time a cluster timeout needs a monitor pass.
func (o *op) clusterDeadline() (time.Time, bool) {
	c := o.st.Cluster
	if c == nil {
		return time.Time{}, false
	}
	switch c.Status {
	case assisted.ClusterPreparingForInstallation:
		return c.StatusAt.Add(assisted.ClusterPrepareTimeout), true
	case assisted.ClusterInstallingPendingUserAction:
		return c.InstallStartedAt.Add(assisted.ClusterInstallationTimeout), true
	case assisted.ClusterInstalling:
		if o.e.opts.SoftTimeouts {
			return c.InstallStartedAt.Add(assisted.ClusterInstallationTimeout), true
		}
	case assisted.ClusterFinalizing:
		if o.e.opts.SoftTimeouts {
			return c.InstallStartedAt.Add(assisted.ClusterInstallationTimeout), true
		}
		return c.FinalizingAt.Add(assisted.FinalizingTimeout), true
	}
	return time.Time{}, false
}
