package assisted

import (
	"fmt"
	"strings"
	"time"

	"github.com/siteops/siteops/engine"
	"github.com/siteops/siteops/render"
)

// Cond is a condition without its transition time: what a table computes
// from state. SetConditions merges it into the stored conditions.
type Cond struct {
	Type, Status, Reason, Message string
}

// Condition statuses.
const (
	True    = "True"
	False   = "False"
	Unknown = "Unknown"
)

// TransitionPolicy says when a condition's lastTransitionTime moves.
type TransitionPolicy int

const (
	// OnAnyChange: status, reason or message (Hive ClusterInstallCondition
	// as the AgentClusterInstall controller writes it, setClusterCondition).
	OnAnyChange TransitionPolicy = iota
	// OnStatusChange: status only; reason and message are updated in
	// place (conditionsv1.SetStatusConditionNoHeartbeat for Agent and
	// InfraEnv, Hive's SetClusterDeploymentCondition for the
	// ClusterDeployment).
	OnStatusChange
)

// SetConditions returns the conditions in want's order, keeping the
// previous transition time of each condition whose change does not count
// under the policy. Conditions of old that want does not name are kept
// after them, unchanged (a controller leaves conditions it does not
// compute alone).
//
// When want says what old says, in the same order, old itself is returned
// (capped, so that appending to it copies): the controllers recompute
// conditions at every reconcile and most find nothing new.
func SetConditions(old []engine.Condition, want []Cond, now time.Time, policy TransitionPolicy) []engine.Condition {
	if sameConditions(old, want) {
		return old[:len(old):len(old)]
	}
	out := make([]engine.Condition, 0, len(want))
	for _, w := range want {
		c := engine.Condition{Type: w.Type, Status: w.Status, Reason: w.Reason, Message: w.Message, LastTransitionTime: now}
		for _, o := range old {
			if o.Type != w.Type {
				continue
			}
			same := o.Status == w.Status
			if policy == OnAnyChange {
				same = same && o.Reason == w.Reason && o.Message == w.Message
			}
			if same {
				c.LastTransitionTime = o.LastTransitionTime
			}
			break
		}
		out = append(out, c)
	}
	for _, o := range old {
		found := false
		for _, w := range want {
			if w.Type == o.Type {
				found = true
				break
			}
		}
		if !found {
			out = append(out, o)
		}
	}
	return out
}

// sameConditions reports whether old is exactly what SetConditions would
// build from want: the same types in the same order, each the first of its
// type in old, with the same status, reason and message (so every
// transition time stays, under either policy).
func sameConditions(old []engine.Condition, want []Cond) bool {
	if old == nil || len(old) != len(want) {
		return false
	}
	for i, w := range want {
		o := &old[i]
		if o.Type != w.Type || o.Status != w.Status || o.Reason != w.Reason || o.Message != w.Message {
			return false
		}
		for j := range i {
			if old[j].Type == o.Type {
				return false
			}
		}
	}
	return true
}

// FindCondition returns the condition of a type, if present.
func FindCondition(conds []engine.Condition, t string) (engine.Condition, bool) {
	for _, c := range conds {
		if c.Type == t {
			return c, true
		}
	}
	return engine.Condition{}, false
}

// Condition types, reasons and messages (internal/controller/controllers). Reasons and messages are the
// code's, where the upstream documents say otherwise (internal/controller/controllers).
const (
	CondSpecSynced                        = "SpecSynced"
	CondRequirementsMet                   = "RequirementsMet"
	CondValidated                         = "Validated"
	CondCompleted                         = "Completed"
	CondFailed                            = "Failed"
	CondStopped                           = "Stopped"
	CondLastInstallationPreparationFailed = "LastInstallationPreparationFailed"
	CondConnected                         = "Connected"
	CondInstalled                         = "Installed"
	CondBound                             = "Bound"
	CondCleanup                           = "Cleanup"
	CondImageCreated                      = "ImageCreated"

	ReasonSyncOK       = "SyncOK"
	ReasonBackendError = "BackendError"
	ReasonInputError   = "InputError"
	ReasonNotAvailable = "NotAvailable"
	MsgNotAvailable    = "Information not available"
	ReasonUnknown      = "UnknownStatus"

	ReasonClusterIsReady             = "ClusterIsReady"
	ReasonInsufficientAgents         = "InsufficientAgents"
	ReasonUnsyncedAgents             = "UnsyncedAgents"
	ReasonUnapprovedAgents           = "UnapprovedAgents"
	ReasonClusterNotReady            = "ClusterNotReady"
	ReasonClusterAlreadyInstalling   = "ClusterAlreadyInstalling"
	ReasonClusterInstallationStopped = "ClusterInstallationStopped"

	ReasonValidationsFailing     = "ValidationsFailing"
	ReasonValidationsUserPending = "ValidationsUserPending"
	ReasonValidationsPassing     = "ValidationsPassing"
	ReasonValidationsUnknown     = "ValidationsUnknown"

	ReasonInstallationCompleted  = "InstallationCompleted"
	ReasonInstallationFailed     = "InstallationFailed"
	ReasonInstallationNotStarted = "InstallationNotStarted"
	ReasonInstallationOnHold     = "InstallationOnHold"
	ReasonInstallationInProgress = "InstallationInProgress"
	ReasonInstallationNotFailed  = "InstallationNotFailed"
	ReasonInstallationCancelled  = "InstallationCancelled"
	ReasonInstallationNotStopped = "InstallationNotStopped"

	ReasonPrepNeverPerformed = "Cluster preparation has never been performed for this cluster"
	ReasonPrepNotFailing     = "There is no failing prior preparation attempt"
	ReasonPrepFailed         = "The last installation preparation failed"

	ReasonAgentDisconnected      = "AgentIsDisconnected"
	ReasonAgentConnected         = "AgentIsConnected"
	ReasonAgentReady             = "AgentIsReady"
	ReasonAgentNotApproved       = "AgentIsNotApproved"
	ReasonAgentNotReady          = "AgentNotReady"
	ReasonAgentAlreadyInstalling = "AgentAlreadyInstalling"
	ReasonAgentInstallStopped    = "AgentInstallationStopped"
	ReasonBinding                = "Binding"
	ReasonUnbinding              = "Unbinding"
	ReasonUnbindingPendingUser   = "UnbindingPendingUserAction"
	ReasonUnbound                = "Unbound"
	ReasonBound                  = "Bound"
	ReasonCleanupFailed          = "CleanupFailed"

	ReasonInfraEnvAvailable        = "InfraEnvAvailable"
	ReasonImageCreated             = "ImageCreated"
	ReasonImageCreationError       = "ImageCreationError"
	ReasonMissingClusterDeployment = "MissingClusterDeployment"
)

// SyncError is an error syncing a spec to the backend: an input (4xx) or
// backend (5xx) error, shown in SpecSynced.
type SyncError struct {
	Input   bool
	Message string
}

// ACIView is what the AgentClusterInstall conditions are computed from.
type ACIView struct {
	// Registered is false until the backend cluster exists.
	Registered bool
	Sync       *SyncError
	Status     ClusterStatus
	StatusInfo string
	// Validations are the cluster's latest results; nil until computed.
	Validations []Result
	// Want and Got are the provision requirements and the registered
	// hosts' suggested-role counts (master, arbiter, worker).
	Want, Got [3]int
	Unsynced  int
	// Unapproved is the number of expected hosts not yet approved.
	Unapproved int
	Hold       bool
	PrepStatus string
	PrepReason string
	// CVOStatus and CVOInfo are the cluster-version operator's, when
	// reported.
	CVOStatus, CVOInfo string
}

// ACIConditions computes the AgentClusterInstall conditions (internal/controller/controllers/clusterdeployments_controller.go). A nil
// entry in the result is never returned; LastInstallationPreparationFailed
// is left out when the preparation status is not_started (the previous
// condition stays).
func ACIConditions(v ACIView) []Cond { return AppendACIConditions(nil, v) }

// AppendACIConditions appends what ACIConditions returns to out: the
// simulation recomputes conditions at every step into one reused list.
func AppendACIConditions(out []Cond, v ACIView) []Cond {
	// The code writes the reason as the message (internal/controller/controllers).
	spec := specSynced(v.Sync, ReasonSyncOK)
	if !v.Registered {
		return append(out, notAvailable(spec, CondRequirementsMet, CondValidated, CondCompleted, CondFailed, CondStopped)...)
	}
	out = append(out, spec, aciRequirementsMet(v), aciValidated(v), aciCompleted(v), aciFailed(v), aciStopped(v))
	switch v.PrepStatus {
	case "":
		out = append(out, Cond{CondLastInstallationPreparationFailed, False, ReasonPrepNeverPerformed, ""})
	case PrepSuccess:
		out = append(out, Cond{CondLastInstallationPreparationFailed, False, ReasonPrepNotFailing, ""})
	case PrepFailed:
		out = append(out, Cond{CondLastInstallationPreparationFailed, True, ReasonPrepFailed, v.PrepReason})
	}
	return out
}

// specSynced is the SpecSynced condition of an AgentClusterInstall or an
// Agent: True with okMessage, or False with the sync error.
func specSynced(sync *SyncError, okMessage string) Cond {
	switch {
	case sync == nil:
		return Cond{CondSpecSynced, True, ReasonSyncOK, okMessage}
	case sync.Input:
		return Cond{CondSpecSynced, False, ReasonInputError, "The Spec could not be synced due to an input error: " + sync.Message}
	}
	return Cond{CondSpecSynced, False, ReasonBackendError, "The Spec could not be synced due to backend error: " + sync.Message}
}

// notAvailable is what an object without a backend record shows: the
// given types Unknown, "Information not available".
func notAvailable(spec Cond, types ...string) []Cond {
	out := []Cond{spec}
	for _, t := range types {
		out = append(out, Cond{t, Unknown, ReasonNotAvailable, MsgNotAvailable})
	}
	return out
}

func unknownStatus(t string, s fmt.Stringer) Cond {
	return Cond{t, Unknown, ReasonUnknown, "The installation status is currently not recognized: " + s.String()}
}

func (s ClusterStatus) String() string { return string(s) }
func (s HostStatus) String() string    { return string(s) }

func aciRequirementsMet(v ACIView) Cond {
	const t = CondRequirementsMet
	switch v.Status {
	case ClusterInsufficient, ClusterPendingForInput:
		return Cond{t, False, ReasonClusterNotReady, "The cluster is not ready to begin the installation"}
	case ClusterReady:
		// The controller checks the counts first, then spec errors, then
		// approvals (clusterRequirementsMet).
		switch {
		case v.Want != v.Got:
			return Cond{t, False, ReasonInsufficientAgents, fmt.Sprintf("The cluster currently requires exactly %d master agents, %d arbiter agents and %d worker agents, but currently registered %d master agents, %d arbiter agents and %d worker agents",
				v.Want[0], v.Want[1], v.Want[2], v.Got[0], v.Got[1], v.Got[2])}
		case v.Unsynced > 0:
			return Cond{t, False, ReasonUnsyncedAgents, fmt.Sprintf("The cluster currently has %d agents with spec error", v.Unsynced)}
		case v.Unapproved > 0:
			return Cond{t, False, ReasonUnapprovedAgents, fmt.Sprintf("The installation is pending on the approval of %d agents", v.Unapproved)}
		}
		return Cond{t, True, ReasonClusterIsReady, "The cluster is ready to begin the installation"}
	case ClusterPreparingForInstallation, ClusterInstalling, ClusterInstallingPendingUserAction, ClusterAddingHosts, ClusterFinalizing:
		return Cond{t, True, ReasonClusterAlreadyInstalling, "The cluster requirements are met"}
	case ClusterInstalled, ClusterError:
		return Cond{t, True, ReasonClusterInstallationStopped, "The cluster installation stopped"}
	}
	return unknownStatus(t, v.Status)
}

func aciValidated(v ACIView) Cond {
	const t = CondValidated
	switch {
	// Insufficient and pending-for-input come before the "not yet
	// calculated" case (clusterdeployments_controller.go clusterValidated).
	case v.Status == ClusterInsufficient:
		return Cond{t, False, ReasonValidationsFailing, "The cluster's validations are failing: " + notPassingMessages(v.Validations)}
	case v.Status == ClusterPendingForInput:
		return Cond{t, False, ReasonValidationsUserPending, "The cluster's validations are pending for user: " + notPassingMessages(v.Validations)}
	case v.Status == ClusterAddingHosts:
		return Cond{t, True, ReasonValidationsPassing, "The cluster's validations are passing"}
	case v.Validations == nil:
		return Cond{t, Unknown, ReasonValidationsUnknown, "The cluster's validations have not yet been calculated"}
	}
	return Cond{t, True, ReasonValidationsPassing, "The cluster's validations are passing"}
}

func aciCompleted(v ACIView) Cond {
	const t = CondCompleted
	switch v.Status {
	case ClusterInstalled, ClusterAddingHosts:
		return Cond{t, True, ReasonInstallationCompleted, "The installation has completed: " + v.StatusInfo}
	case ClusterError:
		return Cond{t, False, ReasonInstallationFailed, "The installation has failed: " + v.StatusInfo}
	case ClusterInsufficient, ClusterPendingForInput:
		return Cond{t, False, ReasonInstallationNotStarted, "The installation has not yet started"}
	case ClusterReady:
		if v.Hold {
			return Cond{t, False, ReasonInstallationOnHold, "The installation is on hold. To unhold set holdInstallation to false"}
		}
		return Cond{t, False, ReasonInstallationNotStarted, "The installation has not yet started"}
	case ClusterPreparingForInstallation, ClusterInstalling, ClusterFinalizing, ClusterInstallingPendingUserAction:
		msg := "The installation is in progress: " + v.StatusInfo
		if v.CVOStatus != "" {
			msg += ". Cluster version status: " + v.CVOStatus + ", message: " + v.CVOInfo
		}
		return Cond{t, False, ReasonInstallationInProgress, msg}
	}
	return unknownStatus(t, v.Status)
}

func aciFailed(v ACIView) Cond {
	if v.Status == ClusterError {
		return Cond{CondFailed, True, ReasonInstallationFailed, "The installation failed: " + v.StatusInfo}
	}
	return Cond{CondFailed, False, ReasonInstallationNotFailed, "The installation has not failed"}
}

func aciStopped(v ACIView) Cond {
	const t = CondStopped
	switch v.Status {
	case ClusterError:
		return Cond{t, True, ReasonInstallationFailed, "The installation has stopped due to error"}
	case ClusterCancelled:
		return Cond{t, True, ReasonInstallationCancelled, "The installation has stopped because it was cancelled"}
	case ClusterInstalled, ClusterAddingHosts:
		return Cond{t, True, ReasonInstallationCompleted, "The installation has stopped because it completed successfully"}
	}
	return Cond{t, False, ReasonInstallationNotStopped, "The installation is waiting to start or in progress"}
}

// notPassingMessages joins the messages of non-success validations with
// "," as the condition messages do.
func notPassingMessages(rs []Result) string {
	var msgs []string
	for _, r := range NotPassing(rs) {
		msgs = append(msgs, r.Message)
	}
	return strings.Join(msgs, ",")
}

// Hive's ClusterDeployment condition types and reasons (Hive
// pkg/controller/clusterdeployment/clusterinstalls.go).
const (
	CondClusterInstallFailed          = "ClusterInstallFailed"
	CondClusterInstallCompleted       = "ClusterInstallCompleted"
	CondClusterInstallStopped         = "ClusterInstallStopped"
	CondClusterInstallRequirementsMet = "ClusterInstallRequirementsMet"
	CondProvisionFailed               = "ProvisionFailed"
	CondProvisionStopped              = "ProvisionStopped"
	CondProvisioned                   = "Provisioned"

	ReasonInstallAttemptsLimitReached = "InstallAttemptsLimitReached"
	ReasonProvisioning                = "Provisioning"
	ReasonProvisionStopped            = "ProvisionStopped"
	ReasonProvisioned                 = "Provisioned"
)

// ClusterDeploymentConditions mirrors the AgentClusterInstall conditions
// onto the ClusterDeployment the way Hive does, and derives the provision
// conditions. It returns nothing before the ACI has its conditions.
func ClusterDeploymentConditions(aci []engine.Condition) []Cond {
	return AppendClusterDeploymentConditions(make([]Cond, 0, 7), aci)
}

// AppendClusterDeploymentConditions appends what
// ClusterDeploymentConditions returns to out.
func AppendClusterDeploymentConditions(out []Cond, aci []engine.Condition) []Cond {
	get := func(t string) (Cond, bool) {
		c, ok := FindCondition(aci, t)
		return Cond{c.Type, c.Status, c.Reason, c.Message}, ok
	}
	for _, p := range []struct{ from, to string }{
		{CondCompleted, CondClusterInstallCompleted},
		{CondFailed, CondClusterInstallFailed},
		{CondRequirementsMet, CondClusterInstallRequirementsMet},
		{CondStopped, CondClusterInstallStopped},
	} {
		if c, ok := get(p.from); ok {
			out = append(out, Cond{p.to, c.Status, c.Reason, c.Message})
		}
	}
	failed, okF := get(CondFailed)
	stopped, okS := get(CondStopped)
	completed, okC := get(CondCompleted)
	if !okF || !okS || !okC {
		return out
	}
	out = append(out, Cond{CondProvisionFailed, failed.Status, failed.Reason, failed.Message})
	ps := Cond{CondProvisionStopped, stopped.Status, stopped.Reason, stopped.Message}
	if stopped.Status == True && completed.Status == False {
		ps.Reason, ps.Message = ReasonInstallAttemptsLimitReached, "Install attempts limit reached"
	}
	out = append(out, ps)
	switch {
	case completed.Status == True:
		out = append(out, Cond{CondProvisioned, True, ReasonProvisioned, "Cluster is provisioned"})
	case stopped.Status == True:
		out = append(out, Cond{CondProvisioned, False, ReasonProvisionStopped, "Provisioning failed terminally (see the ProvisionStopped condition for details)"})
	default:
		out = append(out, Cond{CondProvisioned, False, ReasonProvisioning, "Provisioning in progress"})
	}
	return out
}

// AgentView is what the Agent conditions are computed from.
type AgentView struct {
	// Registered is false when the Agent has no host record.
	Registered  bool
	Sync        *SyncError
	Status      HostStatus
	StatusInfo  string
	Approved    bool
	Validations []Result
	// CleanupError is set when the finalizer failed to clean the spoke.
	CleanupError string
}

// AgentConditions computes the Agent conditions (internal/controller/controllers/agent_controller.go).
func AgentConditions(v AgentView) []Cond { return AppendAgentConditions(nil, v) }

// AppendAgentConditions appends what AgentConditions returns to out.
func AppendAgentConditions(out []Cond, v AgentView) []Cond {
	spec := specSynced(v.Sync, "The Spec has been successfully applied")
	if !v.Registered {
		return append(out, notAvailable(spec, CondConnected, CondRequirementsMet, CondValidated, CondInstalled, CondBound)...)
	}
	out = append(out, spec, agentConnected(v), agentRequirementsMet(v), agentValidated(v), agentInstalled(v), agentBound(v))
	if v.CleanupError != "" {
		out = append(out, Cond{CondCleanup, False, ReasonCleanupFailed, v.CleanupError})
	}
	return out
}

const (
	msgBinding   = "The agent is currently binding to a cluster deployment"
	msgUnbinding = "The agent is currently unbinding from a cluster deployment"
)

func agentConnected(v AgentView) Cond {
	if v.Status.In(HostDisconnected, HostDisconnectedUnbound) {
		return Cond{CondConnected, False, ReasonAgentDisconnected, "The agent has not contacted the installation service in some time, user action should be taken"}
	}
	return Cond{CondConnected, True, ReasonAgentConnected, "The agent's connection to the installation service is unimpaired"}
}

func agentRequirementsMet(v AgentView) Cond {
	const t = CondRequirementsMet
	switch s := v.Status; {
	case s == HostBinding:
		return Cond{t, False, ReasonBinding, msgBinding}
	case s.In(HostUnbinding, HostUnbindingPendingUserAction):
		return Cond{t, False, ReasonUnbinding, msgUnbinding}
	case s.In(HostKnown, HostKnownUnbound):
		if v.Approved {
			return Cond{t, True, ReasonAgentReady, "The agent is ready to begin the installation"}
		}
		return Cond{t, False, ReasonAgentNotApproved, "The agent is not approved"}
	case s.In(HostInsufficient, HostInsufficientUnbound, HostDisconnected, HostDisconnectedUnbound, HostDiscovering, HostDiscoveringUnbound, HostPendingForInput):
		return Cond{t, False, ReasonAgentNotReady, "The agent is not ready to begin the installation"}
	case s.In(HostPreparingForInstallation, HostPreparingSuccessful, HostInstalling, HostInstallingInProgress, HostInstallingPendingUserAction):
		return Cond{t, True, ReasonAgentAlreadyInstalling, "Installation already started and is in progress"}
	case s.In(HostInstalled, HostError, HostAddedToExistingCluster):
		return Cond{t, True, ReasonAgentInstallStopped, "The agent installation stopped"}
	}
	return unknownStatus(t, v.Status)
}

func agentValidated(v AgentView) Cond {
	const t = CondValidated
	switch s := v.Status; {
	case s == HostBinding:
		return Cond{t, False, ReasonBinding, msgBinding}
	case s.In(HostUnbinding, HostUnbindingPendingUserAction):
		return Cond{t, False, ReasonUnbinding, msgUnbinding}
	// Insufficient and pending-for-input come before the "not yet
	// calculated" case (agent_controller.go validated).
	case s.In(HostInsufficient, HostInsufficientUnbound):
		return Cond{t, False, ReasonValidationsFailing, "The agent's validations are failing: " + notPassingMessages(v.Validations)}
	case s == HostPendingForInput:
		return Cond{t, False, ReasonValidationsUserPending, "The agent's validations are pending for user: " + notPassingMessages(v.Validations)}
	case v.Validations == nil:
		return Cond{t, Unknown, ReasonValidationsUnknown, "The agent's validations have not yet been calculated"}
	}
	return Cond{t, True, ReasonValidationsPassing, "The agent's validations are passing"}
}

func agentInstalled(v AgentView) Cond {
	const t = CondInstalled
	switch s := v.Status; {
	case s == HostBinding:
		return Cond{t, False, ReasonBinding, msgBinding}
	case s.In(HostUnbinding, HostUnbindingPendingUserAction):
		return Cond{t, False, ReasonUnbinding, msgUnbinding}
	case s.In(HostInstalled, HostAddedToExistingCluster):
		return Cond{t, True, ReasonInstallationCompleted, "The installation has completed: " + v.StatusInfo}
	case s == HostError:
		return Cond{t, False, ReasonInstallationFailed, "The installation has failed: " + v.StatusInfo}
	case s.In(HostInsufficient, HostInsufficientUnbound, HostDisconnected, HostDisconnectedUnbound, HostDiscovering, HostDiscoveringUnbound, HostKnown, HostKnownUnbound, HostPendingForInput):
		return Cond{t, False, ReasonInstallationNotStarted, "The installation has not yet started"}
	case s.In(HostPreparingForInstallation, HostPreparingSuccessful, HostInstalling, HostInstallingInProgress, HostInstallingPendingUserAction):
		return Cond{t, False, ReasonInstallationInProgress, "The installation is in progress: " + v.StatusInfo}
	}
	return unknownStatus(t, v.Status)
}

func agentBound(v AgentView) Cond {
	const t = CondBound
	switch s := v.Status; {
	case s == HostBinding:
		return Cond{t, False, ReasonBinding, msgBinding}
	case s == HostUnbinding:
		return Cond{t, False, ReasonUnbinding, msgUnbinding}
	case s == HostUnbindingPendingUserAction:
		return Cond{t, False, ReasonUnbindingPendingUser, "The agent is currently unbinding; Pending host reboot from infraenv image"}
	case s.Unbound():
		return Cond{t, False, ReasonUnbound, "The agent is not bound to any cluster deployment"}
	}
	return Cond{t, True, ReasonBound, "The agent is bound to a cluster deployment"}
}

// InfraEnvView is what the InfraEnv condition is computed from.
type InfraEnvView struct {
	// MissingCluster is set while the clusterRef's ClusterDeployment or its
	// backend cluster does not exist (the error text).
	MissingCluster string
	// Error is an image creation error; Internal marks a backend one.
	Error    string
	Internal bool
	// Generating is true while the image is still being generated.
	Generating bool
	Created    bool
}

// InfraEnvCondition computes the InfraEnv ImageCreated condition (internal/controller/controllers/infraenv_controller.go),
// with the image service enabled. It returns false before the first
// reconcile.
func InfraEnvCondition(v InfraEnvView) (Cond, bool) {
	const t = CondImageCreated
	switch {
	case v.MissingCluster != "":
		return Cond{t, Unknown, ReasonMissingClusterDeployment, "ClusterDeployment is missing: " + v.MissingCluster}, true
	case v.Error != "" && v.Internal:
		return Cond{t, False, ReasonImageCreationError, "Failed to create image due to an internal error: " + v.Error}, true
	case v.Error != "":
		return Cond{t, False, ReasonImageCreationError, "Failed to create image: " + v.Error}, true
	case v.Generating:
		return Cond{t, True, ReasonImageCreated, "Image has been created"}, true
	case v.Created:
		return Cond{t, True, ReasonInfraEnvAvailable, "InfraEnv is available: Image has been created"}, true
	}
	return Cond{}, false
}

// MissingClusterText is the MissingClusterDeployment error when the
// clusterRef's backend cluster does not exist yet.
func MissingClusterText(cd, aci, ns string) string {
	return fmt.Sprintf("cluster does not exist: %s, check AgentClusterInstall conditions: name %s in namespace %s", cd, aci, ns)
}

// IgnitionSizeLimit is the largest discovery ignition archive (internal/cluster/validations/validations.go,
// IgnitionImageSizePadding); the renderer measures against the same limit.
const IgnitionSizeLimit = render.DiscoveryIgnitionLimit

// IgnitionTooLarge is the error of an oversized discovery ignition.
func IgnitionTooLarge(sizeBytes int) string {
	return fmt.Sprintf("The ignition archive size (%d KiB) is over the maximum allowable size (%d KiB)", sizeBytes/1024, IgnitionSizeLimit/1024)
}

// Finalizers (the controllers' finalizers).
const (
	FinalizerClusterDeployment = "clusterdeployments.agent-install.openshift.io/ai-deprovision"
	FinalizerACI               = "agentclusterinstall.agent-install.openshift.io/ai-deprovision"
	FinalizerAgent             = "agent.agent-install.openshift.io/ai-deprovision"
	FinalizerInfraEnv          = "infraenv.agent-install.openshift.io/ai-deprovision"
	FinalizerBMAC              = "bmac.agent-install.openshift.io/deprovision"
)
