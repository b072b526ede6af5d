package sites

// The SiteConfig input types. Their Go field names are part of the input
// format, not an implementation detail: crTemplates address values as
// "{{ .Cluster.ClusterName }}" and extra-manifest templates as "{{ .Data.Nodes }}",
// both by the upstream generator's Go field names
// (openshift-kni/cnf-features-deploy ztp/siteconfig-generator/siteConfig/
// siteConfig.go). Keep them; the yaml tags are the file format.

// SiteConfig is one SiteConfig document (ran.openshift.io/v1 or /v2).
type SiteConfig struct {
	ApiVersion string   `yaml:"apiVersion"`
	Kind       string   `yaml:"kind"`
	Metadata   Metadata `yaml:"metadata"`
	Spec       Spec     `yaml:"spec"`
}

// Metadata is the SiteConfig's own metadata. Only Name is used: it groups
// the output and names the site in messages.
type Metadata struct {
	Name        string            `yaml:"name"`
	Namespace   string            `yaml:"namespace"`
	Labels      map[string]string `yaml:"labels"`
	Annotations map[string]string `yaml:"annotations"`
}

// Spec holds the site-level settings shared by every cluster of the file.
type Spec struct {
	PullSecretRef          PullSecretRef          `yaml:"pullSecretRef"`
	ClusterImageSetNameRef string                 `yaml:"clusterImageSetNameRef"`
	SshPublicKey           string                 `yaml:"sshPublicKey"`
	SshPrivateKeySecretRef SshPrivateKeySecretRef `yaml:"sshPrivateKeySecretRef"`
	Clusters               []Clusters             `yaml:"clusters"`
	BaseDomain             string                 `yaml:"baseDomain"`
	CrTemplates            map[string]string      `yaml:"crTemplates"`
	CrAnnotations          CrAnnotations          `yaml:"crAnnotations"`
	BiosConfigRef          BiosConfigRef          `yaml:"biosConfigRef"`
}

// PullSecretRef names the pull-secret Secret; the Secret itself is never read.
type PullSecretRef struct {
	Name string `yaml:"name"`
}

// SshPrivateKeySecretRef is accepted for compatibility and not rendered.
type SshPrivateKeySecretRef struct {
	Name string `yaml:"name"`
}

// CrAnnotations adds annotations per kind. The first level (node, cluster,
// site) that names a kind wins as a whole (the generator's CrAnnotationSearch).
type CrAnnotations struct {
	Add map[string]map[string]string `yaml:"add"`
}

// BiosConfigRef points at a flat YAML map of BIOS settings.
type BiosConfigRef struct {
	FilePath string `yaml:"filePath"`
}

// Filter selects extra-manifest files by name (the generator's
// filterExtraManifests).
type Filter struct {
	InclusionDefault *string  `yaml:"inclusionDefault"`
	Exclude          []string `yaml:"exclude"`
	Include          []string `yaml:"include"`
}

// ExtraManifests replaces the default extra-manifest directory.
type ExtraManifests struct {
	SearchPaths *[]string `yaml:"searchPaths"`
	Filter      *Filter   `yaml:"filter"`
}

// Clusters is one cluster of a SiteConfig: one site.
type Clusters struct {
	ApiVIP                     string              `yaml:"apiVIP"`
	IngressVIP                 string              `yaml:"ingressVIP"`
	ApiVIPs                    []string            `yaml:"apiVIPs"`
	IngressVIPs                []string            `yaml:"ingressVIPs"`
	ClusterName                string              `yaml:"clusterName"`
	HoldInstallation           bool                `yaml:"holdInstallation"`
	AdditionalNTPSources       []string            `yaml:"additionalNTPSources"`
	Nodes                      []Nodes             `yaml:"nodes"`
	MachineNetwork             []MachineNetwork    `yaml:"machineNetwork"`
	ServiceNetwork             []string            `yaml:"serviceNetwork"`
	ClusterLabels              map[string]string   `yaml:"clusterLabels"`
	NetworkType                string              `yaml:"networkType"`
	InstallConfigOverrides     string              `yaml:"installConfigOverrides"`
	ClusterNetwork             []ClusterNetwork    `yaml:"clusterNetwork"`
	IgnitionConfigOverride     string              `yaml:"ignitionConfigOverride"`
	DiskEncryption             DiskEncryption      `yaml:"diskEncryption"`
	ProxySettings              ProxySettings       `yaml:"proxy"`
	ExtraManifestPath          string              `yaml:"extraManifestPath"`
	ClusterImageSetNameRef     string              `yaml:"clusterImageSetNameRef"`
	BiosConfigRef              BiosConfigRef       `yaml:"biosConfigRef"`
	ExtraManifests             ExtraManifests      `yaml:"extraManifests"`
	CPUPartitioning            CPUPartitioningMode `yaml:"cpuPartitioningMode"`
	SiteConfigMap              *SiteConfigMap      `yaml:"siteConfigMap"`
	CrTemplates                map[string]string   `yaml:"crTemplates"`
	CrAnnotations              CrAnnotations       `yaml:"crAnnotations"`
	CrSuppression              []string            `yaml:"crSuppression"`
	MergeDefaultMachineConfigs bool                `yaml:"mergeDefaultMachineConfigs"`

	// Derived at load time, never read from the file (upstream recomputes
	// them too, so "numMasters: 1" in a file has no effect).
	NumMasters             uint8                         `yaml:"-"`
	NumWorkers             uint8                         `yaml:"-"`
	ClusterType            string                        `yaml:"-"`
	ExtraManifestOnly      bool                          `yaml:"-"`
	ManifestsConfigMapRefs []ManifestsConfigMapReference `yaml:"-"`
}

// CPUPartitioningMode is None or AllNodes.
type CPUPartitioningMode string

// ManifestsConfigMapReference names a ConfigMap of install manifests.
type ManifestsConfigMapReference struct {
	Name string `json:"name"`
}

// DiskEncryption is template data for disk-encryption extra manifests.
type DiskEncryption struct {
	Type string       `yaml:"type"`
	Tang []TangConfig `yaml:"tang"`
	Tpm2 Tpm2Config   `yaml:"tpm2"`
}

// TangConfig is one Tang server.
type TangConfig struct {
	URL        string `yaml:"url" json:"url"`
	Thumbprint string `yaml:"thumbprint" json:"thp"`
}

// Tpm2Config selects the PCRs a TPM2 binding uses.
type Tpm2Config struct {
	PCRList string `yaml:"pcrList"`
}

// ProxySettings is the cluster-wide proxy.
type ProxySettings struct {
	HttpProxy  string `yaml:"httpProxy,omitempty" json:"httpProxy,omitempty"`
	HttpsProxy string `yaml:"httpsProxy,omitempty" json:"httpsProxy,omitempty"`
	NoProxy    string `yaml:"noProxy,omitempty" json:"noProxy,omitempty"`
}

// DiskPartition is an SNO data partition, template data only.
type DiskPartition struct {
	Device     string       `yaml:"device"`
	Partitions []Partitions `yaml:"partitions"`
}

// Partitions is one partition. Label and MountFileName are derived.
type Partitions struct {
	MountPoint       string `yaml:"mount_point"`
	Size             int    `yaml:"size"`
	Start            int    `yaml:"start"`
	FileSystemFormat string `yaml:"file_system_format"`
	MountFileName    string `yaml:"-"`
	Label            string `yaml:"-"`
	Encryption       bool   `yaml:"-"`
}

// Nodes is one host of a cluster.
type Nodes struct {
	BmcAddress             string             `yaml:"bmcAddress"`
	BootMACAddress         string             `yaml:"bootMACAddress"`
	AutomatedCleaningMode  string             `yaml:"automatedCleaningMode"`
	RootDeviceHints        map[string]any     `yaml:"rootDeviceHints"`
	Cpuset                 string             `yaml:"cpuset"`
	NodeNetwork            NodeNetwork        `yaml:"nodeNetwork"`
	NodeLabels             map[string]string  `yaml:"nodeLabels"`
	HostName               string             `yaml:"hostName"`
	BmcCredentialsName     BmcCredentialsName `yaml:"bmcCredentialsName"`
	BootMode               string             `yaml:"bootMode"`
	UserData               map[string]any     `yaml:"userData"`
	InstallerArgs          string             `yaml:"installerArgs"`
	IgnitionConfigOverride string             `yaml:"ignitionConfigOverride"`
	Role                   string             `yaml:"role"`
	CrTemplates            map[string]string  `yaml:"crTemplates"`
	CrAnnotations          CrAnnotations      `yaml:"crAnnotations"`
	CrSuppression          []string           `yaml:"crSuppression"`
	BiosConfigRef          BiosConfigRef      `yaml:"biosConfigRef"`
	DiskPartition          []DiskPartition    `yaml:"diskPartition"`
	IronicInspect          string             `yaml:"ironicInspect"`
}

// MachineNetwork is one machine network CIDR.
type MachineNetwork struct {
	Cidr string `yaml:"cidr" json:"cidr"`
}

// ClusterNetwork is one pod network CIDR with its per-node prefix.
type ClusterNetwork struct {
	Cidr       string `yaml:"cidr" json:"cidr"`
	HostPrefix int    `yaml:"hostPrefix" json:"hostPrefix,omitempty"`
}

// NodeNetwork is the host's static network: an nmstate document plus the
// interface-name to MAC mapping the discovery image needs.
type NodeNetwork struct {
	Config     map[string]any `yaml:"config"`
	Interfaces []Interfaces   `yaml:"interfaces"`
}

// BmcCredentialsName names the BMC credentials Secret; never read.
type BmcCredentialsName struct {
	Name string `yaml:"name"`
}

// Interfaces maps an interface name to its MAC address.
type Interfaces struct {
	Name       string `yaml:"name" json:"name"`
	MacAddress string `yaml:"macAddress" json:"macAddress"`
}

// SiteConfigMap is the v2 site ConfigMap.
type SiteConfigMap struct {
	Name      string            `yaml:"name"`
	Namespace string            `yaml:"namespace"`
	Data      map[string]string `yaml:"data"`
}
