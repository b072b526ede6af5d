package sim

import (
	"context"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/siteops/siteops/engine"
	"github.com/siteops/siteops/engine/assisted"
)

// observer records, step by step, the distinct states a site went through.
type observer struct {
	t        testing.TB
	e        *Engine
	site     string
	stages   map[string][]string // host → stages in order
	hostSt   map[string][]string // host → host states in order
	cluster  []string
	phases   []engine.Phase
	percents []int
	last     engine.SiteStatus
}

func observe(t testing.TB, e *Engine, site string) *observer {
	return &observer{t: t, e: e, site: site, stages: map[string][]string{}, hostSt: map[string][]string{}}
}

func appendNew[T comparable](list []T, v T) []T {
	if len(list) == 0 || list[len(list)-1] != v {
		return append(list, v)
	}
	return list
}

func (o *observer) record() engine.SiteStatus {
	st, err := o.e.Status(context.Background(), o.site)
	if err != nil {
		return engine.SiteStatus{}
	}
	o.last = st
	for _, h := range st.Hosts {
		if h.Stage != "" {
			o.stages[h.Name] = appendNew(o.stages[h.Name], h.Stage)
		}
		if h.State != "" {
			o.hostSt[h.Name] = appendNew(o.hostSt[h.Name], h.State)
		}
	}
	if st.Cluster.State != "" {
		o.cluster = appendNew(o.cluster, st.Cluster.State)
	}
	o.phases = appendNew(o.phases, st.Phase)
	o.percents = appendNew(o.percents, st.Cluster.Percent)
	return st
}

// until steps the clock by step until cond holds for the site's status.
func (o *observer) until(step, limit time.Duration, cond func(engine.SiteStatus) bool) {
	o.t.Helper()
	for elapsed := time.Duration(0); elapsed <= limit; elapsed += step {
		if err := o.e.Advance(context.Background(), step); err != nil {
			o.t.Fatal(err)
		}
		if cond(o.record()) {
			return
		}
	}
	o.t.Fatalf("%s: condition not reached within %v; last status:\n%s", o.site, limit, dump(o.t, o.last))
}

func phaseIs(p engine.Phase) func(engine.SiteStatus) bool {
	return func(st engine.SiteStatus) bool { return st.Phase == p }
}

func stageNames(stages []assisted.Stage) []string {
	var out []string
	for _, s := range stages {
		if s != assisted.StageCopyingRegistryData {
			out = append(out, string(s))
		}
	}
	return out
}

// A single-node site goes through every status and stage in order, and
// its percentages never go down (internal/host/statemachine.go, internal/cluster/statemachine.go, internal/host/common.go).
func TestSingleNodeInstallation(t *testing.T) {
	e := newStepped(t, Options{})
	s := newSite("sno1", 1, 0)
	apply(t, e, s.bundle(), "r1")
	o := observe(t, e, "sno1")
	o.until(5*time.Second, 3*time.Hour, func(st engine.SiteStatus) bool { return st.Cluster.State == "adding-hosts" })

	host := "sno1-cp-0"
	wantStages := stageNames(assisted.StagesSNO)
	if got := o.stages[host]; !slices.Equal(got, wantStages) {
		t.Errorf("stages %v, want %v", got, wantStages)
	}
	wantHost := []string{"discovering", "known", "preparing-for-installation", "preparing-successful", "installing", "installing-in-progress", "installed"}
	if got := o.hostSt[host]; !slices.Equal(got, wantHost) {
		t.Errorf("host states %v, want %v", got, wantHost)
	}
	wantCluster := []string{"insufficient", "ready", "preparing-for-installation", "installing", "finalizing", "installed", "adding-hosts"}
	if got := o.cluster; !slices.Equal(got, wantCluster) {
		// The cluster may pass pending-for-input before the host reports.
		if !slices.Equal(got[1:], wantCluster[1:]) {
			t.Errorf("cluster states %v, want %v", got, wantCluster)
		}
	}
	wantPhases := []engine.Phase{engine.PhasePending, engine.PhaseProvisioning, engine.PhaseInstalling, engine.PhaseInstalled}
	if !slices.Equal(o.phases, wantPhases) {
		t.Errorf("phases %v, want %v", o.phases, wantPhases)
	}
	if !slices.IsSorted(o.percents) || o.percents[len(o.percents)-1] != 100 {
		t.Errorf("percentages %v", o.percents)
	}
	st := o.last
	if st.Cluster.Metadata == nil || st.Cluster.Metadata.AdminKubeconfigSecretRef != "sno1-admin-kubeconfig" || st.Cluster.Metadata.AdminPasswordSecretRef != "sno1-admin-password" {
		t.Errorf("metadata %+v", st.Cluster.Metadata)
	}
	if st.Cluster.InstallStartedAt == nil || st.Cluster.InstalledAt == nil || !st.Cluster.InstalledAt.After(*st.Cluster.InstallStartedAt) {
		t.Errorf("timestamps %v %v", st.Cluster.InstallStartedAt, st.Cluster.InstalledAt)
	}
	if h := st.Hosts[0]; h.ProvisioningState != "provisioned" || h.Percent != 100 || !h.Approved || h.Role != "master" {
		t.Errorf("host %+v", h)
	}
}

// A highly-available site: the bootstrap, the other masters and the
// workers each follow their role's stage list (internal/host/common.go).
func TestHighlyAvailableStages(t *testing.T) {
	e := newStepped(t, Options{})
	s := newSite("ha1", 3, 2)
	apply(t, e, s.bundle(), "r1")
	o := observe(t, e, "ha1")
	o.until(5*time.Second, 4*time.Hour, phaseIs(engine.PhaseInstalled))
	bootstraps := 0
	for _, h := range o.last.Hosts {
		got := o.stages[h.Name]
		switch {
		case strings.Contains(h.Name, "-w-"):
			if want := stageNames(assisted.StagesWorker); !slices.Equal(got, want) {
				t.Errorf("%s: %v, want %v", h.Name, got, want)
			}
		case slices.Equal(got, stageNames(assisted.StagesBootstrap)):
			bootstraps++
		default:
			if want := stageNames(assisted.StagesMaster); !slices.Equal(got, want) {
				t.Errorf("%s: %v, want %v", h.Name, got, want)
			}
		}
	}
	if bootstraps != 1 {
		t.Errorf("%d bootstraps", bootstraps)
	}
	if !slices.IsSorted(o.percents) {
		t.Errorf("percentages went down: %v", o.percents)
	}
}

// Hardware below a role's requirements keeps the host insufficient with
// the validation's message; new hardware fixes it.
func TestInsufficientHardware(t *testing.T) {
	e := newStepped(t, Options{})
	s := newSite("weak", 1, 0)
	s.hardware["weak-cp-0"] = "cpus=6,memoryMiB=16384"
	apply(t, e, s.bundle(), "r1")
	o := observe(t, e, "weak")
	o.until(10*time.Second, time.Hour, func(st engine.SiteStatus) bool {
		return len(st.Hosts) == 1 && st.Hosts[0].State == "insufficient"
	})
	h := o.last.Hosts[0]
	want := "Host cannot be installed due to following failing validation(s): Require at least 8 CPU cores for master role, found only 6"
	if h.StateInfo != want {
		t.Errorf("state info %q", h.StateInfo)
	}
	if len(h.Validations) != 1 || h.Validations[0].ID != assisted.HVHasCPUCoresForRole {
		t.Errorf("validations %+v", h.Validations)
	}
	if o.last.Phase != engine.PhaseProvisioning || !strings.Contains(o.last.Message, "found only 6") {
		t.Errorf("phase %s %q", o.last.Phase, o.last.Message)
	}
	if c := findCond(t, o.last, "Agent", assisted.CondValidated); c.Reason != assisted.ReasonValidationsFailing {
		t.Errorf("Validated %+v", c)
	}
	// The machine gets more cores: the agent reports the new inventory.
	s.hardware["weak-cp-0"] = "cpus=8,memoryMiB=16384"
	apply(t, e, s.bundle(), "r2")
	o.until(10*time.Second, 3*time.Hour, phaseIs(engine.PhaseInstalled))
}

func findCond(t testing.TB, st engine.SiteStatus, kind, typ string) engine.Condition {
	t.Helper()
	return findNamedCond(t, st, kind, "", typ)
}

// findNamedCond finds a condition of the resource of the kind and name; an
// empty name takes the first resource of the kind that has the condition.
func findNamedCond(t testing.TB, st engine.SiteStatus, kind, name, typ string) engine.Condition {
	t.Helper()
	for _, r := range st.Resources {
		if r.Kind != kind || name != "" && r.Name != name {
			continue
		}
		for _, c := range r.Conditions {
			if c.Type == typ {
				return c
			}
		}
	}
	t.Fatalf("no %s condition on a %s %s in\n%s", typ, kind, name, dump(t, st))
	return engine.Condition{}
}

// Two masters and an arbiter install; so do hosts whose roles the service
// suggests (internal/controller/controllers/clusterdeployments_controller.go: the weakest qualifying hosts become masters).
func TestArbiterAndSuggestedRoles(t *testing.T) {
	e := newStepped(t, Options{})
	arb := newSite("arb", 2, 1)
	arb.arbiters = 1
	apply(t, e, arb.bundle(), "r1")
	auto := newSite("auto", 3, 2)
	auto.autoRoles = true
	auto.hardware["auto-w-0"] = "cpus=4,memoryMiB=16384"
	auto.hardware["auto-w-1"] = "cpus=4,memoryMiB=16384"
	apply(t, e, auto.bundle(), "r1")
	o := observe(t, e, "arb")
	a := observe(t, e, "auto")
	defer func() {
		if t.Failed() {
			t.Logf("auto: %s %q", a.last.Phase, a.last.Message)
		}
	}()
	o.until(5*time.Second, 4*time.Hour, func(st engine.SiteStatus) bool {
		a.record()
		return st.Phase == engine.PhaseInstalled && a.last.Phase == engine.PhaseInstalled
	})
	if a.last.Phase != engine.PhaseInstalled {
		t.Fatalf("auto: %s", dump(t, a.last))
	}
	if got, want := o.stages["arb-arb-0"], stageNames(assisted.StagesMaster); !slices.Equal(got, want) {
		t.Errorf("arbiter stages %v, want %v", got, want)
	}
	if h := hostNamed(o.last, "arb-arb-0"); h.Role != "arbiter" {
		t.Errorf("arbiter role %q", h.Role)
	}
	roles := map[string]int{}
	for _, h := range a.last.Hosts {
		roles[h.Role]++
	}
	if roles["master"] != 3 || roles["worker"] != 2 {
		t.Errorf("suggested roles %v", roles)
	}
	// The 4-core machines are the weakest: they qualify as masters
	// (4 cores, 16 GiB) and are chosen first.
	for _, n := range []string{"auto-w-0", "auto-w-1"} {
		if h := hostNamed(a.last, n); h.Role != "master" {
			t.Errorf("%s became %s", n, h.Role)
		}
	}
	for _, r := range o.last.Resources {
		if r.Kind == "InfraEnv" && !strings.HasPrefix(r.ISODownloadURL, "https://assisted-image-service.siteops.local/images/") {
			t.Errorf("ISO URL %q", r.ISODownloadURL)
		}
	}
}
