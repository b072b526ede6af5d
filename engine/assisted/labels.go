package assisted

import "github.com/siteops/siteops/render"

// Labels and annotations the controllers read and write (internal/controller/controllers/clusterdeployments_controller.go, internal/controller/controllers/bmh_agent_controller.go). The ones
// the renderer writes too come from render's vocabulary.
const (
	// LabelInfraEnv links a BareMetalHost and an Agent to their InfraEnv.
	LabelInfraEnv = render.LabelInfraEnv
	// LabelClusterDeploymentNamespace is set by the Agent controller.
	LabelClusterDeploymentNamespace = "agent-install.openshift.io/clusterdeployment-namespace"
	// LabelAgentBMH names the BareMetalHost an Agent belongs to (BMAC).
	LabelAgentBMH = "agent-install.openshift.io/bmh"
	// LabelBackup marks a BareMetalHost for ACM backup (BMAC).
	LabelBackup = "cluster.open-cluster-management.io/backup"
	// InventoryLabelPrefix prefixes the Agent's inventory labels.
	InventoryLabelPrefix = "inventory.agent-install.openshift.io/"
	// AnnotationInventoryVersion is set on every Agent.
	AnnotationInventoryVersion = "inventory.agent-install.openshift.io/version"

	AnnotationBMACRole             = render.AnnotationBMACRole
	AnnotationBMACHostname         = render.AnnotationBMACHostname
	AnnotationBMACInstallerArgs    = render.AnnotationBMACInstallerArgs
	AnnotationBMACIgnitionOverride = render.AnnotationBMACIgnitionOverride
	AnnotationBMACNodeLabelPrefix  = render.AnnotationBMACNodeLabelPrefix
	AnnotationBMACMCP              = "bmac.agent-install.openshift.io/machine-config-pool"
	AnnotationBMACClusterReference = "bmac.agent-install.openshift.io/cluster-reference"
	AnnotationBMACAgentLabelPrefix = "bmac.agent-install.openshift.io.agent-label."
	AnnotationBMACRemoveOnDelete   = "bmac.agent-install.openshift.io/remove-agent-and-node-on-delete"
	AnnotationInspect              = render.AnnotationInspect
	InspectDisabled                = render.InspectDisabled
	AnnotationHardwareDetails      = "inspect.metal3.io/hardwaredetails"
	AnnotationDetached             = "baremetalhost.metal3.io/detached"
	DetachedByAssisted             = "assisted-service-controller"
	// AnnotationReconcilePause on a ClusterDeployment stops the install
	// trigger (internal/controller/controllers/clusterdeployments_controller.go).
	AnnotationReconcilePause = "hive.openshift.io/reconcile-pause"
	// AnnotationInstallConfigOverrides carries install-config JSON on the
	// AgentClusterInstall (internal/installcfg/builder/builder.go).
	AnnotationInstallConfigOverrides = render.AnnotationInstallConfigOverrides
	AnnotationIgnoredHostValidations = "agent-install.openshift.io/ignored-host-validations"
	AnnotationIgnoredClusterValids   = "agent-install.openshift.io/ignored-cluster-validations"
	// AnnotationSkipSpokeCleanup keeps the Agent finalizer off the spoke.
	AnnotationSkipSpokeCleanup = "agent.agent-install.openshift.io/skip-spoke-cleanup"
	// The Agent annotations mirrored from the host (internal/controller/controllers/agent_controller.go updateAnnotations).
	AnnotationAgentState        = "agent.agent-install.openshift.io/state"
	AnnotationAgentRole         = "agent.agent-install.openshift.io/role"
	AnnotationAgentCurrentStage = "agent.agent-install.openshift.io/current-stage"
)

// BMH provisioning states (metal3 BareMetalHost status.provisioning.state).
const (
	BMHStateNone        = ""
	BMHStateRegistering = "registering"
	BMHStateInspecting  = "inspecting"
	// BMHStatePreparing comes between registering or inspecting and
	// available: the operator applies the firmware and RAID settings
	// (baremetal-operator pkg/provisioner, state "preparing").
	BMHStatePreparing      = "preparing"
	BMHStateAvailable      = "available"
	BMHStateProvisioning   = "provisioning"
	BMHStateProvisioned    = "provisioned"
	BMHStateDeprovisioning = "deprovisioning"
	BMHStateDeleting       = "deleting"
	BMHStateDetached       = "detached"
)

// Secret names and labels written at completion (internal/controller/controllers/clusterdeployments_controller.go).
const (
	SecretSuffixKubeconfig    = "-admin-kubeconfig"
	SecretSuffixAdminPassword = "-admin-password"
	LabelSecretCD             = "hive.openshift.io/cluster-deployment-name"
	LabelSecretType           = "hive.openshift.io/secret-type"
	SecretTypeKubeconfig      = "kubeconfig"
	SecretTypeKubeadminCreds  = "kubeadmincreds"
)
