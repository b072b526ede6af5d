package hub_test

import (
	"context"
	"sync"
	"testing"
	"time"

	"github.com/siteops/siteops/engine"
	"github.com/siteops/siteops/engine/hub"
	"github.com/siteops/siteops/internal/hubtest"
)

// TestAPIServerRestartMidApply stops the API server after the third
// object of a site was sent and starts it again a few seconds later:
// Apply retries through the outage and the site ends complete.
func TestAPIServerRestartMidApply(t *testing.T) {
	ctx := testContext(t)
	h, err := hubtest.Start(ctx)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(h.Stop)
	const site = "restart-sno"
	b := exampleBundle(t, exampleSNO, site)
	e0 := newEngine(t, h.Config())
	if err := e0.Apply(ctx, b, "rev1"); err != nil { // creates the namespace
		t.Fatal(err)
	}
	createPrerequisites(t, h.Config(), b)
	_ = e0.Close()

	var log requestLog
	e := newEngine(t, log.wrap(h.Config()), hub.WithRetryFor(3*time.Minute))
	var once sync.Once
	restarted := make(chan error, 1)
	log.hook = func(int) {
		if len(patches(log.list())) == 3 {
			once.Do(func() {
				go func() {
					h.StopAPIServer()
					time.Sleep(2 * time.Second)
					restarted <- h.StartAPIServer(context.Background())
				}()
			})
		}
	}
	if err := e.Apply(ctx, b, "rev1"); err != nil {
		t.Fatalf("apply across the restart: %v", err)
	}
	select {
	case err := <-restarted:
		if err != nil {
			t.Fatal(err)
		}
	case <-ctx.Done():
		t.Fatal("the API server did not come back")
	}
	st := waitStatus(t, e, site, func(st engine.SiteStatus) bool { return len(st.Resources) == len(b.Objects) && st.Message != "" })
	if st.Phase == engine.PhaseFailed {
		t.Errorf("status after the restart: %+v", st)
	}
}
