package assisted

import "fmt"

// ClusterStatus is an assisted-service cluster status (models/cluster.go).
type ClusterStatus string

// Cluster statuses (models/cluster.go).
const (
	ClusterPendingForInput             ClusterStatus = "pending-for-input"
	ClusterInsufficient                ClusterStatus = "insufficient"
	ClusterReady                       ClusterStatus = "ready"
	ClusterPreparingForInstallation    ClusterStatus = "preparing-for-installation"
	ClusterInstalling                  ClusterStatus = "installing"
	ClusterInstallingPendingUserAction ClusterStatus = "installing-pending-user-action"
	ClusterFinalizing                  ClusterStatus = "finalizing"
	ClusterInstalled                   ClusterStatus = "installed"
	ClusterAddingHosts                 ClusterStatus = "adding-hosts"
	ClusterCancelled                   ClusterStatus = "cancelled"
	ClusterError                       ClusterStatus = "error"
	ClusterUnmonitored                 ClusterStatus = "unmonitored"
)

// In reports whether s is one of the given statuses.
func (s ClusterStatus) In(set ...ClusterStatus) bool {
	for _, x := range set {
		if s == x {
			return true
		}
	}
	return false
}

// ClusterKind is the kind of a backend cluster (internal/controller/controllers/clusterdeployments_controller.go).
type ClusterKind string

const (
	KindCluster         ClusterKind = "Cluster"
	KindAddHostsCluster ClusterKind = "AddHostsCluster"
)

// Cluster status-info texts (internal/cluster/common.go).
const (
	ClusterInfoReady                    = "Cluster ready to be installed"
	ClusterInfoInsufficient             = "Cluster is not ready for install"
	ClusterInfoPendingForInput          = "User input required"
	ClusterInfoPreparing                = "Preparing cluster for installation"
	ClusterInfoPreparingTimeout         = "Preparing cluster for installation timeout"
	ClusterInfoHostStoppedPreparing     = "At least one host has stopped preparing for installation"
	ClusterInfoPreparationFailed        = "Cluster failed to prepare for installation"
	ClusterInfoInstalling               = "Installation in progress"
	ClusterInfoFinalizing               = "Finalizing cluster installation"
	ClusterInfoPendingUserAction        = "Cluster has hosts pending user action"
	ClusterInfoHostsInError             = "cluster has hosts in error"
	ClusterInfoPendingUserActionTimeout = "cluster installation timed out while pending user action (a manual booting from installation disk)"
	ClusterInfoFinalizingTimeout        = "Cluster installation timeout while finalizing"
	ClusterInfoInstalled                = "Cluster is installed"
	ClusterInfoInstalledDegraded        = "Cluster is installed but degraded"
	ClusterInfoWorkersNotJoined         = "Cluster is installed but some workers did not join"
	ClusterInfoAddingHosts              = "cluster is adding hosts to existing OCP cluster"
	ClusterInfoCancelled                = "Installation was cancelled"
)

// ClusterInfoInstallTimeout is the error text after the 24 h installation
// timeout.
func ClusterInfoInstallTimeout(minutes int) string {
	return fmt.Sprintf("cluster installation timeout (%d minutes) has expired", minutes)
}

// ClusterInfoFinalizingStageTimeout is the error text of a finalizing stage
// that timed out.
func ClusterInfoFinalizingStageTimeout(stage FinalizingStage, minutes int) string {
	return fmt.Sprintf("Cluster finalizing stage '%s' has been timed out after timeout duration of %d minutes", stage, minutes)
}

// ClusterInfoFinalizingStageSlow is the status info of a finalizing stage
// past its soft timeout.
func ClusterInfoFinalizingStageSlow(stage FinalizingStage, minutes int) string {
	return fmt.Sprintf("Cluster finalizing stage '%s' is taking longer than the expected duration (%d minutes). To troubleshoot use kubeconfig or connect to any node using ssh", stage, minutes)
}

// Installation preparation results (internal/cluster/statemachine.go, internal/controller/controllers/clusterdeployments_controller.go: LastInstallationPreparation).
const (
	PrepNotStarted = "not_started"
	PrepSuccess    = "success"
	PrepFailed     = "failed"

	PrepReasonNotPerformed = "Installation preparation not performed"
	PrepReasonSuccess      = "Installation preparation successful"
	PrepReasonTimeout      = "Installation failed. Try again, and contact support if the issue persists."
)

// FinalizingStage is a stage of a finalizing cluster (internal/cluster/statemachine.go,
// models/finalizing_stage.go).
type FinalizingStage string

const (
	FinalizingWaitingForClusterOperators FinalizingStage = "Waiting for cluster operators"
	FinalizingAddingRouterCA             FinalizingStage = "Adding router ca"
	FinalizingApplyingOLMManifests       FinalizingStage = "Applying olm manifests"
	FinalizingWaitingForCSVInit          FinalizingStage = "Waiting for olm operators csv initialization"
	FinalizingWaitingForCSV              FinalizingStage = "Waiting for olm operators csv"
	FinalizingWaitingForSetupJobs        FinalizingStage = "Waiting for OLM operator setup jobs"
	FinalizingDone                       FinalizingStage = "Done"
)

// FinalizingStageSpec is one finalizing stage with its timeouts.
type FinalizingStageSpec struct {
	Stage FinalizingStage
	// Hard is the timeout that fails the cluster (when Failing); Soft only
	// raises an event and changes the status info.
	Hard, Soft int // minutes
	Failing    bool
}

// FinalizingStages lists the finalizing stages in order (internal/cluster/statemachine.go,
// internal/cluster/finalizing_stages.go).
var FinalizingStages = []FinalizingStageSpec{
	{FinalizingWaitingForClusterOperators, 600, 70, true},
	{FinalizingAddingRouterCA, 70, 70, true},
	{FinalizingApplyingOLMManifests, 10, 10, false},
	{FinalizingWaitingForCSVInit, 70, 70, false},
	{FinalizingWaitingForCSV, 70, 70, false},
	{FinalizingWaitingForSetupJobs, 10, 10, true},
	{FinalizingDone, 70, 70, true},
}

// Builtin monitored operators (internal/cluster/statemachine.go installed criteria).
const (
	OperatorCVO     = "cvo"
	OperatorConsole = "console"
)

// BuiltinOperators are the operators every cluster monitors.
var BuiltinOperators = []string{OperatorConsole, OperatorCVO}
