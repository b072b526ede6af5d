package sites

// Defaults and fixed vocabularies of the SiteConfig format, each as the
// upstream generator applies it: the UnmarshalYAML methods of Clusters, Nodes,
// DiskEncryption, Partitions and SiteConfigMap in
// openshift-kni/cnf-features-deploy
// ztp/siteconfig-generator/siteConfig/siteConfig.go. A default is applied
// before a document's keys are read, so an explicit value, even an empty one,
// wins, exactly as with the generator.
const (
	DefaultNetworkType           = "OVNKubernetes" // clusters[].networkType
	DefaultBootMode              = "UEFI"          // nodes[].bootMode
	DefaultRole                  = "master"        // nodes[].role
	DefaultIronicInspect         = "enabled"       // nodes[].ironicInspect (the CRD's "disabled" is wrong)
	DefaultAutomatedCleaningMode = "disabled"      // nodes[].automatedCleaningMode
	DefaultDiskEncryptionType    = "none"          // clusters[].diskEncryption.type
	DefaultSiteConfigMapNS       = "ztp-site"      // clusters[].siteConfigMap.namespace
	DefaultFileSystemFormat      = "xfs"           // diskPartition[].partitions[].file_system_format

	CPUPartitioningNone     CPUPartitioningMode = "None"     // clusters[].cpuPartitioningMode
	CPUPartitioningAllNodes CPUPartitioningMode = "AllNodes" // clusters[].cpuPartitioningMode

	RoleMaster = "master" // a node with role "" or "master" is a control-plane node

	ClusterTypeSNO      = "sno"      // exactly one master
	ClusterTypeStandard = "standard" // anything else

	// MinPartitionStart is the smallest diskPartition start, in MiB: below
	// it the root partition is too small to install
	// (Partitions.UnmarshalYAML).
	MinPartitionStart = 25000
)

// ignoredFields are keys that upstream accepts without effect. They are
// reported as warnings with the reason instead of a did-you-mean hint.
var ignoredFields = map[string]string{
	"clusterType":       "the cluster type is derived from the number of master nodes",
	"numMasters":        "the number of masters is counted from the nodes' roles",
	"numWorkers":        "the number of workers is counted from the nodes' roles",
	"extraManifestOnly": "use the CLI to render extra manifests only",
	"hardwareProfile":   "listed by the SiteConfig CRD but never used by the generator",
	"manifestsConfig":   "listed by the SiteConfig CRD but never used by the generator",
	"baseDomain":        "a cluster's base domain is spec.baseDomain; the per-cluster key is never used",
}

// Kinds a crTemplates entry may override, per level (areAllOverridesValid in
// siteConfig.go).
var (
	crTemplateClusterKinds = []string{
		"Namespace", "AgentClusterInstall", "ClusterDeployment", "NMStateConfig", "InfraEnv",
		"BareMetalHost", "HostFirmwareSettings", "ConfigMap", "ManagedCluster", "KlusterletAddonConfig",
	}
	crTemplateNodeKinds = []string{"BareMetalHost", "NMStateConfig", "HostFirmwareSettings"}
)

func (c *Clusters) setDefaults() { c.NetworkType = DefaultNetworkType }

func (n *Nodes) setDefaults() {
	n.BootMode = DefaultBootMode
	n.Role = DefaultRole
	n.IronicInspect = DefaultIronicInspect
	n.AutomatedCleaningMode = DefaultAutomatedCleaningMode
}

func (e *DiskEncryption) setDefaults() { e.Type = DefaultDiskEncryptionType }

func (m *SiteConfigMap) setDefaults() { m.Namespace = DefaultSiteConfigMapNS }
