package sim

import (
	"context"
	"errors"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/siteops/siteops/engine"
	"github.com/siteops/siteops/engine/assisted"
)

// With --approve manual the installation waits for the user's approval.
func TestManualApproval(t *testing.T) {
	e := newStepped(t, Options{Approve: ApproveManual})
	s := newSite("ma", 1, 0)
	apply(t, e, s.bundle(), "r1")
	o := observe(t, e, "ma")
	o.until(10*time.Second, time.Hour, func(st engine.SiteStatus) bool {
		return st.Phase == engine.PhasePending && strings.Contains(st.Message, "approval")
	})
	if c := findCond(t, o.last, "Agent", assisted.CondRequirementsMet); c.Reason != assisted.ReasonAgentNotApproved {
		t.Errorf("agent %+v", c)
	}
	if c := findCond(t, o.last, "AgentClusterInstall", assisted.CondRequirementsMet); c.Reason != assisted.ReasonUnapprovedAgents || c.Message != "The installation is pending on the approval of 1 agents" {
		t.Errorf("aci %+v", c)
	}
	// Nothing happens while it waits.
	o.until(10*time.Minute, time.Hour, func(st engine.SiteStatus) bool { return st.Phase == engine.PhasePending })
	if err := e.Approve(context.Background(), "ma", "nobody"); err == nil || !strings.Contains(err.Error(), "ma-cp-0") {
		t.Errorf("approving an unknown host: %v", err)
	}
	if err := e.Approve(context.Background(), "ma", "ma-cp-0"); err != nil {
		t.Fatal(err)
	}
	o.until(30*time.Second, 3*time.Hour, phaseIs(engine.PhaseInstalled))
}

// A node added to an installed site installs as a day-2 worker; taken out
// again, it is drained, its Agent deleted and its node removed, in one
// step.
func TestDay2AndNodeRemoval(t *testing.T) {
	e := newStepped(t, Options{})
	s := newSite("d2", 3, 0)
	apply(t, e, s.bundle(), "r1")
	o := observe(t, e, "d2")
	o.until(time.Minute, 4*time.Hour, func(st engine.SiteStatus) bool { return st.Cluster.State == "adding-hosts" })

	s.extraHosts = []string{"d2-w-new"}
	apply(t, e, s.bundle(), "r2")
	o.until(10*time.Second, 3*time.Hour, func(st engine.SiteStatus) bool {
		return hostNamed(st, "d2-w-new").State == "added-to-existing-cluster"
	})
	if got, want := o.stages["d2-w-new"], stageNames(assisted.StagesWorker); !slices.Equal(got, want) {
		t.Errorf("day-2 stages %v, want %v", got, want)
	}
	if got := o.hostSt["d2-w-new"]; !slices.Contains(got, "known") || !slices.Contains(got, "installing") {
		t.Errorf("day-2 states %v", got)
	}
	if o.last.Phase != engine.PhaseInstalled || o.last.Cluster.State != "adding-hosts" {
		t.Errorf("%s %s", o.last.Phase, o.last.Cluster.State)
	}
	if c := findCond(t, o.last, "AgentClusterInstall", assisted.CondRequirementsMet); c.Reason != assisted.ReasonClusterAlreadyInstalling {
		t.Errorf("day-2 RequirementsMet %+v", c)
	}

	s.extraHosts = nil
	apply(t, e, s.bundle(), "r3")
	o.until(10*time.Second, time.Hour, func(st engine.SiteStatus) bool { return len(st.Hosts) == 3 })
	var msgs []string
	for _, ev := range o.last.Events {
		msgs = append(msgs, ev.Message)
	}
	all := strings.Join(msgs, "\n")
	for _, want := range []string{"Draining node d2-w-new.example.net", "drain succeeded", "Deprovisioning with cleaning mode metadata", "Deleted Agent", "Removed node d2-w-new.example.net from the spoke cluster"} {
		if !strings.Contains(all, want) {
			t.Errorf("no event %q in\n%s", want, all)
		}
	}
	if o.last.Phase != engine.PhaseInstalled {
		t.Errorf("phase %s", o.last.Phase)
	}
}

// Deleting a site follows the finalizer order and never touches the
// installed cluster; the site then disappears.
func TestTeardown(t *testing.T) {
	e := newStepped(t, Options{})
	s := newSite("td", 1, 0)
	apply(t, e, s.bundle(), "r1")
	o := observe(t, e, "td")
	o.until(time.Minute, 3*time.Hour, phaseIs(engine.PhaseInstalled))
	if err := e.Delete(context.Background(), "td"); err != nil {
		t.Fatal(err)
	}
	var steps []string
	var events []engine.Event
	for range 120 {
		if err := e.Advance(context.Background(), time.Second); err != nil {
			t.Fatal(err)
		}
		st, err := e.Status(context.Background(), "td")
		if errors.Is(err, engine.ErrNotFound) {
			break
		}
		if st.Phase != engine.PhaseDeleting {
			t.Fatalf("phase %s", st.Phase)
		}
		steps = appendNew(steps, st.Message)
		events = st.Events
	}
	want := []string{
		"The site is being deleted (deleting the BareMetalHosts); the installed cluster is not touched.",
		"The site is being deleted (deleting the ManagedCluster and KlusterletAddonConfig); the installed cluster is not touched.",
		"The site is being deleted (deleting the ClusterDeployment and its AgentClusterInstall); the installed cluster is not touched.",
		"The site is being deleted (deleting the InfraEnvs and NMStateConfigs); the installed cluster is not touched.",
		"The site is being deleted (deleting the Namespace); the installed cluster is not touched.",
	}
	if !slices.Equal(steps, want) {
		t.Errorf("steps:\n%s", strings.Join(steps, "\n"))
	}
	if _, err := e.Status(context.Background(), "td"); !errors.Is(err, engine.ErrNotFound) {
		t.Errorf("site still there: %v", err)
	}
	var order []string
	for _, ev := range events {
		if ev.Reason == evDeleting || ev.Reason == evDeregistered {
			order = append(order, strings.SplitN(ev.Object, " ", 2)[0]+": "+ev.Message)
		}
	}
	text := strings.Join(order, "\n")
	for i, want := range []string{
		"BareMetalHost: Deleted: BMAC removed its finalizer bmac.agent-install.openshift.io/deprovision; it is detached, so the bare-metal operator does not deprovision the installed machine",
		"ManagedCluster: Deleted",
		"ClusterDeployment: Deleting: the finalizer clusterdeployments.agent-install.openshift.io/ai-deprovision deletes the AgentClusterInstall",
		"Agent: Deleted Agent",
		"AgentClusterInstall: Deregistered cluster",
		"ClusterDeployment: Deleted: the AgentClusterInstall is gone",
		"InfraEnv: Deleted: the finalizer infraenv.agent-install.openshift.io/ai-deprovision deregistered the infra-env",
	} {
		at := strings.Index(text, want)
		if at < 0 {
			t.Fatalf("step %d %q missing from\n%s", i, want, text)
		}
		text = text[at+len(want):]
	}
	if strings.Contains(strings.Join(order, "\n"), "Removed node") {
		t.Error("the teardown touched the installed cluster")
	}
	// Deleting what is gone says so.
	if err := e.Delete(context.Background(), "td"); !errors.Is(err, engine.ErrNotFound) {
		t.Errorf("second delete: %v", err)
	}
}

// Late binding: hosts boot the image of an InfraEnv with no cluster, wait
// in the pool, and join the cluster through the BareMetalHost's
// cluster-reference annotation (internal/host/pool_host_statemachine.go, the controllers' finalizers).
func TestLateBinding(t *testing.T) {
	e := newStepped(t, Options{})
	s := newSite("lb", 1, 0)
	s.pool = true
	apply(t, e, s.bundle(), "r1")
	o := observe(t, e, "lb")
	o.until(10*time.Second, time.Hour, func(st engine.SiteStatus) bool { return hostNamed(st, "lb-cp-0").State == "known-unbound" })
	if c := findCond(t, o.last, "Agent", assisted.CondBound); c.Reason != assisted.ReasonUnbound {
		t.Errorf("Bound %+v", c)
	}
	if hostNamed(o.last, "lb-cp-0").StateInfo != assisted.InfoKnownUnbound {
		t.Errorf("info %q", hostNamed(o.last, "lb-cp-0").StateInfo)
	}
	want := "Hosts are being discovered and validated: lb-cp-0 is known-unbound: Host is ready to be bound to a cluster. Bind the pool hosts to the cluster with the BareMetalHost annotation bmac.agent-install.openshift.io/cluster-reference=<namespace>/<name>."
	if o.last.Phase != engine.PhaseProvisioning || o.last.Message != want {
		t.Errorf("%s %q", o.last.Phase, o.last.Message)
	}
	s.annotations["lb-cp-0"] = map[string]string{assisted.AnnotationBMACClusterReference: "lb/lb"}
	apply(t, e, s.bundle(), "r2")
	o.until(10*time.Second, 3*time.Hour, phaseIs(engine.PhaseInstalled))
	if got := o.hostSt["lb-cp-0"]; !slices.Contains(got, "binding") || !slices.Contains(got, "discovering") {
		t.Errorf("states %v", got)
	}
}

// Without a pull secret the ACI cannot sync: the site fails and says why.
func TestSpecSyncError(t *testing.T) {
	e := newStepped(t, Options{})
	s := newSite("ps", 1, 0)
	s.noPullSecret = true
	apply(t, e, s.bundle(), "r1")
	o := observe(t, e, "ps")
	o.until(10*time.Second, time.Hour, phaseIs(engine.PhaseFailed))
	c := findCond(t, o.last, "AgentClusterInstall", assisted.CondSpecSynced)
	if c.Reason != assisted.ReasonInputError || c.Message != "The Spec could not be synced due to an input error: PullSecret is required for ClusterDeployment ps/ps" {
		t.Errorf("SpecSynced %+v", c)
	}
	if c := findCond(t, o.last, "AgentClusterInstall", assisted.CondCompleted); c.Reason != assisted.ReasonNotAvailable {
		t.Errorf("Completed %+v", c)
	}
	if c := findCond(t, o.last, "InfraEnv", assisted.CondImageCreated); c.Reason != assisted.ReasonMissingClusterDeployment ||
		c.Message != "ClusterDeployment is missing: cluster does not exist: ps, check AgentClusterInstall conditions: name ps in namespace ps" {
		t.Errorf("ImageCreated %+v", c)
	}
	s.noPullSecret = false
	apply(t, e, s.bundle(), "r2")
	o.until(30*time.Second, 3*time.Hour, phaseIs(engine.PhaseInstalled))
}

// A ready cluster whose hosts do not match provisionRequirements, or that
// is on hold, waits, and says why (internal/controller/controllers/clusterdeployments_controller.go).
func TestInstallationWaits(t *testing.T) {
	e := newStepped(t, Options{})
	counts := newSite("counts", 3, 0)
	counts.aciSpec = map[string]any{"provisionRequirements": map[string]any{"controlPlaneAgents": 3, "workerAgents": 2}}
	apply(t, e, counts.bundle(), "r1")
	hold := newSite("hold", 1, 0)
	hold.aciSpec = map[string]any{"holdInstallation": true}
	apply(t, e, hold.bundle(), "r1")
	o := observe(t, e, "counts")
	h := observe(t, e, "hold")
	o.until(30*time.Second, 2*time.Hour, func(st engine.SiteStatus) bool {
		h.record()
		return st.Phase == engine.PhasePending && h.last.Phase == engine.PhasePending && h.last.Cluster.State == "ready"
	})
	want := "The cluster currently requires exactly 3 master agents, 0 arbiter agents and 2 worker agents, but currently registered 3 master agents, 0 arbiter agents and 0 worker agents. Make the site's BareMetalHosts and their roles match provisionRequirements."
	if o.last.Message != want {
		t.Errorf("message %q", o.last.Message)
	}
	if c := findCond(t, h.last, "AgentClusterInstall", assisted.CondCompleted); c.Reason != assisted.ReasonInstallationOnHold {
		t.Errorf("hold: %+v", c)
	}
	// Releasing the hold starts the installation.
	hold.aciSpec = nil
	apply(t, e, hold.bundle(), "r2")
	h.until(30*time.Second, 3*time.Hour, phaseIs(engine.PhaseInstalled))
}
