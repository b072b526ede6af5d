package sites

import "fmt"

// The normalized site model: one shape for a SiteConfig cluster and a
// ClusterInstance, so that policies, the fleet index and the change rules
// read one set of fields whatever the format. What each input field
// becomes is in model_fields_test.go, whose tables list every field of
// the format types as either mapped here or left out with the reason.

// Model is a site normalized to one shape for both formats, with the
// document path of every field so that a finding can point at the line
// that sets it. It shares slices and maps with the site: read it, never
// change it.
type Model struct {
	// Path is the document path of the cluster: spec.clusters[i] for a
	// SiteConfig, spec for a ClusterInstance.
	Path string
	// Annotations are the annotations of the document that defines the
	// site (metadata.annotations).
	Annotations map[string]string
	Cluster     ClusterModel
	Nodes       []NodeModel
	// Paths holds the document path of each cluster field.
	Paths ClusterPaths
}

// ClusterModel is the cluster of a Model.
type ClusterModel struct {
	Name string
	// BaseDomain is spec.baseDomain in both formats (a SiteConfig has one
	// for all its clusters).
	BaseDomain string
	// ImageSet is the cluster's clusterImageSetNameRef; in a SiteConfig,
	// the cluster's when set, else the site-level one.
	ImageSet string
	// PullSecret and SSHKey name the pull-secret Secret and hold the SSH
	// public key.
	PullSecret, SSHKey string
	NetworkType        string
	// PlatformType and CPUArchitecture are empty for a SiteConfig, which
	// has no such fields: the generator leaves them to assisted-service.
	PlatformType, CPUArchitecture string
	// ClusterType is in the ClusterInstance vocabulary (SNO,
	// HighlyAvailable, HighlyAvailableArbiter, HostedControlPlane) for
	// both formats; see siteConfigClusterType.
	ClusterType                                    string
	InstallConfigOverrides, IgnitionConfigOverride string
	// APIVIPs and IngressVIPs are the VIP lists; a SiteConfig's legacy
	// single apiVIP/ingressVIP becomes a list of one when the list is
	// empty (the list wins, as the generator reads them).
	APIVIPs, IngressVIPs []string
	// MachineNetworks and ServiceNetworks are CIDRs.
	MachineNetworks, ServiceNetworks []string
	ClusterNetworks                  []ClusterNetwork
	AdditionalNTPSources             []string
	// Labels are the ManagedCluster labels: a SiteConfig's clusterLabels,
	// a ClusterInstance's extraLabels.ManagedCluster.
	Labels           map[string]string
	HoldInstallation bool
	// Proxy is nil when the cluster sets no proxy.
	Proxy *ProxySettings
}

// ClusterPaths holds the document path of each field of a ClusterModel
// (same names), of the annotations and of the node list. A list field
// has one path per entry. A field that a format does not have points at
// the cluster, or at what it is derived from.
type ClusterPaths struct {
	Name, BaseDomain, ImageSet, PullSecret, SSHKey, NetworkType string
	PlatformType, CPUArchitecture, ClusterType                  string
	InstallConfigOverrides, IgnitionConfigOverride              string
	APIVIPs, IngressVIPs                                        []string
	MachineNetworks, ServiceNetworks, ClusterNetworks           []string
	AdditionalNTPSources, Labels, HoldInstallation, Proxy       string
	Annotations, Nodes                                          string
}

// NodeModel is one host of a Model. Its fields have the same keys in both
// formats, so a field's document path is Path + "." + the key
// (NodeFieldKeys).
type NodeModel struct {
	// Path is the document path of the node: spec.clusters[i].nodes[j] or
	// spec.nodes[j].
	Path     string
	HostName string
	// Role is master, worker or arbiter as written; an empty SiteConfig
	// role is master.
	Role                   string
	BootMACAddress         string
	BootMode               string
	BmcAddress             string
	BmcCredentialsName     string
	InstallerArgs          string
	IgnitionConfigOverride string
	// CPUArchitecture is empty for a SiteConfig node.
	CPUArchitecture string
	Interfaces      []Interfaces
	// NMState is nodeNetwork.config; nil when not set.
	NMState map[string]any
	// RootDeviceHints is nil when not set.
	RootDeviceHints map[string]any
	Labels          map[string]string
}

// NodeFieldKeys are the keys, relative to a node's path and the same in
// both formats, of the node fields a Model reads.
var NodeFieldKeys = []string{"hostName", "role", "bmcAddress", "bmcCredentialsName.name", "bootMACAddress",
	"nodeNetwork.config", "rootDeviceHints", "installerArgs", "ignitionConfigOverride"}

// Model returns the normalized site. It is built on the first call and
// kept: the site must not change afterwards. Safe for concurrent use.
func (s *Site) Model() *Model {
	if m := s.model.Load(); m != nil {
		return m
	}
	m := &Model{Path: s.FieldPath("")}
	if s.Instance != nil {
		m.fromClusterInstance(s.Instance)
	} else {
		m.fromSiteConfig(s)
	}
	// Two callers may build it at once; both build the same thing.
	s.model.CompareAndSwap(nil, m)
	return s.model.Load()
}

func (m *Model) fromSiteConfig(s *Site) {
	c, spec := s.Cluster, s.Spec()
	cp := m.Path + "."
	m.Annotations = s.Config.Metadata.Annotations
	m.Cluster = ClusterModel{
		Name: c.ClusterName, BaseDomain: spec.BaseDomain, ImageSet: c.ClusterImageSetNameRef,
		PullSecret: spec.PullSecretRef.Name, SSHKey: spec.SshPublicKey, NetworkType: c.NetworkType,
		ClusterType:            siteConfigClusterType(c),
		InstallConfigOverrides: c.InstallConfigOverrides, IgnitionConfigOverride: c.IgnitionConfigOverride,
		AdditionalNTPSources: c.AdditionalNTPSources, Labels: c.ClusterLabels, HoldInstallation: c.HoldInstallation,
	}
	m.Paths = ClusterPaths{
		Name: cp + "clusterName", BaseDomain: "spec.baseDomain", ImageSet: cp + "clusterImageSetNameRef",
		PullSecret: "spec.pullSecretRef.name", SSHKey: "spec.sshPublicKey", NetworkType: cp + "networkType",
		// SiteConfig has no platform or architecture field, and derives
		// the cluster type from the nodes' roles.
		PlatformType: m.Path, CPUArchitecture: m.Path, ClusterType: cp + "nodes",
		InstallConfigOverrides: cp + "installConfigOverrides", IgnitionConfigOverride: cp + "ignitionConfigOverride",
		AdditionalNTPSources: cp + "additionalNTPSources", Labels: cp + "clusterLabels",
		HoldInstallation: cp + "holdInstallation", Proxy: cp + "proxy",
		Annotations: "metadata.annotations", Nodes: cp + "nodes",
	}
	cm, paths := &m.Cluster, &m.Paths
	if c.ClusterImageSetNameRef == "" {
		cm.ImageSet, paths.ImageSet = spec.ClusterImageSetNameRef, "spec.clusterImageSetNameRef"
	}
	if c.ProxySettings != (ProxySettings{}) {
		p := c.ProxySettings
		cm.Proxy = &p
	}
	cm.APIVIPs, paths.APIVIPs = vips(c.ApiVIPs, c.ApiVIP, cp+"apiVIPs", cp+"apiVIP")
	cm.IngressVIPs, paths.IngressVIPs = vips(c.IngressVIPs, c.IngressVIP, cp+"ingressVIPs", cp+"ingressVIP")
	paths.MachineNetworks, paths.ClusterNetworks, paths.ServiceNetworks = []string{}, []string{}, []string{}
	for i, n := range c.MachineNetwork {
		cm.MachineNetworks = append(cm.MachineNetworks, n.Cidr)
		paths.MachineNetworks = append(paths.MachineNetworks, fmt.Sprintf("%smachineNetwork[%d].cidr", cp, i))
	}
	for i, n := range c.ClusterNetwork {
		cm.ClusterNetworks = append(cm.ClusterNetworks, n)
		paths.ClusterNetworks = append(paths.ClusterNetworks, fmt.Sprintf("%sclusterNetwork[%d].cidr", cp, i))
	}
	for i, n := range c.ServiceNetwork {
		cm.ServiceNetworks = append(cm.ServiceNetworks, n)
		paths.ServiceNetworks = append(paths.ServiceNetworks, fmt.Sprintf("%sserviceNetwork[%d]", cp, i))
	}
	for i := range c.Nodes {
		n := &c.Nodes[i]
		role := n.Role
		if role == "" {
			// The generator counts a node without a role as a master
			// (cnf-features-deploy ztp/siteconfig-generator/siteConfig/siteConfig.go).
			role = RoleMaster
		}
		m.Nodes = append(m.Nodes, NodeModel{
			Path: fmt.Sprintf("%snodes[%d]", cp, i), HostName: n.HostName, Role: role,
			BootMACAddress: n.BootMACAddress, BootMode: n.BootMode, BmcAddress: n.BmcAddress,
			BmcCredentialsName: n.BmcCredentialsName.Name, InstallerArgs: n.InstallerArgs,
			IgnitionConfigOverride: n.IgnitionConfigOverride, Interfaces: n.NodeNetwork.Interfaces,
			NMState: n.NodeNetwork.Config, RootDeviceHints: n.RootDeviceHints, Labels: n.NodeLabels,
		})
	}
}

// siteConfigClusterType names a SiteConfig cluster's shape in the
// ClusterInstance vocabulary, so that rules see one set of values.
func siteConfigClusterType(c *Clusters) string {
	masters, arbiters := 0, 0
	for i := range c.Nodes {
		switch {
		case IsMaster(&c.Nodes[i]):
			masters++
		case c.Nodes[i].Role == RoleArbiter:
			arbiters++
		}
	}
	switch {
	case masters == 1:
		return ClusterTypeCISNO
	case arbiters > 0:
		return ClusterTypeCIHAArbiter
	}
	return ClusterTypeCIHA
}

// vips returns the VIP list of a SiteConfig cluster, which has both a
// list field and a legacy single one (the list wins), with field paths.
func vips(list []string, single, listPath, singlePath string) ([]string, []string) {
	paths := []string{}
	if len(list) > 0 {
		for i := range list {
			paths = append(paths, fmt.Sprintf("%s[%d]", listPath, i))
		}
		return list, paths
	}
	if single != "" {
		return []string{single}, []string{singlePath}
	}
	return nil, paths
}

func (m *Model) fromClusterInstance(ci *ClusterInstance) {
	s := &ci.Spec
	m.Annotations = ci.Metadata.Annotations
	m.Cluster = ClusterModel{
		Name: s.ClusterName, BaseDomain: s.BaseDomain, ImageSet: s.ClusterImageSetNameRef,
		PullSecret: s.PullSecretRef.Name, SSHKey: s.SSHPublicKey, NetworkType: s.NetworkType,
		PlatformType: s.PlatformType, CPUArchitecture: s.CPUArchitecture, ClusterType: s.ClusterType,
		InstallConfigOverrides: s.InstallConfigOverrides, IgnitionConfigOverride: s.IgnitionConfigOverride,
		APIVIPs: s.ApiVIPs, IngressVIPs: s.IngressVIPs, AdditionalNTPSources: s.AdditionalNTPSources,
		Labels: s.ExtraLabels["ManagedCluster"], HoldInstallation: s.HoldInstallation, Proxy: s.Proxy,
	}
	cm := &m.Cluster
	if cm.ClusterType == "" {
		cm.ClusterType = ClusterTypeCIHA
		if s.Count(RoleMaster) == 1 {
			cm.ClusterType = ClusterTypeCISNO
		}
	}
	list := func(n int, format string) []string {
		out := make([]string, n)
		for i := range out {
			out[i] = fmt.Sprintf(format, i)
		}
		return out
	}
	m.Paths = ClusterPaths{
		Name: "spec.clusterName", BaseDomain: "spec.baseDomain", ImageSet: "spec.clusterImageSetNameRef",
		PullSecret: "spec.pullSecretRef.name", SSHKey: "spec.sshPublicKey", NetworkType: "spec.networkType",
		PlatformType: "spec.platformType", CPUArchitecture: "spec.cpuArchitecture", ClusterType: "spec.clusterType",
		InstallConfigOverrides: "spec.installConfigOverrides", IgnitionConfigOverride: "spec.ignitionConfigOverride",
		APIVIPs: list(len(s.ApiVIPs), "spec.apiVIPs[%d]"), IngressVIPs: list(len(s.IngressVIPs), "spec.ingressVIPs[%d]"),
		MachineNetworks:      list(len(s.MachineNetwork), "spec.machineNetwork[%d].cidr"),
		ServiceNetworks:      list(len(s.ServiceNetwork), "spec.serviceNetwork[%d].cidr"),
		ClusterNetworks:      list(len(s.ClusterNetwork), "spec.clusterNetwork[%d].cidr"),
		AdditionalNTPSources: "spec.additionalNTPSources", Labels: "spec.extraLabels.ManagedCluster",
		HoldInstallation: "spec.holdInstallation", Proxy: "spec.proxy",
		Annotations: "metadata.annotations", Nodes: "spec.nodes",
	}
	for _, n := range s.MachineNetwork {
		cm.MachineNetworks = append(cm.MachineNetworks, n.CIDR)
	}
	for _, n := range s.ClusterNetwork {
		cm.ClusterNetworks = append(cm.ClusterNetworks, ClusterNetwork{Cidr: n.CIDR, HostPrefix: n.HostPrefix})
	}
	for _, n := range s.ServiceNetwork {
		cm.ServiceNetworks = append(cm.ServiceNetworks, n.CIDR)
	}
	for i := range s.Nodes {
		n := &s.Nodes[i]
		nm := NodeModel{
			Path: fmt.Sprintf("spec.nodes[%d]", i), HostName: n.HostName, Role: n.Role,
			BootMACAddress: n.BootMACAddress, BootMode: n.BootMode, BmcAddress: n.BmcAddress,
			BmcCredentialsName: n.BmcCredentialsName.Name, InstallerArgs: n.InstallerArgs,
			IgnitionConfigOverride: n.IgnitionConfigOverride, RootDeviceHints: n.RootDeviceHints,
			Labels: n.NodeLabels, CPUArchitecture: n.CPUArchitecture,
		}
		if n.NodeNetwork != nil {
			nm.Interfaces, nm.NMState = n.NodeNetwork.Interfaces, n.NodeNetwork.Config
		}
		m.Nodes = append(m.Nodes, nm)
	}
}
