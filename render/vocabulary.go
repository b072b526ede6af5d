package render

import (
	"slices"
	"strconv"

	corev1 "k8s.io/api/core/v1"

	"github.com/siteops/siteops/sites"
)

// The annotations, labels and sync waves of the rendered resources, as the
// upstream SiteConfig generator writes them (clusterCRsV1.go, clusterCRsV2.go
// and siteConfigHelper.go in openshift-kni/cnf-features-deploy
// ztp/siteconfig-generator/siteConfig).
const (
	// AnnotationZTPGenerated marks every generated object and every object
	// inside the extra-manifest ConfigMap.
	AnnotationZTPGenerated      = "ran.openshift.io/ztp-gitops-generated"
	AnnotationZTPGeneratedValue = "{}"

	AnnotationSyncWave               = "argocd.argoproj.io/sync-wave"
	AnnotationInstallConfigOverrides = "agent-install.openshift.io/install-config-overrides"

	AnnotationBMACHostname         = "bmac.agent-install.openshift.io/hostname"
	AnnotationBMACRole             = "bmac.agent-install.openshift.io/role"
	AnnotationBMACInstallerArgs    = "bmac.agent-install.openshift.io/installer-args"
	AnnotationBMACIgnitionOverride = "bmac.agent-install.openshift.io/ignition-config-overrides"
	// AnnotationBMACNodeLabelPrefix is joined to the label key with a dot.
	AnnotationBMACNodeLabelPrefix = "bmac.agent-install.openshift.io.node-label."
	AnnotationInspect             = "inspect.metal3.io"
	InspectDisabled               = "disabled"

	AnnotationDeprecatedCpuset            = "ran.openshift.io/ztp-warning-field-deprecation-cpuset"
	DeprecatedCpusetMessage               = "cpuset will be deprecated after OCP 4.15, please use cpuPartitioningMode for OCP versions >= 4.14"
	AnnotationDeprecatedExtraManifestPath = "ran.openshift.io/ztp-warning-field-deprecation-extraManifestPath"
	DeprecatedExtraManifestPathMessage    = "extraManifestPath will be deprecated after OCP 4.15, please use ExtraManifests.SearchPaths for OCP versions >= 4.14"

	LabelNamespaceName   = "name"
	LabelNMState         = "nmstate-label"
	LabelInfraEnv        = "infraenvs.agent-install.openshift.io"
	LabelAgentCluster    = "cluster-name"
	LabelMCRole          = "machineconfiguration.openshift.io/role"
	LabelVendor          = "vendor"
	LabelCloud           = "cloud"
	LabelValueAutoDetect = "auto-detect"
)

// The ClusterInstance operator's vocabulary (stolostron/siteconfig
// internal/templates/assisted-installer/template.go).
const (
	// AnnotationCISyncWave orders objects for the SiteConfig operator
	// (missing = 0).
	AnnotationCISyncWave = "siteconfig.open-cluster-management.io/sync-wave"
	// LabelCIOwnedBy marks objects rendered for a ClusterInstance, with
	// the value <namespace>_<name>.
	LabelCIOwnedBy = "siteconfig.open-cluster-management.io/owned-by"
	// LabelBackup marks BareMetalHosts for ACM backup and restore.
	LabelBackup      = "cluster.open-cluster-management.io/backup"
	LabelBackupValue = "cluster-activation"
	// CIArchitectureMulti is the cluster architecture that leaves the
	// node's own architecture unset.
	CIArchitectureMulti = "multi"
)

// ciWaves is the default AI template set's sync wave per kind.
var ciWaves = map[string]int{
	KindAgentClusterInstall:   1,
	KindClusterDeployment:     1,
	KindInfraEnv:              1,
	KindNMStateConfig:         1,
	KindManagedCluster:        2,
	KindKlusterletAddonConfig: 2,
	KindBareMetalHost:         3,
}

// Kinds rendered from a SiteConfig, with their API versions.
const (
	KindNamespace             = "Namespace"
	KindAgentClusterInstall   = "AgentClusterInstall"
	KindClusterDeployment     = "ClusterDeployment"
	KindNMStateConfig         = "NMStateConfig"
	KindInfraEnv              = "InfraEnv"
	KindBareMetalHost         = "BareMetalHost"
	KindHostFirmwareSettings  = "HostFirmwareSettings"
	KindConfigMap             = "ConfigMap"
	KindManagedCluster        = "ManagedCluster"
	KindKlusterletAddonConfig = "KlusterletAddonConfig"
	KindMachineConfig         = "MachineConfig"
)

// syncWaves is the default sync wave of each kind (the generator's
// clusterCRsV1.go). BareMetalHost is in wave 3 so that Argo CD deletes it
// before the InfraEnv and the Namespace (OCPBUGS-42945). The v2 site ConfigMap
// is in wave 2; see siteConfigMapWave.
var syncWaves = map[string]int{
	KindNamespace:             0,
	KindAgentClusterInstall:   1,
	KindClusterDeployment:     1,
	KindNMStateConfig:         1,
	KindInfraEnv:              1,
	KindBareMetalHost:         3,
	KindHostFirmwareSettings:  1,
	KindConfigMap:             1,
	KindManagedCluster:        2,
	KindKlusterletAddonConfig: 2,
}

const siteConfigMapWave = 2

// siteConfigMapNamePrefix names a v2 site ConfigMap that has data but no name:
// ztp-site-<clusterName> (the generator's clusterCRsV2.go).
const siteConfigMapNamePrefix = "ztp-site-"

// deprecation is a warning annotation the generator writes on every object of a
// kind when a cluster uses a deprecated field. It is written after crTemplates
// and crAnnotations, so an override keeps it and cannot replace it
// (getDeprecationWarnings in the generator's siteConfigHelper.go).
type deprecation struct {
	kind, annotation, message string
	// field is the path, in the cluster, of the first use of the
	// deprecated field; "" when the cluster does not use it.
	field func(c *sites.Clusters) string
}

// used reports whether the cluster uses the deprecated field.
func (d deprecation) used(c *sites.Clusters) bool { return d.field(c) != "" }

var deprecations = []deprecation{
	{KindAgentClusterInstall, AnnotationDeprecatedCpuset, DeprecatedCpusetMessage, func(c *sites.Clusters) string {
		if i := slices.IndexFunc(c.Nodes, func(n sites.Nodes) bool { return n.Cpuset != "" }); i >= 0 {
			return "nodes[" + strconv.Itoa(i) + "].cpuset"
		}
		return ""
	}},
	{KindConfigMap, AnnotationDeprecatedExtraManifestPath, DeprecatedExtraManifestPathMessage, func(c *sites.Clusters) string {
		if c.ExtraManifestPath != "" {
			return "extraManifestPath"
		}
		return ""
	}},
}

// kindOrder orders kinds within one sync wave the way Argo CD applies them:
// namespaces and built-in kinds first, custom resources after, by name
// (argoproj/gitops-engine pkg/sync/sync_tasks.go). Kinds not listed sort after
// these, alphabetically.
var kindOrder = []string{
	KindNamespace, "NetworkPolicy", "ResourceQuota", "LimitRange", "ServiceAccount", "Secret",
	KindConfigMap,
}

// credentialKinds are the kinds whose objects carry credentials in their
// fields, by apiVersion group ("" for the core group), with where the
// credentials are. An extra manifest is copied in clear text into a
// ConfigMap that everyone who can read the hub's namespace can read, so
// none of these may be one (Kubernetes k8s.io/api core/v1 types.go:
// Secret data and stringData; OpenShift openshift/api oauth/v1 types.go:
// OAuthClient secret).
var credentialKinds = map[string]string{
	"Secret":      "data and stringData",
	"OAuthClient": "secret",
}

// MaxConfigMapData is the most a ConfigMap's data (keys and values
// together) may hold: Kubernetes refuses a larger one (k8s.io/kubernetes
// pkg/apis/core/validation/validation.go ValidateConfigMap, the limit
// being k8s.io/api core/v1 MaxSecretSize, 1 MiB).
const MaxConfigMapData = corev1.MaxSecretSize
