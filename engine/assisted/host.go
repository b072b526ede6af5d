package assisted

import (
	"sort"
	"strings"
	"time"
)

// HostStatus is an assisted-service host status (models/host.go).
type HostStatus string

// Bound host statuses (models/host.go).
const (
	HostDiscovering                 HostStatus = "discovering"
	HostKnown                       HostStatus = "known"
	HostDisconnected                HostStatus = "disconnected"
	HostInsufficient                HostStatus = "insufficient"
	HostDisabled                    HostStatus = "disabled"
	HostPreparingForInstallation    HostStatus = "preparing-for-installation"
	HostPreparingFailed             HostStatus = "preparing-failed"
	HostPreparingSuccessful         HostStatus = "preparing-successful"
	HostPendingForInput             HostStatus = "pending-for-input"
	HostInstalling                  HostStatus = "installing"
	HostInstallingInProgress        HostStatus = "installing-in-progress"
	HostInstallingPendingUserAction HostStatus = "installing-pending-user-action"
	HostResetting                   HostStatus = "resetting"
	HostResettingPendingUserAction  HostStatus = "resetting-pending-user-action"
	HostInstalled                   HostStatus = "installed"
	HostError                       HostStatus = "error"
	HostAddedToExistingCluster      HostStatus = "added-to-existing-cluster"
	HostCancelled                   HostStatus = "cancelled"
	HostBinding                     HostStatus = "binding"
	HostUnbinding                   HostStatus = "unbinding"
	HostUnbindingPendingUserAction  HostStatus = "unbinding-pending-user-action"
	HostReclaiming                  HostStatus = "reclaiming"
	HostReclaimingRebooting         HostStatus = "reclaiming-rebooting"
)

// Unbound (late-binding pool) host statuses (models/host.go).
const (
	HostDiscoveringUnbound  HostStatus = "discovering-unbound"
	HostDisconnectedUnbound HostStatus = "disconnected-unbound"
	HostInsufficientUnbound HostStatus = "insufficient-unbound"
	HostKnownUnbound        HostStatus = "known-unbound"
	HostDisabledUnbound     HostStatus = "disabled-unbound"
)

// Unbound reports whether the status is one of a pool host.
func (s HostStatus) Unbound() bool { return strings.HasSuffix(string(s), "-unbound") }

// In reports whether s is one of the given statuses.
func (s HostStatus) In(set ...HostStatus) bool {
	for _, x := range set {
		if s == x {
			return true
		}
	}
	return false
}

// InstallingStatuses are the statuses of a host whose installation runs.
var InstallingStatuses = []HostStatus{HostInstalling, HostInstallingInProgress, HostInstallingPendingUserAction}

// PreparingStatuses are the statuses of a host preparing for installation.
var PreparingStatuses = []HostStatus{HostPreparingForInstallation, HostPreparingFailed, HostPreparingSuccessful}

// Host status-info texts (internal/host/common.go and transition.go).
// "$FAILING_VALIDATIONS" and the other placeholders are filled by the
// functions below.
const (
	InfoDiscovering               = "Waiting for host to send hardware details"
	InfoDisconnected              = "Host has stopped communicating with the installation service"
	InfoMediaDisconnected         = "Unable to read from the discovery media. It was either disconnected or poor network conditions prevented it from being read. Try using the minimal ISO option and be sure to keep the media connected until the installation is completed"
	infoInsufficientMinHW         = "Host does not meet the minimum hardware requirements: "
	infoPendingForInput           = "Waiting for user input: "
	infoNotReady                  = "Host cannot be installed due to following failing validation(s): "
	InfoKnown                     = "Host is ready to be installed"
	InfoPreparingSuccessful       = "Host finished successfully to prepare for installation"
	infoPreparingFailedImages     = "Host failed to prepare for installation due to following failing validation(s): "
	infoPreparingTimeout          = "The host has encountered a preparation timeout, the following conditions failed: "
	InfoPreparingTimeoutDiskSpeed = "the installation disk speed check did not complete within the timeout."
	InfoPreparingTimeoutImages    = "container availability was not determined within the timeout."
	InfoInstalling                = "Installation is in progress"
	InfoClusterError              = "Host is part of a cluster that failed to install"
	InfoInstallNeverStarted       = "Host failed to install due to timeout while starting installation"
	InfoDisconnectedInstalling    = "Host failed to install due to timeout while connecting to host during the installation phase."
	InfoDisconnectedPreparing     = "Host failed to install due to timeout while connecting to host during the preparation phase."
	InfoSoftDisconnect            = "Host is failing to perform periodic health check during the installation phase."
	InfoSoftReconnect             = "Host recovered from failure to perform periodic health check during the installation phase."
	InfoRebootTimeoutPrefix       = "Host timed out when pulling the configuration files. Verify in the host console that the host boots from the OpenShift installation disk "
	infoRebootTimeoutSuffix       = " and has network access to the cluster API. The installation will resume after the host successfully boots and can access the cluster API"
	InfoPendingUserActionTimeout  = "Host failed to boot from the installation disk within the expected time."
	infoWrongBootOrder            = "Expected the host to boot from disk, but it booted the installation image - please reboot and fix boot order to boot from disk"
	InfoResettingPendingUser      = "Host requires booting into the discovery image to complete resetting the installation"
	InfoKnownUnbound              = "Host is ready to be bound to a cluster"
	InfoBinding                   = "Host is waiting to be bound to the cluster"
	InfoUnbinding                 = "Host is waiting to be unbound from the cluster"
	InfoReclaimingRebooting       = "Host is rebooting into the discovery image"
	// InfoCancelled is the reason the engine gives when a site's teardown
	// cancels a running installation (the service records the caller's
	// reason as the status info).
	InfoCancelled = "Installation cancelled: the AgentClusterInstall was deleted"
	InfoDay2Done  = "Host has rebooted and no further updates will be posted. Please check console for progress and to possibly approve pending CSRs"
)

// JoinFailing joins the messages of failing validations the way status
// info does: sorted, separated by " ; " (internal/host/common.go).
func JoinFailing(messages []string) string {
	sorted := append([]string(nil), messages...)
	sort.Strings(sorted)
	return strings.Join(sorted, " ; ")
}

// InfoInsufficientMinHW is the insufficient text for a host that misses the
// minimum hardware.
func InfoInsufficientMinHW(failing []string) string {
	return infoInsufficientMinHW + JoinFailing(failing)
}

// InfoPendingForInput is the pending-for-input text.
func InfoPendingForInput(failing []string) string { return infoPendingForInput + JoinFailing(failing) }

// InfoNotReady is the insufficient text for a host that fails a validation
// needed to install.
func InfoNotReady(failing []string) string { return infoNotReady + JoinFailing(failing) }

// InfoPreparingFailedImages is the preparing-failed text after a failed
// image pull.
func InfoPreparingFailedImages(failing []string) string {
	return infoPreparingFailedImages + JoinFailing(failing)
}

// InfoPreparingTimeout is the preparing-failed text after the preparation
// timeout; reasons are InfoPreparingTimeoutDiskSpeed and/or
// InfoPreparingTimeoutImages.
func InfoPreparingTimeout(reasons []string) string {
	return infoPreparingTimeout + strings.Join(reasons, "\n")
}

// InfoStageTimeout is the error text of a host whose stage took too long;
// stages that must keep progressing (writing the image, copying registry
// data) get the "did not sufficiently progress" wording (internal/host/common.go).
func InfoStageTimeout(stage Stage, limit time.Duration) string {
	if stage.progressTimed() {
		return "Host failed to install because its installation stage " + string(stage) + " did not sufficiently progress in the last " + limit.String() + "."
	}
	return "Host failed to install because its installation stage " + string(stage) + " took longer than expected " + limit.String()
}

// InfoRebootTimeout is the installing-pending-user-action text after the
// Rebooting stage timed out; disk is "(<name>, <id>)".
func InfoRebootTimeout(disk string) string {
	return InfoRebootTimeoutPrefix + disk + infoRebootTimeoutSuffix
}

// InfoWrongBootOrder is the installing-pending-user-action text of a host
// that booted the discovery image again during reboot.
func InfoWrongBootOrder(model, serial, disk string) string {
	parts := []string{infoWrongBootOrder}
	for _, p := range []string{model, serial, disk} {
		if p != "" {
			parts = append(parts, p)
		}
	}
	return strings.Join(parts, " ")
}

// InfoProgressFailed is the error text of a host that reported the Failed
// stage (internal/host/host.go UpdateInstallProgress).
func InfoProgressFailed(progressInfo string) string {
	if progressInfo == "" {
		return "Failed"
	}
	return "Failed - " + progressInfo
}

// DiskLabel formats an installation disk as status texts print it.
func DiskLabel(name, id string) string { return "(" + name + ", " + id + ")" }
