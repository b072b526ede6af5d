package assisted

import (
	"reflect"
	"testing"
	"time"

	"github.com/siteops/siteops/engine"
)

func condOf(t *testing.T, cs []Cond, typ string) Cond {
	t.Helper()
	for _, c := range cs {
		if c.Type == typ {
			return c
		}
	}
	t.Fatalf("no %s condition in %v", typ, cs)
	return Cond{}
}

// The AgentClusterInstall conditions of each cluster status (internal/controller/controllers/clusterdeployments_controller.go).
func TestACIConditions(t *testing.T) {
	ready := ACIView{Registered: true, Status: ClusterReady, StatusInfo: ClusterInfoReady, Validations: []Result{}, Want: [3]int{3, 0, 2}, Got: [3]int{3, 0, 2}}
	cases := []struct {
		name   string
		view   ACIView
		typ    string
		status string
		reason string
		msg    string
	}{
		{"spec synced", ready, CondSpecSynced, True, ReasonSyncOK, "SyncOK"},
		{"input error", ACIView{Sync: &SyncError{Input: true, Message: "x"}}, CondSpecSynced, False, ReasonInputError, "The Spec could not be synced due to an input error: x"},
		{"backend error", ACIView{Sync: &SyncError{Message: "x"}}, CondSpecSynced, False, ReasonBackendError, "The Spec could not be synced due to backend error: x"},
		{"not registered", ACIView{}, CondCompleted, Unknown, ReasonNotAvailable, MsgNotAvailable},
		{"ready", ready, CondRequirementsMet, True, ReasonClusterIsReady, "The cluster is ready to begin the installation"},
		{"insufficient agents", func() ACIView { v := ready; v.Got = [3]int{2, 0, 2}; return v }(), CondRequirementsMet, False, ReasonInsufficientAgents,
			"The cluster currently requires exactly 3 master agents, 0 arbiter agents and 2 worker agents, but currently registered 2 master agents, 0 arbiter agents and 2 worker agents"},
		{"unapproved", func() ACIView { v := ready; v.Unapproved = 2; return v }(), CondRequirementsMet, False, ReasonUnapprovedAgents, "The installation is pending on the approval of 2 agents"},
		{"unsynced", func() ACIView { v := ready; v.Unsynced = 1; return v }(), CondRequirementsMet, False, ReasonUnsyncedAgents, "The cluster currently has 1 agents with spec error"},
		{"counts come before spec errors and approvals", func() ACIView { v := ready; v.Got = [3]int{3, 0, 1}; v.Unsynced = 1; v.Unapproved = 1; return v }(), CondRequirementsMet, False, ReasonInsufficientAgents,
			"The cluster currently requires exactly 3 master agents, 0 arbiter agents and 2 worker agents, but currently registered 3 master agents, 0 arbiter agents and 1 worker agents"},
		{"spec errors come before approvals", func() ACIView { v := ready; v.Unsynced = 1; v.Unapproved = 1; return v }(), CondRequirementsMet, False, ReasonUnsyncedAgents, "The cluster currently has 1 agents with spec error"},
		{"not ready", ACIView{Registered: true, Status: ClusterInsufficient}, CondRequirementsMet, False, ReasonClusterNotReady, "The cluster is not ready to begin the installation"},
		{"installing", ACIView{Registered: true, Status: ClusterInstalling}, CondRequirementsMet, True, ReasonClusterAlreadyInstalling, "The cluster requirements are met"},
		{"installed", ACIView{Registered: true, Status: ClusterInstalled}, CondRequirementsMet, True, ReasonClusterInstallationStopped, "The cluster installation stopped"},
		{"validations unknown", ACIView{Registered: true, Status: ClusterReady}, CondValidated, Unknown, ReasonValidationsUnknown, "The cluster's validations have not yet been calculated"},
		{"insufficient before the first validations", ACIView{Registered: true, Status: ClusterInsufficient}, CondValidated, False, ReasonValidationsFailing, "The cluster's validations are failing: "},
		{"validations failing", ACIView{Registered: true, Status: ClusterInsufficient, Validations: []Result{{ID: "a", Status: ValidationFailure, Message: "m1"}, {ID: "b", Status: ValidationPending, Message: "m2"}}},
			CondValidated, False, ReasonValidationsFailing, "The cluster's validations are failing: m1,m2"},
		{"validations pending for user", ACIView{Registered: true, Status: ClusterPendingForInput, Validations: []Result{{ID: "a", Status: ValidationFailure, Message: "m1"}}},
			CondValidated, False, ReasonValidationsUserPending, "The cluster's validations are pending for user: m1"},
		{"validations day 2", ACIView{Registered: true, Status: ClusterAddingHosts}, CondValidated, True, ReasonValidationsPassing, "The cluster's validations are passing"},
		{"not started", ready, CondCompleted, False, ReasonInstallationNotStarted, "The installation has not yet started"},
		{"on hold", func() ACIView { v := ready; v.Hold = true; return v }(), CondCompleted, False, ReasonInstallationOnHold, "The installation is on hold. To unhold set holdInstallation to false"},
		{"in progress", ACIView{Registered: true, Status: ClusterFinalizing, StatusInfo: ClusterInfoFinalizing, CVOStatus: "progressing", CVOInfo: "Working towards 4.20.6"},
			CondCompleted, False, ReasonInstallationInProgress, "The installation is in progress: Finalizing cluster installation. Cluster version status: progressing, message: Working towards 4.20.6"},
		{"completed", ACIView{Registered: true, Status: ClusterInstalled, StatusInfo: ClusterInfoInstalled}, CondCompleted, True, ReasonInstallationCompleted, "The installation has completed: Cluster is installed"},
		{"failed", ACIView{Registered: true, Status: ClusterError, StatusInfo: ClusterInfoHostsInError}, CondFailed, True, ReasonInstallationFailed, "The installation failed: cluster has hosts in error"},
		{"completed failed", ACIView{Registered: true, Status: ClusterError, StatusInfo: ClusterInfoHostsInError}, CondCompleted, False, ReasonInstallationFailed, "The installation has failed: cluster has hosts in error"},
		{"not failed", ready, CondFailed, False, ReasonInstallationNotFailed, "The installation has not failed"},
		{"stopped error", ACIView{Registered: true, Status: ClusterError}, CondStopped, True, ReasonInstallationFailed, "The installation has stopped due to error"},
		{"stopped cancelled", ACIView{Registered: true, Status: ClusterCancelled}, CondStopped, True, ReasonInstallationCancelled, "The installation has stopped because it was cancelled"},
		{"stopped completed", ACIView{Registered: true, Status: ClusterAddingHosts}, CondStopped, True, ReasonInstallationCompleted, "The installation has stopped because it completed successfully"},
		{"not stopped", ready, CondStopped, False, ReasonInstallationNotStopped, "The installation is waiting to start or in progress"},
		{"preparation never", ready, CondLastInstallationPreparationFailed, False, ReasonPrepNeverPerformed, ""},
		{"preparation ok", func() ACIView { v := ready; v.PrepStatus = PrepSuccess; return v }(), CondLastInstallationPreparationFailed, False, ReasonPrepNotFailing, ""},
		{"preparation failed", func() ACIView { v := ready; v.PrepStatus, v.PrepReason = PrepFailed, PrepReasonTimeout; return v }(), CondLastInstallationPreparationFailed, True, ReasonPrepFailed, PrepReasonTimeout},
		{"unknown status", ACIView{Registered: true, Status: ClusterCancelled}, CondCompleted, Unknown, ReasonUnknown, "The installation status is currently not recognized: cancelled"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			got := condOf(t, ACIConditions(c.view), c.typ)
			if got.Status != c.status || got.Reason != c.reason || got.Message != c.msg {
				t.Errorf("got %+v, want %s %s %q", got, c.status, c.reason, c.msg)
			}
		})
	}
	for _, c := range ACIConditions(ACIView{Registered: true, Status: ClusterReady, PrepStatus: PrepNotStarted}) {
		if c.Type == CondLastInstallationPreparationFailed {
			t.Error("not_started must leave the preparation condition as it was")
		}
	}
}

// The Agent conditions of each host status (internal/controller/controllers/agent_controller.go).
func TestAgentConditions(t *testing.T) {
	cases := []struct {
		view   AgentView
		typ    string
		status string
		reason string
	}{
		{AgentView{Registered: true, Status: HostDisconnected}, CondConnected, False, ReasonAgentDisconnected},
		{AgentView{Registered: true, Status: HostKnown}, CondConnected, True, ReasonAgentConnected},
		{AgentView{Registered: true, Status: HostKnown, Approved: true}, CondRequirementsMet, True, ReasonAgentReady},
		{AgentView{Registered: true, Status: HostKnownUnbound}, CondRequirementsMet, False, ReasonAgentNotApproved},
		{AgentView{Registered: true, Status: HostInsufficient}, CondRequirementsMet, False, ReasonAgentNotReady},
		{AgentView{Registered: true, Status: HostInstallingInProgress}, CondRequirementsMet, True, ReasonAgentAlreadyInstalling},
		{AgentView{Registered: true, Status: HostAddedToExistingCluster}, CondRequirementsMet, True, ReasonAgentInstallStopped},
		{AgentView{Registered: true, Status: HostBinding}, CondRequirementsMet, False, ReasonBinding},
		{AgentView{Registered: true, Status: HostUnbinding}, CondValidated, False, ReasonUnbinding},
		{AgentView{Registered: true, Status: HostInsufficient, Validations: []Result{{Status: ValidationFailure, Message: "m"}}}, CondValidated, False, ReasonValidationsFailing},
		{AgentView{Registered: true, Status: HostPendingForInput, Validations: []Result{}}, CondValidated, False, ReasonValidationsUserPending},
		{AgentView{Registered: true, Status: HostKnown}, CondValidated, Unknown, ReasonValidationsUnknown},
		{AgentView{Registered: true, Status: HostKnown, Validations: []Result{}}, CondValidated, True, ReasonValidationsPassing},
		{AgentView{Registered: true, Status: HostInstalled, StatusInfo: "Done"}, CondInstalled, True, ReasonInstallationCompleted},
		{AgentView{Registered: true, Status: HostError}, CondInstalled, False, ReasonInstallationFailed},
		{AgentView{Registered: true, Status: HostKnown}, CondInstalled, False, ReasonInstallationNotStarted},
		{AgentView{Registered: true, Status: HostPreparingForInstallation}, CondInstalled, False, ReasonInstallationInProgress},
		{AgentView{Registered: true, Status: HostCancelled}, CondInstalled, Unknown, ReasonUnknown},
		{AgentView{Registered: true, Status: HostUnbindingPendingUserAction}, CondBound, False, ReasonUnbindingPendingUser},
		{AgentView{Registered: true, Status: HostKnownUnbound}, CondBound, False, ReasonUnbound},
		{AgentView{Registered: true, Status: HostKnown}, CondBound, True, ReasonBound},
		{AgentView{}, CondInstalled, Unknown, ReasonNotAvailable},
		{AgentView{Registered: true, Status: HostInsufficient}, CondValidated, False, ReasonValidationsFailing},
		{AgentView{Registered: true, Status: HostDiscovering}, CondValidated, Unknown, ReasonValidationsUnknown},
		{AgentView{Registered: true, Status: HostKnown, Sync: &SyncError{Input: true, Message: "bad"}}, CondSpecSynced, False, ReasonInputError},
	}
	for _, c := range cases {
		got := condOf(t, AgentConditions(c.view), c.typ)
		if got.Status != c.status || got.Reason != c.reason {
			t.Errorf("%s in %s: got %+v, want %s %s", c.typ, c.view.Status, got, c.status, c.reason)
		}
	}
}

func TestInfraEnvCondition(t *testing.T) {
	cases := []struct {
		view   InfraEnvView
		status string
		reason string
		msg    string
	}{
		{InfraEnvView{Created: true}, True, ReasonInfraEnvAvailable, "InfraEnv is available: Image has been created"},
		{InfraEnvView{Generating: true}, True, ReasonImageCreated, "Image has been created"},
		{InfraEnvView{Error: IgnitionTooLarge(300 * 1024)}, False, ReasonImageCreationError, "Failed to create image: The ignition archive size (300 KiB) is over the maximum allowable size (256 KiB)"},
		{InfraEnvView{MissingCluster: MissingClusterText("c1", "c1", "ns")}, Unknown, ReasonMissingClusterDeployment,
			"ClusterDeployment is missing: cluster does not exist: c1, check AgentClusterInstall conditions: name c1 in namespace ns"},
	}
	for _, c := range cases {
		got, ok := InfraEnvCondition(c.view)
		if !ok || got.Status != c.status || got.Reason != c.reason || got.Message != c.msg {
			t.Errorf("%+v: %+v", c.view, got)
		}
	}
	if _, ok := InfraEnvCondition(InfraEnvView{}); ok {
		t.Error("no condition before the first reconcile")
	}
}

// Hive mirrors the ACI conditions onto the ClusterDeployment.
func TestClusterDeploymentConditions(t *testing.T) {
	mk := func(status ClusterStatus, info string) []engine.Condition {
		var out []engine.Condition
		for _, c := range ACIConditions(ACIView{Registered: true, Status: status, StatusInfo: info, Validations: []Result{}}) {
			out = append(out, engine.Condition{Type: c.Type, Status: c.Status, Reason: c.Reason, Message: c.Message})
		}
		return out
	}
	cd := ClusterDeploymentConditions(mk(ClusterInstalling, ClusterInfoInstalling))
	if c := condOf(t, cd, CondProvisioned); c.Status != False || c.Reason != ReasonProvisioning {
		t.Errorf("installing: %+v", c)
	}
	if c := condOf(t, cd, CondClusterInstallRequirementsMet); c.Reason != ReasonClusterAlreadyInstalling {
		t.Errorf("mirror: %+v", c)
	}
	cd = ClusterDeploymentConditions(mk(ClusterInstalled, ClusterInfoInstalled))
	if c := condOf(t, cd, CondProvisioned); c.Status != True || c.Message != "Cluster is provisioned" {
		t.Errorf("installed: %+v", c)
	}
	cd = ClusterDeploymentConditions(mk(ClusterError, ClusterInfoHostsInError))
	if c := condOf(t, cd, CondProvisionStopped); c.Reason != ReasonInstallAttemptsLimitReached || c.Message != "Install attempts limit reached" {
		t.Errorf("error: %+v", c)
	}
	if c := condOf(t, cd, CondProvisioned); c.Reason != ReasonProvisionStopped {
		t.Errorf("error: %+v", c)
	}
	if c := condOf(t, cd, CondProvisionFailed); c.Status != True {
		t.Errorf("error: %+v", c)
	}
}

// Transition times move only when the policy says so.
func TestSetConditions(t *testing.T) {
	t0 := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	t1 := t0.Add(time.Minute)
	old := SetConditions(nil, []Cond{{"A", True, "R1", "m1"}}, t0, OnAnyChange)
	same := SetConditions(old, []Cond{{"A", True, "R1", "m1"}}, t1, OnAnyChange)
	if !same[0].LastTransitionTime.Equal(t0) {
		t.Error("unchanged condition moved")
	}
	msg := SetConditions(old, []Cond{{"A", True, "R1", "m2"}}, t1, OnAnyChange)
	if !msg[0].LastTransitionTime.Equal(t1) {
		t.Error("message change did not move the ACI condition")
	}
	msg = SetConditions(old, []Cond{{"A", True, "R2", "m2"}}, t1, OnStatusChange)
	if !msg[0].LastTransitionTime.Equal(t0) || msg[0].Reason != "R2" {
		t.Error("reason change moved an Agent condition, or was not applied")
	}
	st := SetConditions(old, []Cond{{"A", False, "R1", "m1"}}, t1, OnStatusChange)
	if !st[0].LastTransitionTime.Equal(t1) {
		t.Error("status change did not move the condition")
	}
}

// An unchanged list is the old one, and appending to it leaves the old
// one alone; any difference (order, a type repeated, a condition more or
// less, a reason under either policy) builds a new list as before.
func TestSetConditionsUnchanged(t *testing.T) {
	t0 := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	t1 := t0.Add(time.Minute)
	c := func(typ, status, reason string, at time.Time) engine.Condition {
		return engine.Condition{Type: typ, Status: status, Reason: reason, Message: "m", LastTransitionTime: at}
	}
	old := []engine.Condition{c("A", True, "R", t0), c("B", False, "R", t0)}
	for _, tc := range []struct {
		name   string
		old    []engine.Condition
		want   []Cond
		policy TransitionPolicy
		out    []engine.Condition
		reused bool
	}{
		{"the same", old, []Cond{{"A", True, "R", "m"}, {"B", False, "R", "m"}}, OnAnyChange, old, true},
		{"the same, status policy", old, []Cond{{"A", True, "R", "m"}, {"B", False, "R", "m"}}, OnStatusChange, old, true},
		{"another order", old, []Cond{{"B", False, "R", "m"}, {"A", True, "R", "m"}}, OnAnyChange, []engine.Condition{c("B", False, "R", t0), c("A", True, "R", t0)}, false},
		{"one less: the other kept after", old, []Cond{{"B", False, "R", "m"}}, OnAnyChange, []engine.Condition{c("B", False, "R", t0), c("A", True, "R", t0)}, false},
		{"a new reason, status policy", old, []Cond{{"A", True, "R2", "m"}, {"B", False, "R", "m"}}, OnStatusChange, []engine.Condition{c("A", True, "R2", t0), c("B", False, "R", t0)}, false},
		{"a type twice in old", []engine.Condition{c("A", True, "R", t0), c("A", True, "R", t1)}, []Cond{{"A", True, "R", "m"}, {"A", True, "R", "m"}}, OnAnyChange, []engine.Condition{c("A", True, "R", t0), c("A", True, "R", t0)}, false},
		{"nothing before", nil, nil, OnAnyChange, []engine.Condition{}, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got := SetConditions(tc.old, tc.want, t1, tc.policy)
			if !reflect.DeepEqual(got, tc.out) {
				t.Fatalf("got %+v\nwant %+v", got, tc.out)
			}
			if reused := len(got) > 0 && len(tc.old) > 0 && &got[0] == &tc.old[0]; reused != tc.reused {
				t.Errorf("old list reused: %v", reused)
			}
			if len(tc.old) > 0 {
				before := append([]engine.Condition(nil), tc.old...)
				_ = append(got, c("Z", True, "R", t1))
				if !reflect.DeepEqual(tc.old, before) {
					t.Error("appending to the result changed the old list")
				}
			}
		})
	}
}
