package sim

import (
	"math"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/siteops/siteops/engine"
	"github.com/siteops/siteops/engine/assisted"
	"github.com/siteops/siteops/render"
)

func hostNamed(st engine.SiteStatus, name string) engine.HostStatus {
	for _, h := range st.Hosts {
		if h.Name == name {
			return h
		}
	}
	return engine.HostStatus{}
}

// Failures injected through the hardware annotation, and what the state
// machines make of them (internal/host/statemachine.go, internal/cluster/statemachine.go).
func TestInjectedFailures(t *testing.T) {
	cases := []struct {
		name     string
		site     *siteBuilder
		hw       map[string]string
		phase    engine.Phase
		host     string
		state    string
		info     string
		cluster  string
		clusterI string
		visited  string
	}{
		{
			name: "one failed worker of three does not sink the cluster",
			site: newSite("w3", 3, 3), hw: map[string]string{"w3-w-1": "failAt=writing-image-to-disk"},
			phase: engine.PhaseInstalled, host: "w3-w-1", state: "error",
			info:    "Failed - failed executing the installation in stage Writing image to disk: simulated failure",
			cluster: "installed", clusterI: assisted.ClusterInfoWorkersNotJoined,
		},
		{
			name: "one failed worker of two sinks the cluster",
			site: newSite("w2", 3, 2), hw: map[string]string{"w2-w-0": "failAt=Installing"},
			phase: engine.PhaseFailed, host: "w2-w-0", state: "error",
			info:    "Failed - failed executing the installation in stage Installing: simulated failure",
			cluster: "error", clusterI: assisted.ClusterInfoHostsInError,
		},
		{
			name: "a failed master sinks the cluster and its hosts",
			site: newSite("m3", 3, 0), hw: map[string]string{"m3-cp-1": "failAt=Writing image to disk"},
			phase: engine.PhaseFailed, host: "m3-cp-0", state: "error", info: assisted.InfoClusterError,
			cluster: "error", clusterI: assisted.ClusterInfoHostsInError,
		},
		{
			name: "disconnected while writing the image",
			site: newSite("dc", 1, 0), hw: map[string]string{"dc-cp-0": "disconnectAt=writing-image-to-disk"},
			phase: engine.PhaseFailed, host: "dc-cp-0", state: "error", info: assisted.InfoDisconnectedInstalling,
			cluster: "error", clusterI: assisted.ClusterInfoHostsInError,
		},
		{
			name: "silent after the reboot: the stage times out",
			site: newSite("cf", 1, 0), hw: map[string]string{"cf-cp-0": "disconnectAt=joined"},
			phase: engine.PhaseFailed, host: "cf-cp-0", state: "error",
			info:    "Host failed to install because its installation stage Joined took longer than expected 1h0m0s",
			cluster: "error", clusterI: assisted.ClusterInfoHostsInError,
		},
		{
			name: "a worker that boots the ISO again waits for the user, then fails",
			site: newSite("bo", 3, 3), hw: map[string]string{"bo-w-2": "bootOrder=iso"},
			phase: engine.PhaseInstalled, host: "bo-w-2", state: "error", info: assisted.InfoPendingUserActionTimeout,
			cluster: "installed", clusterI: assisted.ClusterInfoWorkersNotJoined,
		},
		{
			name: "disconnected during discovery",
			site: newSite("dd", 1, 0), hw: map[string]string{"dd-cp-0": "disconnectAt=discovery"},
			phase: engine.PhaseProvisioning, host: "dd-cp-0", state: "disconnected", info: assisted.InfoDisconnected,
			cluster: "insufficient", clusterI: assisted.ClusterInfoInsufficient,
		},
		{
			name: "disconnected while preparing",
			site: newSite("dp", 1, 0), hw: map[string]string{"dp-cp-0": "disconnectAt=preparing"},
			phase: engine.PhaseProvisioning, host: "dp-cp-0", state: "disconnected", info: assisted.InfoDisconnected,
			cluster: "insufficient", clusterI: assisted.ClusterInfoInsufficient, visited: "preparing-for-installation",
		},
		{
			name: "media lost during discovery",
			site: newSite("md", 1, 0), hw: map[string]string{"md-cp-0": "mediaAt=discovery"},
			phase: engine.PhaseProvisioning, host: "md-cp-0", state: "disconnected", info: assisted.InfoMediaDisconnected,
			cluster: "insufficient", clusterI: assisted.ClusterInfoInsufficient,
		},
		{
			name: "media lost while installing",
			site: newSite("mi", 1, 0), hw: map[string]string{"mi-cp-0": "mediaAt=installing"},
			phase: engine.PhaseFailed, host: "mi-cp-0", state: "error", info: assisted.InfoMediaDisconnected,
			cluster: "error", clusterI: assisted.ClusterInfoHostsInError,
		},
		{
			name: "a slow disk fails the preparation's speed check",
			site: newSite("sd", 1, 0), hw: map[string]string{"sd-cp-0": "diskSpeedMs=25"},
			phase: engine.PhaseProvisioning, host: "sd-cp-0", state: "insufficient",
			info:    "Host cannot be installed due to following failing validation(s): While preparing the previous installation the installation disk speed measurement failed or was found to be insufficient",
			cluster: "insufficient", clusterI: assisted.ClusterInfoInsufficient, visited: "preparing-for-installation",
		},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			e := newStepped(t, Options{})
			for k, v := range c.hw {
				c.site.hardware[k] = v
			}
			apply(t, e, c.site.bundle(), "r1")
			o := observe(t, e, c.site.name)
			o.until(5*time.Second, 5*time.Hour, func(st engine.SiteStatus) bool {
				h := hostNamed(st, c.host)
				return st.Phase == c.phase && h.State == c.state && h.StateInfo == c.info && st.Cluster.State == c.cluster && st.Cluster.StateInfo == c.clusterI
			})
			if c.visited != "" && !slices.Contains(o.hostSt[c.host], c.visited) {
				t.Errorf("%s went through %v, not %s", c.host, o.hostSt[c.host], c.visited)
			}
		})
	}
}

// A host whose agent never registers leaves the site provisioning, with a
// message that says so.
func TestNeverRegisters(t *testing.T) {
	e := newStepped(t, Options{})
	s := newSite("nr", 1, 0)
	s.hardware["nr-cp-0"] = "register=never"
	apply(t, e, s.bundle(), "r1")
	o := observe(t, e, "nr")
	o.until(time.Minute, time.Hour, func(st engine.SiteStatus) bool {
		return st.Hosts[0].ProvisioningState == "provisioned" && strings.Contains(st.Message, "1 host(s) have not registered yet")
	})
	if o.last.Phase != engine.PhaseProvisioning || o.last.Hosts[0].Agent != "" {
		t.Errorf("%s", dump(t, o.last))
	}
}

// A bad hardware annotation is refused with the key, the site and how to
// fix it; the engine does not panic and other sites go on.
func TestBadHardwareAnnotation(t *testing.T) {
	e := newStepped(t, Options{})
	bad := newSite("bad", 1, 0)
	bad.hardware["bad-cp-0"] = "cpus=eight"
	good := newSite("good", 1, 0)
	apply(t, e, bad.bundle(), "r1")
	apply(t, e, good.bundle(), "r1")
	o := observe(t, e, "bad")
	o.until(time.Minute, time.Hour, phaseIs(engine.PhaseFailed))
	want := "site bad: BareMetalHost bad/bad-cp-0 annotation sim.siteops.io/hardware: cpus=eight: want a whole number above 0"
	if !strings.Contains(o.last.Message, want) {
		t.Errorf("message %q", o.last.Message)
	}
	if c := findCond(t, o.last, "BareMetalHost", condAccepted); c.Status != "False" || c.Reason != reasonInvalidSpec {
		t.Errorf("condition %+v", c)
	}
	g := observe(t, e, "good")
	g.until(time.Minute, 3*time.Hour, phaseIs(engine.PhaseInstalled))
}

// An object whose content JSON cannot hold (a YAML .nan) is refused with
// the object and the cause, instead of being kept without its content;
// other sites go on.
func TestContentJSONCannotHoldIsRefused(t *testing.T) {
	e := newStepped(t, Options{})
	bad := newSite("nan", 1, 0)
	b := bad.bundle()
	found := false
	for _, o := range b.Objects {
		if o.Kind == render.KindInfraEnv {
			o.Content["spec"].(map[string]any)["weight"] = math.NaN()
			found = true
		}
	}
	if !found {
		t.Fatal("the bundle has no InfraEnv")
	}
	good := newSite("good", 1, 0)
	apply(t, e, b, "r1")
	apply(t, e, good.bundle(), "r1")
	o := observe(t, e, "nan")
	o.until(time.Minute, time.Hour, phaseIs(engine.PhaseFailed))
	if !strings.Contains(o.last.Message, "InfraEnv nan/") || !strings.Contains(o.last.Message, "field spec.weight holds a value JSON cannot hold") {
		t.Errorf("message %q", o.last.Message)
	}
	if c := findCond(t, o.last, "InfraEnv", condAccepted); c.Status != "False" || c.Reason != reasonInvalidSpec {
		t.Errorf("condition %+v", c)
	}
	g := observe(t, e, "good")
	g.until(time.Minute, 3*time.Hour, phaseIs(engine.PhaseInstalled))
}
