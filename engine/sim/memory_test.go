package sim

import (
	"fmt"
	"slices"
	"testing"
	"time"

	"github.com/siteops/siteops/engine"
)

// A status shares the site's event list: events recorded after it, many
// more than the list keeps, leave the status's list as it was, and the
// site keeps the latest engine.MaxEvents in order.
func TestAppendEventLeavesSharedListsAlone(t *testing.T) {
	at := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	ev := func(i int) engine.Event {
		return engine.Event{Time: at.Add(time.Duration(i) * time.Second), Reason: "R", Message: fmt.Sprint(i)}
	}
	for _, tc := range []struct {
		name          string
		before, after int
	}{
		{"from none", 0, 3 * eventsRoom},
		{"from a few", 5, 7},
		{"from a full list", engine.MaxEvents, 1},
		{"from a full list, many", engine.MaxEvents, 4 * eventsRoom},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var evs []engine.Event
			for i := range tc.before {
				evs = appendEvent(evs, ev(i))
			}
			status := shared(evs)
			snapshot := slices.Clone(status)
			for i := range tc.after {
				evs = appendEvent(evs, ev(tc.before+i))
			}
			if !slices.Equal(status, snapshot) {
				t.Errorf("the status's events changed: %v, was %v", status, snapshot)
			}
			total := tc.before + tc.after
			var want []engine.Event
			for i := max(0, total-engine.MaxEvents); i < total; i++ {
				want = append(want, ev(i))
			}
			if !slices.Equal(evs, want) {
				t.Errorf("site events %v, want %v", evs, want)
			}
		})
	}
}

// A status's lists are nil when the state's are empty, as copies were,
// and appending to them never writes into the state's array.
func TestSharedIsCapped(t *testing.T) {
	if shared([]engine.Condition{}) != nil {
		t.Error("an empty list is shared as non-nil")
	}
	state := make([]engine.Condition, 2, 8)
	state[0].Type, state[1].Type = "A", "B"
	s := shared(state)
	_ = append(s, engine.Condition{Type: "C"})
	if got := state[:3][2].Type; got != "" {
		t.Errorf("appending to the status wrote %q into the state's array", got)
	}
}
