package dashboard

import (
	"testing"

	"github.com/siteops/siteops/engine"
	"github.com/siteops/siteops/reconciler/status"
)

func TestStuckAndRank(t *testing.T) {
	withHost := func(phase engine.Phase, h engine.HostStatus) status.Document {
		return status.Document{SiteStatus: engine.SiteStatus{Site: "s", Phase: phase, Hosts: []engine.HostStatus{h}}}
	}
	tests := []struct {
		name  string
		doc   status.Document
		stuck string
		rank  int
	}{
		{"a host waiting for the boot order",
			withHost(engine.PhaseInstalling, engine.HostStatus{Name: "bmh-0", Hostname: "node0", State: "installing-pending-user-action",
				StateInfo: "Expected the host to boot from disk, but it booted the installation image - please reboot and fix boot order to boot from disk"}),
			"host node0 is installing-pending-user-action: Expected the host to boot from disk, but it booted the installation image - please reboot and fix boot order to boot from disk",
			rankStuck},
		{"a disconnected host without status text",
			withHost(engine.PhaseProvisioning, engine.HostStatus{Name: "bmh-0", State: "disconnected"}),
			"host bmh-0 is disconnected: disconnected", rankStuck},
		{"a failing validation",
			withHost(engine.PhaseProvisioning, engine.HostStatus{Name: "bmh-0", State: "insufficient",
				Validations: []engine.Validation{{ID: "has-cpu-cores-for-role", Status: "failure", Message: "Require at least 4 CPU cores for master role, found only 2"}}}),
			"host bmh-0: Require at least 4 CPU cores for master role, found only 2", rankStuck},
		{"a pending validation is not stuck",
			withHost(engine.PhaseProvisioning, engine.HostStatus{Name: "bmh-0", State: "insufficient",
				Validations: []engine.Validation{{ID: "ntp-synced", Status: "pending", Message: "Host NTP is pending"}}}),
			"", rankProvisioning},
		{"a host installing is not stuck",
			withHost(engine.PhaseInstalling, engine.HostStatus{Name: "bmh-0", State: "installing-in-progress"}),
			"", rankInstalling},
		{"a failed site is failed, not stuck",
			withHost(engine.PhaseFailed, engine.HostStatus{Name: "bmh-0", State: "error"}),
			"", rankFailed},
		{"an installed site with a host in error is not stuck",
			withHost(engine.PhaseInstalled, engine.HostStatus{Name: "bmh-0", State: "error"}),
			"", rankInstalled},
		{"orphaned", func() status.Document { d := docInstalled("s"); d.Orphaned = true; return d }(), "", rankOrphaned},
		{"stuck before orphaned",
			func() status.Document {
				d := withHost(engine.PhaseDeleting, engine.HostStatus{Name: "bmh-0", State: "unbinding-pending-user-action", StateInfo: "Host is waiting to be unbound from the cluster"})
				d.Orphaned = true
				return d
			}(),
			"host bmh-0 is unbinding-pending-user-action: Host is waiting to be unbound from the cluster", rankStuck},
		{"an unknown phase sorts before installed", status.Document{SiteStatus: engine.SiteStatus{Site: "s", Phase: "Paused"}}, "", rankOther},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			stuck := stuckReason(&tt.doc)
			if stuck != tt.stuck {
				t.Errorf("stuck %q, want %q", stuck, tt.stuck)
			}
			if r := rank(&tt.doc, stuck); r != tt.rank {
				t.Errorf("rank %d, want %d", r, tt.rank)
			}
		})
	}
}

func TestThousands(t *testing.T) {
	for n, want := range map[int]string{0: "0", 999: "999", 1000: "1,000", 10000: "10,000", 1234567: "1,234,567", -4500: "-4,500"} {
		if got := thousands(n); got != want {
			t.Errorf("thousands(%d) = %q, want %q", n, got, want)
		}
	}
}

func TestShortRevision(t *testing.T) {
	for rev, want := range map[string]string{
		"main@sha1:0123456789abcdef0123456789abcdef01234567": "main@sha1:0123456",
		"sha256:abc":         "sha256:abc",
		"dir@sha256:" + "ab": "dir@sha256:ab",
		"":                   "",
	} {
		if got := shortRevision(rev); got != want {
			t.Errorf("shortRevision(%q) = %q, want %q", rev, got, want)
		}
	}
}
