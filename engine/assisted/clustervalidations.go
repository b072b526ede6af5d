package assisted

import (
	"cmp"
	"fmt"
	"net/netip"
	"slices"
	"strings"
)

// ClusterGroup says which cluster refresh rule a failing validation feeds
// (internal/cluster/statemachine.go).
type ClusterGroup int

const (
	// GroupInformational: computed but not gating
	// (platform-requirements-satisfied).
	GroupInformational ClusterGroup = iota
	// GroupPending: failing keeps the cluster pending-for-input.
	GroupPending
	// GroupRequired: failing keeps the cluster insufficient.
	GroupRequired
)

// ClusterNetwork is one cluster network entry.
type ClusterNetwork struct {
	CIDR       string `json:"cidr"`
	HostPrefix int    `json:"hostPrefix"`
}

// The networks a cluster gets when its AgentClusterInstall gives none
// (internal/bminventory/inventory.go Config).
var (
	DefaultClusterNetwork = ClusterNetwork{CIDR: "10.128.0.0/14", HostPrefix: 23}
	DefaultServiceNetwork = "172.30.0.0/16"
)

// ClusterHost is one host as the cluster validations see it.
type ClusterHost struct {
	Status HostStatus
	// Role is the effective role (spec role, or suggested role).
	Role Role
	// MasterCandidate and ArbiterCandidate are true for an auto-assign host
	// that qualifies as a master or an arbiter (has-cpu-cores-for-role and
	// has-memory-for-role for that role).
	MasterCandidate  bool
	ArbiterCandidate bool
	Inventory        *Inventory
}

// ClusterInput is everything the cluster validations read.
type ClusterInput struct {
	Name, BaseDomain  string
	SNO, UMN          bool
	ControlPlaneCount int
	// Fencing is true when the two control-plane nodes of a two-node
	// cluster have fencing credentials.
	Fencing         bool
	ClusterNetworks []ClusterNetwork
	ServiceNetworks []string
	// MachineNetworks are the effective machine networks (after the
	// service's auto-assignment).
	MachineNetworks []string
	APIVIPs         []string
	IngressVIPs     []string
	// VIPsVerified is true once the hosts' agents verified the VIPs are
	// free (free-addresses / verify-vips steps).
	VIPsVerified  bool
	PullSecretSet bool
	NetworkType   string
	// UserManagedLB is true when spec.loadBalancer.type is UserManaged.
	UserManagedLB bool
	Day2          bool
	Hosts         []ClusterHost
	// ClockSpreadMinutes is the largest gap between host clocks.
	ClockSpreadMinutes float64
	// CustomManifests is true when manifests were uploaded (third-party
	// CNIs need one).
	CustomManifests bool
	Ignored         Ignored
}

func (c *ClusterInput) hasInventories() bool {
	for _, h := range c.Hosts {
		if h.Inventory != nil {
			return true
		}
	}
	return false
}

func (c *ClusterInput) machineNetworkRequired() bool { return !c.UMN || c.SNO }

// ClusterValidation is one cluster validation (internal/cluster/validator.go).
type ClusterValidation struct {
	ID           string
	Category     Category
	Group        ClusterGroup
	NotIgnorable bool
	eval         func(*ClusterInput) (ValidationStatus, string)
}

// Cluster validation ids (models/cluster_validation_id.go).
const (
	CVMachineCIDRDefined        = "machine-cidr-defined"
	CVClusterCIDRDefined        = "cluster-cidr-defined"
	CVServiceCIDRDefined        = "service-cidr-defined"
	CVDNSDomainDefined          = "dns-domain-defined"
	CVPullSecretSet             = "pull-secret-set"
	CVAPIVIPsDefined            = "api-vips-defined"
	CVIngressVIPsDefined        = "ingress-vips-defined"
	CVMachineCIDREqualsCalc     = "machine-cidr-equals-to-calculated-cidr"
	CVAPIVIPsValid              = "api-vips-valid"
	CVIngressVIPsValid          = "ingress-vips-valid"
	CVAllHostsReady             = "all-hosts-are-ready-to-install"
	CVSufficientMastersCount    = "sufficient-masters-count"
	CVNetworkPrefixValid        = "network-prefix-valid"
	CVNoCIDRsOverlapping        = "no-cidrs-overlapping"
	CVNTPServerConfigured       = "ntp-server-configured"
	CVNetworkTypeValid          = "network-type-valid"
	CVNetworksSameFamilies      = "networks-same-address-families"
	CVCustomManifestsSatisfied  = "custom-manifests-requirements-satisfied"
	CVPlatformRequirementsSatis = "platform-requirements-satisfied"
)

// LoadBalancerUserManaged is the AgentClusterInstall spec.loadBalancer.type
// of a load balancer the user runs (models.LoadBalancerTypeUserManaged).
const LoadBalancerUserManaged = "UserManaged"

// ValidNetworkTypes are the network types network-type-valid accepts.
var ValidNetworkTypes = []string{"OpenShiftSDN", "OVNKubernetes", "Cilium", "Calico", "CiscoACI", "None"}

// thirdPartyCNIs need an uploaded custom manifest.
var thirdPartyCNIs = []string{"Cilium", "Calico", "CiscoACI", "None"}

// ClusterValidations lists the core cluster validations (internal/cluster/validator.go).
var ClusterValidations = []ClusterValidation{
	{ID: CVMachineCIDRDefined, Category: CategoryNetwork, Group: GroupPending, eval: func(c *ClusterInput) (ValidationStatus, string) {
		switch {
		case c.UMN && !c.SNO:
			return ok("No Machine Network CIDR needed: User Managed Networking")
		case len(c.MachineNetworks) > 0:
			return ok("The Machine Network CIDR is defined.")
		case !c.hasInventories():
			return pending("Hosts have not been discovered yet")
		case c.SNO:
			return fail("The Machine Network CIDR is undefined; Setting Machine Network CIDR is required for single node cluster")
		}
		return fail("The Machine Network CIDR is undefined; the Machine Network CIDR can be defined by setting either the API or Ingress virtual IPs.")
	}},
	{ID: CVClusterCIDRDefined, Category: CategoryNetwork, Group: GroupPending, eval: func(c *ClusterInput) (ValidationStatus, string) {
		if len(c.ClusterNetworks) > 0 {
			return ok("The Cluster Network CIDR is defined.")
		}
		return fail("The Cluster Network CIDR is undefined.")
	}},
	{ID: CVServiceCIDRDefined, Category: CategoryNetwork, Group: GroupPending, eval: func(c *ClusterInput) (ValidationStatus, string) {
		if len(c.ServiceNetworks) > 0 {
			return ok("The Service Network CIDR is defined.")
		}
		return fail("The Service Network CIDR is undefined.")
	}},
	{ID: CVDNSDomainDefined, Category: CategoryNetwork, Group: GroupPending, eval: func(c *ClusterInput) (ValidationStatus, string) {
		if c.BaseDomain != "" {
			return ok("The base domain is defined.")
		}
		return fail("The base domain is undefined and must be provided.")
	}},
	{ID: CVPullSecretSet, Category: CategoryConfiguration, Group: GroupPending, NotIgnorable: true, eval: func(c *ClusterInput) (ValidationStatus, string) {
		if c.PullSecretSet {
			return ok("The pull secret is set.")
		}
		return fail("The pull secret is not set.")
	}},
	{ID: CVAPIVIPsDefined, Category: CategoryNetwork, Group: GroupPending, NotIgnorable: true, eval: func(c *ClusterInput) (ValidationStatus, string) {
		return c.vipsDefined("API", c.APIVIPs)
	}},
	{ID: CVIngressVIPsDefined, Category: CategoryNetwork, Group: GroupPending, NotIgnorable: true, eval: func(c *ClusterInput) (ValidationStatus, string) {
		return c.vipsDefined("Ingress", c.IngressVIPs)
	}},
	{ID: CVMachineCIDREqualsCalc, Category: CategoryNetwork, Group: GroupRequired, eval: func(c *ClusterInput) (ValidationStatus, string) {
		switch {
		case c.UMN:
			return ok("The Cluster Machine CIDR is not required: User Managed Networking")
		case c.UserManagedLB:
			return ok("Calculating machine network CIDR is not enabled: User Managed Load Balancer")
		case len(c.APIVIPs) == 0 && len(c.IngressVIPs) == 0:
			return pending("The Machine Network CIDR, API virtual IPs, or Ingress virtual IPs are undefined.")
		case !c.hasInventories():
			return pending("Hosts have not been discovered yet")
		}
		var problems []string
		for i, vip := range c.APIVIPs {
			calc := c.calculatedCIDR(vip)
			if calc == "" {
				problems = append(problems, fmt.Sprintf("No suitable matching CIDR found for VIP %s", vip))
				continue
			}
			if i < len(c.MachineNetworks) && c.MachineNetworks[i] != calc {
				problems = append(problems, fmt.Sprintf("The Cluster Machine CIDR %s is different than the calculated CIDR %s.", c.MachineNetworks[i], calc))
			}
		}
		if len(problems) > 0 {
			return fail(multiError(problems))
		}
		return ok("The Cluster Machine CIDR is equivalent to the calculated CIDR.")
	}},
	{ID: CVAPIVIPsValid, Category: CategoryNetwork, Group: GroupRequired, eval: func(c *ClusterInput) (ValidationStatus, string) {
		return c.vipsValid("API", c.APIVIPs)
	}},
	{ID: CVIngressVIPsValid, Category: CategoryNetwork, Group: GroupRequired, eval: func(c *ClusterInput) (ValidationStatus, string) {
		return c.vipsValid("Ingress", c.IngressVIPs)
	}},
	{ID: CVAllHostsReady, Category: CategoryHostsData, Group: GroupRequired, NotIgnorable: true, eval: func(c *ClusterInput) (ValidationStatus, string) {
		for _, h := range c.Hosts {
			if !h.Status.In(HostKnown, HostPreparingForInstallation, HostPreparingSuccessful) {
				return fail("The cluster has hosts that are not ready to install.")
			}
		}
		return ok("All hosts in the cluster are ready to install.")
	}},
	{ID: CVSufficientMastersCount, Category: CategoryHostsData, Group: GroupRequired, NotIgnorable: true, eval: func(c *ClusterInput) (ValidationStatus, string) {
		masters, arbiters, workers := 0, 0, 0
		var candidates []ClusterHost
		for _, h := range c.Hosts {
			switch h.Role {
			case RoleMaster:
				masters++
			case RoleArbiter:
				arbiters++
			case RoleWorker:
				workers++
			default:
				candidates = append(candidates, h)
			}
		}
		// Auto-assign hosts fill the masters, then, for two control-plane
		// nodes, one arbiter; the rest count as workers
		// (internal/cluster/validator.go SufficientMastersCount).
		for _, h := range candidates {
			switch {
			case masters < c.ControlPlaneCount && h.MasterCandidate:
				masters++
			case c.ControlPlaneCount == 2 && arbiters == 0 && h.ArbiterCandidate:
				arbiters++
			default:
				workers++
			}
		}
		okCount := masters == c.ControlPlaneCount
		if c.SNO {
			okCount = okCount && workers == 0
		}
		if c.ControlPlaneCount == 2 && arbiters == 0 && !c.Fencing {
			okCount = false
		}
		if okCount {
			return ok("The cluster has the exact amount of dedicated control plane nodes.")
		}
		if c.SNO {
			return fail("Single-node clusters must have a single control plane node and no workers.")
		}
		suffix := ""
		if c.ControlPlaneCount == 2 {
			suffix = " and at least 1 arbiter node or the control plane nodes must have fencing credentials"
		}
		return fail(fmt.Sprintf("The cluster must have exactly %d dedicated control plane nodes%s. Add or remove hosts, or change their roles configurations to meet the requirement.", c.ControlPlaneCount, suffix))
	}},
	{ID: CVNetworkPrefixValid, Category: CategoryNetwork, Group: GroupRequired, eval: func(c *ClusterInput) (ValidationStatus, string) {
		if len(c.ClusterNetworks) == 0 {
			return pending("The Cluster Network CIDR is undefined.")
		}
		for _, n := range c.ClusterNetworks {
			if msg := c.hostPrefixProblem(n); msg != "" {
				return fail(msg)
			}
		}
		return ok("The Cluster Network prefix is valid.")
	}},
	{ID: CVNoCIDRsOverlapping, Category: CategoryNetwork, Group: GroupRequired, eval: func(c *ClusterInput) (ValidationStatus, string) {
		if len(c.ClusterNetworks) == 0 || len(c.ServiceNetworks) == 0 || c.machineNetworkRequired() && len(c.MachineNetworks) == 0 {
			if c.UMN {
				return pending("At least one of the CIDRs (Cluster Network, Service Network) is undefined.")
			}
			return pending("At least one of the CIDRs (Machine Network, Cluster Network, Service Network) is undefined.")
		}
		if len(c.ClusterNetworks) != len(c.ServiceNetworks) {
			return ValidationError, "A mismatch between the number of Cluster and Service networks"
		}
		for i := range c.ClusterNetworks {
			machine := ""
			if i < len(c.MachineNetworks) {
				machine = c.MachineNetworks[i]
			}
			if msg := cidrsOverlap(machine, c.ClusterNetworks[i].CIDR, c.ServiceNetworks[i], c.machineNetworkRequired()); msg != "" {
				return fail(fmt.Sprintf("CIDRS Overlapping: %s.", msg))
			}
		}
		return ok("No CIDRS are overlapping.")
	}},
	{ID: CVNTPServerConfigured, Category: CategoryNetwork, Group: GroupRequired, eval: func(c *ClusterInput) (ValidationStatus, string) {
		if c.ClockSpreadMinutes > 4 {
			return fail("Hosts' clocks are not synchronized (there's more than a 4 minutes gap between clocks), please configure an NTP server via DHCP or set clocks manually.")
		}
		return ok("No ntp problems found")
	}},
	{ID: CVNetworkTypeValid, Category: CategoryNetwork, Group: GroupRequired, eval: func(c *ClusterInput) (ValidationStatus, string) {
		t := c.NetworkType
		if t != "" && !contains(ValidNetworkTypes, t) {
			return fail("The network type is not valid; the valid network types are OpenShiftSDN, OVNKubernetes, Cilium, Calico, CiscoACI, or None")
		}
		if t == "OpenShiftSDN" && c.hasIPv6() {
			return fail("The cluster is configured with IPv6 which is not supported by OpenShiftSDN; use OVNKubernetes instead")
		}
		if t == "OpenShiftSDN" && c.ControlPlaneCount == 1 {
			return fail("Control Plane Count '1' (SNO) is not supported by OpenShiftSDN; use another network type instead")
		}
		return ok("The cluster has a valid network type")
	}},
	{ID: CVNetworksSameFamilies, Category: CategoryNetwork, Group: GroupRequired, eval: func(c *ClusterInput) (ValidationStatus, string) {
		required := c.machineNetworkRequired()
		if !required && (len(c.ClusterNetworks) == 0 || len(c.ServiceNetworks) == 0) {
			return pending("At least one of the CIDRs (Cluster Network, Service Network) is undefined.")
		}
		if required && (len(c.MachineNetworks) == 0 || len(c.ClusterNetworks) == 0 || len(c.ServiceNetworks) == 0) {
			return pending("At least one of the CIDRs (Machine Network, Cluster Network, Service Network) is undefined.")
		}
		clusterCIDRs := make([]string, len(c.ClusterNetworks))
		for i, n := range c.ClusterNetworks {
			clusterCIDRs[i] = n.CIDR
		}
		svc := families(c.ServiceNetworks)
		if svc != families(clusterCIDRs) {
			return fail("Address families of networks (ServiceNetworks, ClusterNetworks) are not the same.")
		}
		if required && svc != families(c.MachineNetworks) {
			return fail("Address families of networks (MachineNetworks, ServiceNetworks, ClusterNetworks) are not the same.")
		}
		return ok("Same address families for all networks.")
	}},
	{ID: CVCustomManifestsSatisfied, Category: CategoryNetwork, Group: GroupRequired, eval: func(c *ClusterInput) (ValidationStatus, string) {
		switch {
		case !contains(thirdPartyCNIs, c.NetworkType):
			return ok("No custom manifests are required")
		case c.CustomManifests:
			return ok("Custom manifests are uploaded")
		}
		return fail(fmt.Sprintf("Custom manifests are required for: %s network type. Please upload manifests via the custom manifests API.", c.NetworkType))
	}},
	{ID: CVPlatformRequirementsSatis, Category: CategoryConfiguration, Group: GroupInformational, eval: func(c *ClusterInput) (ValidationStatus, string) {
		return ok("Platform requirements satisfied")
	}},
}

func (c *ClusterInput) vipsDefined(name string, vips []string) (ValidationStatus, string) {
	switch {
	case c.UMN:
		return ok(name + " virtual IPs are not required: User Managed Networking")
	case c.SNO:
		return ok(name + " virtual IPs are not required: SNO")
	case len(vips) > 0:
		return ok(name + " virtual IPs are defined.")
	}
	return fail(name + " virtual IPs are undefined and must be provided.")
}

func (c *ClusterInput) vipsValid(name string, vips []string) (ValidationStatus, string) {
	lower := strings.ToLower(name) + " vips"
	switch {
	case c.UMN:
		return ok(name + " virtual IPs are not required: User Managed Networking")
	case c.SNO:
		return ok(name + " virtual IPs are not required: SNO")
	case len(vips) == 0:
		return pending(name + " virtual IPs are undefined.")
	case !c.hasInventories() || len(c.MachineNetworks) == 0:
		return pending("Hosts have not been discovered yet")
	case c.UserManagedLB:
		return c.vipValidUserManagedLB(strings.ToLower(name)+" vip", vips[0])
	}
	var problems []string
	for i, vip := range vips {
		cidr := ""
		if i < len(c.MachineNetworks) {
			cidr = c.MachineNetworks[i]
		}
		if msg := c.vipProblem(lower, vip, cidr); msg != "" {
			problems = append(problems, msg)
		}
	}
	if len(problems) > 0 {
		return fail(strings.Join(problems, ";"))
	}
	return ok(fmt.Sprintf("%s %s belongs to the Machine CIDR and is not in use.", lower, strings.Join(vips, ", ")))
}

// vipValidUserManagedLB checks the first VIP of a cluster whose load
// balancer the user runs: it must sit in one of the machine networks, which
// need not be free (internal/cluster/validator.go
// validateVipsUserManagedLoadBalancer, internal/network/
// machine_network_cidr.go VerifyVipWithMachineNetworkList).
func (c *ClusterInput) vipValidUserManagedLB(name, vip string) (ValidationStatus, string) {
	var errs []string
	for _, cidr := range c.MachineNetworks {
		msg := vipPlacementProblem(name, vip, cidr)
		if msg == "" {
			return ok(fmt.Sprintf("%s %s is valid", name, vip))
		}
		errs = append(errs, fmt.Sprintf("machine network CIDR <%s> verification failed: %s", cidr, msg))
	}
	return fail(fmt.Sprintf("%s '%s' failed verification: none of the machine networks is satisfying the requirements, description: %s", name, vip, strings.Join(errs, "; ")))
}

// vipPlacementProblem checks that a VIP sits in a machine network and is
// not its broadcast address (VerifyVipWithSingleMachineNetwork).
func vipPlacementProblem(name, vip, cidr string) string {
	if cidr == "" {
		return fmt.Sprintf("%s <%s> cannot be set if Machine Network CIDR is empty", name, vip)
	}
	addr, err := netip.ParseAddr(vip)
	prefix, perr := netip.ParsePrefix(cidr)
	if err != nil || perr != nil || !prefix.Contains(addr) {
		return fmt.Sprintf("%s <%s> does not belong to machine-network-cidr <%s>", name, vip, cidr)
	}
	if addr.Is4() && addr == lastAddr(prefix) {
		return fmt.Sprintf("%s <%s> is the broadcast address of machine-network-cidr <%s>", name, vip, cidr)
	}
	return ""
}

// vipProblem checks one VIP against its machine network, and that no host
// uses it (VerifyVipWithSingleMachineNetwork, VerifyVipFree).
func (c *ClusterInput) vipProblem(name, vip, cidr string) string {
	if msg := vipPlacementProblem(name, vip, cidr); msg != "" {
		return msg
	}
	addr, _ := netip.ParseAddr(vip)
	prefix, _ := netip.ParsePrefix(cidr)
	for _, h := range c.Hosts {
		if h.Inventory == nil {
			continue
		}
		for _, a := range h.Inventory.Addresses() {
			if a == addr {
				msg := fmt.Sprintf("%s <%s> is already in use in cidr %s", name, vip, cidr)
				if !machineNetworkBigEnough(prefix, len(c.Hosts)) {
					msg += ". The machine network range is too small for the cluster. Please redefine the network."
				}
				return msg
			}
		}
	}
	if !c.VIPsVerified {
		return fmt.Sprintf("%s <%s> are not verified yet.", name, vip)
	}
	return ""
}

// machineNetworkBigEnough reports whether a machine network holds the
// hosts, its network and broadcast addresses and two VIPs; a single host
// needs two addresses (internal/network/cidr_validations.go
// isMachineNetworkCidrBigEnough, MinSNOMachineMaskDelta).
func machineNetworkBigEnough(p netip.Prefix, hosts int) bool {
	free := p.Addr().BitLen() - p.Bits()
	if hosts == 1 {
		return free >= 1
	}
	if free >= 62 {
		return true
	}
	return int64(1)<<free-int64(hosts)-4 >= 0
}

// multiError renders errors the way hashicorp/go-multierror does
// (ListFormatFunc): "1 error occurred:\n\t* a\n\n", "2 errors
// occurred:\n\t* a\n\t* b\n\n".
func multiError(errs []string) string {
	if len(errs) == 1 {
		return "1 error occurred:\n\t* " + errs[0] + "\n\n"
	}
	points := make([]string, len(errs))
	for i, e := range errs {
		points[i] = "* " + e
	}
	return fmt.Sprintf("%d errors occurred:\n\t%s\n\n", len(errs), strings.Join(points, "\n\t"))
}

// calculatedCIDR is the network of a host interface that contains the VIP
// (network.CalculateMachineNetworkCIDR).
func (c *ClusterInput) calculatedCIDR(vip string) string {
	addr, err := netip.ParseAddr(vip)
	if err != nil {
		return ""
	}
	for _, h := range c.Hosts {
		if h.Inventory == nil {
			continue
		}
		for _, ifc := range h.Inventory.Interfaces {
			for _, list := range [][]string{ifc.IPv4, ifc.IPv6} {
				for _, a := range list {
					if p, err := netip.ParsePrefix(a); err == nil && p.Masked().Contains(addr) {
						return p.Masked().String()
					}
				}
			}
		}
	}
	return ""
}

// pluginsUsingHostPrefix are the network plugins whose clusterNetwork
// hostPrefix is checked; for the others the cluster network's size is
// checked against a default prefix (internal/cluster/validator.go
// skipNetworkHostPrefixCheck, DefaultIPV4HostPrefix, DefaultIPV6HostPrefix).
var pluginsUsingHostPrefix = []string{"OVNKubernetes", "OpenShiftSDN"}

const (
	DefaultIPv4HostPrefix = 25
	DefaultIPv6HostPrefix = 64
)

func (c *ClusterInput) hostPrefixProblem(n ClusterNetwork) string {
	p, err := netip.ParsePrefix(n.CIDR)
	if err != nil {
		return err.Error()
	}
	bits := p.Addr().BitLen()
	if !contains(pluginsUsingHostPrefix, c.NetworkType) {
		n.HostPrefix = DefaultIPv4HostPrefix
		if p.Addr().Is6() {
			n.HostPrefix = DefaultIPv6HostPrefix
		}
	} else if n.HostPrefix < 1 {
		return fmt.Sprintf("Invalid Cluster Network prefix: Host prefix, now %d, must be a positive integer.", n.HostPrefix)
	}
	if n.HostPrefix > bits-7 {
		return fmt.Sprintf("Host prefix, now %d, must be less than or equal to %d to allow at least 128 addresses", n.HostPrefix, bits-7)
	}
	hosts := len(c.Hosts)
	requested := max(4, hosts)
	if hosts == 1 {
		requested = 1
	}
	shift := min(63, max(n.HostPrefix-p.Bits(), 0))
	if uint64(requested) > uint64(1)<<shift {
		return fmt.Sprintf("Cluster network CIDR prefix %d does not contain enough addresses for %d hosts each one with %d prefix (%d addresses)",
			p.Bits(), hosts, n.HostPrefix, uint64(1)<<min(63, bits-n.HostPrefix))
	}
	return ""
}

func (c *ClusterInput) hasIPv6() bool {
	all := append(append([]string{}, c.ServiceNetworks...), c.MachineNetworks...)
	for _, n := range c.ClusterNetworks {
		all = append(all, n.CIDR)
	}
	for _, s := range all {
		if p, err := netip.ParsePrefix(s); err == nil && p.Addr().Is6() {
			return true
		}
	}
	return false
}

// EvaluateCluster runs every cluster validation, its results in the
// order assisted-service lists them.
func EvaluateCluster(c *ClusterInput) []Result {
	out := make([]Result, 0, len(ClusterValidations))
	for _, i := range clusterValidationOrder {
		v := &ClusterValidations[i]
		status, msg := v.eval(c)
		r := Result{ID: v.ID, Status: status, Message: msg, Ignored: !v.NotIgnorable && c.Ignored.has(v.ID)}
		out = append(out, r)
	}
	return out
}

// clusterValidationOrder lists the indexes of ClusterValidations in the
// order of their results: each category's results sorted by id,
// categories in the order validationsInfo's JSON keys come
// (internal/cluster/refresh_status_preprocessor.go
// sortByValidationResultID). It depends on the ids alone, so it is
// worked out once rather than at every cluster refresh.
var clusterValidationOrder = func() []int {
	order := make([]int, len(ClusterValidations))
	for i := range order {
		order[i] = i
	}
	slices.SortStableFunc(order, func(a, b int) int {
		va, vb := &ClusterValidations[a], &ClusterValidations[b]
		if va.Category != vb.Category {
			return cmp.Compare(va.Category, vb.Category)
		}
		return strings.Compare(va.ID, vb.ID)
	})
	return order
}()

// clusterValidationGroup is the gating group of each cluster validation
// id, built once: every cluster refresh reads it.
var clusterValidationGroup = func() map[string]ClusterGroup {
	m := make(map[string]ClusterGroup, len(ClusterValidations))
	for _, v := range ClusterValidations {
		m[v.ID] = v.Group
	}
	return m
}()

// ClusterGates folds cluster results into the refresh rule's groups.
func ClusterGates(rs []Result) (pendingOK, requiredOK bool) {
	pendingOK, requiredOK = true, true
	for _, r := range rs {
		g, known := clusterValidationGroup[r.ID]
		if !known {
			g = GroupRequired // operator validations
		}
		switch {
		case r.Passed():
		case g == GroupPending:
			pendingOK = false
		case g == GroupRequired:
			requiredOK = false
		}
	}
	return pendingOK, requiredOK
}

func cidrsOverlap(machine, cluster, service string, machineRequired bool) string {
	check := func(a, b string) string {
		if a == "" || b == "" {
			return ""
		}
		pa, err1 := netip.ParsePrefix(a)
		pb, err2 := netip.ParsePrefix(b)
		if err1 != nil || err2 != nil || !pa.Masked().Overlaps(pb.Masked()) {
			return ""
		}
		return fmt.Sprintf("CIDRS %s and %s overlap", pa.Masked(), pb.Masked())
	}
	if machineRequired {
		if m := check(machine, service); m != "" {
			return "MachineNetworkCIDR and ServiceNetworkCIDR: " + m
		}
		if m := check(machine, cluster); m != "" {
			return "MachineNetworkCIDR and ClusterNetworkCidr: " + m
		}
	}
	if m := check(service, cluster); m != "" {
		return "ServiceNetworkCidr and ClusterNetworkCidr: " + m
	}
	return ""
}

// families names the address families of a CIDR list, canonized: "4",
// "6" or "4,6".
func families(cidrs []string) string {
	v4, v6 := false, false
	for _, s := range cidrs {
		if p, err := netip.ParsePrefix(s); err == nil {
			if p.Addr().Is4() {
				v4 = true
			} else {
				v6 = true
			}
		}
	}
	switch {
	case v4 && v6:
		return "4,6"
	case v6:
		return "6"
	case v4:
		return "4"
	}
	return ""
}

func lastAddr(p netip.Prefix) netip.Addr {
	a := p.Masked().Addr().As4()
	host := 32 - p.Bits()
	v := uint32(a[0])<<24 | uint32(a[1])<<16 | uint32(a[2])<<8 | uint32(a[3])
	v |= (1 << host) - 1
	return netip.AddrFrom4([4]byte{byte(v >> 24), byte(v >> 16), byte(v >> 8), byte(v)})
}

func contains(list []string, s string) bool {
	for _, x := range list {
		if x == s {
			return true
		}
	}
	return false
}
