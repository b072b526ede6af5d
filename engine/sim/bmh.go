package sim

import (
	"fmt"

	"github.com/siteops/siteops/engine/assisted"
)

// reconcileBMHs plays the bare-metal agent controller's BareMetalHost side
// (bmh_agent_controller.go reconcileBMH, internal/controller/controllers/bmh_agent_controller.go) and starts the bare-metal
// operator on new hosts.
func (o *op) reconcileBMHs() {
	st, d := o.st, o.st.Desired
	if d == nil || st.Deleting != nil {
		return
	}
	for i := range d.BMHs {
		spec := &d.BMHs[i]
		b := st.bmh(spec.Namespace, spec.Name)
		if b == nil {
			b = &bmh{Namespace: spec.Namespace, Name: spec.Name}
			st.BMHs = append(st.BMHs, b)
			o.changed = true
			o.schedule(tkBMO, spec.Namespace+"/"+spec.Name, o.now.Add(timing.Reconcile))
		}
		if b.Removing != "" {
			continue
		}
		o.bmac(spec, b)
	}
}

// bmac is BMAC's reconcile of one BareMetalHost, in code order.
func (o *op) bmac(spec *bmhSpec, b *bmh) {
	st, d := o.st, o.st.Desired
	key := spec.Namespace + "/" + spec.Name
	ieName := spec.Labels[assisted.LabelInfraEnv]
	ie := st.infraEnv(spec.Namespace, ieName)
	if ieName == "" || d.infraEnv(spec.Namespace, ieName) == nil || ie == nil {
		return // not ours: BMAC removes its finalizer and stops
	}
	h := o.agentOf(b)
	o.handleUnbinding(b, h)
	if !b.Detached {
		// A missing inspect annotation is set to disabled; one that is
		// there (even empty, as the ClusterInstance templates write it)
		// is left as the site wrote it.
		v, set := spec.Annotations[assisted.AnnotationInspect]
		if disabled := !set || v == assisted.InspectDisabled; disabled != b.InspectDisabled {
			b.InspectDisabled = disabled
			o.changed = true
		}
		switch {
		case ie.ISOURL == "" || b.ImageURL == ie.ISOURL:
		case o.now.Before(ie.CreatedAt.Add(assisted.InfraEnvImageCooldownPeriod)):
			o.scheduleBy(tkReconcile, "", ie.CreatedAt.Add(assisted.InfraEnvImageCooldownPeriod))
		case b.State != assisted.BMHStateAvailable:
			if b.ImageURL != "" && b.State == assisted.BMHStateProvisioned {
				// A new image: drop the old one so that the operator
				// deprovisions and boots the new one.
				b.ImageURL = ""
				o.changed = true
				o.schedule(tkBMO, key, o.now.Add(timing.Reconcile))
			}
		default:
			b.ImageURL, b.PoweredOn = ie.ISOURL, true
			o.changed = true
			o.event(bmhRef(spec.Namespace, spec.Name), evProvisioning, "Set spec.image to the discovery ISO of InfraEnv "+ieName+" (live-iso) and spec.online to true")
			o.schedule(tkBMO, key, o.now.Add(timing.Reconcile))
		}
	}
	if h == nil {
		return
	}
	if !b.Detached && h.Stage.In(assisted.StageFailed, assisted.StageRebooting, assisted.StageJoined, assisted.StageDone) && h.Status != assisted.HostUnbindingPendingUserAction {
		b.Detached = true
		o.changed = true
		o.event(bmhRef(spec.Namespace, spec.Name), evDetached, fmt.Sprintf("Set %s=%s: the host left the discovery image (stage %s)", assisted.AnnotationDetached, assisted.DetachedByAssisted, h.Stage))
	}
	if h.Inventory != nil && !b.HardwareDetails {
		b.HardwareDetails = true
		o.changed = true
		o.event(bmhRef(spec.Namespace, spec.Name), evHardwareDetails, fmt.Sprintf("Wrote %s from the agent's inventory (%d CPUs, %s RAM)", assisted.AnnotationHardwareDetails, h.Inventory.CPUCores, assisted.IECBytes(h.Inventory.MemoryBytes)))
	}
}

// handleUnbinding reboots a host whose Agent is unbinding after
// installation into the discovery image (reconcileUnboundAgent, internal/controller/controllers/bmh_agent_controller.go).
func (o *op) handleUnbinding(b *bmh, h *host) {
	if h == nil || h.Status != assisted.HostUnbindingPendingUserAction || !b.Detached {
		return
	}
	b.Detached, b.HardwareDetails, b.ImageURL = false, false, ""
	o.changed = true
	o.schedule(tkBMO, b.Namespace+"/"+b.Name, o.now.Add(timing.Reconcile))
}

// agentOf is the Agent BMAC matched to the BareMetalHost.
func (o *op) agentOf(b *bmh) *host {
	for _, h := range o.st.Hosts {
		if h.Namespace == b.Namespace && h.BMH == b.Name {
			return h
		}
	}
	return nil
}

// bmoStep is one step of the bare-metal operator's provisioning state
// machine for a host: registering, (inspecting,) available, provisioning
// the live ISO, provisioned (the machine boots it), deprovisioning.
func (o *op) bmoStep(key string) {
	ns, name := splitKey(key)
	b := o.st.bmh(ns, name)
	if b == nil || b.Removing != "" || b.Detached {
		return
	}
	set := func(state string) {
		b.State = state
		o.changed = true
	}
	switch b.State {
	case assisted.BMHStateNone:
		set(assisted.BMHStateRegistering)
		o.schedule(tkBMO, key, o.now.Add(timing.BMHRegistering))
	case assisted.BMHStateRegistering:
		if b.InspectDisabled {
			set(assisted.BMHStatePreparing)
			o.schedule(tkBMO, key, o.now.Add(timing.BMHPreparing))
		} else {
			set(assisted.BMHStateInspecting)
			o.schedule(tkBMO, key, o.now.Add(timing.BMHInspection))
		}
	case assisted.BMHStateInspecting:
		set(assisted.BMHStatePreparing)
		o.schedule(tkBMO, key, o.now.Add(timing.BMHPreparing))
	case assisted.BMHStatePreparing:
		set(assisted.BMHStateAvailable)
	case assisted.BMHStateAvailable:
		if b.ImageURL != "" {
			set(assisted.BMHStateProvisioning)
			o.event(bmhRef(ns, name), evProvisioning, "Provisioning the discovery image")
			o.schedule(tkBMO, key, o.after(timing.BMHProvisioning, key+"provision"))
		}
	case assisted.BMHStateProvisioning:
		if b.ImageURL == "" {
			set(assisted.BMHStateAvailable)
			return
		}
		set(assisted.BMHStateProvisioned)
		b.Provisioned, b.PoweredOn = b.ImageURL, true
		o.event(bmhRef(ns, name), evProvisioning, "Image provisioning completed; the host boots the discovery image")
		o.schedule(tkBoot, key, o.after(timing.Boot, key+fmt.Sprint(b.Booted)))
	case assisted.BMHStateProvisioned:
		if b.ImageURL != b.Provisioned {
			set(assisted.BMHStateDeprovisioning)
			o.schedule(tkBMO, key, o.now.Add(timing.BMHProvisioning))
			o.cancel(tkBoot, key)
		}
	case assisted.BMHStateDeprovisioning:
		set(assisted.BMHStateAvailable)
		b.Provisioned = ""
		if h := o.hostOnMachine(ns, name); h != nil && h.AgentUp {
			h.AgentUp, h.LastSeen = false, o.now
		}
		o.schedule(tkReconcile, "", o.now.Add(timing.Reconcile))
	}
}

// hostOnMachine is the host record of the machine behind a BMH.
func (o *op) hostOnMachine(ns, name string) *host {
	for _, h := range o.st.Hosts {
		if h.Namespace == ns && h.Machine == name {
			return h
		}
	}
	return nil
}
