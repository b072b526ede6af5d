package sim

import (
	"strings"
	"testing"
	"time"

	"github.com/siteops/siteops/engine"
	"github.com/siteops/siteops/engine/assisted"
)

// agentCond finds a condition of the Agent of the host named name.
func agentCond(t testing.TB, st engine.SiteStatus, name, typ string) engine.Condition {
	t.Helper()
	agent := hostNamed(st, name).Agent
	if agent == "" {
		t.Fatalf("host %s has no Agent in\n%s", name, dump(t, st))
	}
	return findNamedCond(t, st, "Agent", agent, typ)
}

// Root device hints that match no eligible disk make BMAC ask for
// /dev/not-found-by-hints; the service refuses it, the Agent shows the
// input error, and the role and hostname of the same update are not
// applied (bmh_agent_controller.go findInstallationDiskID, host.go
// UpdateInstallationDisk, inventory.go V2UpdateHostInternal).
func TestRootDeviceHintsMatchNoEligibleDisk(t *testing.T) {
	for _, tc := range []struct {
		name  string
		hints map[string]any
		hw    string
	}{
		{"no disk has the serial number", map[string]any{"serialNumber": "NO-SUCH-DISK"}, ""},
		{"the named disk is too small", map[string]any{"deviceName": "/dev/nvme0n1"}, "diskGB=60"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			e := newStepped(t, Options{})
			s := newSite("hints", 3, 0)
			bad := "hints-cp-1"
			s.bmhSpec = map[string]map[string]any{bad: {"rootDeviceHints": tc.hints}}
			if tc.hw != "" {
				s.hardware[bad] = tc.hw
			}
			apply(t, e, s.bundle(), "r1")
			var st engine.SiteStatus
			runUntil(t, e, 10*time.Second, time.Hour, func() bool {
				st = status(t, e, "hints")
				h := hostNamed(st, bad)
				return h.Agent != "" && h.State != "" && h.State != string(assisted.HostDiscovering)
			})
			runUntil(t, e, 10*time.Second, 10*time.Minute, func() bool {
				st = status(t, e, "hints")
				return agentCond(t, st, bad, assisted.CondSpecSynced).Status == "False"
			})
			c := agentCond(t, st, bad, assisted.CondSpecSynced)
			want := "The Spec could not be synced due to an input error: Requested installation disk is not part of the host's valid disks"
			if c.Reason != assisted.ReasonInputError || c.Message != want {
				t.Errorf("SpecSynced = %s/%q, want InputError/%q", c.Reason, c.Message, want)
			}
			h := hostNamed(st, bad)
			// The status shows the suggested role of an auto-assign host,
			// so the hostname is what tells the update was dropped.
			if h.Hostname != bad {
				t.Errorf("hostname %q was applied with a refused installation disk", h.Hostname)
			}
			if ok := hostNamed(st, "hints-cp-0"); ok.Role != "master" || ok.Hostname != "hints-cp-0.example.net" {
				t.Errorf("the other hosts lost their spec: role %q hostname %q", ok.Role, ok.Hostname)
			}
		})
	}
}

// A host without an eligible disk has no installation disk: the disk-speed
// validation is an error (internal/host/validator.go
// sufficientOrUnknownInstallationDiskSpeed, GetBootDevice fails) and its
// text shows in the Agent's Validated message.
func TestNoInstallationDiskIsADiskSpeedError(t *testing.T) {
	e := newStepped(t, Options{})
	s := newSite("nodisk", 3, 0)
	s.hardware["nodisk-cp-2"] = "diskGB=20"
	apply(t, e, s.bundle(), "r1")
	var st engine.SiteStatus
	runUntil(t, e, 10*time.Second, time.Hour, func() bool {
		st = status(t, e, "nodisk")
		return hostNamed(st, "nodisk-cp-2").State == string(assisted.HostInsufficient)
	})
	var speed *engine.Validation
	for _, v := range hostNamed(st, "nodisk-cp-2").Validations {
		if v.ID == assisted.HVSufficientDiskSpeed {
			speed = &v
		}
	}
	if speed == nil || speed.Status != "error" || speed.Message != "Validation error" {
		t.Fatalf("sufficient-installation-disk-speed = %+v, want error/Validation error", speed)
	}
	c := agentCond(t, st, "nodisk-cp-2", assisted.CondValidated)
	if c.Status != "False" || !strings.Contains(c.Message, ",Validation error") && !strings.Contains(c.Message, "Validation error,") {
		t.Errorf("Validated = %s %q, want the disk-speed error listed", c.Status, c.Message)
	}
}
