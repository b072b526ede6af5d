package assisted

import (
	"fmt"
	"net/netip"
	"slices"
	"strings"
	"time"
)

// HostGate says which state-machine group a failing host validation blocks
// (internal/host/statemachine.go).
type HostGate int

const (
	// GateNone: informational only.
	GateNone HostGate = iota
	// GateDiscovery: connection and inventory (disconnected / discovering).
	GateDiscovery
	// GateMinHW: minimum hardware (insufficient, "minimum hardware" text).
	GateMinHW
	// GateInput: user input (pending-for-input).
	GateInput
	// GateSufficient: everything else an installation needs (insufficient).
	GateSufficient
)

// HostInput is everything the host validations read of one host.
type HostInput struct {
	// ID is the host id (the Agent name).
	ID string
	// Inventory is nil until the agent sent it.
	Inventory *Inventory
	// Cluster is nil for a pool (late-binding) host.
	Cluster *ClusterFacts
	// Role is the effective role: the spec role, or the suggested role
	// when the spec says auto-assign.
	Role              Role
	Bootstrap         bool
	Day2              bool
	RequestedHostname string
	// CheckedIn is true while the agent contacted the service within the
	// disconnection limit (the caller measures the time).
	CheckedIn         bool
	MediaDisconnected bool
	// Stages and Stage locate the host's installation progress.
	Stages []Stage
	Stage  Stage
	// InstallDisk is the installation disk the Agent asks for (its
	// installation_disk_id); empty leaves the choice to the service.
	InstallDisk string
	// DiskSpeed is the last measurement of the installation disk.
	DiskSpeed DiskSpeed
	// FailedImages are images the agent could not pull.
	FailedImages []string
	// APIConnectivity is the day-2 check of the spoke API (ignition).
	APIConnectivity APIConnectivity
	NTPSynced       bool
	// InfraEnvNTPSources is true when the host's InfraEnv adds NTP
	// sources (spec.additionalNTPSources).
	InfraEnvNTPSources bool
	// ClockAheadOfHost is service time minus host time.
	ClockAheadOfHost float64 // minutes
	// HasConnectivity is false until the host sent its connectivity
	// report; Peers are the other hosts of the cluster as it measured
	// them.
	HasConnectivity bool
	Peers           []Peer
	// ServiceTime is the service's clock; HostClockAheadMin is how far
	// the host's clock is ahead of it (negative: behind).
	ServiceTime       time.Time
	HostClockAheadMin float64
	// DNSResolves is false when the cluster's names do not resolve;
	// DNSSelf when they resolve to an address of this host; WildcardAddrs
	// are the addresses a name under the cluster's domain that should not
	// exist resolves to.
	DNSResolves   bool
	DNSSelf       bool
	WildcardAddrs []string
	Ignored       Ignored
}

// DiskSpeed is the state of the installation-disk speed check.
type DiskSpeed struct {
	Tested bool
	OK     bool
}

// APIConnectivity is the state of a day-2 host's API connectivity check.
type APIConnectivity struct {
	Checked bool
	OK      bool
	URL     string
	Error   string
}

// ClusterFacts is what the host validations read of the host's cluster.
type ClusterFacts struct {
	Name, BaseDomain string
	Version          string
	SNO              bool
	UMN              bool
	Platform         string
	MachineNetworks  []string
	// HostCount is the number of hosts in the cluster.
	HostCount int
	// Hostnames counts the real hostnames of the cluster's hosts that have
	// an inventory (including this host).
	Hostnames map[string]int
	// MajorityGroups is false until the cluster monitor computed the
	// connectivity majority groups (and the IP collisions with them);
	// InMajority is this host's membership.
	MajorityGroups bool
	InMajority     bool
	// Day2 is true for an AddHostsCluster; Imported for one registered as
	// installed (V2ImportClusterInternal). ImportedAPIReached is true once
	// a host of an imported cluster fetched its ignition from the API.
	Day2               bool
	Imported           bool
	ImportedAPIReached bool
	// UserManagedLB is true when the load balancer is user-managed.
	UserManagedLB bool
	// Fencing is true for a two-node cluster whose control-plane nodes
	// have fencing credentials.
	Fencing bool
}

// RealHostname is the requested hostname, else the inventory's.
func (in *HostInput) RealHostname() string {
	if in.RequestedHostname != "" {
		return in.RequestedHostname
	}
	if in.Inventory != nil {
		return in.Inventory.Hostname
	}
	return ""
}

// Requirements returns the requirements the host is judged against.
func (in *HostInput) Requirements() Requirements {
	if in.Cluster == nil {
		return UnboundRequirements()
	}
	if (in.Role == RoleWorker || in.Role == RoleAutoAssign) && IsEdgeWorker(in.Inventory) {
		return ReqEdgeWorker
	}
	return RoleRequirements(in.Role, in.Cluster.SNO, in.Cluster.Version)
}

func (in *HostInput) rebootedOrLater() bool {
	i := StageIndex(in.Stages, in.Stage)
	r := StageIndex(in.Stages, StageRebooting)
	return i >= 0 && r >= 0 && i >= r
}

// HostValidation is one host validation (internal/host/validator.go).
type HostValidation struct {
	ID       string
	Category Category
	Gate     HostGate
	// NotIgnorable validations run even when the cluster asks to skip them
	// (internal/common/validations.go).
	NotIgnorable bool
	// SkippedStages are the installation stages in which the result is
	// left out of the output; it still counts for the state machine
	// (internal/host/refresh_status_preprocessor.go skippedStates).
	SkippedStages []Stage
	eval          func(*HostInput) (ValidationStatus, string)
}

// Host validation ids (models/host_validation_id.go).
const (
	HVConnected                  = "connected"
	HVMediaConnected             = "media-connected"
	HVHasInventory               = "has-inventory"
	HVInventoryNotPartTruncated  = "inventory-not-partially-truncated"
	HVInventoryNotFullTruncated  = "inventory-not-fully-truncated"
	HVHasMinCPUCores             = "has-min-cpu-cores"
	HVHasMinMemory               = "has-min-memory"
	HVHasMinValidDisks           = "has-min-valid-disks"
	HVMachineCIDRDefined         = "machine-cidr-defined"
	HVHasCPUCoresForRole         = "has-cpu-cores-for-role"
	HVHasMemoryForRole           = "has-memory-for-role"
	HVHostnameUnique             = "hostname-unique"
	HVBelongsToMachineCIDR       = "belongs-to-machine-cidr"
	HVHostnameValid              = "hostname-valid"
	HVIgnitionDownloadable       = "ignition-downloadable"
	HVBelongsToMajorityGroup     = "belongs-to-majority-group"
	HVMTUValid                   = "mtu-valid"
	HVValidPlatformNetwork       = "valid-platform-network-settings"
	HVNTPSynced                  = "ntp-synced"
	HVTimeSynced                 = "time-synced-between-host-and-service"
	HVContainerImagesAvailable   = "container-images-available"
	HVSufficientDiskSpeed        = "sufficient-installation-disk-speed"
	HVNetworkLatency             = "sufficient-network-latency-requirement-for-role"
	HVPacketLoss                 = "sufficient-packet-loss-requirement-for-role"
	HVHasDefaultRoute            = "has-default-route"
	HVAPIDomainResolved          = "api-domain-name-resolved-correctly"
	HVAPIIntDomainResolved       = "api-int-domain-name-resolved-correctly"
	HVAppsDomainResolved         = "apps-domain-name-resolved-correctly"
	HVCompatibleWithPlatform     = "compatible-with-cluster-platform"
	HVDNSWildcardNotConfigured   = "dns-wildcard-not-configured"
	HVDiskEncryption             = "disk-encryption-requirements-satisfied"
	HVNonOverlappingSubnets      = "non-overlapping-subnets"
	HVVSphereDiskUUID            = "vsphere-disk-uuid-enabled"
	HVCompatibleAgent            = "compatible-agent"
	HVNoSkipInstallationDisk     = "no-skip-installation-disk"
	HVNoSkipMissingDisk          = "no-skip-missing-disk"
	HVNoIPCollisions             = "no-ip-collisions-in-network"
	HVNoISCSINICInMachineNetwork = "no-iscsi-nic-belongs-to-machine-cidr"
)

// The clock gaps time-synced-between-host-and-service tolerates, in
// minutes (internal/host/validator.go maxServiceAheadOfHostTimeDiff,
// maxHostAheadOfServiceTimeDiff).
const (
	MaxServiceAheadOfHostMin = 20
	MaxHostAheadOfServiceMin = 60
)

// MinHostsTwoNodesWithFencing is how many hosts a two-node cluster with
// fencing needs before connectivity groups count
// (internal/common/common.go AllowedNumberOfMasterHostsInTwoNodesWithFencing).
const MinHostsTwoNodesWithFencing = 2

// VMwareManufacturer is the system vendor of a vSphere virtual machine
// (internal/provider/vsphere/consts.go).
const VMwareManufacturer = "VMware, Inc."

// OpenStackProduct is the product name valid-platform-network-settings
// refuses without user-managed networking.
const OpenStackProduct = "OpenStack Compute"

// PlatformBaremetal and PlatformNone are the platforms a kube-API cluster
// gets (internal/controller/controllers/clusterdeployments_controller.go).
const (
	PlatformBaremetal = "baremetal"
	PlatformNone      = "none"
)

// manualRebootStages are the stages from the reboot on, in which the
// connection and clock validations are left out of the output
// (internal/host/common.go manualRebootStages).
var manualRebootStages = []Stage{StageRebooting, StageWaitingForIgnition, StageConfiguring, StageJoined, StageDone}

// HostValidations lists the core host validations in the order the
// service evaluates them (refresh_status_preprocessor.go).
var HostValidations = []HostValidation{
	{ID: HVConnected, Category: CategoryNetwork, SkippedStages: manualRebootStages, Gate: GateDiscovery, NotIgnorable: true, eval: func(in *HostInput) (ValidationStatus, string) {
		if in.CheckedIn || in.rebootedOrLater() {
			return ok("Host is connected")
		}
		return fail("Host is disconnected")
	}},
	{ID: HVMediaConnected, Category: CategoryNetwork, SkippedStages: manualRebootStages, Gate: GateDiscovery, eval: func(in *HostInput) (ValidationStatus, string) {
		if in.MediaDisconnected {
			return fail(InfoMediaDisconnected)
		}
		return ok("Media device is connected")
	}},
	{ID: HVHasInventory, Category: CategoryHardware, Gate: GateDiscovery, NotIgnorable: true, eval: func(in *HostInput) (ValidationStatus, string) {
		if in.Inventory == nil {
			return fail("Inventory has not been received for the host")
		}
		return ok("Valid inventory exists for the host")
	}},
	{ID: HVInventoryNotPartTruncated, Category: CategoryHardware, Gate: GateNone, eval: func(in *HostInput) (ValidationStatus, string) {
		// The simulated inventories are never truncated.
		if in.Inventory == nil {
			return pending("Missing inventory")
		}
		return ok("Inventory is not truncated")
	}},
	{ID: HVInventoryNotFullTruncated, Category: CategoryHardware, Gate: GateDiscovery, NotIgnorable: true, eval: func(in *HostInput) (ValidationStatus, string) {
		if in.Inventory == nil {
			return pending("Missing inventory")
		}
		return ok("Inventory is not truncated")
	}},
	{ID: HVHasMinCPUCores, Category: CategoryHardware, Gate: GateMinHW, eval: func(in *HostInput) (ValidationStatus, string) {
		if in.Inventory == nil {
			return pending("Missing inventory")
		}
		need, _ := in.preflight()
		if in.Inventory.CPUCores >= need {
			return ok("Sufficient CPU cores")
		}
		return fail(fmt.Sprintf("The host is not eligible to participate in Openshift Cluster because the minimum required CPU cores for any role is %d, found only %d", need, in.Inventory.CPUCores))
	}},
	{ID: HVHasMinMemory, Category: CategoryHardware, Gate: GateMinHW, eval: func(in *HostInput) (ValidationStatus, string) {
		if in.Inventory == nil {
			return pending("Missing inventory")
		}
		_, needMiB := in.preflight()
		tolerance := int64(MemoryToleranceMiB)
		if in.Inventory.MemoryFromMeminfo {
			tolerance += needMiB / MeminfoToleranceDivisor
		}
		if in.Inventory.MemoryBytes >= (needMiB-tolerance)*MiB {
			return ok("Sufficient minimum RAM")
		}
		return fail(fmt.Sprintf("The host is not eligible to participate in Openshift Cluster because the minimum required RAM for any role is %s, found only %s", IECBytes(needMiB*MiB), IECBytes(in.Inventory.MemoryBytes)))
	}},
	{ID: HVHasMinValidDisks, Category: CategoryHardware, Gate: GateMinHW, eval: func(in *HostInput) (ValidationStatus, string) {
		if in.Inventory == nil {
			return pending("Missing inventory")
		}
		if len(in.Inventory.Disks) == 0 {
			return ValidationError, "Failed to detected disks"
		}
		if len(in.EligibleDisks()) > 0 {
			return ok("Sufficient disk capacity")
		}
		return fail("No eligible disks were found, please check specific disks to see why they are not eligible")
	}},
	{ID: HVMachineCIDRDefined, Category: CategoryNetwork, Gate: GateInput, NotIgnorable: true, eval: func(in *HostInput) (ValidationStatus, string) {
		switch c := in.Cluster; {
		case c == nil:
			return skip()
		case c.UMN:
			return ok("No Machine Network CIDR needed: User Managed Networking")
		case c.Day2:
			return ok("No Machine Network CIDR needed: Day2 cluster")
		case len(c.MachineNetworks) > 0:
			return ok("Machine Network CIDR is defined")
		}
		return fail("Machine Network CIDR is undefined; the Machine Network CIDR can be defined by setting either the API or Ingress virtual IPs")
	}},
	{ID: HVHasCPUCoresForRole, Category: CategoryHardware, Gate: GateSufficient, eval: func(in *HostInput) (ValidationStatus, string) {
		if in.Inventory == nil {
			return pending("Missing inventory or role")
		}
		need := in.Requirements().CPUCores
		if in.Inventory.CPUCores >= need {
			return ok(fmt.Sprintf("Sufficient CPU cores for role %s", in.Role))
		}
		return fail(fmt.Sprintf("Require at least %d CPU cores for %s role, found only %d", need, in.Role, in.Inventory.CPUCores))
	}},
	{ID: HVHasMemoryForRole, Category: CategoryHardware, Gate: GateSufficient, eval: func(in *HostInput) (ValidationStatus, string) {
		if in.Inventory == nil {
			return pending("Missing inventory or role")
		}
		need := in.Requirements().RAMMiB
		if in.Inventory.MemoryBytes >= (need-MemoryToleranceMiB)*MiB {
			return ok(fmt.Sprintf("Sufficient RAM for role %s", in.Role))
		}
		return fail(fmt.Sprintf("Require at least %s RAM for role %s, found only %s", IECBytes(need*MiB), in.Role, IECBytes(in.Inventory.MemoryBytes)))
	}},
	{ID: HVHostnameUnique, Category: CategoryHardware, Gate: GateSufficient, NotIgnorable: true, eval: func(in *HostInput) (ValidationStatus, string) {
		if in.Cluster == nil {
			return skip()
		}
		if in.Inventory == nil {
			return pending("Missing inventory")
		}
		name := in.RealHostname()
		if in.Cluster.Hostnames[name] > 1 {
			return fail(fmt.Sprintf("Hostname %s is not unique in cluster", name))
		}
		return ok(fmt.Sprintf("Hostname %s is unique in cluster", name))
	}},
	{ID: HVBelongsToMachineCIDR, Category: CategoryNetwork, Gate: GateSufficient, eval: func(in *HostInput) (ValidationStatus, string) {
		c := in.Cluster
		switch {
		case c == nil:
			return skip()
		case c.UMN && !c.SNO && (!in.Bootstrap || len(c.MachineNetworks) == 0):
			// Only the bootstrap of a multi-node user-managed cluster
			// with machine networks is checked.
			return ok("No machine network CIDR validation needed: User Managed Networking")
		case c.Day2:
			return ok("No machine network CIDR validation needed: Day2 cluster")
		case in.Inventory == nil || len(c.MachineNetworks) == 0:
			return pending("Missing inventory or machine network CIDR")
		case !c.UserManagedLB && !inNetworks(in.Inventory, c.MachineNetworks, true):
			return fail("Host does not belong to machine network CIDRs. Verify that the host belongs to every CIDR listed under machine networks")
		case !c.UserManagedLB:
			return ok("Host belongs to all machine network CIDRs")
		case !inNetworks(in.Inventory, c.MachineNetworks, false):
			return fail("Host does not belong to any machine network CIDR. Verify that the host belongs to at least one CIDR listed under machine networks")
		}
		return ok("Host belongs to at least one machine network CIDR")
	}},
	{ID: HVHostnameValid, Category: CategoryHardware, Gate: GateSufficient, NotIgnorable: true, eval: func(in *HostInput) (ValidationStatus, string) {
		if in.Inventory == nil {
			return fail("Missing inventory")
		}
		name := in.RealHostname()
		if p := HostnameProblem(name); p != "" {
			return fail(p)
		}
		return ok(fmt.Sprintf("Hostname %s is allowed", name))
	}},
	{ID: HVIgnitionDownloadable, Category: CategoryNetwork, Gate: GateSufficient, eval: func(in *HostInput) (ValidationStatus, string) {
		if in.Cluster == nil || !in.Day2 {
			return skip()
		}
		a := in.APIConnectivity
		switch {
		case !a.Checked:
			return pending("Ignition is not yet available, pending API connectivity")
		case a.OK:
			return ok("Ignition is downloadable")
		}
		return fail(fmt.Sprintf("This host has failed to download the ignition file from %s with the following error: %s. Please ensure the host can reach this URL", a.URL, a.Error))
	}},
	{ID: HVBelongsToMajorityGroup, Category: CategoryNetwork, Gate: GateSufficient, eval: func(in *HostInput) (ValidationStatus, string) {
		c := in.Cluster
		switch {
		case c == nil:
			return skip()
		case in.Day2:
			return ok("Day2 host is not required to be connected to other hosts in the cluster")
		case c.SNO:
			return ok("Host has connectivity to the majority of hosts in the cluster")
		case !c.MajorityGroups:
			return pending("Machine Network CIDR or Connectivity Majority Groups missing")
		case !c.InMajority && (!c.Fencing && c.HostCount < 3 || c.Fencing && c.HostCount < MinHostsTwoNodesWithFencing):
			return pending("Not enough hosts in cluster to calculate connectivity groups")
		case !c.InMajority:
			return fail("No connectivity to the majority of hosts in the cluster")
		}
		return ok("Host has connectivity to the majority of hosts in the cluster")
	}},
	{ID: HVMTUValid, Category: CategoryNetwork, Gate: GateNone, eval: func(in *HostInput) (ValidationStatus, string) {
		c := in.Cluster
		switch {
		case c == nil:
			return suppressed, "Host is not bound to a cluster"
		case in.Inventory == nil:
			return pending("Missing host inventory")
		case in.Day2:
			return ok("Day2 host is not required to be connected to other hosts in the cluster")
		case c.SNO:
			return suppressed, "The validation is not applicable to SNO"
		case !in.HasConnectivity:
			return pending("Missing MTU report information")
		}
		// The simulated hosts each have one address, in the machine
		// network: the machine-network and all-interfaces checks agree.
		for _, p := range in.Peers {
			if p.MTUBroken {
				return fail(fmt.Sprintf("MTU is broken. Interface: %s, remote IP address: %s", firstInterface(in.Inventory), p.Address))
			}
		}
		return ok("MTU is ok")
	}},
	{ID: HVValidPlatformNetwork, Category: CategoryNetwork, Gate: GateSufficient, eval: func(in *HostInput) (ValidationStatus, string) {
		if in.Inventory == nil {
			return pending("Missing inventory")
		}
		p := in.Inventory.Product
		if p == OpenStackProduct {
			if in.Cluster == nil {
				return skip()
			}
			if !in.Cluster.UMN {
				return fail(fmt.Sprintf("Platform %s is allowed only for Single Node OpenShift or user-managed networking", p))
			}
		}
		return ok(fmt.Sprintf("Platform %s is allowed", p))
	}},
	{ID: HVNTPSynced, Category: CategoryNetwork, SkippedStages: manualRebootStages, Gate: GateNone, eval: func(in *HostInput) (ValidationStatus, string) {
		// The agent reports its NTP sources once it sent its inventory.
		// A pool host with nothing synced is not judged when its InfraEnv
		// adds no NTP sources (internal/host/validator.go
		// missingNTPSyncResult).
		switch {
		case in.Inventory != nil && in.NTPSynced:
			return ok("Host NTP is synced")
		case in.Cluster == nil && !in.InfraEnvNTPSources:
			return skip()
		}
		return fail("Host couldn't synchronize with any NTP server")
	}},
	{ID: HVTimeSynced, Category: CategoryNetwork, SkippedStages: manualRebootStages, Gate: GateSufficient, eval: func(in *HostInput) (ValidationStatus, string) {
		if in.Inventory == nil {
			// The host's timestamp comes with its inventory.
			return pending("Missing host time, can't determine synchronization between host and service")
		}
		// Service time prints as Go's time.Time String of the UTC clock.
		now := in.ServiceTime.UTC()
		switch d := -in.HostClockAheadMin; {
		case d > MaxServiceAheadOfHostMin:
			return fail(fmt.Sprintf("Host clock is not synchronized, service time is ahead of host's at least for %.1f minutes, please configure an NTP server via DHCP. Service time: %s", float64(MaxServiceAheadOfHostMin), now))
		case d < -MaxHostAheadOfServiceMin:
			return fail(fmt.Sprintf("Host clock is not synchronized, host time is ahead of service at least for %.1f minutes, please configure an NTP server via DHCP. Service time: %s", float64(MaxHostAheadOfServiceMin), now))
		}
		return ok("Host clock is synchronized with service")
	}},
	// Not in the sufficient-for-install list: a failed pull only fails
	// the preparation (internal/host/statemachine.go).
	{ID: HVContainerImagesAvailable, Category: CategoryNetwork, Gate: GateNone, eval: func(in *HostInput) (ValidationStatus, string) {
		if len(in.FailedImages) > 0 {
			return fail(fmt.Sprintf("Failed to fetch container images needed for installation from %s. This may be due to a network hiccup. Retry to install again. If this problem persists, check your network settings to make sure you’re not blocked.", joinComma(in.FailedImages)))
		}
		return ok("All required container images were either pulled successfully or no attempt was made to pull them")
	}},
	{ID: HVSufficientDiskSpeed, Category: CategoryHardware, Gate: GateSufficient, eval: func(in *HostInput) (ValidationStatus, string) {
		if _, ok := in.InstallationDisk(); !ok {
			// No installation path: GetBootDevice fails.
			return ValidationError, "Validation error"
		}
		switch {
		case !in.DiskSpeed.Tested:
			return ok("Speed of installation disk has not yet been measured")
		case in.DiskSpeed.OK:
			return ok("Speed of installation disk is sufficient")
		}
		return fail("While preparing the previous installation the installation disk speed measurement failed or was found to be insufficient")
	}},
	{ID: HVNetworkLatency, Category: CategoryNetwork, Gate: GateSufficient, eval: func(in *HostInput) (ValidationStatus, string) {
		req := in.Requirements()
		switch {
		case in.Inventory == nil:
			return pending("The inventory is not available yet.")
		case in.Cluster == nil:
			return skip()
		case in.Cluster.HostCount == 1 || !req.HasNetwork || in.Role == RoleAutoAssign || in.Day2:
			return ok("Network latency requirement has been satisfied.")
		case !in.HasConnectivity:
			return pending("Missing network latency information.")
		}
		if peers, exceeded := exceedingPeers(in.Peers, in.Role, func(p Peer) float64 { return p.LatencyMs }, req.LatencyMs, " ms"); exceeded {
			return fail(latencyFailure(in, req.LatencyMs, peers))
		}
		return ok("Network latency requirement has been satisfied.")
	}},
	{ID: HVPacketLoss, Category: CategoryNetwork, Gate: GateSufficient, eval: func(in *HostInput) (ValidationStatus, string) {
		req := in.Requirements()
		switch {
		case in.Inventory == nil:
			return pending("The inventory is not available yet.")
		case in.Cluster == nil:
			return skip()
		case in.Cluster.HostCount == 1 || !req.HasNetwork || in.Role == RoleAutoAssign || in.Day2:
			return ok("Packet loss requirement has been satisfied.")
		case !in.HasConnectivity:
			return pending("Missing packet loss information.")
		}
		if peers, exceeded := exceedingPeers(in.Peers, in.Role, func(p Peer) float64 { return p.PacketLossPct }, req.PacketLossPct, "%"); exceeded {
			return fail(packetLossFailure(in, req.PacketLossPct, peers))
		}
		return ok("Packet loss requirement has been satisfied.")
	}},
	{ID: HVHasDefaultRoute, Category: CategoryNetwork, Gate: GateSufficient, eval: func(in *HostInput) (ValidationStatus, string) {
		if in.Inventory == nil {
			return pending("Missing default routing information.")
		}
		if !in.Inventory.DefaultRoute {
			return fail("Host has not yet been configured with a default route.")
		}
		return ok("Host has been configured with at least one default route.")
	}},
	{ID: HVAPIDomainResolved, Category: CategoryNetwork, Gate: GateSufficient, eval: func(in *HostInput) (ValidationStatus, string) {
		return in.dns("api", "API load balancer")
	}},
	{ID: HVAPIIntDomainResolved, Category: CategoryNetwork, Gate: GateSufficient, eval: func(in *HostInput) (ValidationStatus, string) {
		return in.dns("api-int", "internal API load balancer")
	}},
	{ID: HVAppsDomainResolved, Category: CategoryNetwork, Gate: GateSufficient, eval: func(in *HostInput) (ValidationStatus, string) {
		return in.dns("*.apps", "application ingress")
	}},
	{ID: HVCompatibleWithPlatform, Category: CategoryHardware, Gate: GateMinHW, eval: func(in *HostInput) (ValidationStatus, string) {
		c := in.Cluster
		switch {
		case c == nil:
			return skip()
		case in.Inventory == nil || c.Platform == "":
			return pending("Missing inventory or platform isn't set")
		}
		return ok(fmt.Sprintf("Host is compatible with cluster platform %s", c.Platform))
	}},
	{ID: HVDNSWildcardNotConfigured, Category: CategoryNetwork, Gate: GateSufficient, eval: func(in *HostInput) (ValidationStatus, string) {
		c := in.Cluster
		switch {
		case c == nil:
			return skip()
		case in.Day2:
			return ok("DNS wildcard check is not required for day2")
		case in.Inventory == nil:
			return pending("DNS wildcard check cannot be performed yet because the host has not yet performed DNS resolution")
		case len(in.WildcardAddrs) > 0:
			return fail(fmt.Sprintf("DNS wildcard configuration was detected for domain *.%s.%s - the installation will not be able to complete while this record exists. Please remove it to proceed. The domain resolves to %s", c.Name, c.BaseDomain, strings.Join(in.WildcardAddrs, ", ")))
		}
		return ok("DNS wildcard check was successful")
	}},
	{ID: HVDiskEncryption, Category: CategoryHardware, Gate: GateMinHW, eval: func(in *HostInput) (ValidationStatus, string) {
		// Disk encryption is not configured by the rendered sites.
		return skip()
	}},
	{ID: HVNonOverlappingSubnets, Category: CategoryNetwork, Gate: GateSufficient, eval: func(in *HostInput) (ValidationStatus, string) {
		switch {
		case in.Inventory == nil:
			return pending("Missing inventory")
		case in.Cluster == nil:
			return skip()
		}
		if msg := overlappingSubnets(in.Inventory); msg != "" {
			return fail("Address networks are overlapping: " + msg)
		}
		return ok("Host subnets are not overlapping")
	}},
	{ID: HVVSphereDiskUUID, Category: CategoryHardware, Gate: GateNone, eval: func(in *HostInput) (ValidationStatus, string) {
		switch {
		case in.Cluster == nil:
			return suppressed, "no cluster"
		case in.Inventory == nil || in.Inventory.Vendor != VMwareManufacturer:
			// Only a VMware host is a vSphere host
			// (internal/provider/vsphere/base.go IsHostSupported).
			return skip()
		}
		// The simulated disks carry their UUID.
		return ok("VSphere disk.EnableUUID is enabled for this virtual machine")
	}},
	{ID: HVCompatibleAgent, Category: CategoryHardware, Gate: GateSufficient, SkippedStages: []Stage{StageConfiguring, StageDone, StageFailed}, eval: func(in *HostInput) (ValidationStatus, string) {
		return ok("Host agent is compatible with the service")
	}},
	{ID: HVNoSkipInstallationDisk, Category: CategoryHardware, Gate: GateSufficient, eval: func(in *HostInput) (ValidationStatus, string) {
		return ok("No request to skip formatting of the installation disk")
	}},
	{ID: HVNoSkipMissingDisk, Category: CategoryHardware, Gate: GateSufficient, eval: func(in *HostInput) (ValidationStatus, string) {
		if in.Inventory == nil {
			return pending("Host inventory not available yet")
		}
		return ok("All disks that have skipped formatting are present in the host inventory")
	}},
	{ID: HVNoIPCollisions, Category: CategoryNetwork, Gate: GateSufficient, eval: func(in *HostInput) (ValidationStatus, string) {
		switch c := in.Cluster; {
		case c == nil:
			return ok("Cluster has not yet been defined, skipping validation.")
		case in.Inventory == nil:
			return ok("Host inventory has not yet been defined, skipping validation.")
		case c.Day2:
			return ok(fmt.Sprintf("Skipping validation for day 2 host %s", in.ID))
		case !c.MajorityGroups:
			return ok("IP collisions have not yet been evaluated")
		}
		// Each simulated host gets addresses of its own: no collisions.
		return ok(fmt.Sprintf("No IP collisions were detected by host %s", in.ID))
	}},
	{ID: HVNoISCSINICInMachineNetwork, Category: CategoryNetwork, Gate: GateSufficient, eval: func(in *HostInput) (ValidationStatus, string) {
		// Only iSCSI installation disks are checked; simulated disks are
		// never iSCSI.
		return skip()
	}},
}

// InstallationDisk is the disk the host installs on, if any.
func (in *HostInput) InstallationDisk() (Disk, bool) {
	return InstallationDisk(in.EligibleDisks(), in.InstallDisk)
}

// EligibleDisks returns the disks that can hold the installation.
func (in *HostInput) EligibleDisks() []Disk {
	if in.Inventory == nil {
		return nil
	}
	var out []Disk
	for _, d := range in.Inventory.Disks {
		if len(in.diskNotEligible(d)) == 0 {
			out = append(out, d)
		}
	}
	return out
}

// DiskProblems says, per disk that cannot hold the installation, why not:
// the installation-eligibility reasons the service writes into each disk
// of the inventory, which the has-min-valid-disks failure asks the user to
// look at ("<disk>: <reason>; <reason>").
func (in *HostInput) DiskProblems() []string {
	if in.Inventory == nil {
		return nil
	}
	var out []string
	for _, d := range in.Inventory.Disks {
		if reasons := in.diskNotEligible(d); len(reasons) > 0 {
			out = append(out, d.Name+": "+strings.Join(reasons, "; "))
		}
	}
	return out
}

// diskNotEligible judges one disk against the host's role requirement.
func (in *HostInput) diskNotEligible(d Disk) []string {
	version := ""
	if in.Cluster != nil {
		version = in.Cluster.Version
	}
	return DiskNotEligible(d.SizeBytes, d.DriveType, in.Requirements().DiskGB, version, in.Inventory.Arch)
}

func (in *HostInput) preflight() (int, int64) {
	if in.Cluster == nil {
		return PreflightMinimum(false, "")
	}
	return PreflightMinimum(in.Cluster.SNO, in.Cluster.Version)
}

// dns evaluates the api, api-int and apps DNS validations
// (internal/host/validator.go isDomainNameResolvedCorrectly,
// shouldValidateDNSResolution, checkDomainNameResolution). Clusters with
// managed networking need no records; neither does a day-1 single-node
// cluster, which the service's dnsmasq configuration serves
// (ENABLE_SINGLE_NODE_DNSMASQ is on in the operator). An imported cluster
// waits until a host fetched the ignition that tells whether it has
// managed networking; the simulated ignition says it does.
func (in *HostInput) dns(prefix, target string) (ValidationStatus, string) {
	c := in.Cluster
	if c == nil {
		return skip()
	}
	domain := prefix + "." + c.Name + "." + c.BaseDomain
	if c.BaseDomain == "" {
		domain = target
	}
	notRequired := fmt.Sprintf("Domain name resolution for the %s domain was successful or not required", domain)
	switch {
	case c.Imported && !c.ImportedAPIReached:
		return pending(fmt.Sprintf("DNS validation for the %s domain cannot be completed at the moment. This could be due to other validations", domain))
	case c.Imported || !c.UMN:
		return ok(notRequired)
	case !c.Day2 && c.SNO:
		return ok(notRequired)
	case c.BaseDomain == "":
		return ValidationError, fmt.Sprintf("DNS validation for the %s domain cannot be completed because the cluster does not have base_dns_domain set. Please update the cluster with the correct base_dns_domain", target)
	case in.Inventory == nil:
		// No domain resolution reported yet: its JSON does not parse.
		return ValidationError, "Error while evaluating DNS resolution on this host"
	case !in.DNSResolves:
		return fail(fmt.Sprintf("Couldn't resolve domain name %s on the host. To continue installation, create the necessary DNS entries to resolve this domain name to your cluster's %s IP address", domain, target))
	case in.DNSSelf:
		if addrs := in.Inventory.Addresses(); len(addrs) > 0 {
			return fail(fmt.Sprintf("Domain %s must not point at %s as it is the API address of this host. This domain must instead point at the IP address of a load balancer when using user managed networking in a multi control-plane node cluster", domain, addrs[0]))
		}
	}
	return ok(notRequired)
}

var hostValidationByID = func() map[string]*HostValidation {
	m := make(map[string]*HostValidation, len(HostValidations))
	for i := range HostValidations {
		m[HostValidations[i].ID] = &HostValidations[i]
	}
	return m
}()

// EvaluateHost runs every host validation in order. Validations the
// cluster asks to ignore (and that can be ignored) pass.
func EvaluateHost(in *HostInput) []Result {
	return AppendHostResults(make([]Result, 0, len(HostValidations)), in)
}

// AppendHostResults appends the results of EvaluateHost to out: a caller
// that refreshes hosts over and over reuses one list.
func AppendHostResults(out []Result, in *HostInput) []Result {
	for i := range HostValidations {
		v := &HostValidations[i]
		status, msg := v.eval(in)
		r := Result{ID: v.ID, Status: status, Message: msg}
		if status == suppressed {
			r.Status, r.Suppressed = ValidationSuccess, true
		}
		if in.Stage != "" && slices.Contains(v.SkippedStages, in.Stage) {
			r.Suppressed = true
		}
		r.Ignored = !v.NotIgnorable && in.Ignored.has(v.ID)
		out = append(out, r)
	}
	return out
}

// HostGates summarizes results by gate: which groups pass.
type HostGates struct {
	Connected      bool
	MediaConnected bool
	Inventory      bool // has-inventory and not fully truncated
	MinHW          bool
	Input          bool
	Sufficient     bool
	// Failing are the messages of every failing validation, whatever its
	// group: the status-info texts replace $FAILING_VALIDATIONS with all
	// of them (transition.go getFailedValidations), so a host short
	// of memory for any role also lists the role requirement it misses.
	Failing []string
}

// Gates folds validation results into the state machine's groups (internal/host/statemachine.go).
func Gates(rs []Result) HostGates {
	g := HostGates{Connected: true, MediaConnected: true, Inventory: true, MinHW: true, Input: true, Sufficient: true}
	for _, r := range rs {
		passed := r.Passed()
		if r.Status == ValidationFailure && !r.Suppressed {
			g.Failing = append(g.Failing, r.Message)
		}
		gate := GateSufficient // operator validations
		if v, ok := hostValidationByID[r.ID]; ok {
			gate = v.Gate
		}
		switch {
		case r.ID == HVConnected:
			g.Connected = passed
		case r.ID == HVMediaConnected:
			g.MediaConnected = passed
		case gate == GateDiscovery:
			g.Inventory = g.Inventory && passed
		case gate == GateMinHW:
			g.MinHW = g.MinHW && passed
		case gate == GateInput:
			g.Input = g.Input && passed
		case gate == GateSufficient:
			g.Sufficient = g.Sufficient && passed
		}
	}
	return g
}

// PoolReady is the pool-host gate: minimum disks, CPU, memory and a valid
// hostname (internal/host/pool_host_statemachine.go).
func PoolReady(rs []Result) bool {
	for _, r := range rs {
		switch r.ID {
		case HVHasMinValidDisks, HVHasMinCPUCores, HVHasMinMemory, HVHostnameValid:
			if !r.Passed() {
				return false
			}
		}
	}
	return true
}

func joinComma(s []string) string {
	out := ""
	for i, x := range s {
		if i > 0 {
			out += ","
		}
		out += x
	}
	return out
}

func firstInterface(inv *Inventory) string {
	if inv == nil || len(inv.Interfaces) == 0 {
		return ""
	}
	return inv.Interfaces[0].Name
}

// inNetworks reports whether the inventory has an address in each of the
// CIDRs (all) or in at least one of them (internal/network
// IsHostInAllMachineNetworksCidr, IsHostInAtLeastOneMachineNetworkCidr).
func inNetworks(inv *Inventory, cidrs []string, all bool) bool {
	addrs := inv.Addresses()
	for _, c := range cidrs {
		p, err := netip.ParsePrefix(c)
		found := false
		for _, a := range addrs {
			if err == nil && p.Contains(a) {
				found = true
				break
			}
		}
		if found && !all {
			return true
		}
		if !found && all {
			return false
		}
	}
	return all
}

// overlappingSubnets returns a description of the first two interfaces
// whose subnets overlap, or "".
func overlappingSubnets(inv *Inventory) string {
	type net struct {
		p    netip.Prefix
		ifc  string
		text string
	}
	var nets []net
	for _, ifc := range inv.Interfaces {
		for _, list := range [][]string{ifc.IPv4, ifc.IPv6} {
			for _, a := range list {
				if p, err := netip.ParsePrefix(a); err == nil {
					m := p.Masked()
					nets = append(nets, net{m, ifc.Name, m.String()})
				}
			}
		}
	}
	for i := 0; i < len(nets); i++ {
		for j := i + 1; j < len(nets); j++ {
			a, b := nets[i], nets[j]
			if a.ifc == b.ifc {
				continue
			}
			if a.p == b.p {
				return "Address network " + a.text + " appears on multiple interfaces [" + a.ifc + ", " + b.ifc + "]"
			}
			if a.p.Overlaps(b.p) {
				return "Address networks " + a.text + " in interface " + a.ifc + " and " + b.text + " in interface " + b.ifc + " overlap"
			}
		}
	}
	return ""
}
