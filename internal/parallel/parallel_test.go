package parallel

import (
	"runtime"
	"sync/atomic"
	"testing"
	"time"
)

// Every index is visited exactly once, whether the loop runs on one
// goroutine or several.
func TestEachVisitsEveryIndexOnce(t *testing.T) {
	defer runtime.GOMAXPROCS(runtime.GOMAXPROCS(4))
	for _, tc := range []struct{ n, min int }{{0, 1}, {0, 0}, {1, 1}, {3, 0}, {7, 64}, {1000, 64}, {1001, 1}, {5, 0}} {
		counts := make([]atomic.Int32, tc.n)
		Each(tc.n, tc.min, func(i int) { counts[i].Add(1) })
		for i := range counts {
			if c := counts[i].Load(); c != 1 {
				t.Errorf("n=%d min=%d: index %d visited %d times", tc.n, tc.min, i, c)
			}
		}
	}
}

// Each uses more than one goroutine once there is enough work for them.
func TestEachSpreadsLargeLoops(t *testing.T) {
	defer runtime.GOMAXPROCS(runtime.GOMAXPROCS(4))
	var running, most atomic.Int32
	gate := make(chan struct{})
	go func() {
		for deadline := time.Now().Add(5 * time.Second); running.Load() < 2 && time.Now().Before(deadline); {
			runtime.Gosched()
		}
		close(gate)
	}()
	Each(8, 2, func(i int) {
		n := running.Add(1)
		for m := most.Load(); n > m && !most.CompareAndSwap(m, n); m = most.Load() {
		}
		if i < 2 { // wait for a second call at once; a serial loop gives up
			select {
			case <-gate:
			case <-time.After(5 * time.Second):
			}
		}
		running.Add(-1)
	})
	if most.Load() < 2 {
		t.Errorf("at most %d calls ran at once, want several", most.Load())
	}
}
