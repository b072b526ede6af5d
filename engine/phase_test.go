package engine

import (
	"testing"
	"time"
)

func TestBoundsWithDefaults(t *testing.T) {
	got := Bounds{StuckAfter: time.Hour, NoProgressAfter: -1}.WithDefaults()
	want := Bounds{StuckAfter: time.Hour, NoProgressAfter: -1, SettleAfter: DefaultBounds.SettleAfter}
	if got != want {
		t.Errorf("got %+v, want %+v: a set bound stays, a negative one stays off, a zero one takes its default", got, want)
	}
}

func TestReasonOrder(t *testing.T) {
	if Worse("", ReasonHeld) != ReasonHeld || Worse(ReasonNoProgress, "") != ReasonNoProgress {
		t.Error("an empty reason is not the least severe")
	}
	if Worse(ReasonNotRegistering, ReasonInstallFailed) != ReasonInstallFailed {
		t.Error("a failed installation is not worse than a host that does not register")
	}
	if ReasonHeld.NeedsAttention() || !Reason("SomethingNew").NeedsAttention() || Reason("").NeedsAttention() {
		t.Error("Held needs no one; an unknown reason does, to be safe; no reason needs no one")
	}
	for _, r := range Reasons() {
		if r.Summary() == "" {
			t.Errorf("reason %s has no summary", r)
		}
	}
	if PhaseFailed.Rank() >= PhaseInstalled.Rank() || Phase("Paused").Rank() <= PhaseInstalled.Rank() {
		t.Error("phases are not ordered failed first, installed last, unknown after them")
	}
}
