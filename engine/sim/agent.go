package sim

import (
	"fmt"
	"strings"
	"time"

	"github.com/siteops/siteops/engine/assisted"
)

// The simulated machines and their agents: booting the discovery image,
// registering, reporting the inventory and the preparation checks, and
// running the installation stage by stage (assisted-installer, then the
// installer controller in the new cluster).

func splitKey(key string) (ns, name string) {
	ns, name, _ = strings.Cut(key, "/")
	return ns, name
}

// hostBooted: the machine of a BareMetalHost booted the discovery image;
// its agent registers with the service (RegisterHost), which creates the
// Agent named by the host id.
func (o *op) hostBooted(key string) {
	st, d := o.st, o.st.Desired
	ns, name := splitKey(key)
	b, spec := st.bmh(ns, name), d.bmh(ns, name)
	if b == nil || spec == nil || b.Removing != "" {
		return
	}
	hw := o.hw(spec.Annotations[AnnotationHardware])
	b.Booted++
	o.changed = true
	if hw.NeverRegister {
		o.event(bmhRef(ns, name), evInjected, fmt.Sprintf("The host booted the discovery image, but its agent never registers (%s register=never)", AnnotationHardware))
		return
	}
	ieName := spec.Labels[assisted.LabelInfraEnv]
	ieSpec, ie := d.infraEnv(ns, ieName), st.infraEnv(ns, ieName)
	if ieSpec == nil || ie == nil {
		return
	}
	id := uuidFor(st.Name, "host", ns, name, spec.BootMAC)
	h := st.hostByID(id)
	if h == nil {
		h = &host{ID: id, Namespace: ns, Machine: name, InfraEnv: ieName, Role: assisted.RoleAutoAssign}
		h.Labels = map[string]string{assisted.LabelInfraEnv: ieName}
		for k, v := range ieSpec.AgentLabels {
			h.Labels[k] = v
		}
		if ieSpec.ClusterRef != "" && ieSpec.ClusterRef == d.cdKey() && st.Cluster != nil {
			h.Bound, h.ClusterRef = true, ieSpec.ClusterRef
			h.Day2 = st.Cluster.Kind == assisted.KindAddHostsCluster
		}
		st.Hosts = append(st.Hosts, h)
		b.Agent = id
		h.Hardware = spec.Annotations[AnnotationHardware]
		h.AgentUp, h.LastSeen = true, o.now
		o.event(agentRef(h), evRegistration, fmt.Sprintf("Agent %s registered: the host of %s booted the discovery image of InfraEnv %s", id, bmhRef(ns, name), ieName))
		status := assisted.HostDiscovering
		if !h.Bound {
			status = assisted.HostDiscoveringUnbound
		}
		o.setHostStatus(h, status, assisted.InfoDiscovering)
	} else {
		h.Hardware = spec.Annotations[AnnotationHardware]
		h.AgentUp, h.LastSeen, h.MediaDisconnected = true, o.now, false
		o.registerHost(h)
	}
	o.schedule(tkInventory, h.ID, o.after(timing.Inventory, h.ID+"inventory"))
}

// agentRestart: after binding or unbinding, the agent exits and registers
// again (instruction_manager.go).
func (o *op) agentRestart(id string) {
	h := o.st.hostByID(id)
	if h == nil || !h.AgentUp {
		return
	}
	h.LastSeen = o.now
	o.registerHost(h)
	o.schedule(tkInventory, h.ID, o.after(timing.Inventory, h.ID+"inventory"))
}

// sendInventory: the agent reports the machine's hardware.
func (o *op) sendInventory(id string) {
	st, d := o.st, o.st.Desired
	h := st.hostByID(id)
	if h == nil || !h.AgentUp || d == nil {
		return
	}
	spec := d.bmh(h.Namespace, h.Machine)
	if spec == nil {
		return
	}
	hw := o.hw(h.Hardware)
	index := 0
	for i := range d.BMHs {
		if d.BMHs[i].Namespace == spec.Namespace && d.BMHs[i].Name == spec.Name {
			index = i
		}
	}
	var nets []string
	if c := st.Cluster; c != nil && len(c.MachineNetworks) > 0 {
		nets = c.MachineNetworks
	} else if d.ACI != nil {
		nets = d.ACI.MachineNetworks
	}
	h.Inventory = inventoryFor(hw, spec, nmStateFor(d.NMStates, spec.BootMAC), nets, index, st.Name)
	h.LastSeen = o.now
	o.changed = true
	if h.Day2 && d.CD != nil {
		h.APIConn = assisted.APIConnectivity{Checked: true, OK: true, URL: fmt.Sprintf("https://api.%s.%s:22623/config/worker", d.CD.ClusterName, d.CD.BaseDomain)}
	}
	if hw.DisconnectAt == disconnectDiscovery {
		o.agentStops(h, "discovery")
		return
	}
	if hw.MediaAt == disconnectDiscovery && !h.MediaDisconnected {
		o.mediaDisconnect(h)
		return
	}
	if h.Bound && st.Cluster != nil && !st.Cluster.Connectivity {
		o.scheduleBy(tkConnectivity, "", o.now.Add(timing.Connectivity))
	}
}

// connectivityReport: the hosts' connectivity checks are in; the cluster
// monitor can compute the majority groups and verify the VIPs.
func (o *op) connectivityReport() {
	if c := o.st.Cluster; c != nil && !c.Connectivity {
		c.Connectivity = true
		o.changed = true
	}
}

// agentStops injects a disconnection: the agent stops contacting the
// service.
func (o *op) agentStops(h *host, where string) {
	if !h.AgentUp {
		return
	}
	h.AgentUp, h.LastSeen = false, o.now
	o.changed = true
	o.event(agentRef(h), evInjected, fmt.Sprintf("Host %s: the agent stopped contacting the service during %s (%s disconnectAt)", h.name(), where, AnnotationHardware))
}

// prepareChecks: the agent reports the disk-speed and container-image
// checks of preparing-for-installation.
func (o *op) prepareChecks(id string) {
	h := o.st.hostByID(id)
	if h == nil || !h.AgentUp || h.Status != assisted.HostPreparingForInstallation {
		return
	}
	hw := o.hw(h.Hardware)
	req := o.hostInput(h).Requirements()
	h.DiskSpeed = assisted.DiskSpeed{Tested: true, OK: hw.DiskSpeedMs <= req.DiskSpeedMs}
	h.ImagesDone, h.ImagesFailed = true, nil
	if hw.ImagePullFail {
		h.ImagesFailed = []string{"quay.io/openshift-release-dev/ocp-release:" + o.st.Cluster.Version + "-x86_64"}
	}
	o.changed = true
}

// installPickup: the agent runs the install command it was given.
func (o *op) installPickup(id string) {
	h := o.st.hostByID(id)
	if h == nil || !h.AgentUp || h.Status != assisted.HostInstalling {
		return
	}
	o.progress(h, assisted.StageStartingInstallation, "")
}

// stageDuration is how long a host's work in a stage takes.
func (o *op) stageDuration(h *host, s assisted.Stage) time.Duration {
	d := timing.Stage[s]
	if v, ok := timing.Day2Stage[s]; ok && h.Day2 {
		d = v
	}
	if s == assisted.StageWaitingForBootkube && o.st.Cluster != nil && o.st.Cluster.SNO {
		d = snoBootkube
	}
	return d
}

// scheduleStage plans the end of the host's current stage, or the
// failure the hardware annotation injects there.
func (o *op) scheduleStage(h *host) {
	if h.Status != assisted.HostInstallingInProgress {
		return
	}
	hw := o.hw(h.Hardware)
	s := h.Stage
	key := h.ID + string(s)
	switch {
	case hw.FailAt == s:
		o.schedule(tkFail, h.ID, o.after(o.stageDuration(h, s)/2, key))
		return
	case hw.DisconnectAt == string(s):
		o.agentStops(h, "stage "+string(s))
		return
	case hw.MediaAt == string(s):
		o.mediaDisconnect(h)
		return
	case s == assisted.StageRebooting:
		// The machine reboots into the installed system: the discovery
		// agent is gone, the installer controller reports from now on.
		h.AgentUp, h.LastSeen = false, o.now
		if hw.BootFromISO {
			o.schedule(tkBoot, h.Namespace+"/"+h.Machine, o.after(o.stageDuration(h, s), key))
			o.event(agentRef(h), evInjected, fmt.Sprintf("Host %s: the machine boots the discovery image again instead of the installation disk (%s bootOrder=iso)", h.name(), AnnotationHardware))
			return
		}
	case s == assisted.StageDone:
		return
	}
	o.schedule(tkStage, h.ID, o.after(o.stageDuration(h, s), key))
}

// nextStage is the stage after the host's current one; the optional
// registry-copy stage is skipped.
func (o *op) nextStage(h *host) assisted.Stage {
	stages := o.stagesOf(h)
	for j := assisted.StageIndex(stages, h.Stage) + 1; j < len(stages); j++ {
		if stages[j] == assisted.StageCopyingRegistryData {
			continue
		}
		return stages[j]
	}
	return ""
}

// stageDone: the host finished the work of its stage and moves on, or
// waits for another host (reconcileStages picks it up).
func (o *op) stageDone(id string) {
	h := o.st.hostByID(id)
	if h == nil || h.Status != assisted.HostInstallingInProgress {
		return
	}
	next := o.nextStage(h)
	if next == "" {
		return
	}
	if o.gateOpen(h, next) {
		o.progress(h, next, "")
		return
	}
	h.Waiting = true
	o.changed = true
}

// reconcileStages moves hosts whose next stage waited for another host.
func (o *op) reconcileStages() {
	for _, h := range o.st.Hosts {
		if !h.Waiting || h.Status != assisted.HostInstallingInProgress {
			continue
		}
		next := o.nextStage(h)
		if next != "" && o.gateOpen(h, next) {
			h.Waiting = false
			o.progress(h, next, "")
		}
	}
}

// gateOpen says whether a host may enter a stage that depends on the rest
// of the cluster: the bootstrap's temporary control plane serves the other
// masters, the real control plane serves the workers, and the installer
// controller reports Done.
func (o *op) gateOpen(h *host, next assisted.Stage) bool {
	c := o.st.Cluster
	if c == nil || c.SNO || h.Day2 {
		return true
	}
	var boot *host
	for _, p := range o.day1Hosts() {
		if p.Bootstrap {
			boot = p
		}
	}
	if boot == nil {
		return true
	}
	reached := func(p *host, s assisted.Stage) bool {
		if p.Status.In(assisted.HostInstalled) {
			return true
		}
		stages := o.stagesOf(p)
		return p.Stage != assisted.StageFailed && assisted.StageIndex(stages, p.Stage) >= assisted.StageIndex(stages, s)
	}
	role := effectiveRole(h)
	controlPlane := role == assisted.RoleMaster || role == assisted.RoleArbiter
	switch {
	case h.Bootstrap && next == assisted.StageWaitingForBootkube:
		for _, p := range o.day1Hosts() {
			r := effectiveRole(p)
			if p != h && (r == assisted.RoleMaster || r == assisted.RoleArbiter) && !reached(p, assisted.StageConfiguring) {
				return false
			}
		}
	case !h.Bootstrap && controlPlane && next == assisted.StageConfiguring:
		return reached(boot, assisted.StageWaitingForControlPlan)
	case !h.Bootstrap && controlPlane && next == assisted.StageJoined:
		return reached(boot, assisted.StageWaitingForController)
	case !controlPlane && next == assisted.StageRebooting:
		return reached(boot, assisted.StageWaitingForController)
	case !controlPlane && next == assisted.StageConfiguring:
		return reached(boot, assisted.StageRebooting)
	case !h.Bootstrap && next == assisted.StageDone:
		return reached(boot, assisted.StageRebooting)
	}
	return true
}

// injectFailure: the installer fails where the hardware annotation says.
func (o *op) injectFailure(id string) {
	h := o.st.hostByID(id)
	if h == nil || !h.Status.In(assisted.InstallingStatuses...) {
		return
	}
	o.event(agentRef(h), evInjected, fmt.Sprintf("Host %s: the installer fails in stage %s (%s failAt)", h.name(), h.Stage, AnnotationHardware))
	o.progress(h, assisted.StageFailed, fmt.Sprintf("failed executing the installation in stage %s: simulated failure", h.Stage))
}

// addNode records a node of the spoke cluster.
func (o *op) addNode(name string) {
	for _, n := range o.st.Nodes {
		if n == name {
			return
		}
	}
	o.st.Nodes = append(o.st.Nodes, name)
	o.changed = true
}
