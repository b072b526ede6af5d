package sites

// ClusterInstance input types (siteconfig.open-cluster-management.io/v1alpha1,
// stolostron/siteconfig api/v1alpha1/clusterinstance_types.go). Go field names
// follow the upstream API types, so that templates addressing ".Spec.X" keep
// working if custom templates are supported; the yaml tags are the file format.

// ClusterInstance is one ClusterInstance document: one cluster.
type ClusterInstance struct {
	ApiVersion string              `yaml:"apiVersion"`
	Kind       string              `yaml:"kind"`
	Metadata   Metadata            `yaml:"metadata"`
	Spec       ClusterInstanceSpec `yaml:"spec"`
	// Status is the hub's; accepted so that exported objects load, and ignored.
	Status map[string]any `yaml:"status"`
}

// ClusterInstanceSpec is the cluster.
type ClusterInstanceSpec struct {
	ClusterName            string                       `yaml:"clusterName"`
	PullSecretRef          PullSecretRef                `yaml:"pullSecretRef"`
	ClusterImageSetNameRef string                       `yaml:"clusterImageSetNameRef"`
	BaseDomain             string                       `yaml:"baseDomain"`
	SSHPublicKey           string                       `yaml:"sshPublicKey"`
	ApiVIPs                []string                     `yaml:"apiVIPs"`
	IngressVIPs            []string                     `yaml:"ingressVIPs"`
	HoldInstallation       bool                         `yaml:"holdInstallation"`
	AdditionalNTPSources   []string                     `yaml:"additionalNTPSources"`
	MachineNetwork         []MachineNetworkEntry        `yaml:"machineNetwork"`
	ClusterNetwork         []ClusterNetworkEntry        `yaml:"clusterNetwork"`
	ServiceNetwork         []ServiceNetworkEntry        `yaml:"serviceNetwork"`
	NetworkType            string                       `yaml:"networkType"`
	PlatformType           string                       `yaml:"platformType"`
	ExtraAnnotations       map[string]map[string]string `yaml:"extraAnnotations"`
	ExtraLabels            map[string]map[string]string `yaml:"extraLabels"`
	InstallConfigOverrides string                       `yaml:"installConfigOverrides"`
	IgnitionConfigOverride string                       `yaml:"ignitionConfigOverride"`
	DiskEncryption         *CIDiskEncryption            `yaml:"diskEncryption"`
	Proxy                  *ProxySettings               `yaml:"proxy"`
	ExtraManifestsRefs     []LocalRef                   `yaml:"extraManifestsRefs"`
	SuppressedManifests    []string                     `yaml:"suppressedManifests"`
	PruneManifests         []ResourceRef                `yaml:"pruneManifests"`
	CPUPartitioning        CPUPartitioningMode          `yaml:"cpuPartitioningMode"`
	CPUArchitecture        string                       `yaml:"cpuArchitecture"`
	ClusterType            string                       `yaml:"clusterType"`
	TemplateRefs           []TemplateRef                `yaml:"templateRefs"`
	CaBundleRef            *LocalRef                    `yaml:"caBundleRef"`
	Nodes                  []NodeSpec                   `yaml:"nodes"`
	Reinstall              *ReinstallSpec               `yaml:"reinstall"`
}

// MachineNetworkEntry is one machine network.
type MachineNetworkEntry struct {
	CIDR string `yaml:"cidr"`
}

// ClusterNetworkEntry is one pod network.
type ClusterNetworkEntry struct {
	CIDR       string `yaml:"cidr"`
	HostPrefix int    `yaml:"hostPrefix"`
}

// ServiceNetworkEntry is one service network.
type ServiceNetworkEntry struct {
	CIDR string `yaml:"cidr"`
}

// LocalRef names an object in the ClusterInstance's namespace.
type LocalRef struct {
	Name string `yaml:"name"`
}

// TemplateRef names a template ConfigMap.
type TemplateRef struct {
	Name      string `yaml:"name"`
	Namespace string `yaml:"namespace"`
}

// ResourceRef names a kind to prune.
type ResourceRef struct {
	APIVersion string `yaml:"apiVersion"`
	Kind       string `yaml:"kind"`
}

// ReinstallSpec requests a reinstall; never valid at creation.
type ReinstallSpec struct {
	Generation       string `yaml:"generation"`
	PreservationMode string `yaml:"preservationMode"`
}

// CIDiskEncryption is accepted and not used by the default templates.
type CIDiskEncryption struct {
	Type string       `yaml:"type"`
	Tang []TangConfig `yaml:"tang"`
}

// HostRef points at a BareMetalHost in another namespace.
type HostRef struct {
	Name      string `yaml:"name"`
	Namespace string `yaml:"namespace"`
}

// NodeSpec is one host.
type NodeSpec struct {
	HostName               string                       `yaml:"hostName"`
	BmcAddress             string                       `yaml:"bmcAddress"`
	BmcCredentialsName     BmcCredentialsName           `yaml:"bmcCredentialsName"`
	BootMACAddress         string                       `yaml:"bootMACAddress"`
	TemplateRefs           []TemplateRef                `yaml:"templateRefs"`
	Role                   string                       `yaml:"role"`
	AutomatedCleaningMode  string                       `yaml:"automatedCleaningMode"`
	BootMode               string                       `yaml:"bootMode"`
	RootDeviceHints        map[string]any               `yaml:"rootDeviceHints"`
	NodeNetwork            *NodeNetwork                 `yaml:"nodeNetwork"`
	NodeLabels             map[string]string            `yaml:"nodeLabels"`
	HostRef                *HostRef                     `yaml:"hostRef"`
	CPUArchitecture        string                       `yaml:"cpuArchitecture"`
	InstallerArgs          string                       `yaml:"installerArgs"`
	IgnitionConfigOverride string                       `yaml:"ignitionConfigOverride"`
	IronicInspect          string                       `yaml:"ironicInspect"`
	ExtraAnnotations       map[string]map[string]string `yaml:"extraAnnotations"`
	ExtraLabels            map[string]map[string]string `yaml:"extraLabels"`
	SuppressedManifests    []string                     `yaml:"suppressedManifests"`
	PruneManifests         []ResourceRef                `yaml:"pruneManifests"`
}
