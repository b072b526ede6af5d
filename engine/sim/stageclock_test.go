package sim

import (
	"context"
	"testing"
	"time"

	"github.com/siteops/siteops/engine"
)

// kill stops an engine the way SIGKILL does: no last commit, only what
// was committed stays.
func kill(e *Engine) {
	e.mu.Lock()
	e.closed = true
	e.mu.Unlock()
	e.stop()
	<-e.done
	e.store.close()
}

// TestRestartResumesMidStage: the time spent in a stage under way is
// saved, so that a process killed again and again in the middle of a
// stage still gets through it. Each incarnation advances the clock by
// half the time to the next event (no event runs, nothing else changes)
// and is killed; the next one starts at that time, and the site installs.
func TestRestartResumesMidStage(t *testing.T) {
	dir := t.TempDir()
	e := newStepped(t, Options{StateDir: dir})
	s := newSite("mid", 1, 0)
	apply(t, e, s.bundle(), "r1")
	runUntil(t, e, 30*time.Second, 3*time.Hour, func() bool { return status(t, e, "mid").Phase == engine.PhaseInstalling })
	for i := 0; status(t, e, "mid").Phase != engine.PhaseInstalled; i++ {
		if i > 10000 {
			t.Fatal("the site did not install through 10,000 restarts")
		}
		e.mu.Lock()
		next, ok := e.q.peek()
		now := e.now
		e.mu.Unlock()
		if !ok {
			t.Fatalf("nothing pending, phase %s", status(t, e, "mid").Phase)
		}
		step := next.Sub(now) / 2
		if step < time.Second {
			step = next.Sub(now) // the event is due: let it run
		}
		if err := e.Advance(context.Background(), step); err != nil {
			t.Fatal(err)
		}
		want := e.Now()
		kill(e)
		if e = newStepped(t, Options{StateDir: dir}); !e.Now().Equal(want) {
			t.Fatalf("restart %d: clock %v, want %v (the time spent in the stage was lost)", i, e.Now(), want)
		}
	}
}
