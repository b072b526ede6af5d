package sim

import (
	"bytes"
	"context"
	"fmt"
	"runtime"
	"slices"
	"strings"
	"testing"
	"time"
	"unsafe"

	"github.com/siteops/siteops/engine"
	"github.com/siteops/siteops/render"
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

// An applied InfraEnv and NMStateConfig are kept as JSON only, the
// renderer's maps let go; their discovery ignition measured from the JSON
// (as an image rebuilt later, or after a restart, measures it) is the one
// Apply measured from the maps, and a restarted engine reads the same JSON.
func TestAppliedContentKeptAsJSON(t *testing.T) {
	dir := t.TempDir()
	b := newSite("js", 1, 0).bundle()
	b.Objects = append(b.Objects, obj(render.KindNMStateConfig, "js", "js-static", 1, map[string]any{
		"metadata": map[string]any{"labels": map[string]any{"nmstate-label": "js"}},
		"spec": map[string]any{
			"config": map[string]any{"interfaces": []any{map[string]any{
				"name": "eno1", "type": "ethernet", "state": "up",
				"ipv4": map[string]any{"enabled": true, "address": []any{map[string]any{"ip": "192.0.2.10", "prefix-length": 24}}},
			}}},
			"interfaces": []any{map[string]any{"name": "eno1", "macAddress": "0a:5e:00:00:00:09"}},
		},
	}))
	fresh, refusals := parseBundle(b)
	if len(refusals) > 0 || len(fresh.InfraEnvs) != 1 || len(fresh.NMStates) != 1 {
		t.Fatalf("bundle: refusals %v", refusals)
	}
	want, err := discoveryIgnitionSize(&fresh.InfraEnvs[0], fresh.NMStates)
	if err != nil || want == 0 {
		t.Fatalf("size from the maps %d, %v", want, err)
	}

	kept := func(e *Engine) (*desired, int) {
		e.mu.Lock()
		defer e.mu.Unlock()
		st := e.sites["js"].st
		if len(st.InfraEnvs) != 1 {
			t.Fatalf("%d infra-envs registered", len(st.InfraEnvs))
		}
		return st.Desired, st.InfraEnvs[0].IgnitionBytes
	}
	e := newStepped(t, Options{StateDir: dir})
	apply(t, e, b, "r1")
	if err := e.Flush(context.Background()); err != nil {
		t.Fatal(err)
	}
	d, measured := kept(e)
	if measured != want {
		t.Errorf("Apply measured %d bytes, want %d", measured, want)
	}
	ie, nm := d.InfraEnvs[0], d.NMStates[0]
	if ie.Content != nil || nm.Content != nil {
		t.Error("the engine keeps the renderer's maps")
	}
	if got, err := discoveryIgnitionSize(&ie, d.NMStates); err != nil || got != want {
		t.Errorf("size from the JSON %d, %v; want %d", got, err, want)
	}
	if err := e.Close(); err != nil {
		t.Fatal(err)
	}

	e2 := newStepped(t, Options{StateDir: dir})
	d2, _ := kept(e2)
	if !bytes.Equal(d2.InfraEnvs[0].Raw, ie.Raw) || !bytes.Equal(d2.NMStates[0].Raw, nm.Raw) {
		t.Errorf("a restarted engine reads other JSON:\n%s\n%s", d2.InfraEnvs[0].Raw, ie.Raw)
	}
}

// A string interned before a garbage collection is the copy the sites
// applied after it get: a fleet's shared strings are held once, not once
// per collection.
func TestInternedStringsOutliveCollections(t *testing.T) {
	interned.Lock()
	saved := interned.m
	interned.m = nil
	interned.Unlock()
	t.Cleanup(func() {
		interned.Lock()
		interned.m = saved
		interned.Unlock()
	})
	key := "ssh-ed25519 AAAAC3NzaC1lZDI1NTE5 fleet@example.net"
	first := intern(strings.Clone(key))
	runtime.GC()
	runtime.GC()
	again := intern(strings.Clone(key))
	if unsafe.StringData(first) != unsafe.StringData(again) {
		t.Error("a string interned after a collection is a new copy")
	}
	// Past the bound, strings are still returned equal, not kept.
	for i := range maxInterned + 10 {
		s := fmt.Sprintf("site-%d", i)
		if got := intern(s); got != s {
			t.Fatalf("intern(%q) = %q", s, got)
		}
	}
	interned.RLock()
	n := len(interned.m)
	interned.RUnlock()
	if n != maxInterned {
		t.Errorf("the table holds %d strings, want the bound %d", n, maxInterned)
	}
}
