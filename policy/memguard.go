package policy

import (
	"context"
	"errors"
	"runtime"
	"runtime/metrics"
	"sync"
	"time"
)

// DefaultMemoryBudget is how much the heap may grow while sites are
// evaluated, above what it held when the policies were loaded or, if more,
// when the evaluations under way began. OPA has no
// memory limit of its own: a policy that builds huge collections would
// take the machine down with it.
const DefaultMemoryBudget = 2 << 30

// memSample is how often the heap is looked at while an evaluation runs;
// memGCEvery is the shortest time between two collections forced to tell
// live data from garbage.
const (
	memSample  = 10 * time.Millisecond
	memGCEvery = time.Second
)

// errMemory is the cause of an evaluation stopped because the heap went
// over the budget.
var errMemory = errors.New("memory budget exceeded")

// memGuard stops evaluations when the heap grows over its limit. It
// samples the heap only while some evaluation is in flight, from one
// goroutine that ends when the last evaluation does. An evaluation that
// was stopped is run again alone (solo) so that a site that merely ran
// beside the culprit is not blamed.
type memGuard struct {
	// limit is the heap at Load plus the budget; a set of evaluations
	// that starts with more data on the heap (a large fleet loaded since)
	// gets the budget above what it started with.
	limit, budget uint64

	mu      sync.Mutex
	flights map[uint64]context.CancelCauseFunc
	next    uint64
	stop    chan struct{}

	// solo is held for reading by every evaluation and for writing by one
	// that runs again alone.
	solo sync.RWMutex
}

func newMemGuard(budget uint64) *memGuard {
	runtime.GC()
	return &memGuard{limit: heapBytes() + budget, budget: budget, flights: map[uint64]context.CancelCauseFunc{}}
}

// track registers an evaluation's cancel function until untrack is called.
func (g *memGuard) track(cancel context.CancelCauseFunc) (untrack func()) {
	g.mu.Lock()
	if len(g.flights) == 0 {
		g.stop = make(chan struct{})
		go g.watch(g.stop, max(g.limit, heapBytes()+g.budget))
	}
	id := g.next
	g.next++
	g.flights[id] = cancel
	g.mu.Unlock()
	return func() {
		g.mu.Lock()
		delete(g.flights, id)
		if len(g.flights) == 0 {
			close(g.stop)
		}
		g.mu.Unlock()
	}
}

// watch samples the heap until stop is closed, and cancels every
// evaluation in flight when the live heap is over limit.
func (g *memGuard) watch(stop <-chan struct{}, limit uint64) {
	t := time.NewTicker(memSample)
	defer t.Stop()
	var lastGC time.Time
	for {
		select {
		case <-stop:
			return
		case <-t.C:
		}
		if heapBytes() <= limit || time.Since(lastGC) < memGCEvery {
			continue
		}
		// Over the limit counting garbage: collect to see what is live.
		runtime.GC()
		lastGC = time.Now()
		if heapBytes() <= limit {
			continue
		}
		g.mu.Lock()
		for _, cancel := range g.flights {
			cancel(errMemory)
		}
		g.mu.Unlock()
	}
}

var heapSample = []metrics.Sample{{Name: "/memory/classes/heap/objects:bytes"}}
var heapMu sync.Mutex

// heapBytes is the memory the heap's objects take, garbage included.
func heapBytes() uint64 {
	heapMu.Lock()
	defer heapMu.Unlock()
	metrics.Read(heapSample)
	return heapSample[0].Value.Uint64()
}
