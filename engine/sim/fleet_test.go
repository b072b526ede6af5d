package sim

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/siteops/siteops/engine"
)

// The example fleet installs end to end with the default hardware.
func TestExampleFleetInstalls(t *testing.T) {
	bundles := renderDir(t, "examples/fleet")
	e := newStepped(t, Options{})
	for _, name := range sortedSites(bundles) {
		apply(t, e, bundles[name], "rev1")
	}
	took := runUntil(t, e, 30*time.Second, 6*time.Hour, func() bool {
		for name := range bundles {
			st, err := e.Status(context.Background(), name)
			if err != nil || st.Phase != engine.PhaseInstalled {
				return false
			}
		}
		return true
	})
	t.Logf("fleet installed in %v of virtual time", took)
	for _, name := range sortedSites(bundles) {
		st := status(t, e, name)
		if st.Cluster.Percent != 100 || !st.Cluster.Installed || st.Cluster.Metadata == nil || st.Cluster.Metadata.AdminPasswordSecretRef == "" {
			t.Errorf("%s: %s", name, dump(t, st))
		}
	}
}

// The examples of simulated hardware and failures end as their comments
// say.
func TestSimExamples(t *testing.T) {
	bundles := renderDir(t, "examples/sim")
	e := newStepped(t, Options{})
	for _, name := range sortedSites(bundles) {
		apply(t, e, bundles[name], "rev1")
	}
	want := map[string]func(engine.SiteStatus) bool{
		"aster-ha-01": func(st engine.SiteStatus) bool {
			return st.Phase == engine.PhaseInstalled && st.Message == "Cluster is installed but some workers did not join." &&
				hostNamed(st, "aster-w-2.aster.example.net").State == "error"
		},
		"birch-sno-01": func(st engine.SiteStatus) bool {
			return st.Phase == engine.PhaseProvisioning && strings.Contains(st.Message, "Require at least 8 CPU cores for master role, found only 6")
		},
		"cedar-sno-01": func(st engine.SiteStatus) bool { return st.Phase == engine.PhaseInstalled },
		"dune-sno-01": func(st engine.SiteStatus) bool {
			return st.Phase == engine.PhaseProvisioning && strings.Contains(st.Message, "1 host(s) have not registered yet")
		},
	}
	runUntil(t, e, time.Minute, 6*time.Hour, func() bool {
		for name, ok := range want {
			st, err := e.Status(context.Background(), name)
			if err != nil || !ok(st) {
				return false
			}
		}
		return true
	})
	// cedar's machine went through inspection: its ClusterInstance
	// BareMetalHost carries an empty inspect annotation, which BMAC leaves.
	if got := len(bundles); got != len(want) {
		t.Errorf("%d sites in examples/sim", got)
	}
}
