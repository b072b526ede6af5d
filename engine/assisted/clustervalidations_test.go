package assisted

import "testing"

func hostAt(ip string, role Role, status HostStatus) ClusterHost {
	return ClusterHost{Status: status, Role: role, Inventory: &Inventory{
		Interfaces: []Interface{{Name: "ens1f0", IPv4: []string{ip + "/24"}}},
	}}
}

// goodCluster is a ready three-node cluster with managed networking.
func goodCluster() *ClusterInput {
	return &ClusterInput{
		Name: "c1", BaseDomain: "example.com", ControlPlaneCount: 3,
		ClusterNetworks: []ClusterNetwork{{CIDR: "10.128.0.0/14", HostPrefix: 23}},
		ServiceNetworks: []string{"172.30.0.0/16"},
		MachineNetworks: []string{"192.0.2.0/24"},
		APIVIPs:         []string{"192.0.2.100"}, IngressVIPs: []string{"192.0.2.101"},
		VIPsVerified: true, PullSecretSet: true, NetworkType: "OVNKubernetes",
		Hosts: []ClusterHost{
			hostAt("192.0.2.10", RoleMaster, HostKnown),
			hostAt("192.0.2.11", RoleMaster, HostKnown),
			hostAt("192.0.2.12", RoleMaster, HostKnown),
		},
	}
}

func TestGoodClusterPassesEverything(t *testing.T) {
	rs := EvaluateCluster(goodCluster())
	for _, r := range rs {
		if r.Status != ValidationSuccess {
			t.Errorf("%s: %s %q", r.ID, r.Status, r.Message)
		}
	}
	if p, r := ClusterGates(rs); !p || !r {
		t.Errorf("gates %v %v", p, r)
	}
}

// Each cluster validation passes and fails with the upstream message (internal/cluster/validator.go).
func TestClusterValidations(t *testing.T) {
	cases := []struct {
		name    string
		change  func(*ClusterInput)
		id      string
		status  ValidationStatus
		message string
	}{
		{"machine cidr defined", func(*ClusterInput) {}, CVMachineCIDRDefined, ValidationSuccess, "The Machine Network CIDR is defined."},
		{"machine cidr no hosts", func(c *ClusterInput) { c.MachineNetworks, c.Hosts = nil, nil }, CVMachineCIDRDefined, ValidationPending, "Hosts have not been discovered yet"},
		{"machine cidr SNO", func(c *ClusterInput) { c.MachineNetworks, c.SNO = nil, true }, CVMachineCIDRDefined, ValidationFailure,
			"The Machine Network CIDR is undefined; Setting Machine Network CIDR is required for single node cluster"},
		{"machine cidr multi-node", func(c *ClusterInput) { c.MachineNetworks = nil }, CVMachineCIDRDefined, ValidationFailure,
			"The Machine Network CIDR is undefined; the Machine Network CIDR can be defined by setting either the API or Ingress virtual IPs."},
		{"machine cidr user-managed", func(c *ClusterInput) { c.MachineNetworks, c.UMN = nil, true }, CVMachineCIDRDefined, ValidationSuccess, "No Machine Network CIDR needed: User Managed Networking"},
		{"cluster cidr", func(c *ClusterInput) { c.ClusterNetworks = nil }, CVClusterCIDRDefined, ValidationFailure, "The Cluster Network CIDR is undefined."},
		{"service cidr", func(c *ClusterInput) { c.ServiceNetworks = nil }, CVServiceCIDRDefined, ValidationFailure, "The Service Network CIDR is undefined."},
		{"base domain", func(c *ClusterInput) { c.BaseDomain = "" }, CVDNSDomainDefined, ValidationFailure, "The base domain is undefined and must be provided."},
		{"pull secret", func(c *ClusterInput) { c.PullSecretSet = false }, CVPullSecretSet, ValidationFailure, "The pull secret is not set."},
		{"api vips missing", func(c *ClusterInput) { c.APIVIPs = nil }, CVAPIVIPsDefined, ValidationFailure, "API virtual IPs are undefined and must be provided."},
		{"api vips user-managed", func(c *ClusterInput) { c.UMN = true }, CVAPIVIPsDefined, ValidationSuccess, "API virtual IPs are not required: User Managed Networking"},
		{"api vips SNO with UMN", func(c *ClusterInput) { c.SNO, c.UMN = true, true }, CVAPIVIPsDefined, ValidationSuccess, "API virtual IPs are not required: User Managed Networking"},
		{"api vips SNO", func(c *ClusterInput) { c.SNO = true }, CVAPIVIPsDefined, ValidationSuccess, "API virtual IPs are not required: SNO"},
		{"ingress vips", func(c *ClusterInput) { c.IngressVIPs = nil }, CVIngressVIPsDefined, ValidationFailure, "Ingress virtual IPs are undefined and must be provided."},
		{"calculated cidr", func(*ClusterInput) {}, CVMachineCIDREqualsCalc, ValidationSuccess, "The Cluster Machine CIDR is equivalent to the calculated CIDR."},
		{"calculated cidr differs", func(c *ClusterInput) {
			c.MachineNetworks = []string{"192.0.3.0/24"}
			c.APIVIPs = []string{"192.0.2.100"}
		}, CVMachineCIDREqualsCalc, ValidationFailure, "1 error occurred:\n\t* The Cluster Machine CIDR 192.0.3.0/24 is different than the calculated CIDR 192.0.2.0/24.\n\n"},
		{"calculated cidr differs twice", func(c *ClusterInput) {
			c.MachineNetworks = []string{"192.0.3.0/24", "fd00::/64"}
			c.APIVIPs = []string{"192.0.2.100", "198.51.100.7"}
		}, CVMachineCIDREqualsCalc, ValidationFailure, "2 errors occurred:\n\t* The Cluster Machine CIDR 192.0.3.0/24 is different than the calculated CIDR 192.0.2.0/24.\n\t* No suitable matching CIDR found for VIP 198.51.100.7\n\n"},
		{"calculated cidr user-managed load balancer", func(c *ClusterInput) { c.UserManagedLB = true }, CVMachineCIDREqualsCalc, ValidationSuccess,
			"Calculating machine network CIDR is not enabled: User Managed Load Balancer"},
		{"calculated cidr no VIPs", func(c *ClusterInput) { c.APIVIPs, c.IngressVIPs = nil, nil }, CVMachineCIDREqualsCalc, ValidationPending,
			"The Machine Network CIDR, API virtual IPs, or Ingress virtual IPs are undefined."},
		{"api vip valid", func(*ClusterInput) {}, CVAPIVIPsValid, ValidationSuccess, "api vips 192.0.2.100 belongs to the Machine CIDR and is not in use."},
		{"api vip outside", func(c *ClusterInput) { c.APIVIPs = []string{"198.51.100.5"} }, CVAPIVIPsValid, ValidationFailure,
			"api vips <198.51.100.5> does not belong to machine-network-cidr <192.0.2.0/24>"},
		{"api vip broadcast", func(c *ClusterInput) { c.APIVIPs = []string{"192.0.2.255"} }, CVAPIVIPsValid, ValidationFailure,
			"api vips <192.0.2.255> is the broadcast address of machine-network-cidr <192.0.2.0/24>"},
		{"api vip in use", func(c *ClusterInput) { c.APIVIPs = []string{"192.0.2.10"} }, CVAPIVIPsValid, ValidationFailure,
			"api vips <192.0.2.10> is already in use in cidr 192.0.2.0/24"},
		{"api vip in use, network too small", func(c *ClusterInput) {
			c.MachineNetworks = []string{"192.0.2.8/30"}
			c.APIVIPs = []string{"192.0.2.10"}
		}, CVAPIVIPsValid, ValidationFailure,
			"api vips <192.0.2.10> is already in use in cidr 192.0.2.8/30. The machine network range is too small for the cluster. Please redefine the network."},
		{"api vip not verified", func(c *ClusterInput) { c.VIPsVerified = false }, CVAPIVIPsValid, ValidationFailure, "api vips <192.0.2.100> are not verified yet."},
		{"api vip user-managed load balancer", func(c *ClusterInput) { c.UserManagedLB, c.APIVIPs = true, []string{"192.0.2.10"} }, CVAPIVIPsValid, ValidationSuccess,
			"api vip 192.0.2.10 is valid"},
		{"api vip user-managed load balancer outside", func(c *ClusterInput) { c.UserManagedLB, c.APIVIPs = true, []string{"198.51.100.5"} }, CVAPIVIPsValid, ValidationFailure,
			"api vip '198.51.100.5' failed verification: none of the machine networks is satisfying the requirements, description: machine network CIDR <192.0.2.0/24> verification failed: api vip <198.51.100.5> does not belong to machine-network-cidr <192.0.2.0/24>"},
		{"ingress vip valid", func(*ClusterInput) {}, CVIngressVIPsValid, ValidationSuccess, "ingress vips 192.0.2.101 belongs to the Machine CIDR and is not in use."},
		{"hosts not ready", func(c *ClusterInput) { c.Hosts[1].Status = HostInsufficient }, CVAllHostsReady, ValidationFailure, "The cluster has hosts that are not ready to install."},
		{"hosts ready", func(*ClusterInput) {}, CVAllHostsReady, ValidationSuccess, "All hosts in the cluster are ready to install."},
		{"masters missing", func(c *ClusterInput) { c.Hosts = c.Hosts[:2] }, CVSufficientMastersCount, ValidationFailure,
			"The cluster must have exactly 3 dedicated control plane nodes. Add or remove hosts, or change their roles configurations to meet the requirement."},
		{"auto-assign candidate counts", func(c *ClusterInput) { c.Hosts[2].Role, c.Hosts[2].MasterCandidate = RoleAutoAssign, true }, CVSufficientMastersCount, ValidationSuccess,
			"The cluster has the exact amount of dedicated control plane nodes."},
		{"two masters without arbiter", func(c *ClusterInput) { c.ControlPlaneCount, c.Hosts = 2, c.Hosts[:2] }, CVSufficientMastersCount, ValidationFailure,
			"The cluster must have exactly 2 dedicated control plane nodes and at least 1 arbiter node or the control plane nodes must have fencing credentials. Add or remove hosts, or change their roles configurations to meet the requirement."},
		{"two masters and an auto-assign arbiter candidate", func(c *ClusterInput) {
			c.ControlPlaneCount = 2
			c.Hosts[2].Role, c.Hosts[2].ArbiterCandidate = RoleAutoAssign, true
		}, CVSufficientMastersCount, ValidationSuccess, "The cluster has the exact amount of dedicated control plane nodes."},
		{"two masters and an arbiter", func(c *ClusterInput) { c.ControlPlaneCount, c.Hosts[2].Role = 2, RoleArbiter }, CVSufficientMastersCount, ValidationSuccess,
			"The cluster has the exact amount of dedicated control plane nodes."},
		{"SNO with a worker", func(c *ClusterInput) {
			c.SNO, c.ControlPlaneCount = true, 1
			c.Hosts = []ClusterHost{hostAt("192.0.2.10", RoleMaster, HostKnown), hostAt("192.0.2.11", RoleWorker, HostKnown)}
		}, CVSufficientMastersCount, ValidationFailure, "Single-node clusters must have a single control plane node and no workers."},
		{"host prefix zero", func(c *ClusterInput) { c.ClusterNetworks[0].HostPrefix = 0 }, CVNetworkPrefixValid, ValidationFailure,
			"Invalid Cluster Network prefix: Host prefix, now 0, must be a positive integer."},
		{"host prefix too long", func(c *ClusterInput) { c.ClusterNetworks[0].HostPrefix = 26 }, CVNetworkPrefixValid, ValidationFailure,
			"Host prefix, now 26, must be less than or equal to 25 to allow at least 128 addresses"},
		{"other plugin: default host prefix", func(c *ClusterInput) {
			c.NetworkType, c.ClusterNetworks = "Calico", []ClusterNetwork{{CIDR: "10.128.0.0/24", HostPrefix: 0}}
		}, CVNetworkPrefixValid, ValidationFailure,
			"Cluster network CIDR prefix 24 does not contain enough addresses for 3 hosts each one with 25 prefix (128 addresses)"},
		{"other plugin: host prefix not checked", func(c *ClusterInput) {
			c.NetworkType, c.ClusterNetworks = "Calico", []ClusterNetwork{{CIDR: "10.128.0.0/14", HostPrefix: 0}}
		}, CVNetworkPrefixValid, ValidationSuccess, "The Cluster Network prefix is valid."},
		{"cluster network too small", func(c *ClusterInput) { c.ClusterNetworks = []ClusterNetwork{{CIDR: "10.128.0.0/23", HostPrefix: 24}} }, CVNetworkPrefixValid, ValidationFailure,
			"Cluster network CIDR prefix 23 does not contain enough addresses for 3 hosts each one with 24 prefix (256 addresses)"},
		{"overlap", func(c *ClusterInput) { c.ServiceNetworks = []string{"192.0.2.0/25"} }, CVNoCIDRsOverlapping, ValidationFailure,
			"CIDRS Overlapping: MachineNetworkCIDR and ServiceNetworkCIDR: CIDRS 192.0.2.0/24 and 192.0.2.0/25 overlap."},
		{"no overlap", func(*ClusterInput) {}, CVNoCIDRsOverlapping, ValidationSuccess, "No CIDRS are overlapping."},
		{"clocks", func(c *ClusterInput) { c.ClockSpreadMinutes = 5 }, CVNTPServerConfigured, ValidationFailure,
			"Hosts' clocks are not synchronized (there's more than a 4 minutes gap between clocks), please configure an NTP server via DHCP or set clocks manually."},
		{"SDN and IPv6", func(c *ClusterInput) { c.NetworkType, c.ServiceNetworks = "OpenShiftSDN", []string{"fd02::/112"} }, CVNetworkTypeValid, ValidationFailure,
			"The cluster is configured with IPv6 which is not supported by OpenShiftSDN; use OVNKubernetes instead"},
		{"SDN and SNO", func(c *ClusterInput) { c.NetworkType, c.SNO, c.ControlPlaneCount = "OpenShiftSDN", true, 1 }, CVNetworkTypeValid, ValidationFailure,
			"Control Plane Count '1' (SNO) is not supported by OpenShiftSDN; use another network type instead"},
		{"unknown network type", func(c *ClusterInput) { c.NetworkType = "Flannel" }, CVNetworkTypeValid, ValidationFailure,
			"The network type is not valid; the valid network types are OpenShiftSDN, OVNKubernetes, Cilium, Calico, CiscoACI, or None"},
		{"families", func(c *ClusterInput) { c.ServiceNetworks = []string{"fd02::/112"} }, CVNetworksSameFamilies, ValidationFailure,
			"Address families of networks (ServiceNetworks, ClusterNetworks) are not the same."},
		{"third-party CNI", func(c *ClusterInput) { c.NetworkType = "Calico" }, CVCustomManifestsSatisfied, ValidationFailure,
			"Custom manifests are required for: Calico network type. Please upload manifests via the custom manifests API."},
		{"third-party CNI with manifests", func(c *ClusterInput) { c.NetworkType, c.CustomManifests = "Calico", true }, CVCustomManifestsSatisfied, ValidationSuccess,
			"Custom manifests are uploaded"},
		{"platform", func(*ClusterInput) {}, CVPlatformRequirementsSatis, ValidationSuccess, "Platform requirements satisfied"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			in := goodCluster()
			c.change(in)
			r := resultOf(t, EvaluateCluster(in), c.id)
			if r.Status != c.status || r.Message != c.message {
				t.Errorf("%s: got %s %q, want %s %q", c.id, r.Status, r.Message, c.status, c.message)
			}
		})
	}
}

// Failures feed the refresh rule's groups (internal/cluster/statemachine.go).
func TestClusterGates(t *testing.T) {
	in := goodCluster()
	in.PullSecretSet = false
	if p, _ := ClusterGates(EvaluateCluster(in)); p {
		t.Error("pull secret should keep the cluster pending for input")
	}
	in = goodCluster()
	in.Hosts[0].Status = HostInsufficient
	if p, r := ClusterGates(EvaluateCluster(in)); !p || r {
		t.Error("a host not ready should make the cluster insufficient")
	}
	in = goodCluster()
	in.Hosts[0].Status = HostInsufficient
	in.Ignored = ParseIgnored("all")
	if _, r := ClusterGates(EvaluateCluster(in)); r {
		t.Error("all-hosts-are-ready-to-install cannot be ignored")
	}
}

// Results come sorted by id within each category, the categories in the
// order validationsInfo's keys are (internal/cluster/
// refresh_status_preprocessor.go sortByValidationResultID), and an ignored
// validation keeps its failure while counting as passed.
func TestClusterResultsOrderAndIgnored(t *testing.T) {
	in := goodCluster()
	in.PullSecretSet = false
	in.APIVIPs = []string{"198.51.100.5"}
	in.Ignored = ParseIgnored(CVAPIVIPsValid + "," + CVPullSecretSet)
	rs := EvaluateCluster(in)
	var prev Result
	cat := map[string]Category{}
	for _, v := range ClusterValidations {
		cat[v.ID] = v.Category
	}
	if len(rs) != len(ClusterValidations) {
		t.Errorf("%d results for %d validations", len(rs), len(ClusterValidations))
	}
	for i, r := range rs {
		if i > 0 && (cat[prev.ID] > cat[r.ID] || cat[prev.ID] == cat[r.ID] && prev.ID >= r.ID) {
			t.Errorf("%s (%s) before %s (%s)", prev.ID, cat[prev.ID], r.ID, cat[r.ID])
		}
		prev = r
	}
	vip := resultOf(t, rs, CVAPIVIPsValid)
	if vip.Status != ValidationFailure || !vip.Passed() {
		t.Errorf("ignored api-vips-valid: %s passed=%v", vip.Status, vip.Passed())
	}
	if ps := resultOf(t, rs, CVPullSecretSet); ps.Passed() {
		t.Errorf("pull-secret-set cannot be ignored: %+v", ps)
	}
}
