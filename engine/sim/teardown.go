package sim

import (
	"fmt"

	"github.com/siteops/siteops/engine/assisted"
	"github.com/siteops/siteops/render"
)

// Teardown steps of a deleted site, in the upstream order (the controllers' finalizers): Argo CD
// deletes sync waves from the highest down, and each controller's
// finalizer runs when its object goes.
const (
	tdBareMetalHosts    = iota // wave 3
	tdManagedCluster           // wave 2
	tdClusterDeployment        // wave 1: the CD finalizer deletes the ACI
	tdInfraEnvs                // wave 1: once the ACI is gone
	tdNamespace                // wave 0
)

var teardownSteps = []string{
	tdBareMetalHosts:    "deleting the BareMetalHosts",
	tdManagedCluster:    "deleting the ManagedCluster and KlusterletAddonConfig",
	tdClusterDeployment: "deleting the ClusterDeployment and its AgentClusterInstall",
	tdInfraEnvs:         "deleting the InfraEnvs and NMStateConfigs",
	tdNamespace:         "deleting the Namespace",
}

// startTeardown begins deleting the site. Every pending step of the
// simulation stops; the installed cluster itself is never touched.
func (o *op) startTeardown() {
	o.st.Deleting = &teardown{Step: tdBareMetalHosts}
	o.st.Timers = nil
	o.event("", evDeleting, fmt.Sprintf("Deleting site %s in the finalizer order: BareMetalHosts, ManagedCluster, ClusterDeployment (which deletes the AgentClusterInstall), InfraEnvs, Namespace; the installed cluster is not touched", o.st.Name))
	o.schedule(tkTeardown, "", o.now.Add(timing.Teardown))
	o.changed = true
}

// teardownStep runs the next teardown step.
func (o *op) teardownStep() {
	st := o.st
	if st.Deleting == nil {
		return
	}
	next := timing.Teardown
	d := st.Desired
	switch st.Deleting.Step {
	case tdBareMetalHosts:
		for _, b := range st.BMHs {
			how := "the machine was not provisioned"
			if b.Detached {
				how = "it is detached, so the bare-metal operator does not deprovision the installed machine"
			} else if b.State == assisted.BMHStateProvisioned {
				how = "the bare-metal operator powers the discovery image off"
			}
			o.event(bmhRef(b.Namespace, b.Name), evDeleting, fmt.Sprintf("Deleted: BMAC removed its finalizer %s; %s", assisted.FinalizerBMAC, how))
		}
		st.BMHs = nil
	case tdManagedCluster:
		if d != nil {
			for _, r := range d.Objects {
				if r.Kind == render.KindManagedCluster || r.Kind == render.KindKlusterletAddonConfig {
					o.event(r.String(), evDeleting, "Deleted")
				}
			}
		}
	case tdClusterDeployment:
		if d != nil && d.CD != nil {
			o.event("ClusterDeployment "+d.cdKey(), evDeleting, fmt.Sprintf("Deleting: the finalizer %s deletes the AgentClusterInstall and requeues until it is gone", assisted.FinalizerClusterDeployment))
		}
		o.aciFinalizer()
		next = assisted.ACIDeletionRequeue
	case tdInfraEnvs:
		if d != nil && d.CD != nil {
			o.event("ClusterDeployment "+d.cdKey(), evDeleting, "Deleted: the AgentClusterInstall is gone, the finalizer was removed")
		}
		for _, ie := range st.InfraEnvs {
			o.event("InfraEnv "+ie.Namespace+"/"+ie.Name, evDeleting, fmt.Sprintf("Deleted: the finalizer %s deregistered the infra-env", assisted.FinalizerInfraEnv))
		}
		for _, h := range append([]*host(nil), st.Hosts...) {
			o.deleteHost(h, "garbage-collected with its InfraEnv; its node is left on the cluster")
		}
		st.InfraEnvs, st.Secrets = nil, nil
	case tdNamespace:
		st.Gone = true
		return
	}
	st.Deleting.Step++
	o.schedule(tkTeardown, "", o.now.Add(next))
}

// aciFinalizer runs when the AgentClusterInstall goes (the controllers' finalizers): a running
// installation is cancelled, each Agent is deleted when its InfraEnv
// belongs to the cluster (or the pool's ClusterDeployment preserves on
// delete) and unbound otherwise, and the backend cluster is deregistered.
func (o *op) aciFinalizer() {
	st, c, d := o.st, o.st.Cluster, o.st.Desired
	if c == nil {
		return
	}
	if c.Status.In(assisted.ClusterInstalling, assisted.ClusterPreparingForInstallation, assisted.ClusterInstallingPendingUserAction, assisted.ClusterFinalizing, assisted.ClusterError) {
		for _, h := range st.clusterHosts() {
			switch {
			case h.Status.In(assisted.HostPreparingForInstallation, assisted.HostPreparingSuccessful):
				o.setHostStatus(h, assisted.HostKnown, assisted.InfoKnown)
			case h.Status.In(assisted.HostInstalling, assisted.HostInstallingInProgress, assisted.HostInstallingPendingUserAction, assisted.HostInstalled, assisted.HostError):
				o.setHostStatus(h, assisted.HostCancelled, assisted.InfoCancelled)
			}
		}
		if c.Status == assisted.ClusterPreparingForInstallation {
			o.setClusterStatus(assisted.ClusterReady, assisted.ClusterInfoReady)
		} else {
			o.setClusterStatus(assisted.ClusterCancelled, assisted.ClusterInfoCancelled)
		}
	}
	for _, h := range st.clusterHosts() {
		var ie *infraEnvSpec
		if d != nil {
			ie = d.infraEnv(h.Namespace, h.InfraEnv)
		}
		preserve := d != nil && d.CD != nil && d.CD.PreserveOnDelete
		if ie == nil || ie.ClusterRef == c.CD || ie.ClusterRef == "" && preserve {
			o.deleteHost(h, "the AgentClusterInstall was deleted and the Agent belongs to the cluster; its node is left on the cluster")
			continue
		}
		o.unbind(h)
	}
	o.event(o.aciRef(), evDeregistered, fmt.Sprintf("Deregistered cluster %s (finalizer %s)", c.ID, assisted.FinalizerACI))
	st.Cluster = nil
	o.changed = true
}

// Node removal steps (BMAC's remove-agent-and-node-on-delete flow, done
// in one step for a node taken out of the site).
const (
	rmStart       = "start"
	rmDrain       = "drain"
	rmDeprovision = "deprovision"
)

// removeNode starts removing a node the site no longer renders: its node
// is drained, the machine deprovisioned, the Agent deleted and the node
// removed from the spoke cluster, without a second commit.
func (o *op) removeNode(ns, name string) {
	b := o.st.bmh(ns, name)
	if b == nil || b.Removing != "" {
		return
	}
	key := ns + "/" + name
	o.cancelTarget(key)
	b.Removing = rmStart
	if h := o.hostOnMachine(ns, name); h != nil {
		h.Removing = rmStart
		o.cancelTarget(h.ID)
	}
	o.event(bmhRef(ns, name), evDeleting, "The node was removed from the site: draining, deprovisioning, deleting its Agent and its node")
	o.schedule(tkNodeRemoval, key, o.now.Add(timing.Teardown))
	o.changed = true
}

func (o *op) nodeRemovalStep(key string) {
	ns, name := splitKey(key)
	b := o.st.bmh(ns, name)
	if b == nil {
		return
	}
	h := o.hostOnMachine(ns, name)
	node := ""
	if h != nil {
		node = realHostname(h)
		if !o.hasNode(node) {
			node = ""
		}
	}
	switch b.Removing {
	case rmStart:
		if node != "" {
			b.Removing = rmDrain
			o.event(bmhRef(ns, name), evDeleting, fmt.Sprintf("Draining node %s (%s)", node, assisted.AnnotationBMACRemoveOnDelete))
			o.schedule(tkNodeRemoval, key, o.now.Add(timing.Drain))
			return
		}
		fallthrough
	case rmDrain:
		if node != "" {
			o.event(bmhRef(ns, name), evDeleting, "drain succeeded")
		}
		b.Removing, b.State, b.Detached = rmDeprovision, assisted.BMHStateDeprovisioning, false
		o.event(bmhRef(ns, name), evDeleting, "Deprovisioning with cleaning mode metadata")
		o.schedule(tkNodeRemoval, key, o.now.Add(timing.Teardown))
	case rmDeprovision:
		if h != nil {
			o.deleteHost(h, "its BareMetalHost was removed from the site")
		}
		if node != "" {
			o.removeSpokeNode(node)
		}
		kept := o.st.BMHs[:0]
		for _, x := range o.st.BMHs {
			if x != b {
				kept = append(kept, x)
			}
		}
		o.st.BMHs = kept
		o.event(bmhRef(ns, name), evDeleting, "Deleted")
	}
	o.changed = true
}

func (o *op) hasNode(name string) bool {
	for _, n := range o.st.Nodes {
		if n == name {
			return true
		}
	}
	return false
}

func (o *op) removeSpokeNode(name string) {
	kept := o.st.Nodes[:0]
	for _, n := range o.st.Nodes {
		if n != name {
			kept = append(kept, n)
		}
	}
	o.st.Nodes = kept
	o.event("Node "+name, evNodeRemoved, fmt.Sprintf("Removed node %s from the spoke cluster", name))
}
