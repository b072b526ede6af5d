package assisted

import "time"

// Stage is a host installation stage (models/host_stage.go).
type Stage string

const (
	StageStartingInstallation  Stage = "Starting installation"
	StageWaitingForControlPlan Stage = "Waiting for control plane"
	StageWaitingForBootkube    Stage = "Waiting for bootkube"
	StageWaitingForController  Stage = "Waiting for controller"
	StageInstalling            Stage = "Installing"
	StageWritingImageToDisk    Stage = "Writing image to disk"
	StageCopyingRegistryData   Stage = "Copying registry data to disk"
	StageRebooting             Stage = "Rebooting"
	StageWaitingForIgnition    Stage = "Waiting for ignition"
	StageConfiguring           Stage = "Configuring"
	StageJoined                Stage = "Joined"
	StageDone                  Stage = "Done"
	StageFailed                Stage = "Failed"
)

// AllStages lists every stage name, for parsing user input.
var AllStages = []Stage{
	StageStartingInstallation, StageWaitingForControlPlan, StageWaitingForBootkube,
	StageWaitingForController, StageInstalling, StageWritingImageToDisk,
	StageCopyingRegistryData, StageRebooting, StageWaitingForIgnition,
	StageConfiguring, StageJoined, StageDone, StageFailed,
}

// progressTimed reports whether the stage's timeout measures lack of
// progress rather than total time (internal/host/common.go).
func (s Stage) progressTimed() bool {
	return s == StageWritingImageToDisk || s == StageCopyingRegistryData
}

// Per-role stage lists (internal/host/common.go).
var (
	StagesBootstrap = []Stage{StageStartingInstallation, StageInstalling, StageWritingImageToDisk,
		StageCopyingRegistryData, StageWaitingForControlPlan, StageWaitingForBootkube,
		StageWaitingForController, StageRebooting, StageConfiguring, StageJoined, StageDone}
	StagesMaster = []Stage{StageStartingInstallation, StageInstalling, StageWritingImageToDisk,
		StageCopyingRegistryData, StageRebooting, StageConfiguring, StageJoined, StageDone}
	StagesWorker = []Stage{StageStartingInstallation, StageInstalling, StageWritingImageToDisk,
		StageWaitingForControlPlan, StageRebooting, StageWaitingForIgnition, StageConfiguring,
		StageJoined, StageDone}
	StagesSNO = []Stage{StageStartingInstallation, StageInstalling, StageWaitingForBootkube,
		StageWritingImageToDisk, StageCopyingRegistryData, StageRebooting, StageJoined, StageDone}
)

// StagesFor returns the stage list of a host: masters and arbiters share a
// list, the bootstrap has its own, the bootstrap of a single-node cluster
// the SNO list, workers theirs. A day-2 host follows its role too: a day-2
// master gets the master list (internal/host/common.go FindMatchingStages).
func StagesFor(role Role, bootstrap, sno bool) []Stage {
	switch {
	case bootstrap && sno:
		return StagesSNO
	case bootstrap:
		return StagesBootstrap
	case role == RoleMaster || role == RoleArbiter:
		return StagesMaster
	default:
		return StagesWorker
	}
}

// StageIndex is the position of a stage in a list, -1 when absent.
func StageIndex(stages []Stage, s Stage) int {
	for i, x := range stages {
		if x == s {
			return i
		}
	}
	return -1
}

// HostPercent is a host's installation percentage:
// (index of the current stage + 1) / len(stages) × 100, truncated (internal/host/common.go).
func HostPercent(stages []Stage, current Stage) int {
	i := StageIndex(stages, current)
	if i < 0 || len(stages) == 0 {
		return 0
	}
	return (i + 1) * 100 / len(stages)
}

// Stage timeouts (internal/host/config.go, with the operator's
// 90 min for Waiting for control plane).
var stageTimeouts = map[Stage]time.Duration{
	StageStartingInstallation:  30 * time.Minute,
	StageWaitingForControlPlan: 90 * time.Minute,
	StageWaitingForController:  60 * time.Minute,
	StageWaitingForBootkube:    60 * time.Minute,
	StageInstalling:            60 * time.Minute,
	StageJoined:                60 * time.Minute,
	StageWritingImageToDisk:    30 * time.Minute,
	StageCopyingRegistryData:   90 * time.Minute,
	StageRebooting:             40 * time.Minute,
	StageConfiguring:           60 * time.Minute,
	StageWaitingForIgnition:    24 * time.Hour,
}

// DefaultStageTimeout applies to stages the table does not list.
const DefaultStageTimeout = 60 * time.Minute

// RebootingTimeoutSNO is the Rebooting timeout of a single-node cluster.
const RebootingTimeoutSNO = 80 * time.Minute

// StageTimeout returns how long a host may stay in a stage.
func StageTimeout(s Stage, sno bool) time.Duration {
	if s == StageRebooting && sno {
		return RebootingTimeoutSNO
	}
	if d, ok := stageTimeouts[s]; ok {
		return d
	}
	return DefaultStageTimeout
}

// Cluster progress weights (internal/common/db.go).
const (
	WeightPreparing  = 0.10
	WeightInstalling = 0.70
	WeightFinalizing = 0.15
	// MaxTotalBeforeInstalled caps the total until the cluster is installed.
	MaxTotalBeforeInstalled = 95
)

// HostStages is one host as the installing-stage percentage sees it.
type HostStages struct {
	Stages  []Stage
	Current Stage // "" when the host has reported no stage
}

// InstallingPercent is Σ(current index + 1) / Σ len(stages) × 100,
// truncated; a host with no stage contributes 0 (internal/host/common.go).
func InstallingPercent(hosts []HostStages) int {
	done, total := 0, 0
	for _, h := range hosts {
		total += len(h.Stages)
		done += StageIndex(h.Stages, h.Current) + 1
	}
	if total == 0 {
		return 0
	}
	return done * 100 / total
}

// FinalizingPercent is operators done / monitored operators × 100.
func FinalizingPercent(done, monitored int) int {
	if monitored == 0 {
		return 0
	}
	return done * 100 / monitored
}

// TotalPercent combines the three stage percentages, truncating each
// weighted term, capped at 95 until installed (internal/host/common.go).
func TotalPercent(prep, installing, finalizing int) int {
	t := int(WeightPreparing*float64(prep)) + int(WeightInstalling*float64(installing)) + int(WeightFinalizing*float64(finalizing))
	return min(t, MaxTotalBeforeInstalled)
}

// Timeouts of the state machines (internal/host/statemachine.go, internal/cluster/statemachine.go).
const (
	HostMonitorInterval         = 8 * time.Second
	ClusterMonitorInterval      = 10 * time.Second
	AgentPollInterval           = 60 * time.Second
	HostMaxDisconnection        = 3 * time.Minute
	BootstrapMaxDisconnection   = 5 * time.Minute
	HostPrepareTimeout          = 8 * time.Minute
	ClusterPrepareTimeout       = 10 * time.Minute
	HostInstallationTimeout     = 20 * time.Minute
	PendingUserActionTimeout    = 60 * time.Minute
	ClusterInstallationTimeout  = 24 * time.Hour
	FinalizingTimeout           = 5 * time.Hour
	ReclaimTimeout              = 60 * time.Minute
	ResetTimeout                = 3 * time.Minute
	InfraEnvImageCooldownPeriod = 60 * time.Second
	ACIDeletionRequeue          = 10 * time.Second
)

// In reports whether s is one of the given stages.
func (s Stage) In(set ...Stage) bool {
	for _, x := range set {
		if s == x {
			return true
		}
	}
	return false
}
