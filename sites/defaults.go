package sites

// Defaults and fixed vocabularies of the SiteConfig format, each as the
// upstream generator applies it (siteconfig-v1.md §2.3, §2.4, §5.7). A
// default is applied before a document's keys are read, so an explicit value,
// even an empty one, wins, exactly as with the generator.
const (
	DefaultNetworkType           = "OVNKubernetes" // §2.3 networkType
	DefaultBootMode              = "UEFI"          // §2.4 bootMode
	DefaultRole                  = "master"        // §2.4 role
	DefaultIronicInspect         = "enabled"       // §2.4 ironicInspect (the CRD's "disabled" is wrong)
	DefaultAutomatedCleaningMode = "disabled"      // §2.4 automatedCleaningMode
	DefaultDiskEncryptionType    = "none"          // §2.3 diskEncryption.type
	DefaultSiteConfigMapNS       = "ztp-site"      // §2.3 siteConfigMap.namespace
	DefaultFileSystemFormat      = "xfs"           // §5.7 file_system_format

	CPUPartitioningNone     CPUPartitioningMode = "None"     // §2.3 cpuPartitioningMode
	CPUPartitioningAllNodes CPUPartitioningMode = "AllNodes" // §2.3 cpuPartitioningMode

	RoleMaster = "master" // a node with role "" or "master" is a control-plane node (§2.4)

	ClusterTypeSNO      = "sno"      // exactly one master (§5.9)
	ClusterTypeStandard = "standard" // anything else

	// MinPartitionStart is the smallest diskPartition start, in MiB: below it
	// the root partition is too small to install (§4 item 4).
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

// Kinds a crTemplates entry may override, per level (siteconfig-v1.md §5.3).
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
