package sim

import (
	"time"

	"github.com/siteops/siteops/engine/assisted"
)

// How long simulated work takes, in virtual time. These are the
// simulation's own choices, picked so that an installation takes about as
// long as on real hardware (a single-node site about 45 minutes from apply
// to installed); the timeouts the work is measured against are upstream
// facts and live in engine/assisted. Each host's durations are spread by a
// stable ±15 % (jitter).
var timing = struct {
	// Controllers react to a change of their objects this quickly.
	Reconcile time.Duration
	// InstallTrigger is how long a ready cluster waits for the
	// ClusterDeployment controller's next reconcile.
	InstallTrigger time.Duration
	// ImageGeneration is the time from an InfraEnv's registration to its
	// ISO being available.
	ImageGeneration time.Duration
	// BMHRegistering is the bare-metal operator checking the BMC.
	BMHRegistering time.Duration
	// BMHInspection is hardware inspection, skipped when BMAC disabled it.
	BMHInspection time.Duration
	// BMHPreparing is the operator's preparing step before available.
	BMHPreparing time.Duration
	// BMHProvisioning is attaching the ISO as virtual media and powering on.
	BMHProvisioning time.Duration
	// Boot is the host booting the discovery image up to the agent's
	// registration.
	Boot time.Duration
	// Inventory is the agent collecting and sending the inventory.
	Inventory time.Duration
	// Connectivity is the first connectivity report among a cluster's
	// hosts (majority groups, VIP verification).
	Connectivity time.Duration
	// PrepareChecks are the disk-speed and image-availability checks.
	PrepareChecks time.Duration
	// Manifests is the service generating manifests and ignition.
	Manifests time.Duration
	// InstallPickup is the agent picking up the install command.
	InstallPickup time.Duration
	// Stage is each installation stage's own work.
	Stage map[assisted.Stage]time.Duration
	// Day2 stage work is the same except where listed here.
	Day2Stage map[assisted.Stage]time.Duration
	// KubeconfigUpload, ConsoleAvailable and CVOAvailable count from the
	// start of finalizing.
	KubeconfigUpload time.Duration
	ConsoleAvailable time.Duration
	CVOAvailable     time.Duration
	// FinalizingStep is each finalizing stage after the operators.
	FinalizingStep time.Duration
	// Day2Conversion is Hive marking the ClusterDeployment installed and
	// the service converting the cluster to day 2.
	Day2Conversion time.Duration
	// Teardown is each step of a site's or a node's removal.
	Teardown time.Duration
	// Drain is draining a node before it is removed.
	Drain time.Duration
}{
	Reconcile:        1 * time.Second,
	InstallTrigger:   10 * time.Second,
	ImageGeneration:  5 * time.Second,
	BMHRegistering:   10 * time.Second,
	BMHInspection:    3 * time.Minute,
	BMHPreparing:     10 * time.Second,
	BMHProvisioning:  30 * time.Second,
	Boot:             150 * time.Second,
	Inventory:        20 * time.Second,
	Connectivity:     30 * time.Second,
	PrepareChecks:    45 * time.Second,
	Manifests:        30 * time.Second,
	InstallPickup:    30 * time.Second,
	KubeconfigUpload: 1 * time.Minute,
	ConsoleAvailable: 4 * time.Minute,
	CVOAvailable:     10 * time.Minute,
	FinalizingStep:   20 * time.Second,
	Day2Conversion:   30 * time.Second,
	Teardown:         5 * time.Second,
	Drain:            45 * time.Second,
	Stage: map[assisted.Stage]time.Duration{
		assisted.StageStartingInstallation:  20 * time.Second,
		assisted.StageInstalling:            40 * time.Second,
		assisted.StageWritingImageToDisk:    150 * time.Second,
		assisted.StageCopyingRegistryData:   0, // optional: skipped
		assisted.StageWaitingForControlPlan: 30 * time.Second,
		assisted.StageWaitingForBootkube:    8 * time.Minute,
		assisted.StageWaitingForController:  2 * time.Minute,
		assisted.StageRebooting:             3 * time.Minute,
		assisted.StageWaitingForIgnition:    1 * time.Minute,
		assisted.StageConfiguring:           4 * time.Minute,
		assisted.StageJoined:                5 * time.Minute,
	},
	Day2Stage: map[assisted.Stage]time.Duration{
		assisted.StageWaitingForControlPlan: 10 * time.Second,
		assisted.StageJoined:                2 * time.Minute,
	},
}

// snoBootkube is the single-node bootkube phase: the control plane comes up
// on the host itself before it writes the image.
const snoBootkube = 10 * time.Minute
