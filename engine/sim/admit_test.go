package sim

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/siteops/siteops/engine"
	"github.com/siteops/siteops/render"
)

// newMax starts an engine at SpeedMax in a temporary directory.
func newMax(t testing.TB, opts Options) *Engine {
	t.Helper()
	opts.Speed = SpeedMax
	return newEngine(t, opts)
}

// snoFleet makes n single-node bundles, site-00 onwards.
func snoFleet(n int) []*render.Bundle {
	bs := make([]*render.Bundle, n)
	for i := range bs {
		bs[i] = newSite(fmt.Sprintf("site-%02d", i), 1, 0).bundle()
	}
	return bs
}

// applyHeld calls ApplyBatch while the test holds the engine's lock, as
// the runner does during a chunk of events, and fails if the call waits
// for the lock.
func applyHeld(t *testing.T, e *Engine, bs []*render.Bundle, rev string) []error {
	t.Helper()
	done := make(chan []error, 1)
	go func() { done <- e.ApplyBatch(context.Background(), bs, rev) }()
	select {
	case errs := <-done:
		return errs
	case <-time.After(10 * time.Second):
		e.mu.Unlock()
		t.Fatal("ApplyBatch waited for the lock the runner holds")
		return nil
	}
}

// waitFor polls cond until it holds, failing after limit.
func waitFor(t *testing.T, limit time.Duration, what string, cond func() bool) {
	t.Helper()
	deadline := time.Now().Add(limit)
	for !cond() {
		if time.Now().After(deadline) {
			t.Fatalf("%s: not within %v", what, limit)
		}
		time.Sleep(5 * time.Millisecond)
	}
}

func phaseOf(e *Engine, site string) engine.Phase {
	st, err := e.Status(context.Background(), site)
	if err != nil {
		return ""
	}
	return st.Phase
}

func TestApplyAtMaxTakesSitesInAsOthersFinish(t *testing.T) {
	e := newMax(t, Options{AdmitWithin: 2})
	bs := snoFleet(12)

	e.mu.Lock() // the runner, in the middle of a chunk
	for i, err := range applyHeld(t, e, bs, "r1") {
		if err != nil {
			e.mu.Unlock()
			t.Fatalf("apply %s: %v", bs[i].Site, err)
		}
	}
	// The runner's next chunk takes in as many sites as its batch may
	// change; the others wait, in the order they came.
	e.admitWaiting(false)
	taken, waiting := len(e.sites), e.lineLen()
	e.mu.Unlock()
	if taken != 2 || waiting != 10 {
		t.Fatalf("after one chunk: %d sites taken in and %d waiting, want 2 and 10", taken, waiting)
	}

	waitFor(t, time.Minute, "every site Installed", func() bool {
		for _, b := range bs {
			if phaseOf(e, b.Site) != engine.PhaseInstalled {
				return false
			}
		}
		return true
	})
	// Every bundle taken in has left the line, by order and by site.
	e.lineMu.Lock()
	left, leftBy := len(e.line), len(e.lineBy)
	e.lineMu.Unlock()
	if left != 0 || leftBy != 0 {
		t.Errorf("%d bundles in the line and %d by site once every site installed, want none", left, leftBy)
	}
	// Taken in two at a time, the last site started installing only after
	// the first had finished, where sites applied together install side by
	// side.
	e.mu.Lock()
	first, last := e.sites["site-00"].st.Cluster, e.sites["site-11"].st.Cluster
	e.mu.Unlock()
	if last.InstallStartedAt.Before(first.CompletedAt) {
		t.Errorf("site-11 started installing at %v, before site-00 finished at %v", last.InstallStartedAt, first.CompletedAt)
	}
}

func TestWaitingBundleIsReplacedDroppedAndFlushed(t *testing.T) {
	e := newMax(t, Options{AdmitWithin: 1})
	bs := snoFleet(40)
	e.mu.Lock()
	applyHeld(t, e, bs, "r1")
	e.admitWaiting(false)
	// A newer bundle of a site that waits takes its place in the line.
	applyHeld(t, e, []*render.Bundle{bs[5]}, "r2")
	waiting, rev := e.lineLen(), ""
	if w := e.lineBy["site-05"]; w != nil {
		rev = w.revision
	}
	e.mu.Unlock()
	if waiting != 39 || rev != "r2" {
		t.Fatalf("after a second bundle of a waiting site: %d waiting, site-05 at %q; want 39 and r2", waiting, rev)
	}

	// Deleting a site whose bundle waits drops the bundle; had the runner
	// taken it in meanwhile, the site is torn down. Either way it goes.
	if err := e.Delete(context.Background(), "site-39"); err != nil {
		t.Fatalf("delete a site whose bundle waits: %v", err)
	}
	// Flush takes in every bundle that waits.
	if err := e.Flush(context.Background()); err != nil {
		t.Fatal(err)
	}
	names, err := e.Sites(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	for _, b := range bs[:39] {
		if !slices.Contains(names, b.Site) {
			t.Errorf("after Flush the engine does not hold %s", b.Site)
		}
	}
	if st, err := e.Status(context.Background(), "site-05"); err != nil || st.Revision != "r2" {
		t.Errorf("site-05: revision %q (%v), want r2", st.Revision, err)
	}
	waitFor(t, time.Minute, "site-39 gone", func() bool {
		_, err := e.Status(context.Background(), "site-39")
		return errors.Is(err, engine.ErrNotFound)
	})
}

func TestTheWaitingLineRefusesASiteBeingDeleted(t *testing.T) {
	dir := t.TempDir()
	e := newStepped(t, Options{StateDir: dir})
	b := newSite("site-a", 1, 0).bundle()
	apply(t, e, b, "r1")
	if err := e.Delete(context.Background(), "site-a"); err != nil {
		t.Fatal(err)
	}
	enqueue := func(e *Engine) error { return e.enqueue(prepare(b, "r2")) }
	// A bundle put in the waiting line while its site is being deleted is refused as
	// Apply refuses it, without the engine's lock.
	if err := enqueue(e); err == nil || !strings.Contains(err.Error(), "being deleted") {
		t.Fatalf("a bundle put in the waiting line during the deletion: %v, want the site is being deleted", err)
	}
	if err := e.Apply(context.Background(), b, "r2"); err == nil || !strings.Contains(err.Error(), "being deleted") {
		t.Fatalf("Apply during the deletion: %v, want the site is being deleted", err)
	}
	// A restarted engine knows the deletion under way.
	if err := e.Close(); err != nil {
		t.Fatal(err)
	}
	e = newStepped(t, Options{StateDir: dir})
	if err := enqueue(e); err == nil || !strings.Contains(err.Error(), "being deleted") {
		t.Fatalf("a bundle put in the waiting line after a restart during the deletion: %v, want the site is being deleted", err)
	}
	// Once the site is gone, a bundle of that name is taken.
	runUntil(t, e, time.Minute, 2*time.Hour, func() bool {
		_, err := e.Status(context.Background(), "site-a")
		return errors.Is(err, engine.ErrNotFound)
	})
	if err := enqueue(e); err != nil {
		t.Fatalf("a bundle put in the waiting line once the site is gone: %v", err)
	}
}

func TestApplyBatchRefusesOneBundleAndTakesTheOthers(t *testing.T) {
	e := newStepped(t, Options{})
	bs := snoFleet(3)
	bs[1] = &render.Bundle{} // names no site
	errs := e.ApplyBatch(context.Background(), bs, "r1")
	if errs[0] != nil || errs[2] != nil {
		t.Fatalf("the good bundles: %v, %v", errs[0], errs[2])
	}
	if errs[1] == nil || !strings.Contains(errs[1].Error(), "names no site") {
		t.Fatalf("the bundle without a site: %v, want names no site", errs[1])
	}
	if err := e.Flush(context.Background()); err != nil {
		t.Fatal(err)
	}
	for _, name := range []string{"site-00", "site-02"} {
		if st := status(t, e, name); st.Revision != "r1" {
			t.Errorf("%s: revision %q, want r1", name, st.Revision)
		}
	}
}
