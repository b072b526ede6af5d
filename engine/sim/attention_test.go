package sim

import (
	"testing"
	"time"

	"github.com/siteops/siteops/engine"
)

func reasonIs(r engine.Reason) func(engine.SiteStatus) bool {
	return func(st engine.SiteStatus) bool { return st.Reason == r }
}

// A machine that boots the image but never registers is flagged once the
// stuck bound passed, not before, and the flag goes once a host moves.
func TestAttentionNotRegistering(t *testing.T) {
	e := newStepped(t, Options{Bounds: engine.Bounds{StuckAfter: 40 * time.Minute, NoProgressAfter: -1}})
	s := newSite("nr", 1, 0)
	s.hardware["nr-cp-0"] = "register=never"
	apply(t, e, s.bundle(), "r1")
	o := observe(t, e, "nr")
	o.holds(time.Minute, 30*time.Minute, func(st engine.SiteStatus) bool { return st.Reason == "" })
	o.until(time.Minute, time.Hour, reasonIs(engine.ReasonNotRegistering))
	if o.last.Phase != engine.PhaseProvisioning || o.last.LastProgressAt == nil {
		t.Errorf("%s", dump(t, o.last))
	}
	if !o.last.Reason.NeedsAttention() {
		t.Errorf("NotRegistering does not need attention")
	}
	// Stays flagged: nothing moves.
	o.holds(time.Minute, 2*time.Hour, reasonIs(engine.ReasonNotRegistering))
}

// A site whose hosts register is never flagged as not registering, even
// when the bound is short.
func TestAttentionRegisteringSiteNotFlagged(t *testing.T) {
	e := newStepped(t, Options{Bounds: engine.Bounds{StuckAfter: 5 * time.Minute, NoProgressAfter: -1}})
	apply(t, e, newSite("ok", 1, 0).bundle(), "r1")
	o := observe(t, e, "ok")
	o.until(time.Minute, 3*time.Hour, func(st engine.SiteStatus) bool {
		if st.Reason == engine.ReasonNotRegistering && st.Hosts[0].Agent != "" {
			t.Fatalf("flagged with a registered host: %s", dump(t, st))
		}
		return st.Phase == engine.PhaseInstalled
	})
	if o.last.Reason != "" {
		t.Errorf("installed site has reason %q", o.last.Reason)
	}
}

// An installation that does not move within the bound is flagged
// NoProgress, and the flag goes when it moves again. The bound is shorter
// here than the single-node bootkube wait, which stands for a stage that
// hangs.
func TestAttentionNoProgress(t *testing.T) {
	e := newStepped(t, Options{Bounds: engine.Bounds{StuckAfter: -1, NoProgressAfter: 4 * time.Minute}})
	apply(t, e, newSite("np", 1, 0).bundle(), "r1")
	o := observe(t, e, "np")
	o.until(time.Minute, 5*time.Hour, reasonIs(engine.ReasonNoProgress))
	stalledAt := o.last.Hosts[0].Stage
	if o.last.Phase != engine.PhaseInstalling || o.last.LastProgressAt == nil {
		t.Fatalf("%s", dump(t, o.last))
	}
	if gap := e.Now().Sub(*o.last.LastProgressAt); gap < 4*time.Minute {
		t.Errorf("flagged %v after the last progress", gap)
	}
	o.until(time.Minute, time.Hour, func(st engine.SiteStatus) bool { return st.Hosts[0].Stage != stalledAt })
	if o.last.Reason == engine.ReasonNoProgress {
		t.Errorf("still flagged after the stage moved from %s to %s", stalledAt, o.last.Hosts[0].Stage)
	}
}

// A worker that fails while the cluster completes without it leaves the
// site installed, partially.
func TestAttentionPartiallyInstalled(t *testing.T) {
	e := newStepped(t, Options{})
	s := newSite("w3", 3, 3)
	s.hardware["w3-w-1"] = "failAt=writing-image-to-disk"
	apply(t, e, s.bundle(), "r1")
	o := observe(t, e, "w3")
	o.until(time.Minute, 5*time.Hour, phaseIs(engine.PhaseInstalled))
	if o.last.Reason != engine.ReasonPartiallyInstalled {
		t.Errorf("reason %q: %s", o.last.Reason, o.last.Message)
	}
}

// A machine short of CPUs fails its validations: the site says so.
func TestAttentionValidationsFailing(t *testing.T) {
	e := newStepped(t, Options{})
	s := newSite("small", 1, 0)
	s.hardware["small-cp-0"] = "cpus=2"
	apply(t, e, s.bundle(), "r1")
	o := observe(t, e, "small")
	o.until(time.Minute, 2*time.Hour, reasonIs(engine.ReasonValidationsFailing))
	if o.last.Phase != engine.PhaseProvisioning {
		t.Errorf("%s", dump(t, o.last))
	}
}

// A refused change keeps the accepted revision in force and names the one
// refused; the next good revision clears it.
func TestAttentionChangeRefused(t *testing.T) {
	e := newStepped(t, Options{})
	s := newSite("rf", 1, 0)
	apply(t, e, s.bundle(), "r1")
	o := observe(t, e, "rf")
	o.until(time.Minute, time.Hour, phaseIs(engine.PhaseProvisioning))
	s.hardware["rf-cp-0"] = "cpus=eight"
	apply(t, e, s.bundle(), "r2")
	o.until(time.Minute, time.Hour, reasonIs(engine.ReasonChangeRefused))
	if o.last.Revision != "r1" || o.last.RefusedRevision != "r2" {
		t.Errorf("revision %q, refused %q", o.last.Revision, o.last.RefusedRevision)
	}
	s.hardware["rf-cp-0"] = "cpus=9"
	apply(t, e, s.bundle(), "r3")
	o.until(time.Minute, time.Hour, func(st engine.SiteStatus) bool { return st.Revision == "r3" })
	if o.last.RefusedRevision != "" || o.last.Reason == engine.ReasonChangeRefused {
		t.Errorf("refusal not cleared: %s", dump(t, o.last))
	}
}

// Hosts pass through insufficient while their first checks run: a
// healthy site is never flagged for failing validations on its way to
// installing.
func TestAttentionTransientValidationsNotFlagged(t *testing.T) {
	e := newStepped(t, Options{})
	apply(t, e, newSite("ok3", 3, 2).bundle(), "r1")
	o := observe(t, e, "ok3")
	o.until(10*time.Second, 3*time.Hour, func(st engine.SiteStatus) bool {
		if st.Reason != "" {
			t.Fatalf("a healthy site got reason %s at %s: %s", st.Reason, e.Now().Format("15:04:05"), st.Message)
		}
		return st.Phase == engine.PhaseInstalling
	})
}
