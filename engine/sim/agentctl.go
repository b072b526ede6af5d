package sim

import (
	"encoding/json"
	"fmt"
	"regexp"
	"sort"
	"strconv"
	"strings"

	"github.com/coreos/ignition/v2/config/v3_1"
	"github.com/coreos/ignition/v2/config/v3_2"
	"k8s.io/apimachinery/pkg/util/validation"

	"github.com/siteops/siteops/engine/assisted"
)

// reconcileAgents plays BMAC's Agent side (matching by MAC, copying the
// BareMetalHost annotations, approving) and the Agent controller (pushing
// the Agent spec to the host, labels, binding) for every host (internal/controller/controllers/clusterdeployments_controller.go, internal/controller/controllers/bmh_agent_controller.go).
func (o *op) reconcileAgents() {
	st, d := o.st, o.st.Desired
	if d == nil || st.Deleting != nil {
		return
	}
	for _, h := range st.Hosts {
		if h.Removing != "" {
			continue
		}
		o.matchBMH(h)
		if m := d.bmh(h.Namespace, h.Machine); m != nil && m.Annotations[AnnotationHardware] != h.Hardware {
			// The machine changed (its hardware annotation): the agent's
			// next inventory step reports it.
			h.Hardware = m.Annotations[AnnotationHardware]
			o.changed = true
			if h.AgentUp {
				o.schedule(tkInventory, h.ID, o.after(timing.Inventory, h.ID+"inventory"))
			}
		}
		var spec *bmhSpec
		if h.BMH != "" {
			spec = d.bmh(h.Namespace, h.BMH)
		}
		if spec != nil {
			o.copyAnnotations(h, spec)
		}
		if a := d.agent(h.Namespace, h.ID); a != nil {
			if a.Approved && !h.Approved {
				o.approve(h)
			}
			if a.Role != "" {
				setStr(o, (*string)(&h.SpecRole), a.Role)
			}
			if a.Hostname != "" {
				setStr(o, &h.SpecHostname, a.Hostname)
			}
		}
		// The Agent controller pushes role, hostname, pool and installation
		// disk only while the host can still change (updateIfNeeded), in one
		// host update: a refused installation disk drops the role and
		// hostname with it (bminventory V2UpdateHostInternal runs them in one
		// transaction).
		diskErr := o.installDiskError(h)
		if diskErr == nil && hostUpdatable(h.Status) {
			// An empty spec role leaves the role to the service (auto-assign,
			// then what the installation assigns).
			if h.SpecRole != "" && h.Role != h.SpecRole {
				h.Role = h.SpecRole
				o.changed = true
			}
			setStr(o, &h.Hostname, h.SpecHostname)
			setStr(o, &h.MCP, h.SpecMCP)
		}
		sync := o.agentSyncError(h, spec)
		if sync == nil && hostUpdatable(h.Status) {
			sync = diskErr
		}
		if !syncEqual(h.Sync, sync) {
			h.Sync = sync
			o.changed = true
		}
		if sync == nil {
			o.reconcileBinding(h, spec)
		}
		o.agentLabels(h)
	}
}

func setStr(o *op, dst *string, v string) {
	if *dst != v {
		*dst = v
		o.changed = true
	}
}

// matchBMH links the Agent to the BareMetalHost of its namespace whose
// boot MAC is one of the Agent's interfaces (findAgent, internal/controller/controllers/bmh_agent_controller.go).
func (o *op) matchBMH(h *host) {
	if h.Inventory == nil {
		return
	}
	name := ""
	for _, b := range o.st.Desired.BMHs {
		if b.Namespace == h.Namespace && h.Inventory.HasMAC(b.BootMAC) {
			name = b.Name
			break
		}
	}
	if name != h.BMH {
		h.BMH = name
		o.changed = true
		if name != "" {
			o.event(agentRef(h), evRegistration, fmt.Sprintf("Matched to %s by boot MAC", bmhRef(h.Namespace, name)))
		}
	}
}

// copyAnnotations copies the bmac annotations of the BareMetalHost to the
// Agent spec (reconcileAgentSpec, internal/controller/controllers/bmh_agent_controller.go) and approves the Agent, as BMAC
// always does (unless approval is left to the user).
func (o *op) copyAnnotations(h *host, spec *bmhSpec) {
	a := spec.Annotations
	setStr(o, (*string)(&h.SpecRole), a[assisted.AnnotationBMACRole])
	setStr(o, &h.SpecHostname, a[assisted.AnnotationBMACHostname])
	setStr(o, &h.SpecMCP, a[assisted.AnnotationBMACMCP])
	setStr(o, &h.InstallerArgs, a[assisted.AnnotationBMACInstallerArgs])
	setStr(o, &h.IgnitionOvr, a[assisted.AnnotationBMACIgnitionOverride])
	// The node labels are built anew only when they differ from the
	// Agent's: every reconcile copies them, and they rarely change.
	same, count := true, 0
	for k, v := range a {
		if name, ok := strings.CutPrefix(k, assisted.AnnotationBMACNodeLabelPrefix); ok {
			count++
			if cur, ok := h.NodeLabels[name]; !ok || cur != v {
				same = false
			}
		}
		if strings.HasPrefix(k, assisted.AnnotationBMACAgentLabelPrefix) {
			k = strings.TrimPrefix(k, assisted.AnnotationBMACAgentLabelPrefix)
			if h.Labels[k] != v {
				h.Labels[k] = v
				o.changed = true
			}
		}
	}
	if !same || count != len(h.NodeLabels) {
		var nodeLabels map[string]string
		for k, v := range a {
			if name, ok := strings.CutPrefix(k, assisted.AnnotationBMACNodeLabelPrefix); ok {
				if nodeLabels == nil {
					nodeLabels = map[string]string{}
				}
				nodeLabels[name] = v
			}
		}
		h.NodeLabels = nodeLabels
		o.changed = true
	}
	// Without hints the service chooses: the eligible disks are read only
	// when there are hints to match them against.
	var eligible []assisted.Disk
	if h.Inventory != nil && len(spec.RootHints) > 0 {
		eligible = o.hostInput(h).EligibleDisks()
	}
	if disk := installDisk(eligible, spec.RootHints); disk != h.InstallDisk {
		h.InstallDisk = disk
		o.changed = true
	}
	if o.e.opts.Approve == ApproveAuto && !h.Approved {
		o.approve(h)
	}
}

// installDisk is the installation disk BMAC asks for from the root device
// hints: of the disks the service found eligible, the first that matches
// every hint, a multipath disk first; "/dev/not-found-by-hints" when none
// does; no hints leave the choice to the service
// (internal/controller/controllers/bmh_agent_controller.go
// findInstallationDiskID, getDiskID; internal/host/hostutil/host_utils.go
// GetAcceptableDisksWithHints).
func installDisk(eligible []assisted.Disk, hints map[string]string) string {
	if len(hints) == 0 {
		return ""
	}
	var acceptable []assisted.Disk
	for _, d := range eligible {
		if dev := hints["deviceName"]; dev != "" && dev != "/dev/"+d.Name && dev != d.ByPath {
			continue
		}
		if s := hints["serialNumber"]; s != "" && s != d.Serial {
			continue
		}
		if m := hints["model"]; m != "" && !strings.Contains(d.Model, m) {
			continue
		}
		if gb := hints["minSizeGigabytes"]; gb != "" {
			if n, err := strconv.ParseInt(gb, 10, 64); err == nil && d.SizeBytes/1e9 < n {
				continue
			}
		}
		if r := hints["rotational"]; r != "" {
			if b, err := strconv.ParseBool(r); err == nil && b != (d.DriveType == assisted.DriveHDD) {
				continue
			}
		}
		acceptable = append(acceptable, d)
	}
	for _, d := range acceptable {
		if d.DriveType == assisted.DriveMultipath {
			return d.ID
		}
	}
	if len(acceptable) > 0 {
		return acceptable[0].ID
	}
	return assisted.DiskNotFoundByHints
}

// errEmptyInventory is encoding/json's error for an empty document.
const errEmptyInventory = "unexpected end of JSON input"

// hostUpdatable reports whether the Agent controller pushes spec changes
// to the host in this status (agent_controller.go updateIfNeeded).
func hostUpdatable(s assisted.HostStatus) bool {
	return s.Unbound() || s.In(assisted.HostDiscovering, assisted.HostKnown, assisted.HostDisconnected, assisted.HostInsufficient, assisted.HostPendingForInput, assisted.HostBinding)
}

// installDiskError is the service's answer to the Agent's installation
// disk: a disk that is not one of the host's eligible disks is refused
// with 409 (internal/host/host.go UpdateInstallationDisk), which the Agent
// shows as SpecSynced=False / InputError.
func (o *op) installDiskError(h *host) *assisted.SyncError {
	if h.InstallDisk == "" {
		return nil
	}
	if h.Inventory == nil {
		// The host's valid disks are read from its inventory, which is
		// still empty (internal/hardware/validator.go GetHostValidDisks
		// unmarshals ""): a backend error until the inventory arrives.
		return &assisted.SyncError{Message: errEmptyInventory}
	}
	if _, ok := assisted.DiskByPath(o.hostInput(h).EligibleDisks(), h.InstallDisk); ok {
		return nil
	}
	return &assisted.SyncError{Input: true, Message: assisted.ErrInstallDiskNotValid}
}

// approve sets the Agent's spec.approved.
func (o *op) approve(h *host) {
	if h.Approved {
		return
	}
	h.Approved = true
	o.changed = true
	by := "BMAC (matched to " + bmhRef(h.Namespace, h.BMH) + ")"
	if h.BMH == "" || o.e.opts.Approve == ApproveManual {
		by = "the user"
	}
	o.event(agentRef(h), evApproved, fmt.Sprintf("Agent %s approved by %s", h.name(), by))
}

// installerFlags are the coreos-installer flags an Agent may pass (pkg/validations/validations.go).
var installerFlags = []string{"--append-karg", "--delete-karg", "-n", "--copy-network", "--network-dir", "--save-partlabel", "--save-partindex", "--image-url", "--image-file"}

var installerValueRE = regexp.MustCompile(`^[A-Za-z0-9@!#$%*()_+-=//.,";':{}\[\]]+$`)

// agentSyncError is the Agent's SpecSynced error: installer arguments and
// ignition overrides the service refuses (pkg/validations/validations.go, internal/common/ignition/ignition.go), and a cluster
// reference BMAC cannot apply.
func (o *op) agentSyncError(h *host, spec *bmhSpec) *assisted.SyncError {
	ieID := ""
	if ie := o.st.infraEnv(h.Namespace, h.InfraEnv); ie != nil {
		ieID = ie.ID
	}
	if h.InstallerArgs != "" {
		var args []string
		if err := json.Unmarshal([]byte(h.InstallerArgs), &args); err != nil {
			return &assisted.SyncError{Input: true, Message: fmt.Sprintf("Fail to unmarshal installer args for host %s in infraEnv %s", h.ID, ieID)}
		}
		for _, a := range args {
			if strings.HasPrefix(a, "-") {
				ok := false
				for _, f := range installerFlags {
					ok = ok || a == f
				}
				if !ok {
					return &assisted.SyncError{Input: true, Message: fmt.Sprintf("found unexpected flag %s for installer - allowed flags are [%s]", a, strings.Join(installerFlags, " "))}
				}
			} else if !installerValueRE.MatchString(a) {
				return &assisted.SyncError{Input: true, Message: fmt.Sprintf("found unexpected chars in value %s for installer", a)}
			}
		}
	}
	if h.IgnitionOvr != "" {
		if err := parseIgnition(h.IgnitionOvr); err != nil {
			return &assisted.SyncError{Input: true, Message: "error parsing ignition config overrides: " + err.Error()}
		}
	}
	if spec != nil {
		ie := o.st.Desired.infraEnv(h.Namespace, h.InfraEnv)
		if ref := spec.Annotations[assisted.AnnotationBMACClusterReference]; ref != "" && ie != nil && ie.ClusterRef != "" {
			return &assisted.SyncError{Input: true, Message: "failed to reconcile cluster reference.  InfraEnv already has cluster reference " + ie.ClusterRef}
		}
	}
	return nil
}

// parseIgnition validates an ignition config as the service does: as 3.2,
// falling back to 3.1 (ParseToLatest).
func parseIgnition(s string) error {
	if _, _, err := v3_2.Parse([]byte(s)); err == nil {
		return nil
	}
	_, _, err := v3_1.Parse([]byte(s))
	return err
}

// reconcileBinding binds and unbinds the hosts of a late-binding InfraEnv
// through the BareMetalHost's cluster-reference annotation (internal/controller/controllers/bmh_agent_controller.go, the controllers' finalizers).
func (o *op) reconcileBinding(h *host, spec *bmhSpec) {
	st, d := o.st, o.st.Desired
	ie := d.infraEnv(h.Namespace, h.InfraEnv)
	if ie == nil || ie.ClusterRef != "" || spec == nil {
		return
	}
	ref, has := spec.Annotations[assisted.AnnotationBMACClusterReference]
	switch {
	case has && ref != "" && !h.Bound:
		if ref != d.cdKey() || st.Cluster == nil {
			h.Sync = &assisted.SyncError{Input: true, Message: fmt.Sprintf("ClusterDeployment %s not found", ref)}
			o.changed = true
			return
		}
		if h.Status != assisted.HostKnownUnbound {
			return // the bind waits for known-unbound (a 409 before)
		}
		h.Bound, h.ClusterRef = true, ref
		h.Day2 = st.Cluster.Kind == assisted.KindAddHostsCluster
		o.event(agentRef(h), evBound, fmt.Sprintf("Host %s: binding to cluster %s", h.name(), ref))
		o.setHostStatus(h, assisted.HostBinding, assisted.InfoBinding)
		o.schedule(tkAgentRestart, h.ID, o.after(timing.Inventory, h.ID+"restart"))
	case has && ref == "" && h.Bound:
		o.unbind(h)
	}
}

// unbind returns a host to its pool (UnbindHost, internal/host/statemachine.go, the controllers' finalizers).
func (o *op) unbind(h *host) {
	h.Bound, h.ClusterRef, h.Day2, h.Bootstrap = false, "", false, false
	switch {
	case h.Status.In(assisted.HostKnown, assisted.HostDiscovering, assisted.HostDisconnected, assisted.HostInsufficient, assisted.HostPendingForInput):
		o.setHostStatus(h, assisted.HostUnbinding, assisted.InfoUnbinding)
		o.schedule(tkAgentRestart, h.ID, o.after(timing.Inventory, h.ID+"restart"))
	default:
		o.setHostStatus(h, assisted.HostUnbindingPendingUserAction, assisted.InfoUnbinding)
	}
	h.Inventory, h.Validations, h.Validated = nil, nil, false
	h.Stage, h.ProgressInfo, h.Waiting = "", "", false
}

// agentLabels keeps the labels the Agent controller sets (updateLabels).
func (o *op) agentLabels(h *host) {
	set := func(k, v string) {
		// A value still not a label value after sanitizing is skipped:
		// the update would fail (setAgentLabel).
		if !isLabelValue(v) {
			return
		}
		if cur, ok := h.Labels[k]; !ok || cur != v {
			if h.Labels == nil {
				h.Labels = map[string]string{}
			}
			h.Labels[k] = v
			o.changed = true
		}
	}
	drop := func(k string) {
		if _, ok := h.Labels[k]; ok {
			delete(h.Labels, k)
			o.changed = true
		}
	}
	if h.BMH != "" {
		set(assisted.LabelAgentBMH, h.BMH)
	} else {
		drop(assisted.LabelAgentBMH)
	}
	ns := ""
	if h.Bound {
		ns, _ = splitKey(h.ClusterRef)
	}
	set(assisted.LabelClusterDeploymentNamespace, ns)
	inv := h.Inventory
	if inv == nil {
		for k := range h.Labels {
			if strings.HasPrefix(k, assisted.InventoryLabelPrefix) {
				drop(k)
			}
		}
		return
	}
	set(assisted.InventoryLabelPrefix+"storage-hasnonrotationaldisk", strconv.FormatBool(hasSSD(inv)))
	set(assisted.InventoryLabelPrefix+"cpu-architecture", sanitizeLabel(inv.Arch))
	set(assisted.InventoryLabelPrefix+"cpu-virtenabled", strconv.FormatBool(inv.VirtEnabled))
	set(assisted.InventoryLabelPrefix+"host-manufacturer", sanitizeLabel(inv.Vendor))
	set(assisted.InventoryLabelPrefix+"host-productname", sanitizeLabel(inv.Product))
	set(assisted.InventoryLabelPrefix+"host-isvirtual", strconv.FormatBool(inv.Virtual))
}

func hasSSD(inv *assisted.Inventory) bool {
	for _, d := range inv.Disks {
		if d.DriveType == assisted.DriveSSD {
			return true
		}
	}
	return false
}

// isLabelValue reports whether s is a Kubernetes label value: at most 63
// characters, empty or alphanumeric at both ends with '-', '_' or '.'
// between (validation.IsValidLabelValue). It is that check without the
// regular expression and the error text: a host whose manufacturer
// sanitizes to "DellInc." fails it on every settle of every site.
func isLabelValue(s string) bool {
	if len(s) > validation.LabelValueMaxLength {
		return false
	}
	for i := 0; i < len(s); i++ {
		c := s[i]
		alnum := 'a' <= c && c <= 'z' || 'A' <= c && c <= 'Z' || '0' <= c && c <= '9'
		if !alnum && ((i == 0 || i == len(s)-1) || c != '-' && c != '_' && c != '.') {
			return false
		}
	}
	return true
}

// sanitizeLabel keeps [-A-Za-z0-9_.] (updateLabels).
func sanitizeLabel(s string) string {
	keep := func(r rune) bool {
		return r == '-' || r == '_' || r == '.' || 'a' <= r && r <= 'z' || 'A' <= r && r <= 'Z' || '0' <= r && r <= '9'
	}
	for _, r := range s {
		if !keep(r) {
			return strings.Map(func(r rune) rune {
				if keep(r) {
					return r
				}
				return -1
			}, s)
		}
	}
	return s
}

// deleteHost removes an Agent and deregisters its host (the Agent
// finalizer, the controllers' finalizers).
func (o *op) deleteHost(h *host, why string) {
	kept := o.st.Hosts[:0]
	for _, x := range o.st.Hosts {
		if x != h {
			kept = append(kept, x)
		}
	}
	o.st.Hosts = kept
	o.cancelTarget(h.ID)
	for _, b := range o.st.BMHs {
		if b.Agent == h.ID {
			b.Agent = ""
		}
	}
	o.changed = true
	o.event(agentRef(h), evDeregistered, fmt.Sprintf("Deleted Agent %s and deregistered host %s: %s", h.ID, h.name(), why))
}

// sortHosts orders hosts for status output: by machine, then id.
func sortHosts(hs []*host) {
	sort.SliceStable(hs, func(i, j int) bool {
		if hs[i].Machine != hs[j].Machine {
			return hs[i].Machine < hs[j].Machine
		}
		return hs[i].ID < hs[j].ID
	})
}
