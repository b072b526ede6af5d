package sim

import (
	"fmt"
	"testing"
	"time"

	"github.com/siteops/siteops/engine"
	"github.com/siteops/siteops/engine/assisted"
)

// hidden is the status of a fidelity case whose validation upstream
// computes but leaves out of validationsInfo (success-suppress-output).
const hidden = "hidden"

// fidelityCase is one branch of one validation: a site and a hardware
// profile that reach it, and upstream's status and exact text. cite names
// the upstream function by file and line range (assisted-service
// internal/host/validator.go or internal/cluster/validator.go at the
// commit the engine follows).
type fidelityCase struct {
	id, status, cite string
	// site builds the site; machine is the BareMetalHost whose host is
	// judged, empty for a cluster validation.
	site    func(name string) *siteBuilder
	machine string
	// day2 adds machine to the site once it is installed.
	day2    bool
	message func(r *fidelityRun) string
}

type fidelityRun struct {
	e    *Engine
	site string
	st   engine.SiteStatus
}

// agent is the host id (the Agent's name) of a machine of the site.
func (r *fidelityRun) agent(machine string) string {
	return hostNamed(r.st, r.site+"-"+machine).Agent
}

func text(s string) func(*fidelityRun) string { return func(*fidelityRun) string { return s } }

// evaluate runs the validations on the engine's current state: every
// result, passing ones included, which the site status does not list.
func (r *fidelityRun) evaluate(machine string) []assisted.Result {
	r.e.mu.Lock()
	defer r.e.mu.Unlock()
	s, err := r.e.siteLocked("evaluate", r.site)
	if err != nil || s.st.Cluster == nil {
		return nil
	}
	o := r.e.op(s)
	if machine == "" {
		return assisted.EvaluateCluster(o.clusterInput())
	}
	for _, h := range s.st.Hosts {
		if h.Machine == r.site+"-"+machine {
			return assisted.EvaluateHost(o.hostInput(h))
		}
	}
	return nil
}

// Site shapes of the fidelity cases.
func ha(name string) *siteBuilder  { return newSite(name, 3, 0) }
func sno(name string) *siteBuilder { return newSite(name, 1, 0) }

func haWith(machine, hw string) func(string) *siteBuilder {
	return func(name string) *siteBuilder {
		s := newSite(name, 3, 0)
		s.hardware[name+"-"+machine] = hw
		return s
	}
}

func snoWith(hw string) func(string) *siteBuilder {
	return func(name string) *siteBuilder {
		s := newSite(name, 1, 0)
		s.hardware[name+"-cp-0"] = hw
		return s
	}
}

func haSpec(spec map[string]any) func(string) *siteBuilder {
	return func(name string) *siteBuilder {
		s := newSite(name, 3, 0)
		s.aciSpec = spec
		return s
	}
}

// umn is a three-node cluster with user-managed networking: platform
// None, no VIPs.
func umn(hw string) func(string) *siteBuilder {
	return func(name string) *siteBuilder {
		s := newSite(name, 3, 0)
		s.aciSpec = map[string]any{"platformType": "None", "apiVIPs": []any{}, "ingressVIPs": []any{}}
		if hw != "" {
			s.hardware[name+"-cp-0"] = hw
		}
		return s
	}
}

func hostName(r *fidelityRun, machine string) string { return r.site + "-" + machine + ".example.net" }

// fidelityCases lists, per validation id, the branches the simulation
// reaches. The counts in docs/engine.md come from this table.
var fidelityCases = []fidelityCase{
	// internal/host/validator.go
	{id: assisted.HVConnected, status: "success", cite: "validator.go:382-399", site: ha, machine: "cp-0", message: text("Host is connected")},
	{id: assisted.HVConnected, status: "failure", cite: "validator.go:382-399", site: haWith("cp-0", "disconnectAt=discovery"), machine: "cp-0", message: text("Host is disconnected")},
	{id: assisted.HVMediaConnected, status: "success", cite: "validator.go:299-309", site: ha, machine: "cp-0", message: text("Media device is connected")},
	{id: assisted.HVMediaConnected, status: "failure", cite: "validator.go:299-309", site: haWith("cp-0", "mediaAt=discovery"), machine: "cp-0", message: text(assisted.InfoMediaDisconnected)},
	{id: assisted.HVHasInventory, status: "success", cite: "validator.go:401-411", site: ha, machine: "cp-0", message: text("Valid inventory exists for the host")},
	{id: assisted.HVHasInventory, status: "failure", cite: "validator.go:401-411", site: ha, machine: "cp-0", message: text("Inventory has not been received for the host")},
	{id: assisted.HVInventoryNotPartTruncated, status: "success", cite: "validator.go:413-430", site: ha, machine: "cp-0", message: text("Inventory is not truncated")},
	{id: assisted.HVInventoryNotPartTruncated, status: "pending", cite: "validator.go:413-430", site: ha, machine: "cp-0", message: text("Missing inventory")},
	{id: assisted.HVInventoryNotFullTruncated, status: "success", cite: "validator.go:432-449", site: ha, machine: "cp-0", message: text("Inventory is not truncated")},
	{id: assisted.HVInventoryNotFullTruncated, status: "pending", cite: "validator.go:432-449", site: ha, machine: "cp-0", message: text("Missing inventory")},
	{id: assisted.HVHasMinCPUCores, status: "success", cite: "validator.go:461-470", site: ha, machine: "cp-0", message: text("Sufficient CPU cores")},
	{id: assisted.HVHasMinCPUCores, status: "failure", cite: "validator.go:461-470", site: haWith("cp-0", "cpus=1"), machine: "cp-0",
		message: text("The host is not eligible to participate in Openshift Cluster because the minimum required CPU cores for any role is 2, found only 1")},
	{id: assisted.HVHasMinCPUCores, status: "pending", cite: "validator.go:461-470", site: ha, machine: "cp-0", message: text("Missing inventory")},
	{id: assisted.HVHasMinMemory, status: "success", cite: "validator.go:472-491", site: ha, machine: "cp-0", message: text("Sufficient minimum RAM")},
	{id: assisted.HVHasMinMemory, status: "success", cite: "validator.go:472-491", site: haWith("cp-0", "memoryMiB=7929,memoryMethod=meminfo"), machine: "cp-0", message: text("Sufficient minimum RAM")},
	{id: assisted.HVHasMinMemory, status: "failure", cite: "validator.go:472-491", site: haWith("cp-0", "memoryMiB=4096"), machine: "cp-0",
		message: text("The host is not eligible to participate in Openshift Cluster because the minimum required RAM for any role is 8.00 GiB, found only 4.00 GiB")},
	{id: assisted.HVHasMinMemory, status: "pending", cite: "validator.go:472-491", site: ha, machine: "cp-0", message: text("Missing inventory")},
	{id: assisted.HVHasMinValidDisks, status: "success", cite: "validator.go:620-636", site: ha, machine: "cp-0", message: text("Sufficient disk capacity")},
	{id: assisted.HVHasMinValidDisks, status: "failure", cite: "validator.go:620-636", site: haWith("cp-0", "diskGB=20"), machine: "cp-0",
		message: text("No eligible disks were found, please check specific disks to see why they are not eligible")},
	{id: assisted.HVHasMinValidDisks, status: "pending", cite: "validator.go:620-636", site: ha, machine: "cp-0", message: text("Missing inventory")},
	{id: assisted.HVMachineCIDRDefined, status: "success", cite: "validator.go:638-656", site: ha, machine: "cp-0", message: text("Machine Network CIDR is defined")},
	{id: assisted.HVMachineCIDRDefined, status: "success", cite: "validator.go:638-656", site: sno, machine: "cp-0", message: text("No Machine Network CIDR needed: User Managed Networking")},
	{id: assisted.HVMachineCIDRDefined, status: "success", cite: "validator.go:638-656", site: ha, machine: "w-new", day2: true, message: text("No Machine Network CIDR needed: Day2 cluster")},
	{id: assisted.HVMachineCIDRDefined, status: "failure", cite: "validator.go:638-656", machine: "cp-0",
		site:    haSpec(map[string]any{"apiVIPs": []any{}, "ingressVIPs": []any{}, "networking": map[string]any{"clusterNetwork": []any{map[string]any{"cidr": "10.128.0.0/14", "hostPrefix": 23}}, "serviceNetwork": []any{"172.30.0.0/16"}}}),
		message: text("Machine Network CIDR is undefined; the Machine Network CIDR can be defined by setting either the API or Ingress virtual IPs")},
	{id: assisted.HVHasCPUCoresForRole, status: "success", cite: "validator.go:658-666", site: ha, machine: "cp-0", message: text("Sufficient CPU cores for role master")},
	{id: assisted.HVHasCPUCoresForRole, status: "failure", cite: "validator.go:658-666", site: haWith("cp-0", "cpus=3"), machine: "cp-0", message: text("Require at least 4 CPU cores for master role, found only 3")},
	{id: assisted.HVHasCPUCoresForRole, status: "pending", cite: "validator.go:658-666", site: ha, machine: "cp-0", message: text("Missing inventory or role")},
	{id: assisted.HVHasMemoryForRole, status: "success", cite: "validator.go:668-678", site: ha, machine: "cp-0", message: text("Sufficient RAM for role master")},
	{id: assisted.HVHasMemoryForRole, status: "failure", cite: "validator.go:668-678", site: haWith("cp-0", "memoryMiB=12288"), machine: "cp-0",
		message: text("Require at least 16.00 GiB RAM for role master, found only 12.00 GiB")},
	{id: assisted.HVHasMemoryForRole, status: "pending", cite: "validator.go:668-678", site: ha, machine: "cp-0", message: text("Missing inventory or role")},
	{id: assisted.HVHostnameUnique, status: "success", cite: "validator.go:680-702", site: ha, machine: "cp-0",
		message: func(r *fidelityRun) string {
			return fmt.Sprintf("Hostname %s is unique in cluster", hostName(r, "cp-0"))
		}},
	{id: assisted.HVHostnameUnique, status: "failure", cite: "validator.go:680-702", machine: "cp-0",
		site: func(name string) *siteBuilder {
			s := ha(name)
			for _, m := range []string{"cp-0", "cp-1"} {
				s.annotations[name+"-"+m] = map[string]string{assisted.AnnotationBMACHostname: "twin.example.net"}
			}
			return s
		},
		message: text("Hostname twin.example.net is not unique in cluster")},
	{id: assisted.HVHostnameUnique, status: "pending", cite: "validator.go:680-702", site: ha, machine: "cp-0", message: text("Missing inventory")},
	{id: assisted.HVBelongsToMachineCIDR, status: "success", cite: "validator.go:726-759", site: ha, machine: "cp-0", message: text("Host belongs to all machine network CIDRs")},
	{id: assisted.HVBelongsToMachineCIDR, status: "success", cite: "validator.go:726-759", site: umn(""), machine: "cp-1", message: text("No machine network CIDR validation needed: User Managed Networking")},
	{id: assisted.HVBelongsToMachineCIDR, status: "success", cite: "validator.go:726-759", site: ha, machine: "w-new", day2: true, message: text("No machine network CIDR validation needed: Day2 cluster")},
	{id: assisted.HVBelongsToMachineCIDR, status: "success", cite: "validator.go:726-759", site: haSpec(map[string]any{"loadBalancer": map[string]any{"type": "UserManaged"}}), machine: "cp-0",
		message: text("Host belongs to at least one machine network CIDR")},
	{id: assisted.HVHostnameValid, status: "success", cite: "validator.go:768-780", site: ha, machine: "cp-0",
		message: func(r *fidelityRun) string { return fmt.Sprintf("Hostname %s is allowed", hostName(r, "cp-0")) }},
	{id: assisted.HVHostnameValid, status: "failure", cite: "validator.go:768-780", machine: "cp-0",
		site: func(name string) *siteBuilder {
			s := ha(name)
			s.annotations[name+"-cp-0"] = map[string]string{assisted.AnnotationBMACHostname: "localhost"}
			return s
		},
		message: text("The host name localhost is forbidden")},
	{id: assisted.HVHostnameValid, status: "failure", cite: "validator.go:768-780", machine: "cp-0",
		site: func(name string) *siteBuilder {
			s := ha(name)
			s.annotations[name+"-cp-0"] = map[string]string{assisted.AnnotationBMACHostname: "Node_1"}
			return s
		},
		message: text("Hostname Node_1 is forbidden, hostname should match pattern " + assisted.HostnamePattern)},
	{id: assisted.HVHostnameValid, status: "failure", cite: "validator.go:768-780", site: ha, machine: "cp-0", message: text("Missing inventory")},
	{id: assisted.HVIgnitionDownloadable, status: hidden, cite: "validator.go:782-815", site: ha, machine: "cp-0"},
	{id: assisted.HVIgnitionDownloadable, status: "pending", cite: "validator.go:782-815", site: ha, machine: "w-new", day2: true, message: text("Ignition is not yet available, pending API connectivity")},
	{id: assisted.HVIgnitionDownloadable, status: "success", cite: "validator.go:782-815", site: ha, machine: "w-new", day2: true, message: text("Ignition is downloadable")},
	{id: assisted.HVBelongsToMajorityGroup, status: "success", cite: "validator.go:884-932", site: ha, machine: "cp-0", message: text("Host has connectivity to the majority of hosts in the cluster")},
	{id: assisted.HVBelongsToMajorityGroup, status: "success", cite: "validator.go:884-932", site: sno, machine: "cp-0", message: text("Host has connectivity to the majority of hosts in the cluster")},
	{id: assisted.HVBelongsToMajorityGroup, status: "pending", cite: "validator.go:884-932", site: ha, machine: "cp-0", message: text("Machine Network CIDR or Connectivity Majority Groups missing")},
	{id: assisted.HVBelongsToMajorityGroup, status: "success", cite: "validator.go:884-932", site: ha, machine: "w-new", day2: true, message: text("Day2 host is not required to be connected to other hosts in the cluster")},
	{id: assisted.HVMTUValid, status: "success", cite: "validator.go:312-380", site: ha, machine: "cp-0", message: text("MTU is ok")},
	{id: assisted.HVMTUValid, status: "failure", cite: "validator.go:312-380", site: haWith("cp-1", "mtu=broken"), machine: "cp-0",
		message: text("MTU is broken. Interface: ens1f0, remote IP address: 192.0.2.21")},
	{id: assisted.HVMTUValid, status: "pending", cite: "validator.go:312-380", site: ha, machine: "cp-0", message: text("Missing host inventory")},
	{id: assisted.HVMTUValid, status: "pending", cite: "validator.go:312-380", site: ha, machine: "cp-2", message: text("Missing MTU report information")},
	{id: assisted.HVMTUValid, status: hidden, cite: "validator.go:312-380", site: sno, machine: "cp-0"},
	{id: assisted.HVMTUValid, status: "success", cite: "validator.go:312-380", site: ha, machine: "w-new", day2: true, message: text("Day2 host is not required to be connected to other hosts in the cluster")},
	{id: assisted.HVValidPlatformNetwork, status: "success", cite: "validator.go:704-724", site: ha, machine: "cp-0", message: text("Platform PowerEdge R650 is allowed")},
	{id: assisted.HVValidPlatformNetwork, status: "failure", cite: "validator.go:704-724", site: haWith("cp-0", "product=OpenStack Compute"), machine: "cp-0",
		message: text("Platform OpenStack Compute is allowed only for Single Node OpenShift or user-managed networking")},
	{id: assisted.HVValidPlatformNetwork, status: "success", cite: "validator.go:704-724", site: umn("product=OpenStack Compute"), machine: "cp-0", message: text("Platform OpenStack Compute is allowed")},
	{id: assisted.HVValidPlatformNetwork, status: "pending", cite: "validator.go:704-724", site: ha, machine: "cp-0", message: text("Missing inventory")},
	{id: assisted.HVNTPSynced, status: "success", cite: "validator.go:954-987", site: ha, machine: "cp-0", message: text("Host NTP is synced")},
	{id: assisted.HVNTPSynced, status: "failure", cite: "validator.go:954-987", site: haWith("cp-0", "ntp=unsynced"), machine: "cp-0", message: text("Host couldn't synchronize with any NTP server")},
	{id: assisted.HVNTPSynced, status: hidden, cite: "validator.go:934-987", machine: "cp-0",
		site: func(name string) *siteBuilder {
			s := haWith("cp-0", "ntp=unsynced")(name)
			s.pool = true
			return s
		}},
	{id: assisted.HVTimeSynced, status: "success", cite: "validator.go:989-1004", site: ha, machine: "cp-0", message: text("Host clock is synchronized with service")},
	{id: assisted.HVTimeSynced, status: "failure", cite: "validator.go:989-1004", site: haWith("cp-0", "clockOffsetMin=-30"), machine: "cp-0",
		message: func(r *fidelityRun) string {
			return "Host clock is not synchronized, service time is ahead of host's at least for 20.0 minutes, please configure an NTP server via DHCP. Service time: " + r.e.Now().UTC().String()
		}},
	{id: assisted.HVTimeSynced, status: "failure", cite: "validator.go:989-1004", site: haWith("cp-0", "clockOffsetMin=90"), machine: "cp-0",
		message: func(r *fidelityRun) string {
			return "Host clock is not synchronized, host time is ahead of service at least for 60.0 minutes, please configure an NTP server via DHCP. Service time: " + r.e.Now().UTC().String()
		}},
	{id: assisted.HVTimeSynced, status: "pending", cite: "validator.go:989-1004", site: ha, machine: "cp-0", message: text("Missing host time, can't determine synchronization between host and service")},
	{id: assisted.HVContainerImagesAvailable, status: "success", cite: "validator.go:1006-1022", site: ha, machine: "cp-0",
		message: text("All required container images were either pulled successfully or no attempt was made to pull them")},
	{id: assisted.HVContainerImagesAvailable, status: "failure", cite: "validator.go:1006-1022", site: snoWith("imagePull=fail"), machine: "cp-0",
		message: text("Failed to fetch container images needed for installation from quay.io/openshift-release-dev/ocp-release:4.20.6-x86_64. This may be due to a network hiccup. Retry to install again. If this problem persists, check your network settings to make sure you’re not blocked.")},
	{id: assisted.HVSufficientDiskSpeed, status: "success", cite: "validator.go:1063-1075", site: ha, machine: "cp-0", message: text("Speed of installation disk has not yet been measured")},
	{id: assisted.HVSufficientDiskSpeed, status: "success", cite: "validator.go:1063-1075", site: sno, machine: "cp-0", message: text("Speed of installation disk is sufficient")},
	{id: assisted.HVSufficientDiskSpeed, status: "failure", cite: "validator.go:1063-1075", site: snoWith("diskSpeedMs=25"), machine: "cp-0",
		message: text("While preparing the previous installation the installation disk speed measurement failed or was found to be insufficient")},
	{id: assisted.HVSufficientDiskSpeed, status: "error", cite: "validator.go:1063-1075", site: haWith("cp-0", "diskGB=20"), machine: "cp-0", message: text("Validation error")},
	{id: assisted.HVNetworkLatency, status: "success", cite: "validator.go:1235-1278", site: ha, machine: "cp-0", message: text("Network latency requirement has been satisfied.")},
	{id: assisted.HVNetworkLatency, status: "failure", cite: "validator.go:1083-1094,1196-1291", site: haWith("cp-0", "latencyMs=150"), machine: "cp-0",
		message: func(r *fidelityRun) string {
			me := hostName(r, "cp-0")
			return fmt.Sprintf(`A total network latency above the tolerated threshold of 100.00 ms was encountered when performing network latency tests between host %s and %s (150.40 ms), %s (150.40 ms)\n`, r.agent("cp-0"), hostName(r, "cp-1"), hostName(r, "cp-2")) +
				"Actions:\n1: Please try the following commands on the host " + me + " and examine averages to investigate the latency issue further\n\n" +
				"2: Please try the following commands on the host " + me + " to investigate the packet loss further\n\nping -c 10 -W 3 -q -I ens1f0 192.0.2.20/24\n"
		}},
	{id: assisted.HVNetworkLatency, status: "pending", cite: "validator.go:1235-1278", site: ha, machine: "cp-0", message: text("The inventory is not available yet.")},
	{id: assisted.HVNetworkLatency, status: "pending", cite: "validator.go:1235-1278", site: ha, machine: "cp-2", message: text("Missing network latency information.")},
	{id: assisted.HVPacketLoss, status: "success", cite: "validator.go:1151-1194", site: ha, machine: "cp-0", message: text("Packet loss requirement has been satisfied.")},
	{id: assisted.HVPacketLoss, status: "failure", cite: "validator.go:1083-1094,1151-1233", site: haWith("cp-1", "packetLossPct=5"), machine: "cp-0",
		message: func(r *fidelityRun) string {
			return fmt.Sprintf(`A total packet loss above the tolerated threshold of 0.00%% was encountered when performing connectivity validation between host %s and %s (5.00%%)\n`, r.agent("cp-0"), hostName(r, "cp-1")) +
				"Actions:\n1: Check if there are multiple devices on the same L2 network, if so then use the built-in nmstate-based advanced networking configuration to create a bond or disable all but one of the interfaces.\n" +
				"2: Please try the following commands on the host " + hostName(r, "cp-0") + " to investigate the packet loss further\n\nping -c 10 -W 3 -q -I ens1f0 192.0.2.20/24\n"
		}},
	{id: assisted.HVPacketLoss, status: "pending", cite: "validator.go:1151-1194", site: ha, machine: "cp-2", message: text("Missing packet loss information.")},
	{id: assisted.HVHasDefaultRoute, status: "success", cite: "validator.go:1293-1304", site: ha, machine: "cp-0", message: text("Host has been configured with at least one default route.")},
	{id: assisted.HVHasDefaultRoute, status: "failure", cite: "validator.go:1293-1304", site: haWith("cp-0", "defaultRoute=false"), machine: "cp-0", message: text("Host has not yet been configured with a default route.")},
	{id: assisted.HVHasDefaultRoute, status: "pending", cite: "validator.go:1293-1304", site: ha, machine: "cp-0", message: text("Missing default routing information.")},
	{id: assisted.HVAPIDomainResolved, status: "success", cite: "validator.go:1480-1545", site: ha, machine: "cp-0",
		message: func(r *fidelityRun) string {
			return fmt.Sprintf("Domain name resolution for the api.%s.example.net domain was successful or not required", r.site)
		}},
	{id: assisted.HVAPIDomainResolved, status: "failure", cite: "validator.go:1665-1678", site: umn("dns=fail"), machine: "cp-0",
		message: func(r *fidelityRun) string {
			return fmt.Sprintf("Couldn't resolve domain name api.%s.example.net on the host. To continue installation, create the necessary DNS entries to resolve this domain name to your cluster's API load balancer IP address", r.site)
		}},
	{id: assisted.HVAPIDomainResolved, status: "failure", cite: "validator.go:1665-1678", site: umn("dns=self"), machine: "cp-0",
		message: func(r *fidelityRun) string {
			return fmt.Sprintf("Domain api.%s.example.net must not point at 192.0.2.20 as it is the API address of this host. This domain must instead point at the IP address of a load balancer when using user managed networking in a multi control-plane node cluster", r.site)
		}},
	{id: assisted.HVAPIDomainResolved, status: "error", cite: "validator.go:1665-1678", site: umn(""), machine: "cp-0", message: text("Error while evaluating DNS resolution on this host")},
	{id: assisted.HVAPIIntDomainResolved, status: "failure", cite: "validator.go:1610-1622,1665-1678", site: umn("dns=fail"), machine: "cp-0",
		message: func(r *fidelityRun) string {
			return fmt.Sprintf("Couldn't resolve domain name api-int.%s.example.net on the host. To continue installation, create the necessary DNS entries to resolve this domain name to your cluster's internal API load balancer IP address", r.site)
		}},
	{id: assisted.HVAppsDomainResolved, status: "failure", cite: "validator.go:1624-1630,1665-1678", site: umn("dns=fail"), machine: "cp-0",
		message: func(r *fidelityRun) string {
			return fmt.Sprintf("Couldn't resolve domain name *.apps.%s.example.net on the host. To continue installation, create the necessary DNS entries to resolve this domain name to your cluster's application ingress IP address", r.site)
		}},
	{id: assisted.HVAppsDomainResolved, status: "success", cite: "validator.go:1480-1545", site: sno, machine: "cp-0",
		message: func(r *fidelityRun) string {
			return fmt.Sprintf("Domain name resolution for the *.apps.%s.example.net domain was successful or not required", r.site)
		}},
	{id: assisted.HVCompatibleWithPlatform, status: "success", cite: "validator.go:493-510", site: ha, machine: "cp-0", message: text("Host is compatible with cluster platform baremetal")},
	{id: assisted.HVCompatibleWithPlatform, status: "pending", cite: "validator.go:493-510", site: ha, machine: "cp-0", message: text("Missing inventory or platform isn't set")},
	{id: assisted.HVDNSWildcardNotConfigured, status: "success", cite: "validator.go:1703-1754", site: ha, machine: "cp-0", message: text("DNS wildcard check was successful")},
	{id: assisted.HVDNSWildcardNotConfigured, status: "failure", cite: "validator.go:1703-1754", site: haWith("cp-0", "dns=wildcard"), machine: "cp-0",
		message: func(r *fidelityRun) string {
			return fmt.Sprintf("DNS wildcard configuration was detected for domain *.%s.example.net - the installation will not be able to complete while this record exists. Please remove it to proceed. The domain resolves to 203.0.113.10", r.site)
		}},
	{id: assisted.HVDNSWildcardNotConfigured, status: "pending", cite: "validator.go:1732-1754", site: ha, machine: "cp-0",
		message: text("DNS wildcard check cannot be performed yet because the host has not yet performed DNS resolution")},
	{id: assisted.HVDNSWildcardNotConfigured, status: "success", cite: "validator.go:1732-1754", site: ha, machine: "w-new", day2: true, message: text("DNS wildcard check is not required for day2")},
	{id: assisted.HVDiskEncryption, status: hidden, cite: "validator.go:534-618", site: ha, machine: "cp-0"},
	{id: assisted.HVNonOverlappingSubnets, status: "success", cite: "validator.go:1756-1818", site: ha, machine: "cp-0", message: text("Host subnets are not overlapping")},
	{id: assisted.HVNonOverlappingSubnets, status: "pending", cite: "validator.go:1756-1818", site: ha, machine: "cp-0", message: text("Missing inventory")},
	{id: assisted.HVVSphereDiskUUID, status: hidden, cite: "validator.go:1820-1854", site: ha, machine: "cp-0"},
	{id: assisted.HVCompatibleAgent, status: "success", cite: "validator.go:1856-1865", site: ha, machine: "cp-0", message: text("Host agent is compatible with the service")},
	{id: assisted.HVNoSkipInstallationDisk, status: "success", cite: "validator.go:1867-1882", site: ha, machine: "cp-0", message: text("No request to skip formatting of the installation disk")},
	{id: assisted.HVNoSkipMissingDisk, status: "success", cite: "validator.go:1884-1920", site: ha, machine: "cp-0", message: text("All disks that have skipped formatting are present in the host inventory")},
	{id: assisted.HVNoSkipMissingDisk, status: "pending", cite: "validator.go:1884-1920", site: ha, machine: "cp-0", message: text("Host inventory not available yet")},
	{id: assisted.HVNoIPCollisions, status: "success", cite: "validator.go:1922-1965", site: ha, machine: "cp-0",
		message: func(r *fidelityRun) string { return "No IP collisions were detected by host " + r.agent("cp-0") }},
	{id: assisted.HVNoIPCollisions, status: "success", cite: "validator.go:1922-1965", site: ha, machine: "cp-0", message: text("Host inventory has not yet been defined, skipping validation.")},
	{id: assisted.HVNoIPCollisions, status: "success", cite: "validator.go:1922-1965", site: ha, machine: "cp-2", message: text("IP collisions have not yet been evaluated")},
	{id: assisted.HVNoIPCollisions, status: "success", cite: "validator.go:1922-1965", site: ha, machine: "w-new", day2: true,
		message: func(r *fidelityRun) string { return "Skipping validation for day 2 host " + r.agent("w-new") }},
	{id: assisted.HVNoISCSINICInMachineNetwork, status: hidden, cite: "validator.go:1987-2022", site: ha, machine: "cp-0"},

	// internal/cluster/validator.go
	{id: assisted.CVMachineCIDRDefined, status: "success", cite: "validator.go:87-103", site: ha, message: text("The Machine Network CIDR is defined.")},
	{id: assisted.CVMachineCIDRDefined, status: "success", cite: "validator.go:87-103", site: umn(""), message: text("No Machine Network CIDR needed: User Managed Networking")},
	{id: assisted.CVMachineCIDRDefined, status: "failure", cite: "validator.go:87-103",
		site:    haSpec(map[string]any{"apiVIPs": []any{}, "ingressVIPs": []any{}, "networking": map[string]any{"clusterNetwork": []any{map[string]any{"cidr": "10.128.0.0/14", "hostPrefix": 23}}, "serviceNetwork": []any{"172.30.0.0/16"}}}),
		message: text("The Machine Network CIDR is undefined; the Machine Network CIDR can be defined by setting either the API or Ingress virtual IPs.")},
	{id: assisted.CVClusterCIDRDefined, status: "success", cite: "validator.go:105-110", site: ha, message: text("The Cluster Network CIDR is defined.")},
	{id: assisted.CVServiceCIDRDefined, status: "success", cite: "validator.go:112-117", site: ha, message: text("The Service Network CIDR is defined.")},
	{id: assisted.CVDNSDomainDefined, status: "success", cite: "validator.go:550-555", site: ha, message: text("The base domain is defined.")},
	{id: assisted.CVPullSecretSet, status: "success", cite: "validator.go:647-652", site: ha, message: text("The pull secret is set.")},
	{id: assisted.CVAPIVIPsDefined, status: "success", cite: "validator.go:197-224", site: ha, message: text("API virtual IPs are defined.")},
	{id: assisted.CVAPIVIPsDefined, status: "success", cite: "validator.go:197-224", site: sno, message: text("API virtual IPs are not required: User Managed Networking")},
	{id: assisted.CVAPIVIPsDefined, status: "failure", cite: "validator.go:197-224", site: haSpec(map[string]any{"apiVIPs": []any{}}), message: text("API virtual IPs are undefined and must be provided.")},
	{id: assisted.CVIngressVIPsDefined, status: "success", cite: "validator.go:197-220,425-427", site: ha, message: text("Ingress virtual IPs are defined.")},
	{id: assisted.CVIngressVIPsDefined, status: "failure", cite: "validator.go:197-220,425-427", site: haSpec(map[string]any{"ingressVIPs": []any{}}), message: text("Ingress virtual IPs are undefined and must be provided.")},
	{id: assisted.CVMachineCIDREqualsCalc, status: "success", cite: "validator.go:119-159", site: ha, message: text("The Cluster Machine CIDR is equivalent to the calculated CIDR.")},
	{id: assisted.CVMachineCIDREqualsCalc, status: "success", cite: "validator.go:119-159", site: umn(""), message: text("The Cluster Machine CIDR is not required: User Managed Networking")},
	{id: assisted.CVMachineCIDREqualsCalc, status: "success", cite: "validator.go:119-159", site: haSpec(map[string]any{"loadBalancer": map[string]any{"type": "UserManaged"}}),
		message: text("Calculating machine network CIDR is not enabled: User Managed Load Balancer")},
	{id: assisted.CVMachineCIDREqualsCalc, status: "pending", cite: "validator.go:119-159", site: ha, message: text("Hosts have not been discovered yet")},
	{id: assisted.CVMachineCIDREqualsCalc, status: "failure", cite: "validator.go:119-159", site: haSpec(map[string]any{"apiVIPs": []any{"198.51.100.5"}}),
		message: text("1 error occurred:\n\t* No suitable matching CIDR found for VIP 198.51.100.5\n\n")},
	{id: assisted.CVAPIVIPsValid, status: "success", cite: "validator.go:226-286", site: ha, message: text("api vips 192.0.2.100 belongs to the Machine CIDR and is not in use.")},
	{id: assisted.CVAPIVIPsValid, status: "success", cite: "validator.go:226-248", site: sno, message: text("API virtual IPs are not required: User Managed Networking")},
	{id: assisted.CVAPIVIPsValid, status: "failure", cite: "validator.go:250-286", site: ha, message: text("api vips <192.0.2.100> are not verified yet.")},
	{id: assisted.CVAPIVIPsValid, status: "pending", cite: "validator.go:226-248", site: ha, message: text("Hosts have not been discovered yet")},
	{id: assisted.CVAPIVIPsValid, status: "failure", cite: "validator.go:250-286", site: haSpec(map[string]any{"apiVIPs": []any{"198.51.100.5"}}),
		message: text("api vips <198.51.100.5> does not belong to machine-network-cidr <192.0.2.0/24>")},
	{id: assisted.CVAPIVIPsValid, status: "failure", cite: "validator.go:250-286", site: haSpec(map[string]any{"apiVIPs": []any{"192.0.2.255"}}),
		message: text("api vips <192.0.2.255> is the broadcast address of machine-network-cidr <192.0.2.0/24>")},
	{id: assisted.CVAPIVIPsValid, status: "failure", cite: "validator.go:250-286", site: haSpec(map[string]any{"apiVIPs": []any{"192.0.2.21"}}),
		message: text("api vips <192.0.2.21> is already in use in cidr 192.0.2.0/24")},
	{id: assisted.CVAPIVIPsValid, status: "failure", cite: "validator.go:250-286", message: text("api vips <192.0.2.17> is already in use in cidr 192.0.2.16/29. The machine network range is too small for the cluster. Please redefine the network."),
		site: func(name string) *siteBuilder {
			s := newSite(name, 3, 2)
			s.aciSpec = map[string]any{"apiVIPs": []any{"192.0.2.17"}, "ingressVIPs": []any{"192.0.2.22"}, "networking": map[string]any{
				"clusterNetwork": []any{map[string]any{"cidr": "10.128.0.0/14", "hostPrefix": 23}},
				"machineNetwork": []any{map[string]any{"cidr": "192.0.2.16/29"}},
				"serviceNetwork": []any{"172.30.0.0/16"},
			}}
			return s
		}},
	{id: assisted.CVAPIVIPsValid, status: "success", cite: "validator.go:288-314", site: haSpec(map[string]any{"loadBalancer": map[string]any{"type": "UserManaged"}}),
		message: text("api vip 192.0.2.100 is valid")},
	{id: assisted.CVIngressVIPsValid, status: "success", cite: "validator.go:226-286,429-431", site: ha, message: text("ingress vips 192.0.2.101 belongs to the Machine CIDR and is not in use.")},
	{id: assisted.CVAllHostsReady, status: "success", cite: "validator.go:515-527", site: ha, message: text("All hosts in the cluster are ready to install.")},
	{id: assisted.CVAllHostsReady, status: "failure", cite: "validator.go:515-527", site: ha, message: text("The cluster has hosts that are not ready to install.")},
	{id: assisted.CVSufficientMastersCount, status: "success", cite: "validator.go:437-504", site: ha, message: text("The cluster has the exact amount of dedicated control plane nodes.")},
	{id: assisted.CVSufficientMastersCount, status: "failure", cite: "validator.go:437-504", message: text("The cluster must have exactly 3 dedicated control plane nodes. Add or remove hosts, or change their roles configurations to meet the requirement."),
		site: func(name string) *siteBuilder {
			s := ha(name)
			s.annotations[name+"-cp-2"] = map[string]string{assisted.AnnotationBMACRole: "worker"}
			return s
		}},
	{id: assisted.CVSufficientMastersCount, status: "failure", cite: "validator.go:437-504", site: func(name string) *siteBuilder { return newSite(name, 1, 1) },
		message: text("Single-node clusters must have a single control plane node and no workers.")},
	{id: assisted.CVNetworkPrefixValid, status: "success", cite: "validator.go:654-689", site: ha, message: text("The Cluster Network prefix is valid.")},
	{id: assisted.CVNetworkPrefixValid, status: "failure", cite: "validator.go:654-689", message: text("Host prefix, now 26, must be less than or equal to 25 to allow at least 128 addresses"),
		site: haSpec(map[string]any{"networking": map[string]any{
			"clusterNetwork": []any{map[string]any{"cidr": "10.128.0.0/14", "hostPrefix": 26}},
			"machineNetwork": []any{map[string]any{"cidr": "192.0.2.0/24"}},
			"serviceNetwork": []any{"172.30.0.0/16"},
		}})},
	{id: assisted.CVNoCIDRsOverlapping, status: "success", cite: "validator.go:578-598", site: ha, message: text("No CIDRS are overlapping.")},
	{id: assisted.CVNoCIDRsOverlapping, status: "failure", cite: "validator.go:557-598", message: text("CIDRS Overlapping: MachineNetworkCIDR and ServiceNetworkCIDR: CIDRS 192.0.2.0/24 and 192.0.2.0/25 overlap."),
		site: haSpec(map[string]any{"networking": map[string]any{
			"clusterNetwork": []any{map[string]any{"cidr": "10.128.0.0/14", "hostPrefix": 23}},
			"machineNetwork": []any{map[string]any{"cidr": "192.0.2.0/24"}},
			"serviceNetwork": []any{"192.0.2.0/25"},
		}})},
	{id: assisted.CVNTPServerConfigured, status: "success", cite: "validator.go:691-701", site: ha, message: text("No ntp problems found")},
	{id: assisted.CVNTPServerConfigured, status: "failure", cite: "validator.go:691-701", site: haWith("cp-0", "clockOffsetMin=10"),
		message: text("Hosts' clocks are not synchronized (there's more than a 4 minutes gap between clocks), please configure an NTP server via DHCP or set clocks manually.")},
	{id: assisted.CVNetworkTypeValid, status: "success", cite: "validator.go:320-342", site: ha, message: text("The cluster has a valid network type")},
	{id: assisted.CVNetworkTypeValid, status: "failure", cite: "validator.go:320-342", site: haSpec(map[string]any{"networking": map[string]any{
		"clusterNetwork": []any{map[string]any{"cidr": "10.128.0.0/14", "hostPrefix": 23}},
		"machineNetwork": []any{map[string]any{"cidr": "192.0.2.0/24"}},
		"serviceNetwork": []any{"172.30.0.0/16"}, "networkType": "Flannel",
	}}), message: text("The network type is not valid; the valid network types are OpenShiftSDN, OVNKubernetes, Cilium, Calico, CiscoACI, or None")},
	{id: assisted.CVNetworksSameFamilies, status: "success", cite: "validator.go:600-645", site: ha, message: text("Same address families for all networks.")},
	{id: assisted.CVNetworksSameFamilies, status: "failure", cite: "validator.go:600-645", site: haSpec(map[string]any{"networking": map[string]any{
		"clusterNetwork": []any{map[string]any{"cidr": "10.128.0.0/14", "hostPrefix": 23}},
		"machineNetwork": []any{map[string]any{"cidr": "192.0.2.0/24"}},
		"serviceNetwork": []any{"fd02::/112"},
	}}), message: text("Address families of networks (ServiceNetworks, ClusterNetworks) are not the same.")},
	{id: assisted.CVCustomManifestsSatisfied, status: "success", cite: "validator.go:344-369", site: ha, message: text("No custom manifests are required")},
	{id: assisted.CVCustomManifestsSatisfied, status: "failure", cite: "validator.go:344-403", site: haSpec(map[string]any{"networking": map[string]any{
		"clusterNetwork": []any{map[string]any{"cidr": "10.128.0.0/14", "hostPrefix": 23}},
		"machineNetwork": []any{map[string]any{"cidr": "192.0.2.0/24"}},
		"serviceNetwork": []any{"172.30.0.0/16"}, "networkType": "Calico",
	}}), message: text("Custom manifests are required for: Calico network type. Please upload manifests via the custom manifests API.")},
	{id: assisted.CVCustomManifestsSatisfied, status: "success", cite: "validator.go:344-369", site: haSpec(map[string]any{"manifestsRef": map[string]any{"name": "calico"}, "networking": map[string]any{
		"clusterNetwork": []any{map[string]any{"cidr": "10.128.0.0/14", "hostPrefix": 23}},
		"machineNetwork": []any{map[string]any{"cidr": "192.0.2.0/24"}},
		"serviceNetwork": []any{"172.30.0.0/16"}, "networkType": "Calico",
	}}), message: text("Custom manifests are uploaded")},
	{id: assisted.CVPlatformRequirementsSatis, status: "success", cite: "validator.go:529-548", site: ha, message: text("Platform requirements satisfied")},
}

// Each branch a site reaches gives upstream's status and exact text.
func TestValidationFidelity(t *testing.T) {
	for i, c := range fidelityCases {
		name := fmt.Sprintf("%s/%s/%d", c.id, c.status, i)
		if c.machine == "" {
			name = "cluster/" + name
		}
		t.Run(name, func(t *testing.T) {
			site := fmt.Sprintf("f%d", i)
			e := newStepped(t, Options{})
			s := c.site(site)
			apply(t, e, s.bundle(), "r1")
			r := &fidelityRun{e: e, site: site}
			if c.day2 {
				runUntil(t, e, time.Minute, 4*time.Hour, func() bool { return status(t, e, site).Cluster.State == string(assisted.ClusterAddingHosts) })
				s.extraHosts = []string{site + "-" + c.machine}
				apply(t, e, s.bundle(), "r2")
			}
			var last []assisted.Result
			for elapsed := time.Duration(0); elapsed <= 4*time.Hour; elapsed += 5 * time.Second {
				r.st, _ = e.Status(t.Context(), site) // not published before the first step
				last = r.evaluate(c.machine)
				for _, res := range last {
					if res.ID != c.id {
						continue
					}
					if c.status == hidden && res.Suppressed || c.status != hidden && !res.Suppressed && string(res.Status) == c.status && res.Message == c.message(r) {
						return
					}
				}
				if err := e.Advance(t.Context(), 5*time.Second); err != nil {
					t.Fatal(err)
				}
			}
			for _, res := range last {
				if res.ID == c.id {
					t.Errorf("%s (%s): last %s %q", c.id, c.cite, res.Status, res.Message)
				}
			}
			want := c.status
			if c.message != nil {
				want += fmt.Sprintf(" %q", c.message(r))
			}
			t.Errorf("%s (%s): never %s", c.id, c.cite, want)
		})
	}
}
