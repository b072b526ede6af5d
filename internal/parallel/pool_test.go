package parallel

import (
	"runtime"
	"sync"
	"sync/atomic"
	"testing"
	"time"
)

// Close stops the pool's goroutines.
func TestPoolCloseStopsItsGoroutines(t *testing.T) {
	before := runtime.NumGoroutine()
	p := NewPoolOf(4)
	p.Go(func() {})
	if n := runtime.NumGoroutine(); n < before+4 {
		t.Fatalf("%d goroutines with a pool of 4 started, %d before", n, before)
	}
	p.Close()
	for deadline := time.Now().Add(5 * time.Second); runtime.NumGoroutine() > before; {
		if time.Now().After(deadline) {
			t.Fatalf("%d goroutines after Close, %d before the pool", runtime.NumGoroutine(), before)
		}
		time.Sleep(time.Millisecond)
	}
}

// Go returns while its function still runs, never runs more functions
// at once than the pool's size, and every function handed over runs
// before Close lets the goroutines go.
func TestPoolGoRunsEveryJobOnNGoroutines(t *testing.T) {
	p := NewPoolOf(2)
	var running, most, ran atomic.Int32
	var wg sync.WaitGroup
	block := make(chan struct{})
	handed := make(chan struct{})
	wg.Add(1)
	go func() {
		p.Go(func() {
			defer wg.Done()
			<-block
			ran.Add(1)
		})
		close(handed)
	}()
	select {
	case <-handed:
	case <-time.After(5 * time.Second):
		t.Fatal("Go waited for its function to return")
	}
	close(block)
	for range 20 {
		wg.Add(1)
		p.Go(func() {
			defer wg.Done()
			n := running.Add(1)
			for m := most.Load(); n > m && !most.CompareAndSwap(m, n); m = most.Load() {
			}
			time.Sleep(100 * time.Microsecond)
			running.Add(-1)
			ran.Add(1)
		})
	}
	p.Close()
	wg.Wait()
	if r, m := ran.Load(), most.Load(); r != 21 || m > 2 || m < 1 {
		t.Errorf("%d of 21 jobs ran, at most %d at once on a pool of 2", r, m)
	}
}
