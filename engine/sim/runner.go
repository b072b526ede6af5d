package sim

import (
	"context"
	"math"
	"reflect"
	"sync"
	"time"

	"github.com/siteops/siteops/engine"
	"github.com/siteops/siteops/engine/assisted"
)

// maxCommitInterval bounds how long changes wait for a commit at SpeedMax,
// while commits are cheap.
const maxCommitInterval = 250 * time.Millisecond

// commitShare is how many times the last commit's duration the next batch
// may run before it is committed: commits then take at most about a
// quarter of the engine's time. A commit writes every site the batch
// touched; when thousands of sites are in flight at SpeedMax, each batch
// touches them all, and a fixed interval would write every site's state
// once per batch (the slower the commits, the more of them).
const commitShare = 3

// clockSaveEvery is how often, in real time, the virtual clock is saved
// while timers are pending: what a restart can lose of a stage under way.
const clockSaveEvery = time.Second

// run is the engine's clock: it runs due events, commits, publishes, and
// sleeps until the next event is due (or something is applied).
func (e *Engine) run(ctx context.Context) {
	defer close(e.done)
	max := math.IsInf(e.opts.Speed, 1)
	var lastCommit time.Duration
	for {
		if ctx.Err() != nil {
			return
		}
		more := false
		if !e.opts.Stepped {
			more = e.runBatch(max, commitShare*lastCommit)
		}
		start := time.Now()
		err := e.commit()
		lastCommit = time.Since(start)
		if err != nil {
			e.opts.Logger.Error("commit the engine state", "err", err)
			e.mu.Lock()
			e.runErr = err
			e.mu.Unlock()
		}
		if more {
			continue
		}
		var timerC <-chan time.Time
		var t *time.Timer
		if !e.opts.Stepped && !max {
			e.mu.Lock()
			next, ok := e.q.peek()
			e.mu.Unlock()
			if ok {
				wall := e.anchorWall.Add(time.Duration(float64(next.Sub(e.anchorVirt)) / e.opts.Speed))
				// Wake at least every clockSaveEvery to save the clock: a
				// restart then resumes a stage under way where it was.
				t = time.NewTimer(min(max0(time.Until(wall)), clockSaveEvery))
				timerC = t.C
			}
		}
		select {
		case <-ctx.Done():
		case <-e.wake:
		case <-timerC:
		}
		if t != nil {
			t.Stop()
		}
	}
}

func max0(d time.Duration) time.Duration {
	if d < 0 {
		return 0
	}
	return d
}

// runBatch runs the events due now, in chunks so that Apply and Status
// callers are not held up; it reports whether events remain due or
// applied bundles wait (admit.go). A batch ends after maxCommitInterval,
// or after minInterval when that is longer.
func (e *Engine) runBatch(max bool, minInterval time.Duration) bool {
	start := time.Now()
	interval := maxCommitInterval
	if minInterval > interval {
		interval = minInterval
	}
	ran := 0
	for {
		e.mu.Lock()
		target := e.virtualNow()
		if max {
			target = time.Unix(0, math.MaxInt64)
			e.admitWaiting(false)
		}
		n := e.process(target, 2000)
		pending := e.q.len() > 0 && e.q.h[0].at <= target.UnixNano()
		// The clock moves to the wall clock's virtual time only once every
		// event due before it ran: an event never runs later than its time.
		if !max && !pending && target.After(e.now) {
			e.now = target
		}
		waiting := e.lineLen() > 0
		e.mu.Unlock()
		ran += n
		if !pending {
			// Bundles still waiting are taken in after the commit, which
			// starts a new batch.
			return waiting
		}
		if ran >= e.opts.BatchEvents || time.Since(start) >= interval {
			return true
		}
	}
}

// commit writes every changed site in one transaction, then publishes the
// statuses of that state and tells subscribers. Nothing is published that
// is not committed, so a killed process resumes from what was reported.
func (e *Engine) commit() error {
	e.commitMu.Lock()
	defer e.commitMu.Unlock()

	e.mu.Lock()
	statuses := make(map[string]*engine.SiteStatus, len(e.dirty))
	changed := make([]*site, 0, len(e.dirty))
	e.installing = 0
	for _, s := range e.dirty {
		s.dirty = false
		if s.st.Gone {
			continue
		}
		if len(s.st.Timers) > 0 {
			e.installing++
		}
		status := buildStatus(s.st, e.opts.Approve)
		e.trackProgress(s, &status)
		changed = append(changed, s)
		statuses[s.st.Name] = &status
	}
	writes, err := encodeWrites(changed)
	if err != nil {
		e.mu.Unlock()
		return err
	}
	for _, n := range e.gone {
		writes = append(writes, siteWrite{Name: n, Delete: true})
	}
	gone := e.gone
	e.dirty, e.gone = e.dirty[:0], nil
	clock := e.now
	e.mu.Unlock()

	// With nothing else to write, the clock alone is saved once it moved:
	// the time spent in a stage under way would otherwise be lost at a
	// restart, and a process restarted more often than a stage lasts would
	// never finish an installation.
	if len(writes) == 0 && (e.store == nil || !clock.After(e.savedClock)) {
		return nil
	}
	if e.store != nil {
		if err := e.store.write(writes, clock); err != nil {
			return err
		}
		e.savedClock = clock
	}
	e.counters.count(writes)
	e.publish(statuses, gone)
	return nil
}

// trackProgress starts the stall clock again when the site's progress
// changed since the last status, and sets the attention timer for the
// bound that watches its phase (docs/status.md, NotRegistering and
// NoProgress). A stalled site that moves again is no longer stalled.
// Callers hold mu.
func (e *Engine) trackProgress(s *site, status *engine.SiteStatus) {
	key := assisted.ProgressKey(status)
	if key == s.st.ProgressKey {
		return
	}
	waited := s.st.Stalled || s.st.Settled
	s.st.ProgressKey, s.st.ProgressAt, s.st.Stalled, s.st.Settled = key, e.now, false, false
	o := e.op(s)
	o.cancel(tkAttention, "")
	o.cancel(tkSettle, "")
	if bound, ok := assisted.Stallable(status, e.opts.Bounds); ok {
		o.schedule(tkAttention, "", e.now.Add(bound))
		e.poke() // the runner may be idle: the new event is due later, but due
	}
	if bound, ok := assisted.Settleable(status, e.opts.Bounds); ok {
		o.schedule(tkSettle, "", e.now.Add(bound))
		e.poke()
	}
	if waited {
		*status = buildStatus(s.st, e.opts.Approve)
		return
	}
	t := e.now
	status.LastProgressAt = &t
}

// publish swaps in new statuses and notifies subscribers of those that
// changed.
func (e *Engine) publish(statuses map[string]*engine.SiteStatus, gone []string) {
	var changed []string
	e.pubMu.Lock()
	for n, st := range statuses {
		if old, ok := e.published[n]; ok && reflect.DeepEqual(old, st) {
			continue
		}
		e.published[n] = st
		changed = append(changed, n)
	}
	for _, n := range gone {
		if _, ok := e.published[n]; ok {
			delete(e.published, n)
			changed = append(changed, n)
		}
	}
	subs := make([]*subscriber, 0, len(e.subs))
	for s := range e.subs {
		subs = append(subs, s)
	}
	e.pubMu.Unlock()
	for _, s := range subs {
		s.notify(changed)
	}
}

// Subscribe returns a channel that receives a site's name each time its
// status changes, until ctx is done. Names wait in a set while the reader
// is busy: a slow reader may miss repeats of a name, never the latest
// change.
func (e *Engine) Subscribe(ctx context.Context) <-chan string {
	s := &subscriber{ch: make(chan string), pending: map[string]bool{}, signal: make(chan struct{}, 1), quit: make(chan struct{})}
	e.pubMu.Lock()
	if e.stopped() {
		e.pubMu.Unlock()
		close(s.ch)
		return s.ch
	}
	e.subs[s] = struct{}{}
	e.pubMu.Unlock()
	go func() {
		defer close(s.ch)
		defer func() {
			e.pubMu.Lock()
			delete(e.subs, s)
			e.pubMu.Unlock()
		}()
		for {
			name, ok := s.next()
			if !ok {
				select {
				case <-ctx.Done():
					return
				case <-s.quit:
					return
				case <-s.signal:
					continue
				}
			}
			select {
			case s.ch <- name:
			case <-ctx.Done():
				return
			case <-s.quit:
				return
			}
		}
	}()
	return s.ch
}

func (e *Engine) stopped() bool {
	select {
	case <-e.done:
		return true
	default:
		return false
	}
}

type subscriber struct {
	ch      chan string
	mu      sync.Mutex
	order   []string
	pending map[string]bool
	signal  chan struct{}
	quit    chan struct{}
	once    sync.Once
}

func (s *subscriber) notify(names []string) {
	if len(names) == 0 {
		return
	}
	s.mu.Lock()
	for _, n := range names {
		if !s.pending[n] {
			s.pending[n] = true
			s.order = append(s.order, n)
		}
	}
	s.mu.Unlock()
	select {
	case s.signal <- struct{}{}:
	default:
	}
}

func (s *subscriber) next() (string, bool) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if len(s.order) == 0 {
		return "", false
	}
	n := s.order[0]
	s.order = s.order[1:]
	delete(s.pending, n)
	return n, true
}

func (s *subscriber) close() { s.once.Do(func() { close(s.quit) }) }
