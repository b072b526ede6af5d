package assisted

import (
	"slices"
	"testing"
	"time"
)

const gib = 1 << 30

// goodHost is a master of a three-node cluster that passes everything.
func goodHost() *HostInput {
	return &HostInput{
		ID: "host-1",
		Inventory: &Inventory{
			Hostname: "m0.c1.example.com", CPUCores: 16, Arch: "x86_64", MemoryBytes: 64 * gib,
			Disks:      []Disk{{Name: "nvme0n1", ID: "/dev/disk/by-id/nvme-1", SizeBytes: 960e9, DriveType: DriveSSD}},
			Interfaces: []Interface{{Name: "ens1f0", MAC: "0a:00:00:00:00:01", IPv4: []string{"192.0.2.10/24"}}},
			Vendor:     "Dell Inc.", Product: "PowerEdge R650", DefaultRoute: true,
		},
		Cluster: &ClusterFacts{
			Name: "c1", BaseDomain: "example.com", Version: "4.20.6", Platform: PlatformBaremetal,
			MachineNetworks: []string{"192.0.2.0/24"}, HostCount: 3,
			Hostnames:      map[string]int{"m0.c1.example.com": 1},
			MajorityGroups: true, InMajority: true,
		},
		Role: RoleMaster, CheckedIn: true, NTPSynced: true, DNSResolves: true,
		HasConnectivity: true, ServiceTime: time.Date(2026, 11, 25, 1, 2, 3, 0, time.UTC),
		Peers: []Peer{
			{Hostname: "m1.c1.example.com", Role: RoleMaster, Address: "192.0.2.11", LatencyMs: 1},
			{Hostname: "m2.c1.example.com", Role: RoleMaster, Address: "192.0.2.12", LatencyMs: 1},
		},
	}
}

func resultOf(t *testing.T, rs []Result, id string) Result {
	t.Helper()
	for _, r := range rs {
		if r.ID == id {
			return r
		}
	}
	t.Fatalf("no result for %s", id)
	return Result{}
}

func TestGoodHostPassesEverything(t *testing.T) {
	rs := EvaluateHost(goodHost())
	if len(rs) != len(HostValidations) {
		t.Fatalf("got %d results, want %d", len(rs), len(HostValidations))
	}
	for _, r := range rs {
		if r.Status != ValidationSuccess {
			t.Errorf("%s: %s %q", r.ID, r.Status, r.Message)
		}
	}
	g := Gates(rs)
	if !g.Connected || !g.Inventory || !g.MinHW || !g.Input || !g.Sufficient {
		t.Errorf("gates %+v", g)
	}
}

// Each validation passes and fails with the upstream message
// (internal/host/validator.go).
func TestHostValidations(t *testing.T) {
	cases := []struct {
		name       string
		change     func(*HostInput)
		id         string
		status     ValidationStatus
		message    string
		suppressed bool
	}{
		{"connected", func(*HostInput) {}, HVConnected, ValidationSuccess, "Host is connected", false},
		{"disconnected", func(h *HostInput) { h.CheckedIn = false }, HVConnected, ValidationFailure, "Host is disconnected", false},
		{"disconnected after reboot counts as connected", func(h *HostInput) {
			h.CheckedIn = false
			h.Stages, h.Stage = StagesMaster, StageConfiguring
		}, HVConnected, ValidationSuccess, "", true},
		{"agent compatibility left out once configuring", func(h *HostInput) { h.Stages, h.Stage = StagesMaster, StageConfiguring }, HVCompatibleAgent, ValidationSuccess, "", true},
		{"agent compatibility shown while installing", func(h *HostInput) { h.Stages, h.Stage = StagesMaster, StageInstalling }, HVCompatibleAgent, ValidationSuccess, "Host agent is compatible with the service", false},
		{"media disconnected", func(h *HostInput) { h.MediaDisconnected = true }, HVMediaConnected, ValidationFailure, InfoMediaDisconnected, false},
		{"no inventory", func(h *HostInput) { h.Inventory = nil }, HVHasInventory, ValidationFailure, "Inventory has not been received for the host", false},
		{"inventory", func(*HostInput) {}, HVHasInventory, ValidationSuccess, "Valid inventory exists for the host", false},
		{"min cores", func(h *HostInput) { h.Inventory.CPUCores = 1 }, HVHasMinCPUCores, ValidationFailure,
			"The host is not eligible to participate in Openshift Cluster because the minimum required CPU cores for any role is 2, found only 1", false},
		{"min cores missing inventory", func(h *HostInput) { h.Inventory = nil }, HVHasMinCPUCores, ValidationPending, "Missing inventory", false},
		{"min memory", func(h *HostInput) { h.Inventory.MemoryBytes = 4 * gib }, HVHasMinMemory, ValidationFailure,
			"The host is not eligible to participate in Openshift Cluster because the minimum required RAM for any role is 8.00 GiB, found only 4.00 GiB", false},
		{"min memory within tolerance", func(h *HostInput) { h.Inventory.MemoryBytes = (8192 - 100) * MiB }, HVHasMinMemory, ValidationSuccess, "Sufficient minimum RAM", false},
		{"min memory past tolerance", func(h *HostInput) { h.Inventory.MemoryBytes = (8192 - 101) * MiB }, HVHasMinMemory, ValidationFailure,
			"The host is not eligible to participate in Openshift Cluster because the minimum required RAM for any role is 8.00 GiB, found only 7.90 GiB", false},
		{"min memory from meminfo within 2 %", func(h *HostInput) {
			h.Inventory.MemoryBytes, h.Inventory.MemoryFromMeminfo = (8192-100-163)*MiB, true
		}, HVHasMinMemory, ValidationSuccess, "Sufficient minimum RAM", false},
		{"disk too small for master", func(h *HostInput) { h.Inventory.Disks[0].SizeBytes = 64425e6 }, HVHasMinValidDisks, ValidationFailure,
			"No eligible disks were found, please check specific disks to see why they are not eligible", false},
		{"no disks", func(h *HostInput) { h.Inventory.Disks = nil }, HVHasMinValidDisks, ValidationError, "Failed to detected disks", false},
		{"disks", func(*HostInput) {}, HVHasMinValidDisks, ValidationSuccess, "Sufficient disk capacity", false},
		{"machine cidr undefined", func(h *HostInput) { h.Cluster.MachineNetworks = nil }, HVMachineCIDRDefined, ValidationFailure,
			"Machine Network CIDR is undefined; the Machine Network CIDR can be defined by setting either the API or Ingress virtual IPs", false},
		{"machine cidr user-managed", func(h *HostInput) { h.Cluster.UMN = true }, HVMachineCIDRDefined, ValidationSuccess, "No Machine Network CIDR needed: User Managed Networking", false},
		{"machine cidr day 2", func(h *HostInput) { h.Day2, h.Cluster.Day2 = true, true }, HVMachineCIDRDefined, ValidationSuccess, "No Machine Network CIDR needed: Day2 cluster", false},
		{"machine cidr pool host", func(h *HostInput) { h.Cluster = nil }, HVMachineCIDRDefined, ValidationSuccess, "", true},
		{"machine cidr defined", func(*HostInput) {}, HVMachineCIDRDefined, ValidationSuccess, "Machine Network CIDR is defined", false},
		{"cores for master", func(h *HostInput) { h.Inventory.CPUCores = 3 }, HVHasCPUCoresForRole, ValidationFailure, "Require at least 4 CPU cores for master role, found only 3", false},
		{"cores for worker", func(h *HostInput) { h.Role = RoleWorker; h.Inventory.CPUCores = 2 }, HVHasCPUCoresForRole, ValidationSuccess, "Sufficient CPU cores for role worker", false},
		{"cores for arbiter", func(h *HostInput) { h.Role = RoleArbiter; h.Inventory.CPUCores = 1 }, HVHasCPUCoresForRole, ValidationFailure, "Require at least 2 CPU cores for arbiter role, found only 1", false},
		{"cores for SNO before 4.22", func(h *HostInput) { h.Cluster.SNO = true; h.Inventory.CPUCores = 6 }, HVHasCPUCoresForRole, ValidationFailure, "Require at least 8 CPU cores for master role, found only 6", false},
		{"cores for SNO from 4.22", func(h *HostInput) {
			h.Cluster.SNO, h.Cluster.Version = true, "4.22.0"
			h.Inventory.CPUCores = 4
		}, HVHasCPUCoresForRole, ValidationSuccess, "Sufficient CPU cores for role master", false},
		{"memory for master", func(h *HostInput) { h.Inventory.MemoryBytes = 12 * gib }, HVHasMemoryForRole, ValidationFailure, "Require at least 16.00 GiB RAM for role master, found only 12.00 GiB", false},
		{"memory for master within tolerance", func(h *HostInput) { h.Inventory.MemoryBytes = (16384 - 100) * MiB }, HVHasMemoryForRole, ValidationSuccess, "Sufficient RAM for role master", false},
		{"hostname not unique", func(h *HostInput) { h.Cluster.Hostnames["m0.c1.example.com"] = 2 }, HVHostnameUnique, ValidationFailure, "Hostname m0.c1.example.com is not unique in cluster", false},
		{"hostname unique", func(*HostInput) {}, HVHostnameUnique, ValidationSuccess, "Hostname m0.c1.example.com is unique in cluster", false},
		{"outside machine network", func(h *HostInput) { h.Inventory.Interfaces[0].IPv4 = []string{"198.51.100.5/24"} }, HVBelongsToMachineCIDR, ValidationFailure,
			"Host does not belong to machine network CIDRs. Verify that the host belongs to every CIDR listed under machine networks", false},
		{"inside machine network", func(*HostInput) {}, HVBelongsToMachineCIDR, ValidationSuccess, "Host belongs to all machine network CIDRs", false},
		{"machine network user-managed", func(h *HostInput) { h.Cluster.UMN = true }, HVBelongsToMachineCIDR, ValidationSuccess, "No machine network CIDR validation needed: User Managed Networking", false},
		{"machine network user-managed bootstrap", func(h *HostInput) {
			h.Cluster.UMN, h.Bootstrap = true, true
			h.Inventory.Interfaces[0].IPv4 = []string{"198.51.100.5/24"}
		}, HVBelongsToMachineCIDR, ValidationFailure,
			"Host does not belong to machine network CIDRs. Verify that the host belongs to every CIDR listed under machine networks", false},
		{"machine network user-managed load balancer", func(h *HostInput) {
			h.Cluster.UserManagedLB = true
			h.Cluster.MachineNetworks = append(h.Cluster.MachineNetworks, "198.51.100.0/24")
		}, HVBelongsToMachineCIDR, ValidationSuccess, "Host belongs to at least one machine network CIDR", false},
		{"machine network user-managed load balancer outside", func(h *HostInput) {
			h.Cluster.UserManagedLB = true
			h.Inventory.Interfaces[0].IPv4 = []string{"198.51.100.5/24"}
		}, HVBelongsToMachineCIDR, ValidationFailure,
			"Host does not belong to any machine network CIDR. Verify that the host belongs to at least one CIDR listed under machine networks", false},
		{"forbidden hostname", func(h *HostInput) { h.RequestedHostname = "localhost" }, HVHostnameValid, ValidationFailure, "The host name localhost is forbidden", false},
		{"hostname pattern", func(h *HostInput) { h.RequestedHostname = "Node_1" }, HVHostnameValid, ValidationFailure,
			"Hostname Node_1 is forbidden, hostname should match pattern " + HostnamePattern, false},
		{"hostname allowed", func(*HostInput) {}, HVHostnameValid, ValidationSuccess, "Hostname m0.c1.example.com is allowed", false},
		{"ignition pending", func(h *HostInput) { h.Day2 = true }, HVIgnitionDownloadable, ValidationPending, "Ignition is not yet available, pending API connectivity", false},
		{"ignition failed", func(h *HostInput) {
			h.Day2 = true
			h.APIConnectivity = APIConnectivity{Checked: true, URL: "https://api.c1.example.com:22623/config/worker", Error: "timeout"}
		}, HVIgnitionDownloadable, ValidationFailure,
			"This host has failed to download the ignition file from https://api.c1.example.com:22623/config/worker with the following error: timeout. Please ensure the host can reach this URL", false},
		{"ignition downloadable", func(h *HostInput) { h.Day2 = true; h.APIConnectivity = APIConnectivity{Checked: true, OK: true} }, HVIgnitionDownloadable, ValidationSuccess, "Ignition is downloadable", false},
		{"ignition day 1", func(*HostInput) {}, HVIgnitionDownloadable, ValidationSuccess, "", true},
		{"majority groups missing", func(h *HostInput) { h.Cluster.MajorityGroups = false }, HVBelongsToMajorityGroup, ValidationPending, "Machine Network CIDR or Connectivity Majority Groups missing", false},
		{"not in majority", func(h *HostInput) { h.Cluster.InMajority = false }, HVBelongsToMajorityGroup, ValidationFailure, "No connectivity to the majority of hosts in the cluster", false},
		{"not enough hosts", func(h *HostInput) { h.Cluster.InMajority, h.Cluster.HostCount = false, 2 }, HVBelongsToMajorityGroup, ValidationPending, "Not enough hosts in cluster to calculate connectivity groups", false},
		{"majority SNO", func(h *HostInput) { h.Cluster.SNO, h.Cluster.MajorityGroups = true, false }, HVBelongsToMajorityGroup, ValidationSuccess, "Host has connectivity to the majority of hosts in the cluster", false},
		{"mtu broken", func(h *HostInput) { h.Peers[1].MTUBroken = true }, HVMTUValid, ValidationFailure, "MTU is broken. Interface: ens1f0, remote IP address: 192.0.2.12", false},
		{"mtu no report", func(h *HostInput) { h.HasConnectivity = false }, HVMTUValid, ValidationPending, "Missing MTU report information", false},
		{"mtu no inventory", func(h *HostInput) { h.Inventory = nil }, HVMTUValid, ValidationPending, "Missing host inventory", false},
		{"mtu SNO", func(h *HostInput) { h.Cluster.SNO = true }, HVMTUValid, ValidationSuccess, "", true},
		{"mtu pool host", func(h *HostInput) { h.Cluster = nil }, HVMTUValid, ValidationSuccess, "", true},
		{"mtu day 2", func(h *HostInput) { h.Day2 = true }, HVMTUValid, ValidationSuccess, "Day2 host is not required to be connected to other hosts in the cluster", false},
		{"openstack without UMN", func(h *HostInput) { h.Inventory.Product = OpenStackProduct }, HVValidPlatformNetwork, ValidationFailure,
			"Platform OpenStack Compute is allowed only for Single Node OpenShift or user-managed networking", false},
		{"openstack with UMN", func(h *HostInput) { h.Inventory.Product = OpenStackProduct; h.Cluster.UMN = true }, HVValidPlatformNetwork, ValidationSuccess, "Platform OpenStack Compute is allowed", false},
		{"ntp unsynced", func(h *HostInput) { h.NTPSynced = false }, HVNTPSynced, ValidationFailure, "Host couldn't synchronize with any NTP server", false},
		{"ntp not reported yet", func(h *HostInput) { h.Inventory = nil }, HVNTPSynced, ValidationFailure, "Host couldn't synchronize with any NTP server", false},
		{"ntp unsynced pool host", func(h *HostInput) { h.NTPSynced, h.Cluster = false, nil }, HVNTPSynced, ValidationSuccess, "", true},
		{"ntp unsynced pool host with InfraEnv sources", func(h *HostInput) { h.NTPSynced, h.Cluster, h.InfraEnvNTPSources = false, nil, true }, HVNTPSynced, ValidationFailure,
			"Host couldn't synchronize with any NTP server", false},
		{"majority two-node fencing", func(h *HostInput) { h.Cluster.InMajority, h.Cluster.Fencing, h.Cluster.HostCount = false, true, 1 }, HVBelongsToMajorityGroup, ValidationPending,
			"Not enough hosts in cluster to calculate connectivity groups", false},
		{"majority two-node fencing, both hosts", func(h *HostInput) { h.Cluster.InMajority, h.Cluster.Fencing, h.Cluster.HostCount = false, true, 2 }, HVBelongsToMajorityGroup, ValidationFailure,
			"No connectivity to the majority of hosts in the cluster", false},
		{"clock behind", func(h *HostInput) { h.HostClockAheadMin = -30 }, HVTimeSynced, ValidationFailure,
			"Host clock is not synchronized, service time is ahead of host's at least for 20.0 minutes, please configure an NTP server via DHCP. Service time: 2026-11-25 01:02:03 +0000 UTC", false},
		{"clock ahead", func(h *HostInput) { h.HostClockAheadMin = 61 }, HVTimeSynced, ValidationFailure,
			"Host clock is not synchronized, host time is ahead of service at least for 60.0 minutes, please configure an NTP server via DHCP. Service time: 2026-11-25 01:02:03 +0000 UTC", false},
		{"clock unknown", func(h *HostInput) { h.Inventory = nil }, HVTimeSynced, ValidationPending, "Missing host time, can't determine synchronization between host and service", false},
		{"images failed", func(h *HostInput) { h.FailedImages = []string{"quay.io/a", "quay.io/b"} }, HVContainerImagesAvailable, ValidationFailure,
			"Failed to fetch container images needed for installation from quay.io/a,quay.io/b. This may be due to a network hiccup. Retry to install again. If this problem persists, check your network settings to make sure you’re not blocked.", false},
		{"disk speed unmeasured", func(*HostInput) {}, HVSufficientDiskSpeed, ValidationSuccess, "Speed of installation disk has not yet been measured", false},
		{"disk speed sufficient", func(h *HostInput) { h.DiskSpeed = DiskSpeed{Tested: true, OK: true} }, HVSufficientDiskSpeed, ValidationSuccess, "Speed of installation disk is sufficient", false},
		{"disk speed failed", func(h *HostInput) { h.DiskSpeed = DiskSpeed{Tested: true} }, HVSufficientDiskSpeed, ValidationFailure,
			"While preparing the previous installation the installation disk speed measurement failed or was found to be insufficient", false},
		{"latency", func(h *HostInput) { h.Peers[0].LatencyMs = 150 }, HVNetworkLatency, ValidationFailure,
			`A total network latency above the tolerated threshold of 100.00 ms was encountered when performing network latency tests between host host-1 and m1.c1.example.com (150.00 ms)\n` +
				"Actions:\n1: Please try the following commands on the host m0.c1.example.com and examine averages to investigate the latency issue further\n\n" +
				"2: Please try the following commands on the host m0.c1.example.com to investigate the packet loss further\n\nping -c 10 -W 3 -q -I ens1f0 192.0.2.10/24\n", false},
		{"latency worker threshold", func(h *HostInput) {
			h.Role = RoleWorker
			for i := range h.Peers {
				h.Peers[i].Role, h.Peers[i].LatencyMs = RoleWorker, 150
			}
		}, HVNetworkLatency, ValidationSuccess, "Network latency requirement has been satisfied.", false},
		{"latency other role", func(h *HostInput) { h.Peers[0].Role, h.Peers[0].LatencyMs = RoleWorker, 1500 }, HVNetworkLatency, ValidationSuccess, "Network latency requirement has been satisfied.", false},
		{"latency no inventory", func(h *HostInput) { h.Inventory = nil }, HVNetworkLatency, ValidationPending, "The inventory is not available yet.", false},
		{"latency unknown", func(h *HostInput) { h.HasConnectivity = false }, HVNetworkLatency, ValidationPending, "Missing network latency information.", false},
		{"packet loss master", func(h *HostInput) { h.Peers[0].PacketLossPct, h.Peers[1].PacketLossPct = 1, 2 }, HVPacketLoss, ValidationFailure,
			`A total packet loss above the tolerated threshold of 0.00% was encountered when performing connectivity validation between host host-1 and m1.c1.example.com (1.00%), m2.c1.example.com (2.00%)\n` +
				"Actions:\n1: Check if there are multiple devices on the same L2 network, if so then use the built-in nmstate-based advanced networking configuration to create a bond or disable all but one of the interfaces.\n" +
				"2: Please try the following commands on the host m0.c1.example.com to investigate the packet loss further\n\nping -c 10 -W 3 -q -I ens1f0 192.0.2.10/24\n", false},
		{"packet loss single host", func(h *HostInput) { h.Peers[0].PacketLossPct, h.Cluster.HostCount = 50, 1 }, HVPacketLoss, ValidationSuccess, "Packet loss requirement has been satisfied.", false},
		{"no default route", func(h *HostInput) { h.Inventory.DefaultRoute = false }, HVHasDefaultRoute, ValidationFailure, "Host has not yet been configured with a default route.", false},
		{"default route", func(*HostInput) {}, HVHasDefaultRoute, ValidationSuccess, "Host has been configured with at least one default route.", false},
		{"api dns not needed", func(*HostInput) {}, HVAPIDomainResolved, ValidationSuccess, "Domain name resolution for the api.c1.example.com domain was successful or not required", false},
		{"api dns missing", func(h *HostInput) { h.Cluster.UMN, h.DNSResolves = true, false }, HVAPIDomainResolved, ValidationFailure,
			"Couldn't resolve domain name api.c1.example.com on the host. To continue installation, create the necessary DNS entries to resolve this domain name to your cluster's API load balancer IP address", false},
		{"api-int dns missing", func(h *HostInput) { h.Cluster.UMN, h.DNSResolves = true, false }, HVAPIIntDomainResolved, ValidationFailure,
			"Couldn't resolve domain name api-int.c1.example.com on the host. To continue installation, create the necessary DNS entries to resolve this domain name to your cluster's internal API load balancer IP address", false},
		{"apps dns missing", func(h *HostInput) { h.Cluster.UMN, h.DNSResolves = true, false }, HVAppsDomainResolved, ValidationFailure,
			"Couldn't resolve domain name *.apps.c1.example.com on the host. To continue installation, create the necessary DNS entries to resolve this domain name to your cluster's application ingress IP address", false},
		{"platform", func(*HostInput) {}, HVCompatibleWithPlatform, ValidationSuccess, "Host is compatible with cluster platform baremetal", false},
		{"wildcard", func(h *HostInput) { h.WildcardAddrs = []string{"203.0.113.10"} }, HVDNSWildcardNotConfigured, ValidationFailure,
			"DNS wildcard configuration was detected for domain *.c1.example.com - the installation will not be able to complete while this record exists. Please remove it to proceed. The domain resolves to 203.0.113.10", false},
		{"api dns points at the host", func(h *HostInput) { h.Cluster.UMN, h.DNSSelf = true, true }, HVAPIDomainResolved, ValidationFailure,
			"Domain api.c1.example.com must not point at 192.0.2.10 as it is the API address of this host. This domain must instead point at the IP address of a load balancer when using user managed networking in a multi control-plane node cluster", false},
		{"api dns without base domain", func(h *HostInput) { h.Cluster.UMN, h.Cluster.BaseDomain = true, "" }, HVAPIDomainResolved, ValidationError,
			"DNS validation for the API load balancer domain cannot be completed because the cluster does not have base_dns_domain set. Please update the cluster with the correct base_dns_domain", false},
		{"api dns not yet resolved", func(h *HostInput) { h.Cluster.UMN, h.Inventory = true, nil }, HVAPIDomainResolved, ValidationError, "Error while evaluating DNS resolution on this host", false},
		{"api dns day-2 single node", func(h *HostInput) {
			h.Cluster.UMN, h.Cluster.SNO, h.Cluster.Day2, h.DNSResolves = true, true, true, false
		}, HVAPIDomainResolved, ValidationFailure,
			"Couldn't resolve domain name api.c1.example.com on the host. To continue installation, create the necessary DNS entries to resolve this domain name to your cluster's API load balancer IP address", false},
		{"api dns imported before the API answered", func(h *HostInput) { h.Cluster.Imported, h.Cluster.Day2 = true, true }, HVAPIDomainResolved, ValidationPending,
			"DNS validation for the api.c1.example.com domain cannot be completed at the moment. This could be due to other validations", false},
		{"no wildcard", func(*HostInput) {}, HVDNSWildcardNotConfigured, ValidationSuccess, "DNS wildcard check was successful", false},
		{"overlapping subnets", func(h *HostInput) {
			h.Inventory.Interfaces = append(h.Inventory.Interfaces, Interface{Name: "ens2f0", MAC: "0a:00:00:00:00:02", IPv4: []string{"192.0.2.11/24"}})
		}, HVNonOverlappingSubnets, ValidationFailure, "Address networks are overlapping: Address network 192.0.2.0/24 appears on multiple interfaces [ens1f0, ens2f0]", false},
		{"subnets", func(*HostInput) {}, HVNonOverlappingSubnets, ValidationSuccess, "Host subnets are not overlapping", false},
		{"agent", func(*HostInput) {}, HVCompatibleAgent, ValidationSuccess, "Host agent is compatible with the service", false},
		{"ip collisions", func(*HostInput) {}, HVNoIPCollisions, ValidationSuccess, "No IP collisions were detected by host host-1", false},
		{"ip collisions not evaluated", func(h *HostInput) { h.Cluster.MajorityGroups = false }, HVNoIPCollisions, ValidationSuccess, "IP collisions have not yet been evaluated", false},
		{"ip collisions pool host", func(h *HostInput) { h.Cluster = nil }, HVNoIPCollisions, ValidationSuccess, "Cluster has not yet been defined, skipping validation.", false},
		{"ip collisions no inventory", func(h *HostInput) { h.Inventory = nil }, HVNoIPCollisions, ValidationSuccess, "Host inventory has not yet been defined, skipping validation.", false},
		{"ip collisions day 2", func(h *HostInput) { h.Cluster.Day2 = true }, HVNoIPCollisions, ValidationSuccess, "Skipping validation for day 2 host host-1", false},
		{"vsphere hidden on bare metal", func(*HostInput) {}, HVVSphereDiskUUID, ValidationSuccess, "", true},
		{"vsphere on VMware", func(h *HostInput) { h.Inventory.Vendor = VMwareManufacturer }, HVVSphereDiskUUID, ValidationSuccess, "VSphere disk.EnableUUID is enabled for this virtual machine", false},
		{"truncation pending", func(h *HostInput) { h.Inventory = nil }, HVInventoryNotPartTruncated, ValidationPending, "Missing inventory", false},
		{"full truncation pending", func(h *HostInput) { h.Inventory = nil }, HVInventoryNotFullTruncated, ValidationPending, "Missing inventory", false},
		{"disk speed without installation disk", func(h *HostInput) { h.Inventory.Disks[0].SizeBytes = 20e9 }, HVSufficientDiskSpeed, ValidationError, "Validation error", false},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			in := goodHost()
			c.change(in)
			r := resultOf(t, EvaluateHost(in), c.id)
			if r.Status != c.status || r.Suppressed != c.suppressed || !c.suppressed && r.Message != c.message {
				t.Errorf("%s: got %s %q (suppressed %v), want %s %q", c.id, r.Status, r.Message, r.Suppressed, c.status, c.message)
			}
		})
	}
}

// Failures land in the state machine's groups (internal/host/statemachine.go).
func TestHostGates(t *testing.T) {
	cases := []struct {
		name   string
		change func(*HostInput)
		check  func(HostGates) bool
	}{
		{"minimum hardware", func(h *HostInput) { h.Inventory.CPUCores = 1 }, func(g HostGates) bool { return !g.MinHW && g.Input && len(g.Failing) == 2 }},
		{"input", func(h *HostInput) { h.Cluster.MachineNetworks = nil }, func(g HostGates) bool { return g.MinHW && !g.Input }},
		{"sufficient", func(h *HostInput) { h.Inventory.CPUCores = 3 }, func(g HostGates) bool { return g.MinHW && g.Input && !g.Sufficient }},
		{"pending blocks as failure does", func(h *HostInput) { h.Cluster.MajorityGroups = false }, func(g HostGates) bool { return !g.Sufficient && len(g.Failing) == 0 }},
		{"ntp is not gating", func(h *HostInput) { h.NTPSynced = false }, func(g HostGates) bool { return g.MinHW && g.Input && g.Sufficient }},
		{"discovery", func(h *HostInput) { h.Inventory = nil }, func(g HostGates) bool { return !g.Inventory }},
		{"ignored validation passes", func(h *HostInput) {
			h.Inventory.CPUCores = 3
			h.Ignored = ParseIgnored(HVHasCPUCoresForRole)
		}, func(g HostGates) bool { return g.Sufficient }},
		{"hostname-valid cannot be ignored", func(h *HostInput) {
			h.RequestedHostname = "localhost"
			h.Ignored = ParseIgnored("all")
		}, func(g HostGates) bool { return !g.Sufficient }},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			in := goodHost()
			c.change(in)
			if g := Gates(EvaluateHost(in)); !c.check(g) {
				t.Errorf("gates %+v", g)
			}
		})
	}
}

func TestStatusInfoJoinsSortedFailures(t *testing.T) {
	got := InfoNotReady([]string{"b failed", "a failed"})
	if got != "Host cannot be installed due to following failing validation(s): a failed ; b failed" {
		t.Errorf("got %q", got)
	}
}

func TestDiskSizes(t *testing.T) {
	cases := []struct {
		size int64
		want string
	}{
		{64425e6, "Disk is too small (disk only has 64.425 GB, but 100 GB are required)"},
		{99999999999, "Disk is too small (disk only has 100 GB (short by 1 B), but 100 GB are required)"},
	}
	for _, c := range cases {
		got := DiskNotEligible(c.size, DriveSSD, 100, "4.20", "x86_64")
		if len(got) != 1 || got[0] != c.want {
			t.Errorf("%d: %q", c.size, got)
		}
	}
	// The types are remembered by version and architecture: each pair
	// comes twice, the second time from memory.
	for _, c := range []struct {
		drive     DriveType
		version   string
		arch      string
		eligible  bool
		wantTypes string
	}{
		{"SDCard", "4.20", "x86_64", false, "HDD, SSD, Multipath, RAID, iSCSI, FC"},
		{DriveECKD, "4.20", "x86_64", false, "HDD, SSD, Multipath, RAID, iSCSI, FC"},
		{DriveECKD, "4.20", "s390x", true, ""},
		{DriveFBA, "4.20", "s390x", true, ""},
		{DriveFC, "4.20", "aarch64", false, "HDD, SSD, Multipath, RAID, iSCSI"},
		{"SDCard", "4.20", "s390x", false, "HDD, SSD, Multipath, RAID, iSCSI, FC, ECKD (ESE), ECKD, FBA"},
		{DriveRAID, "4.13", "x86_64", false, "HDD, SSD, Multipath, FC"},
		{DriveISCSI, "4.13", "x86_64", false, "HDD, SSD, Multipath, FC"},
		{DriveRAID, "4.14", "x86_64", true, ""},
		{DriveISCSI, "4.14", "x86_64", false, "HDD, SSD, Multipath, RAID, FC"},
	} {
		got := DiskNotEligible(200e9, c.drive, 100, c.version, c.arch)
		want := []string(nil)
		if !c.eligible {
			want = []string{"Drive type is " + string(c.drive) + ", it must be one of " + c.wantTypes + "."}
		}
		if !slices.Equal(got, want) {
			t.Errorf("%s on %s %s: %q, want %q", c.drive, c.version, c.arch, got, want)
		}
	}
}

func TestRequirementsByRole(t *testing.T) {
	cases := []struct {
		role    Role
		sno     bool
		version string
		want    Requirements
	}{
		{RoleMaster, false, "4.20", ReqMaster},
		{RoleWorker, false, "4.20", ReqWorker},
		{RoleArbiter, false, "4.20", ReqArbiter},
		{RoleAutoAssign, false, "4.20", ReqWorker},
		{RoleMaster, true, "4.20.6", ReqSNO},
	}
	for _, c := range cases {
		if got := RoleRequirements(c.role, c.sno, c.version); got != c.want {
			t.Errorf("%s sno=%v: %+v", c.role, c.sno, got)
		}
	}
	if got := RoleRequirements(RoleMaster, true, "4.22").CPUCores; got != 4 {
		t.Errorf("SNO 4.22 cores %d", got)
	}
	if c, m := PreflightMinimum(false, "4.20"); c != 2 || m != 8192 {
		t.Errorf("preflight %d %d", c, m)
	}
	if u := UnboundRequirements(); u.DiskGB != 50 || u.CPUCores != 2 {
		t.Errorf("unbound %+v", u)
	}
}

// An aarch64 BlueField SoC worker is an edge worker: a 20 GB disk is
// enough for it, not for an ordinary worker (internal/hardware/validator.go).
func TestEdgeWorker(t *testing.T) {
	for _, c := range []struct {
		arch, product string
		want          ValidationStatus
	}{
		{"aarch64", EdgeWorkerProduct, ValidationSuccess},
		{"x86_64", EdgeWorkerProduct, ValidationFailure},
		{"aarch64", "PowerEdge R650", ValidationFailure},
		{"aarch64", "bluefield soc", ValidationSuccess},
		{"arm64", EdgeWorkerProduct, ValidationFailure},
	} {
		h := goodHost()
		h.Role = RoleWorker
		h.Inventory.Arch, h.Inventory.Product = c.arch, c.product
		h.Inventory.Disks[0].SizeBytes = 20e9
		for _, r := range EvaluateHost(h) {
			if r.ID == HVHasMinValidDisks && r.Status != c.want {
				t.Errorf("%s %s: %s %q", c.arch, c.product, r.Status, r.Message)
			}
		}
	}
}
