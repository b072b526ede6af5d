package dashboard

import (
	"testing"

	"github.com/siteops/siteops/engine"
	"github.com/siteops/siteops/reconciler/status"
)

func TestAttentionAndRank(t *testing.T) {
	doc := func(phase engine.Phase, reason engine.Reason, hosts ...engine.HostStatus) status.Document {
		return status.Document{SiteStatus: engine.SiteStatus{Site: "s", Phase: phase, Reason: reason, Hosts: hosts}}
	}
	tests := []struct {
		name      string
		doc       status.Document
		attention string
	}{
		{"a host waiting for the boot order",
			doc(engine.PhaseInstalling, engine.ReasonHostNeedsAction, engine.HostStatus{Name: "bmh-0", Hostname: "node0", State: "installing-pending-user-action",
				StateInfo: "Expected the host to boot from disk, but it booted the installation image - please reboot and fix boot order to boot from disk"}),
			"HostNeedsAction: a host waits on a person (host node0 is installing-pending-user-action: Expected the host to boot from disk, but it booted the installation image - please reboot and fix boot order to boot from disk)"},
		{"a disconnected host without status text",
			doc(engine.PhaseProvisioning, engine.ReasonHostNeedsAction, engine.HostStatus{Name: "bmh-0", State: "disconnected"}),
			"HostNeedsAction: a host waits on a person (host bmh-0 is disconnected: disconnected)"},
		{"a failing validation",
			doc(engine.PhaseProvisioning, engine.ReasonValidationsFailing, engine.HostStatus{Name: "bmh-0", State: "insufficient",
				Validations: []engine.Validation{{ID: "has-cpu-cores-for-role", Status: "failure", Message: "Require at least 4 CPU cores for master role, found only 2"}}}),
			"ValidationsFailing: validations fail, so the installation cannot start (host bmh-0: Require at least 4 CPU cores for master role, found only 2)"},
		{"an installed site with a failed worker",
			doc(engine.PhaseInstalled, engine.ReasonPartiallyInstalled, engine.HostStatus{Name: "w-1", State: "error", StateInfo: "Failed - simulated"}),
			"PartiallyInstalled: some hosts failed while the cluster installed (host w-1 is error: Failed - simulated)"},
		{"no host registered", doc(engine.PhaseProvisioning, engine.ReasonNotRegistering, engine.HostStatus{Name: "bmh-0"}),
			"NotRegistering: no host registered within the stuck bound"},
		{"a refused change", doc(engine.PhaseInstalled, engine.ReasonChangeRefused), "ChangeRefused: the engine refused the latest revision"},
		{"a site that does not load", doc(engine.PhaseInvalid, engine.ReasonLoadFailed), "LoadFailed: the site's files do not load"},
		{"a failed site with no reason", doc(engine.PhaseFailed, ""), "InstallFailed: the installation failed"},
		{"a held site needs no one", doc(engine.PhasePending, engine.ReasonHeld), ""},
		{"a host installing", doc(engine.PhaseInstalling, "", engine.HostStatus{Name: "bmh-0", State: "installing-in-progress"}), ""},
		{"installed", docInstalled("s"), ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := status.AttentionLine(&tt.doc); got != tt.attention {
				t.Errorf("attention %q, want %q", got, tt.attention)
			}
		})
	}
	// The order: the most severe reason first, then the phases.
	order := []status.Document{
		doc(engine.PhaseFailed, engine.ReasonInstallFailed),
		doc(engine.PhaseInvalid, engine.ReasonLoadFailed),
		doc(engine.PhaseInstalled, engine.ReasonPartiallyInstalled),
		doc(engine.PhaseProvisioning, engine.ReasonNotRegistering),
		doc(engine.PhaseInstalled, engine.ReasonOrphaned),
		doc(engine.PhaseDeleting, ""),
		doc(engine.PhaseInstalling, ""),
		doc(engine.PhasePending, engine.ReasonHeld),
		docInstalled("s"),
		doc("Paused", ""),
	}
	for i := 1; i < len(order); i++ {
		if a, b := rank(&order[i-1]), rank(&order[i]); a >= b {
			t.Errorf("%s/%s (rank %d) does not sort before %s/%s (rank %d)", order[i-1].Phase, order[i-1].Reason, a, order[i].Phase, order[i].Reason, b)
		}
	}
}

func TestThousands(t *testing.T) {
	for n, want := range map[int]string{0: "0", 999: "999", 1000: "1,000", 10000: "10,000", 1234567: "1,234,567", -4500: "-4,500"} {
		if got := thousands(n); got != want {
			t.Errorf("thousands(%d) = %q, want %q", n, got, want)
		}
	}
}
