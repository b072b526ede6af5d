package sim

import (
	"context"
	"errors"
	"reflect"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/siteops/siteops/engine"
	"github.com/siteops/siteops/engine/assisted"
)

// A compact cluster (three masters, no workers) installs: one bootstrap
// with the bootstrap stages, two masters with the master stages, and the
// completion conditions on the AgentClusterInstall and ClusterDeployment.
func TestCompactCluster(t *testing.T) {
	e := newStepped(t, Options{})
	s := newSite("compact", 3, 0)
	apply(t, e, s.bundle(), "r1")
	o := observe(t, e, "compact")
	o.until(10*time.Second, 4*time.Hour, func(st engine.SiteStatus) bool { return st.Cluster.State == "adding-hosts" })
	bootstraps, masters := 0, 0
	for _, h := range o.last.Hosts {
		switch got := o.stages[h.Name]; {
		case slices.Equal(got, stageNames(assisted.StagesBootstrap)):
			bootstraps++
		case slices.Equal(got, stageNames(assisted.StagesMaster)):
			masters++
		default:
			t.Errorf("%s: stages %v", h.Name, got)
		}
		if h.Role != "master" || h.State != "installed" || h.Percent != 100 {
			t.Errorf("host %+v", h)
		}
	}
	if bootstraps != 1 || masters != 2 {
		t.Errorf("%d bootstraps, %d masters", bootstraps, masters)
	}
	for typ, want := range map[string]assisted.Cond{
		assisted.CondCompleted:       {Status: "True", Reason: assisted.ReasonInstallationCompleted, Message: "The installation has completed: " + assisted.ClusterInfoInstalled},
		assisted.CondStopped:         {Status: "True", Reason: assisted.ReasonInstallationCompleted, Message: "The installation has stopped because it completed successfully"},
		assisted.CondRequirementsMet: {Status: "True", Reason: assisted.ReasonClusterAlreadyInstalling, Message: "The cluster requirements are met"},
		assisted.CondValidated:       {Status: "True", Reason: assisted.ReasonValidationsPassing, Message: "The cluster's validations are passing"},
		assisted.CondFailed:          {Status: "False", Reason: assisted.ReasonInstallationNotFailed, Message: "The installation has not failed"},
	} {
		c := findCond(t, o.last, "AgentClusterInstall", typ)
		if c.Status != want.Status || c.Reason != want.Reason || c.Message != want.Message {
			t.Errorf("%s: %+v", typ, c)
		}
	}
	// The day-2 conversion keeps the status info of the installation
	// (internal/cluster/cluster.go TransformClusterToDay2).
	if got := o.last.Cluster.StateInfo; got != assisted.ClusterInfoInstalled {
		t.Errorf("stateInfo after the day-2 conversion = %q, want %q", got, assisted.ClusterInfoInstalled)
	}
	if c := findCond(t, o.last, "ClusterDeployment", assisted.CondClusterInstallCompleted); c.Message != "The installation has completed: "+assisted.ClusterInfoInstalled {
		t.Errorf("ClusterInstallCompleted %+v", c)
	}
	if c := findCond(t, o.last, "ClusterDeployment", assisted.CondProvisioned); c.Status != "True" || c.Message != "Cluster is provisioned" {
		t.Errorf("Provisioned %+v", c)
	}
	if o.last.Phase != engine.PhaseInstalled || o.last.Cluster.Percent != 100 || !o.last.Cluster.Installed {
		t.Errorf("%s %d%% installed=%v", o.last.Phase, o.last.Cluster.Percent, o.last.Cluster.Installed)
	}
}

// Two masters and an arbiter, no workers: the arbiter is judged against
// the arbiter requirements (2 cores, 8 GiB, 50 GB), installs with the
// master stages, and the cluster completes (internal/hardware/validator.go, internal/host/common.go).
func TestArbiterCluster(t *testing.T) {
	e := newStepped(t, Options{})
	s := newSite("tna", 2, 0)
	s.arbiters = 1
	s.hardware["tna-arb-0"] = "cpus=2,memoryMiB=8192,diskGB=60"
	apply(t, e, s.bundle(), "r1")
	o := observe(t, e, "tna")
	o.until(10*time.Second, 4*time.Hour, phaseIs(engine.PhaseInstalled))
	arb := hostNamed(o.last, "tna-arb-0")
	if arb.Role != "arbiter" || arb.State != "installed" {
		t.Errorf("arbiter %+v", arb)
	}
	if got, want := o.stages["tna-arb-0"], stageNames(assisted.StagesMaster); !slices.Equal(got, want) {
		t.Errorf("arbiter stages %v, want %v", got, want)
	}
}

// A single-node host short of memory stays insufficient; the status info
// lists every failing validation, sorted, with the numbers (internal/host/common.go, internal/host/validator.go).
func TestSingleNodeShortOfMemory(t *testing.T) {
	cases := []struct {
		name, hw, state, info string
	}{
		{
			name: "enough for a worker, not for the single node", hw: "memoryMiB=8192", state: "insufficient",
			info: "Host cannot be installed due to following failing validation(s): Require at least 16.00 GiB RAM for role master, found only 8.00 GiB",
		},
		{
			name: "below any role", hw: "memoryMiB=4096", state: "insufficient",
			info: "Host does not meet the minimum hardware requirements: Require at least 16.00 GiB RAM for role master, found only 4.00 GiB ; " +
				"The host is not eligible to participate in Openshift Cluster because the minimum required RAM for any role is 8.00 GiB, found only 4.00 GiB",
		},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			e := newStepped(t, Options{})
			s := newSite("mem", 1, 0)
			s.hardware["mem-cp-0"] = c.hw
			apply(t, e, s.bundle(), "r1")
			o := observe(t, e, "mem")
			o.until(10*time.Second, time.Hour, func(st engine.SiteStatus) bool {
				return hostNamed(st, "mem-cp-0").State == c.state && st.Cluster.State == "insufficient"
			})
			h := hostNamed(o.last, "mem-cp-0")
			if h.StateInfo != c.info {
				t.Errorf("state info\n got %q\nwant %q", h.StateInfo, c.info)
			}
			if o.last.Phase != engine.PhaseProvisioning || !strings.Contains(o.last.Message, "found only") {
				t.Errorf("%s %q", o.last.Phase, o.last.Message)
			}
			v := findCond(t, o.last, "Agent", assisted.CondValidated)
			if v.Status != "False" || v.Reason != assisted.ReasonValidationsFailing || !strings.Contains(v.Message, "Require at least 16.00 GiB RAM for role master") {
				t.Errorf("Validated %+v", v)
			}
			// The machine cannot install: it never leaves insufficient.
			o.holds(10*time.Minute, 2*time.Hour, func(st engine.SiteStatus) bool {
				return hostNamed(st, "mem-cp-0").State == c.state && st.Phase == engine.PhaseProvisioning
			})
		})
	}
}

// A pool host below the minimum of any role is insufficient-unbound with
// the minimum-hardware text (pool_host_statemachine.go).
func TestPoolHostBelowMinimum(t *testing.T) {
	e := newStepped(t, Options{})
	s := newSite("pmin", 1, 0)
	s.pool = true
	s.hardware["pmin-cp-0"] = "cpus=1"
	apply(t, e, s.bundle(), "r1")
	o := observe(t, e, "pmin")
	o.until(10*time.Second, time.Hour, func(st engine.SiteStatus) bool {
		return hostNamed(st, "pmin-cp-0").State == "insufficient-unbound"
	})
	// The role requirement of a pool host is the infra-env one (2 cores),
	// so both CPU validations fail, and both are listed.
	want := "Host does not meet the minimum hardware requirements: Require at least 2 CPU cores for master role, found only 1 ; The host is not eligible to participate in Openshift Cluster because the minimum required CPU cores for any role is 2, found only 1"
	if got := hostNamed(o.last, "pmin-cp-0").StateInfo; got != want {
		t.Errorf("state info\n got %q\nwant %q", got, want)
	}
}

// holds steps the clock by step for span and fails as soon as cond does
// not hold.
func (o *observer) holds(step, span time.Duration, cond func(engine.SiteStatus) bool) {
	o.t.Helper()
	for elapsed := time.Duration(0); elapsed < span; elapsed += step {
		if err := o.e.Advance(context.Background(), step); err != nil {
			o.t.Fatal(err)
		}
		if !cond(o.record()) {
			o.t.Fatalf("%s: condition broke after %v; status:\n%s", o.site, elapsed+step, dump(o.t, o.last))
		}
	}
}

// A disk below the role's size leaves the host with no eligible disk; the
// site says which disk and by how much (internal/hardware/validator.go).
func TestDiskTooSmall(t *testing.T) {
	e := newStepped(t, Options{})
	s := newSite("disk", 1, 0)
	s.hardware["disk-cp-0"] = "diskGB=64"
	apply(t, e, s.bundle(), "r1")
	o := observe(t, e, "disk")
	o.until(10*time.Second, time.Hour, func(st engine.SiteStatus) bool {
		return hostNamed(st, "disk-cp-0").State == "insufficient"
	})
	h := hostNamed(o.last, "disk-cp-0")
	want := "Host does not meet the minimum hardware requirements: No eligible disks were found, please check specific disks to see why they are not eligible"
	if h.StateInfo != want {
		t.Errorf("state info %q", h.StateInfo)
	}
	if !strings.Contains(o.last.Message, "Disk is too small (disk only has 64 GB, but 100 GB are required)") {
		t.Errorf("message does not say why the disk is not eligible: %q", o.last.Message)
	}
}

// With manual approval the RequirementsMet message counts the agents
// still to approve, and the count goes down with each approval (internal/controller/controllers/clusterdeployments_controller.go).
func TestUnapprovedAgentsCount(t *testing.T) {
	e := newStepped(t, Options{Approve: ApproveManual})
	s := newSite("ua", 3, 0)
	apply(t, e, s.bundle(), "r1")
	o := observe(t, e, "ua")
	for i, n := range []string{"3", "2", "1"} {
		msg := "The installation is pending on the approval of " + n + " agents"
		o.until(10*time.Second, time.Hour, func(st engine.SiteStatus) bool {
			for _, r := range st.Resources {
				if r.Kind != "AgentClusterInstall" {
					continue
				}
				c, ok := assisted.FindCondition(r.Conditions, assisted.CondRequirementsMet)
				return ok && c.Reason == assisted.ReasonUnapprovedAgents && c.Message == msg
			}
			return false
		})
		if o.last.Phase != engine.PhasePending || !strings.Contains(o.last.Message, "approval") {
			t.Errorf("%s %q", o.last.Phase, o.last.Message)
		}
		if err := e.Approve(context.Background(), "ua", s.hostNames()[i]); err != nil {
			t.Fatal(err)
		}
	}
	o.until(30*time.Second, 4*time.Hour, phaseIs(engine.PhaseInstalled))
}

// Deleting a site while it installs cancels the installation, removes
// every object in the finalizer order, and leaves no trace (the controllers' finalizers).
func TestDeleteWhileInstalling(t *testing.T) {
	e := newStepped(t, Options{})
	s := newSite("dwi", 3, 2)
	other := newSite("bystander", 1, 0)
	apply(t, e, s.bundle(), "r1")
	apply(t, e, other.bundle(), "r1")
	o := observe(t, e, "dwi")
	o.until(10*time.Second, 3*time.Hour, func(st engine.SiteStatus) bool {
		return st.Cluster.State == "installing" && hostNamed(st, "dwi-w-0").Stage != ""
	})
	if err := e.Delete(context.Background(), "dwi"); err != nil {
		t.Fatal(err)
	}
	var seen []string
	gone := false
	for range 600 {
		if err := e.Advance(context.Background(), time.Second); err != nil {
			t.Fatal(err)
		}
		st, err := e.Status(context.Background(), "dwi")
		if errors.Is(err, engine.ErrNotFound) {
			gone = true
			break
		}
		if err != nil {
			t.Fatal(err)
		}
		if st.Phase != engine.PhaseDeleting {
			t.Fatalf("phase %s", st.Phase)
		}
		for _, ev := range st.Events {
			seen = appendNew(seen, ev.Message)
		}
	}
	if !gone {
		t.Fatalf("site not gone after 10 minutes")
	}
	// The AgentClusterInstall finalizer cancelled the running installation
	// before it deregistered the cluster (the controllers' finalizers).
	all := strings.Join(seen, "\n")
	cancelled := strings.Index(all, "to cancelled")
	deregistered := strings.Index(all, "Deregistered cluster")
	if cancelled < 0 || deregistered < cancelled {
		t.Errorf("no cancellation before deregistration in\n%s", all)
	}
	b := observe(t, e, "bystander")
	b.until(time.Minute, 3*time.Hour, phaseIs(engine.PhaseInstalled))
	// The machines are free again: a site that uses them installs.
	again := newSite("dwi2", 3, 2)
	again.macBase = s.macBase
	apply(t, e, again.bundle(), "r1")
	a := observe(t, e, "dwi2")
	a.until(time.Minute, 4*time.Hour, phaseIs(engine.PhaseInstalled))
}

// Applying the bundle the engine already holds changes nothing, at any
// point of the installation: no event, no status change.
func TestReapplyMidInstall(t *testing.T) {
	e := newStepped(t, Options{})
	s := newSite("same", 3, 1)
	apply(t, e, s.bundle(), "r1")
	o := observe(t, e, "same")
	for _, state := range []string{"insufficient", "ready", "installing", "finalizing", "adding-hosts"} {
		o.until(5*time.Second, 4*time.Hour, func(st engine.SiteStatus) bool { return st.Cluster.State == state })
		before := status(t, e, "same")
		apply(t, e, s.bundle(), "r1")
		if after := status(t, e, "same"); !reflect.DeepEqual(before, after) {
			t.Errorf("%s: re-applying changed the status:\n%s\n%s", state, dump(t, before), dump(t, after))
		}
	}
}

// A site stuck in discovery says what to do for each kind of problem; a
// day-2 host that fails is named on the installed site with the fix.
func TestStuckMessagesSayWhatToDo(t *testing.T) {
	e := newStepped(t, Options{})
	weak := newSite("weakmsg", 1, 0)
	weak.hardware["weakmsg-cp-0"] = "cpus=6"
	apply(t, e, weak.bundle(), "r1")
	lost := newSite("lostmsg", 1, 0)
	lost.hardware["lostmsg-cp-0"] = "disconnectAt=discovery"
	apply(t, e, lost.bundle(), "r1")
	counts := newSite("countmsg", 1, 0)
	counts.aciSpec = map[string]any{"provisionRequirements": map[string]any{"controlPlaneAgents": 1, "workerAgents": 1}}
	apply(t, e, counts.bundle(), "r1")
	w, l, c := observe(t, e, "weakmsg"), observe(t, e, "lostmsg"), observe(t, e, "countmsg")
	w.until(10*time.Second, time.Hour, func(st engine.SiteStatus) bool {
		l.record()
		c.record()
		return hostNamed(st, "weakmsg-cp-0").State == "insufficient" && hostNamed(l.last, "lostmsg-cp-0").State == "disconnected" && c.last.Cluster.State != "" && c.last.Phase == engine.PhasePending
	})
	for _, x := range []struct {
		o    *observer
		want string
	}{
		{w, "Give the machine what the failing validations ask for (hosts[].validations) or change the site definition."},
		{l, "Check the power and network of the disconnected machines; they reconnect on their own."},
		{c, "Make the site's BareMetalHosts and their roles match provisionRequirements."},
	} {
		if !strings.HasSuffix(x.o.last.Message, x.want) {
			t.Errorf("%s: message %q does not end with %q", x.o.site, x.o.last.Message, x.want)
		}
	}

	d2 := newSite("d2fail", 1, 0)
	apply(t, e, d2.bundle(), "r1")
	o := observe(t, e, "d2fail")
	o.until(time.Minute, 3*time.Hour, func(st engine.SiteStatus) bool { return st.Cluster.State == "adding-hosts" })
	d2.extraHosts = []string{"d2fail-w-new"}
	d2.hardware["d2fail-w-new"] = "failAt=Writing image to disk"
	apply(t, e, d2.bundle(), "r2")
	o.until(10*time.Second, 3*time.Hour, func(st engine.SiteStatus) bool { return hostNamed(st, "d2fail-w-new").State == "error" })
	want := "Cluster is installed. 1 host(s) failed to join: d2fail-w-new: Failed - failed executing the installation in stage Writing image to disk: simulated failure. Fix the machine, then remove it from the site and add it again."
	if o.last.Phase != engine.PhaseInstalled || o.last.Message != want {
		t.Errorf("%s %q", o.last.Phase, o.last.Message)
	}
}

// A VIP outside the machine network keeps the cluster insufficient; the
// site message quotes the validation and says what to fix.
func TestClusterValidationMessage(t *testing.T) {
	e := newStepped(t, Options{})
	s := newSite("vip", 3, 0)
	s.aciSpec = map[string]any{"apiVIPs": []any{"198.51.100.5"}}
	apply(t, e, s.bundle(), "r1")
	o := observe(t, e, "vip")
	want := "api vips <198.51.100.5> does not belong to machine-network-cidr <192.0.2.0/24>"
	o.until(10*time.Second, time.Hour, func(st engine.SiteStatus) bool {
		return st.Cluster.State == "insufficient" && strings.Contains(st.Message, want)
	})
	if !strings.HasSuffix(o.last.Message, ". "+assisted.HintClusterValidations) || strings.Contains(o.last.Message, "..") || o.last.Phase != engine.PhaseProvisioning {
		t.Errorf("%s %q", o.last.Phase, o.last.Message)
	}
}

// Installer arguments the service refuses leave the Agent unsynced with
// the service's exact error, and hold the installation (pkg/validations/validations.go, internal/controller/controllers/clusterdeployments_controller.go).
func TestInstallerArgsRefused(t *testing.T) {
	cases := []struct{ name, args, want string }{
		{"not a JSON array", `--append-karg ip=dhcp`, "The Spec could not be synced due to an input error: Fail to unmarshal installer args for host %s in infraEnv %s"},
		{"unknown flag", `["--wipe"]`, "The Spec could not be synced due to an input error: found unexpected flag --wipe for installer - allowed flags are [--append-karg --delete-karg -n --copy-network --network-dir --save-partlabel --save-partindex --image-url --image-file]"},
		{"bad value", `["--append-karg","a b"]`, "The Spec could not be synced due to an input error: found unexpected chars in value a b for installer"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			e := newStepped(t, Options{})
			s := newSite("args", 1, 0)
			s.annotations["args-cp-0"] = map[string]string{assisted.AnnotationBMACInstallerArgs: c.args}
			apply(t, e, s.bundle(), "r1")
			o := observe(t, e, "args")
			o.until(10*time.Second, time.Hour, func(st engine.SiteStatus) bool {
				return st.Cluster.State == "ready" && hostNamed(st, "args-cp-0").Agent != ""
			})
			want := c.want
			if strings.Contains(want, "%s") {
				ie := ""
				for _, r := range o.last.Resources {
					if r.Kind == "InfraEnv" {
						_, id, _ := strings.Cut(r.ISODownloadURL, "/images/")
						ie, _, _ = strings.Cut(id, "?")
					}
				}
				want = strings.Replace(strings.Replace(want, "%s", hostNamed(o.last, "args-cp-0").Agent, 1), "%s", ie, 1)
			}
			if c := findCond(t, o.last, "Agent", assisted.CondSpecSynced); c.Status != "False" || c.Reason != assisted.ReasonInputError || c.Message != want {
				t.Errorf("SpecSynced %+v\nwant %q", c, want)
			}
			if c := findCond(t, o.last, "AgentClusterInstall", assisted.CondRequirementsMet); c.Reason != assisted.ReasonUnsyncedAgents || c.Message != "The cluster currently has 1 agents with spec error" {
				t.Errorf("RequirementsMet %+v", c)
			}
			o.holds(time.Minute, 30*time.Minute, func(st engine.SiteStatus) bool { return st.Phase == engine.PhasePending })
		})
	}
}

// A node taken out of a site before installation leaves with its Agent in
// one step; the remaining hosts install.
func TestNodeRemovedBeforeInstall(t *testing.T) {
	e := newStepped(t, Options{})
	s := newSite("rm", 3, 2)
	s.hardware["rm-w-1"] = "cpus=1"
	apply(t, e, s.bundle(), "r1")
	o := observe(t, e, "rm")
	o.until(10*time.Second, time.Hour, func(st engine.SiteStatus) bool { return hostNamed(st, "rm-w-1").State == "insufficient" })
	s.workers = 1
	apply(t, e, s.bundle(), "r2")
	o.until(10*time.Second, 4*time.Hour, phaseIs(engine.PhaseInstalled))
	if len(o.last.Hosts) != 4 || hostNamed(o.last, "rm-w-1").Name != "" {
		t.Errorf("hosts %+v", o.last.Hosts)
	}
}

// While a cluster installs on without a failed worker, the site names the
// worker and why it failed.
func TestInstallingNamesFailedWorker(t *testing.T) {
	e := newStepped(t, Options{})
	s := newSite("fw", 3, 3)
	s.hardware["fw-w-2"] = "failAt=Installing"
	apply(t, e, s.bundle(), "r1")
	o := observe(t, e, "fw")
	o.until(10*time.Second, 3*time.Hour, func(st engine.SiteStatus) bool {
		return st.Phase == engine.PhaseInstalling && hostNamed(st, "fw-w-2").State == "error"
	})
	want := " The installation goes on without the hosts that failed (fw-w-2: Failed - failed executing the installation in stage Installing: simulated failure)."
	if !strings.HasSuffix(o.last.Message, want) {
		t.Errorf("message %q", o.last.Message)
	}
	o.until(time.Minute, 3*time.Hour, phaseIs(engine.PhaseInstalled))
	want = "Cluster is installed but some workers did not join. 1 host(s) failed to join: fw-w-2: Failed - failed executing the installation in stage Installing: simulated failure. Fix the machine, then remove it from the site and add it again."
	if o.last.Message != want {
		t.Errorf("installed message %q", o.last.Message)
	}
}

// Re-applying the bundle at every step of an installation leaves the
// history exactly as it is without: same statuses, same events, same
// virtual times.
func TestReapplyLeavesHistoryAlone(t *testing.T) {
	run := func(reapply bool) []engine.SiteStatus {
		e := newStepped(t, Options{})
		s := newSite("hist", 3, 1)
		s.macBase = 60101
		apply(t, e, s.bundle(), "r1")
		var out []engine.SiteStatus
		for range 40 {
			if reapply {
				apply(t, e, s.bundle(), "r1")
			}
			if err := e.Advance(context.Background(), 2*time.Minute); err != nil {
				t.Fatal(err)
			}
			out = append(out, status(t, e, "hist"))
		}
		return out
	}
	plain, again := run(false), run(true)
	for i := range plain {
		if !reflect.DeepEqual(plain[i], again[i]) {
			t.Fatalf("step %d differs:\n%s\n%s", i, dump(t, plain[i]), dump(t, again[i]))
		}
	}
	if plain[len(plain)-1].Phase != engine.PhaseInstalled {
		t.Errorf("the run ends %s", plain[len(plain)-1].Phase)
	}
}

// With manual approval a day-2 host waits for it, and the installed site
// says so; once approved it joins (internal/controller/controllers/clusterdeployments_controller.go day 2).
func TestDay2WaitsForApproval(t *testing.T) {
	e := newStepped(t, Options{Approve: ApproveManual})
	s := newSite("d2a", 1, 0)
	apply(t, e, s.bundle(), "r1")
	o := observe(t, e, "d2a")
	o.until(10*time.Second, time.Hour, func(st engine.SiteStatus) bool { return hostNamed(st, "d2a-cp-0").State == "known" })
	if err := e.Approve(context.Background(), "d2a", "d2a-cp-0"); err != nil {
		t.Fatal(err)
	}
	o.until(time.Minute, 3*time.Hour, func(st engine.SiteStatus) bool { return st.Cluster.State == "adding-hosts" })
	s.extraHosts = []string{"d2a-w-new"}
	apply(t, e, s.bundle(), "r2")
	o.until(10*time.Second, time.Hour, func(st engine.SiteStatus) bool { return hostNamed(st, "d2a-w-new").State == "known" })
	o.holds(time.Minute, 30*time.Minute, func(st engine.SiteStatus) bool { return hostNamed(st, "d2a-w-new").State == "known" })
	want := "Cluster is installed. 1 host(s) wait for approval: d2a-w-new (agent " + hostNamed(o.last, "d2a-w-new").Agent + ")."
	if o.last.Phase != engine.PhaseInstalled || o.last.Message != want {
		t.Errorf("%s %q", o.last.Phase, o.last.Message)
	}
	if err := e.Approve(context.Background(), "d2a", "d2a-w-new"); err != nil {
		t.Fatal(err)
	}
	o.until(10*time.Second, 3*time.Hour, func(st engine.SiteStatus) bool {
		return hostNamed(st, "d2a-w-new").State == "added-to-existing-cluster"
	})
	if o.last.Message != "Cluster is installed." {
		t.Errorf("message %q", o.last.Message)
	}
}
