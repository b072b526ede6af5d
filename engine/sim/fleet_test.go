package sim

import (
	"context"
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
