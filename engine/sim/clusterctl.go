package sim

import (
	"fmt"
	"net/netip"
	"sort"
	"strings"

	"github.com/siteops/siteops/engine"
	"github.com/siteops/siteops/engine/assisted"
)

// reconcileCluster is the ClusterDeployments controller
// (clusterdeployments_controller.go): it registers the backend cluster,
// syncs the spec, triggers the installation (internal/controller/controllers/clusterdeployments_controller.go), records the completion
// (internal/controller/controllers/clusterdeployments_controller.go) and installs day-2 hosts.
func (o *op) reconcileCluster() {
	st := o.st
	if st.Deleting != nil {
		return
	}
	d := st.Desired
	if d == nil || d.CD == nil || d.ACI == nil {
		if st.Cluster != nil {
			o.deregisterCluster()
		}
		if st.ClusterSync != nil {
			st.ClusterSync = nil
			o.changed = true
		}
		return
	}
	sync := o.clusterSyncError()
	if !syncEqual(st.ClusterSync, sync) {
		st.ClusterSync = sync
		o.changed = true
	}
	if st.Cluster == nil {
		if sync != nil {
			return
		}
		o.registerCluster()
	}
	c := st.Cluster
	if !syncEqual(c.Sync, sync) {
		c.Sync = sync
		o.changed = true
	}
	if c.Status.In(assisted.ClusterInsufficient, assisted.ClusterReady, assisted.ClusterPendingForInput, assisted.ClusterAddingHosts) {
		o.syncClusterSpec()
	}
	if c.Status == assisted.ClusterReady && sync == nil {
		// The ClusterDeployment controller notices a ready cluster at its
		// next reconcile.
		if at := c.StatusAt.Add(timing.InstallTrigger); o.now.Before(at) {
			o.scheduleBy(tkReconcile, "", at)
		} else {
			o.maybeInstall()
		}
	}
	o.recordCompletion()
	if c.Status == assisted.ClusterAddingHosts {
		o.installDay2Hosts()
	}
}

func syncEqual(a, b *assisted.SyncError) bool {
	if a == nil || b == nil {
		return a == b
	}
	return *a == *b
}

// clusterSyncError is the SpecSynced error of the AgentClusterInstall
// (internal/controller/controllers/clusterdeployments_controller.go): what stops the controller from registering or updating the
// cluster.
func (o *op) clusterSyncError() *assisted.SyncError {
	d := o.st.Desired
	switch {
	case d.CD.PullSecret == "":
		return &assisted.SyncError{Input: true, Message: fmt.Sprintf("PullSecret is required for ClusterDeployment %s/%s", d.CD.Name, d.CD.Namespace)}
	case d.ACI.ImageSet == "" && !d.CD.Installed:
		return &assisted.SyncError{Input: true, Message: "ClusterImageSet must be specified in AgentClusterInstall.Spec.ImageSetRef for cluster that is not installed"}
	}
	if e := d.ACI.OverridesError; e != "" {
		return &assisted.SyncError{Input: true, Message: fmt.Sprintf("Failed to parse '%s' annotation: %s", assisted.AnnotationInstallConfigOverrides, e)}
	}
	return nil
}

// registerCluster creates the backend cluster (RegisterClusterInternal, or
// V2ImportClusterInternal for a ClusterDeployment that is installed).
func (o *op) registerCluster() {
	st, d := o.st, o.st.Desired
	st.ClusterGen++
	gen := fmt.Sprint(st.ClusterGen)
	c := &cluster{
		ID:          uuidFor(st.Name, "cluster", d.cdKey(), gen),
		OpenShiftID: uuidFor(st.Name, "openshift", d.cdKey(), gen),
		Kind:        assisted.KindCluster,
		CD:          d.cdKey(),
		Operators:   map[string]string{},
	}
	st.Cluster = c
	status, info := assisted.ClusterInsufficient, assisted.ClusterInfoInsufficient
	if d.CD.Installed {
		c.Kind = assisted.KindAddHostsCluster
		c.Installed = true
		status, info = assisted.ClusterAddingHosts, assisted.ClusterInfoAddingHosts
	}
	o.syncClusterSpec()
	o.event(o.aciRef(), evRegistered, fmt.Sprintf("Registered cluster %s (id %s, OpenShift %s)", d.CD.ClusterName, c.ID, orNone(c.Version)))
	o.setClusterStatus(status, info)
}

// deregisterCluster removes the backend cluster after its
// AgentClusterInstall went away (the ACI finalizer, the controllers' finalizers): the installation
// is cancelled, agents are unbound or deleted.
func (o *op) deregisterCluster() {
	o.aciFinalizer()
}

// syncClusterSpec derives the cluster's effective settings from the
// AgentClusterInstall and ClusterDeployment (internal/controller/controllers/clusterdeployments_controller.go cluster creation values).
func (o *op) syncClusterSpec() {
	c, d := o.st.Cluster, o.st.Desired
	a := d.ACI
	sno := a.ControlPlane == 1
	umn := sno || a.UMN != nil && *a.UMN || strings.EqualFold(a.PlatformType, "none")
	platform := strings.ToLower(a.PlatformType)
	if platform == "" {
		platform = assisted.PlatformBaremetal
		if umn {
			platform = assisted.PlatformNone
		}
	}
	netType := a.NetworkType
	if t := a.OverridesNetworkType; t != "" {
		netType = t
	}
	if netType == "" {
		netType = "OVNKubernetes"
	}
	machine := a.MachineNetworks
	if len(machine) == 0 {
		machine = o.autoMachineNetworks(sno, umn, a.APIVIPs)
	}
	api, ingress := a.APIVIPs, a.IngressVIPs
	if sno && len(c.APIVIPs) > 0 && o.installStarted() {
		api, ingress = c.APIVIPs, c.IngressVIPs
	}
	set := func(dst *bool, v bool) {
		if *dst != v {
			*dst = v
			o.changed = true
		}
	}
	setS := func(dst *string, v string) {
		if *dst != v {
			*dst = v
			o.changed = true
		}
	}
	setL := func(dst *[]string, v []string) {
		if !equalStrings(*dst, v) {
			*dst = append([]string(nil), v...)
			o.changed = true
		}
	}
	set(&c.SNO, sno)
	set(&c.UMN, umn)
	setS(&c.Platform, platform)
	setS(&c.NetworkType, netType)
	setS(&c.Version, d.imageSetVersion())
	setL(&c.MachineNetworks, machine)
	setL(&c.APIVIPs, api)
	setL(&c.IngressVIPs, ingress)
}

func equalStrings(a, b []string) bool {
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

// autoMachineNetworks is the service's auto-fill of an empty machine
// network: a single node's own network, or for managed networking the
// network that holds the API VIP (cluster.go autoAssignMachineNetworkCidr).
func (o *op) autoMachineNetworks(sno, umn bool, apiVIPs []string) []string {
	if umn && !sno {
		return nil
	}
	var vip netip.Addr
	if len(apiVIPs) > 0 {
		vip, _ = netip.ParseAddr(apiVIPs[0])
	}
	for _, h := range o.st.clusterHosts() {
		if h.Inventory == nil {
			continue
		}
		for _, ifc := range h.Inventory.Interfaces {
			for _, a := range append(append([]string{}, ifc.IPv4...), ifc.IPv6...) {
				p, err := netip.ParsePrefix(a)
				if err != nil {
					continue
				}
				if sno || vip.IsValid() && p.Masked().Contains(vip) {
					return []string{p.Masked().String()}
				}
			}
		}
	}
	return nil
}

// effectiveRole is the role the validations and counts use: the host's
// role, or its suggested role while it is auto-assign.
func effectiveRole(h *host) assisted.Role {
	if h.Role == assisted.RoleAutoAssign || h.Role == "" {
		if h.SuggestedRole != "" {
			return h.SuggestedRole
		}
		return assisted.RoleAutoAssign
	}
	return h.Role
}

// suggestRoles gives auto-assign hosts a suggested role (host.go
// selectRole, internal/controller/controllers/clusterdeployments_controller.go): weakest qualifying hosts become masters, then one
// arbiter for a two-node control plane, then workers; day-2 hosts are
// workers.
func (o *op) suggestRoles() {
	c := o.st.Cluster
	if c == nil {
		return
	}
	hosts := o.st.clusterHosts()
	masters, arbiters := 0, 0
	var auto []*host
	for _, h := range hosts {
		switch h.Role {
		case assisted.RoleMaster:
			masters++
		case assisted.RoleArbiter:
			arbiters++
		case assisted.RoleAutoAssign, "":
			auto = append(auto, h)
		}
		if h.Role != assisted.RoleAutoAssign && h.Role != "" && h.SuggestedRole != h.Role {
			h.SuggestedRole = h.Role
			o.changed = true
		}
	}
	sort.SliceStable(auto, func(i, j int) bool { return hostWeight(auto[i]) < hostWeight(auto[j]) })
	cp := o.st.Desired.ACI.ControlPlane
	for _, h := range auto {
		role := assisted.RoleWorker
		switch {
		case h.Day2:
		case masters < cp && o.qualifiesAsMaster(h):
			role = assisted.RoleMaster
			masters++
		case cp == 2 && arbiters == 0:
			role = assisted.RoleArbiter
			arbiters++
		}
		if h.Inventory == nil {
			role = ""
		}
		if h.SuggestedRole != role {
			h.SuggestedRole = role
			o.changed = true
		}
	}
}

// hostWeight orders candidates: (cores−4) + 0.1·(RAM GiB−16) +
// 0.004·(disk GiB−100) (internal/host/monitor.go SortHosts).
func hostWeight(h *host) float64 {
	inv := h.Inventory
	if inv == nil {
		return 1e9
	}
	var disk int64
	for _, d := range inv.Disks {
		disk = max(disk, d.SizeBytes)
	}
	return float64(inv.CPUCores-4) + 0.1*(float64(inv.MemoryBytes)/(1<<30)-16) + 0.004*(float64(disk)/(1<<30)-100)
}

func (o *op) qualifiesAsMaster(h *host) bool { return o.qualifiesAs(h, assisted.RoleMaster) }

// qualifiesAs reports whether a host passes has-cpu-cores-for-role and
// has-memory-for-role for a role (internal/host/host.go IsValidCandidate).
func (o *op) qualifiesAs(h *host, role assisted.Role) bool {
	if h.Inventory == nil {
		return false
	}
	c := o.st.Cluster
	r := assisted.RoleRequirements(role, c.SNO, c.Version)
	return h.Inventory.CPUCores >= r.CPUCores && h.Inventory.MemoryBytes >= (r.RAMMiB-assisted.MemoryToleranceMiB)*assisted.MiB
}

// roleCounts counts the cluster's day-1 hosts by effective role: master,
// arbiter, worker.
func (o *op) roleCounts() [3]int {
	var n [3]int
	for _, h := range o.st.clusterHosts() {
		if h.Day2 {
			continue
		}
		switch effectiveRole(h) {
		case assisted.RoleMaster:
			n[0]++
		case assisted.RoleArbiter:
			n[1]++
		case assisted.RoleWorker:
			n[2]++
		}
	}
	return n
}

func (o *op) wantCounts() [3]int {
	a := o.st.Desired.ACI
	return [3]int{a.ControlPlane, a.Arbiters, a.Workers}
}

// requirements are the install trigger's checks (internal/controller/controllers/clusterdeployments_controller.go); it returns the
// numbers the RequirementsMet condition reports.
func (o *op) requirements() (unapproved, unsynced int, countsOK bool) {
	want := o.wantCounts()
	total := want[0] + want[1] + want[2]
	approvedKnown := 0
	for _, h := range o.st.clusterHosts() {
		if h.Sync != nil {
			unsynced++
		}
		if h.Status == assisted.HostKnown && h.Approved {
			approvedKnown++
		}
	}
	return max(0, total-approvedKnown), unsynced, o.roleCounts() == want
}

// maybeInstall starts the installation when every check of
// internal/controller/controllers/clusterdeployments_controller.go isReadyForInstallation holds.
func (o *op) maybeInstall() {
	st, d, c := o.st, o.st.Desired, o.st.Cluster
	want := o.wantCounts()
	total := want[0] + want[1] + want[2]
	known, approved := 0, 0
	for _, h := range st.clusterHosts() {
		if h.Status == assisted.HostKnown {
			known++
			if h.Approved {
				approved++
			}
		}
	}
	_, unsynced, countsOK := o.requirements()
	if known != total || approved != total || !countsOK || unsynced > 0 || d.ACI.Hold || d.CD.Annotations[assisted.AnnotationReconcilePause] == "true" {
		return
	}
	// InstallClusterInternal: auto-assigned roles become the roles, the
	// bootstrap is chosen, the cluster prepares.
	var masters []*host
	for _, h := range st.clusterHosts() {
		if h.Role == assisted.RoleAutoAssign || h.Role == "" {
			h.Role = h.SuggestedRole
		}
		h.Bootstrap = false
		if h.Role == assisted.RoleMaster {
			masters = append(masters, h)
		}
	}
	sort.Slice(masters, func(i, j int) bool { return masters[i].ID < masters[j].ID })
	if len(masters) > 0 {
		masters[len(masters)-1].Bootstrap = true
	}
	c.InstallStartedAt = o.now
	c.PrepStatus, c.PrepReason = assisted.PrepNotStarted, assisted.PrepReasonNotPerformed
	o.setClusterStatus(assisted.ClusterPreparingForInstallation, assisted.ClusterInfoPreparing)
	o.schedule(tkManifests, "", o.after(timing.Manifests, c.ID+"manifests"))
}

// manifestsGenerated ends the asynchronous preparation.
func (o *op) manifestsGenerated() {
	c := o.st.Cluster
	if c == nil || c.Status != assisted.ClusterPreparingForInstallation {
		return
	}
	c.PrepStatus, c.PrepReason = assisted.PrepSuccess, assisted.PrepReasonSuccess
	o.changed = true
}

// recordCompletion writes the completion artifacts (internal/controller/controllers/clusterdeployments_controller.go) and plays Hive's
// part: the ClusterDeployment becomes installed when the ACI's Completed
// condition is True, and the cluster turns day 2 a little later.
func (o *op) recordCompletion() {
	c, d := o.st.Cluster, o.st.Desired
	kubeconfig := d.CD.Name + assisted.SecretSuffixKubeconfig
	password := d.CD.Name + assisted.SecretSuffixAdminPassword
	if c.Status.In(assisted.ClusterInstalling, assisted.ClusterFinalizing) && c.Metadata == nil {
		o.addSecret(d.CD.Namespace, kubeconfig, assisted.SecretTypeKubeconfig)
		c.Metadata = &engine.ClusterMetadata{ClusterID: c.OpenShiftID, InfraID: c.ID, AdminKubeconfigSecretRef: kubeconfig}
		o.changed = true
	}
	if c.Status == assisted.ClusterInstalled && (c.Metadata == nil || c.Metadata.AdminPasswordSecretRef == "") {
		o.addSecret(d.CD.Namespace, password, assisted.SecretTypeKubeadminCreds)
		o.addSecret(d.CD.Namespace, kubeconfig, assisted.SecretTypeKubeconfig)
		c.Metadata = &engine.ClusterMetadata{ClusterID: c.OpenShiftID, InfraID: c.ID, AdminKubeconfigSecretRef: kubeconfig, AdminPasswordSecretRef: password}
		o.changed = true
	}
}

// addSecret records a Secret the completion created (its name only: the
// simulation has no contents to keep).
func (o *op) addSecret(ns, name, kind string) {
	key := ns + "/" + name
	for _, s := range o.st.Secrets {
		if s == key {
			return
		}
	}
	o.st.Secrets = append(o.st.Secrets, key)
	o.event("Secret "+key, evSecret, fmt.Sprintf("Created Secret %s (%s=%s, %s=%s)", key, assisted.LabelSecretCD, o.st.Desired.CD.Name, assisted.LabelSecretType, kind))
}

// day2Conversion turns an installed cluster into a day-2 one. Upstream
// rewrites only the status and kind, never the status info, so an installed
// site keeps "Cluster is installed" (assisted-service
// internal/cluster/cluster.go TransformClusterToDay2).
func (o *op) day2Conversion() {
	c := o.st.Cluster
	if c == nil || c.Status != assisted.ClusterInstalled || !c.Installed {
		return
	}
	c.Kind = assisted.KindAddHostsCluster
	o.setClusterStatus(assisted.ClusterAddingHosts, c.StatusInfo)
}

// installDay2Hosts installs every known and approved host of a day-2
// cluster, one call per host (InstallSingleDay2HostInternal).
func (o *op) installDay2Hosts() {
	for _, h := range o.st.clusterHosts() {
		if h.Status == assisted.HostKnown && h.Approved {
			if at := h.StatusAt.Add(timing.InstallTrigger); o.now.Before(at) {
				o.scheduleBy(tkReconcile, "", at)
				continue
			}
			h.Day2 = true
			if h.Role == assisted.RoleAutoAssign || h.Role == "" {
				h.Role = assisted.RoleWorker
			}
			o.setHostStatus(h, assisted.HostInstalling, assisted.InfoInstalling)
			if o.st.Cluster.Platform != assisted.PlatformNone {
				o.event(bmhRef(h.Namespace, h.BMH), evSpokeObjects, fmt.Sprintf("Created BareMetalHost and Machine %s-%s in openshift-machine-api on the spoke cluster", o.st.Desired.CD.Name, h.Machine))
			}
		}
	}
}

// onClusterStatus reacts to the cluster entering a status.
func (o *op) onClusterStatus(old assisted.ClusterStatus) {
	c := o.st.Cluster
	switch c.Status {
	case assisted.ClusterInstalling:
		if old == assisted.ClusterPreparingForInstallation {
			c.PrepPercent = 100
			o.updateProgress()
		}
	case assisted.ClusterFinalizing:
		if c.FinalizingAt.IsZero() {
			c.FinalizingAt = o.now
			c.FinalizingStage = assisted.FinalizingWaitingForClusterOperators
			if c.Operators == nil {
				c.Operators = map[string]string{}
			}
			for _, op := range assisted.BuiltinOperators {
				c.Operators[op] = "progressing"
			}
			o.event(o.aciRef(), evFinalizing, "Finalizing stage: "+string(c.FinalizingStage))
			o.schedule(tkFinalize, "", o.now.Add(timing.KubeconfigUpload))
		}
	case assisted.ClusterInstalled:
		c.CompletedAt, c.InstalledInfo = o.now, c.StatusInfo
		c.FinalizePercent, c.TotalPercent = 100, 100
		c.FinalizingStage = assisted.FinalizingDone
		o.event(o.aciRef(), evCompleted, fmt.Sprintf("Successfully completed installing cluster %s", o.clusterName()))
	case assisted.ClusterError:
		o.cancel(tkFinalize, "")
	}
}
