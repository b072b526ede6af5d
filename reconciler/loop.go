package reconciler

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"sync/atomic"
	"time"

	"k8s.io/utils/clock"

	"github.com/siteops/siteops/engine"
	"github.com/siteops/siteops/policy"
	"github.com/siteops/siteops/policy/report"
	"github.com/siteops/siteops/reconciler/source"
)

// ErrSitesFailed is returned by Run with WithUntilInstalled when some site
// failed, was blocked by policy or could not be loaded.
var ErrSitesFailed = errors.New("some sites failed")

// Loop reconciles a fleet repository with an engine: each new revision
// from the source is loaded, rendered, checked and applied, and the
// status of every site is written back to the source. A Loop is used by
// one Run at a time; its HTTP handler and Documents may be used
// concurrently with it.
type Loop struct {
	src source.Source
	eng engine.Engine
	o   options
	m   *metrics

	// mu guards ix and fleet, which the pass changes and the HTTP
	// surface reads.
	mu    sync.RWMutex
	ix    *index
	fleet fleetState
	// facts are the fleet-wide facts of every site (MACs, host names,
	// BMCs...), kept from pass to pass so that a pass that checks a few
	// sites holds them to the uniqueness rules against the whole fleet.
	facts *policy.Facts

	ready atomic.Bool

	// dirty holds the sites whose engine status changed since the last
	// status write, fresh those since their progress was last logged;
	// notify is signalled when they gain one.
	dirtyMu sync.Mutex
	dirty   map[string]struct{}
	fresh   map[string]struct{}
	notify  chan struct{}

	// out holds the encoded documents, as last written; saved the state
	// file as last written. stateBuf and stateNames are saveState's
	// buffers, kept from one pass to the next.
	out           *writeback
	published     time.Time // when watch last published the metrics
	saved         []byte
	savedRevision string
	stateBuf      []byte
	stateNames    []string
	// gens keeps the generators each kustomization file lists.
	gens generatorCache
}

// fleetState is what the loop knows of the fleet as a whole.
type fleetState struct {
	// revision is the revision of the last pass; problems are the
	// findings of that revision that concern no site that loaded (a
	// file that does not parse, a duplicate cluster name).
	revision string
	problems []report.Finding
	lastPass time.Time
	// lastError is why the last pass or write did not finish, or "".
	lastError string
	// applyRetry lists sites whose Apply failed, reloaded at the next pass.
	applyRetry map[string]struct{}
	// deleteRetry lists removed sites the engine could not delete,
	// deleted again at the next pass.
	deleteRetry map[string]struct{}
	// started is set once a pass has loaded the whole tree; reloadAll
	// when a pass failed half-way, so that the next one loads the whole
	// tree again (the revision that failed is not offered again).
	started, reloadAll bool
}

// New returns a loop over src and eng.
func New(src source.Source, eng engine.Engine, opts ...Option) *Loop {
	o := applyOptions(opts)
	return &Loop{src: src, eng: eng, o: o, m: newMetrics(o.registerer), ix: newIndex(), facts: policy.NewFacts(),
		dirty: map[string]struct{}{}, fresh: map[string]struct{}{}, notify: make(chan struct{}, 1), out: newWriteback(),
		fleet: fleetState{applyRetry: map[string]struct{}{}, deleteRetry: map[string]struct{}{}}}
}

// snapshotResult is one return of Source.Next.
type snapshotResult struct {
	snap source.Snapshot
	err  error
}

// Run reconciles until ctx is done, or with WithUntilInstalled until the
// fleet is installed or a site failed. When ctx is done Run finishes the
// pass under way, writes the status and returns ctx's error.
//
// An error from the source before the first pass (a repository that
// cannot be cloned, a branch that does not exist) is returned at once;
// later ones are logged and retried with backoff, the last good state
// staying applied.
func (l *Loop) Run(ctx context.Context) error {
	if err := l.loadState(); err != nil {
		return err
	}
	if l.o.policy == nil {
		e, err := policy.Load(ctx)
		if err != nil {
			return fmt.Errorf("load the built-in policies: %w", err)
		}
		l.o.policy = e
	}
	subCtx, cancelSub := context.WithCancel(ctx)
	defer cancelSub()
	go l.collect(subCtx, l.eng.Subscribe(subCtx))

	// A pass that has started finishes, and its status is written, even
	// when ctx is done meanwhile (SIGTERM): passes run on work.
	work := context.WithoutCancel(ctx)
	snaps := make(chan snapshotResult, 1)
	next := func() {
		go func() {
			s, err := l.src.Next(ctx)
			snaps <- snapshotResult{s, err}
		}()
	}
	next()
	clk := l.o.clock
	var (
		timer     clock.Timer
		timerC    <-chan time.Time
		lastWrite time.Time
		gap       = l.o.statusInterval // between two progress writes
		backoff   = newBackoff()       // between reads of the source that fail
		retry     = newBackoff()       // between status writes that fail
	)
	// arm makes the timer fire in d, unless it is set already.
	arm := func(d time.Duration) {
		if timer == nil {
			timer = clk.NewTimer(d)
			timerC = timer.C()
		}
	}
	// wrote notes a status write and, when it failed, arms a retry.
	// Progress writes keep at least twice the time of the last write
	// between them, so that writing a large fleet's status never takes
	// most of the loop's time.
	wrote := func(ok bool) {
		if ok {
			lastWrite = clk.Now()
			gap = max(l.o.statusInterval, 2*l.out.took)
		}
		if l.out.pending {
			arm(retry.next())
		} else {
			retry.reset()
		}
	}
	for {
		select {
		case <-ctx.Done():
			l.shutdown(ctx)
			return ctx.Err()
		case r := <-snaps:
			if r.err != nil {
				if ctx.Err() != nil {
					l.shutdown(ctx)
					return ctx.Err()
				}
				if !l.ready.Load() {
					return fmt.Errorf("read the source: %w", r.err)
				}
				l.failed("read the source", r.err)
				wait := backoff.next()
				go func() {
					select {
					case <-clk.After(wait):
						next()
					case <-ctx.Done():
						snaps <- snapshotResult{err: ctx.Err()}
					}
				}()
				continue
			}
			backoff.reset()
			err := l.reconcile(work, r.snap)
			next()
			if err != nil {
				l.fleet.reloadAll = true
				l.failed("reconcile revision "+r.snap.Revision, err)
				continue
			}
			wrote(true)
		case <-l.notify:
			if l.fleet.started {
				l.watch(work)
			}
			if wait := gap - clk.Since(lastWrite); wait > 0 && l.fleet.started && !l.settled(work) {
				arm(wait)
				continue
			}
			wrote(l.progress(work))
		case <-timerC:
			timer, timerC = nil, nil
			wrote(l.progress(work))
		}
		if done, err := l.finished(); done {
			return err
		}
	}
}

// progress writes the status of the sites whose engine status changed.
// It reports whether it wrote.
func (l *Loop) progress(ctx context.Context) bool {
	if !l.fleet.started {
		return false // the first pass writes everything
	}
	start := l.o.clock.Now()
	wrote, err := l.writeStatus(ctx, l.takeDirty())
	l.m.passDuration.WithLabelValues(passStatus).Observe(l.o.clock.Since(start).Seconds())
	if err != nil {
		l.failed("write status", err)
	}
	return wrote
}

// shutdown writes the status one last time, with a deadline of its own
// since ctx is done.
func (l *Loop) shutdown(ctx context.Context) {
	if !l.fleet.started {
		return
	}
	wctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), shutdownTimeout)
	defer cancel()
	// Every site, not only the dirty ones: the engine's last change
	// notices may still be on their way when ctx ends, and a document
	// that did not change costs no write.
	names := l.takeDirty()
	l.mu.RLock()
	for name := range l.ix.sites {
		names[name] = struct{}{}
	}
	l.mu.RUnlock()
	if _, err := l.writeStatus(wctx, names); err != nil {
		l.failed("write status at shutdown", err)
	}
}

// shutdownTimeout bounds the last status write.
const shutdownTimeout = 30 * time.Second

// failed records and logs an error that the loop survives.
func (l *Loop) failed(step string, err error) {
	l.m.passErrors.Inc()
	l.mu.Lock()
	l.fleet.lastError = step + ": " + err.Error()
	l.mu.Unlock()
	l.o.logger.Error(step+" failed", "error", err)
}

// collect turns the engine's change notices into the dirty set.
func (l *Loop) collect(ctx context.Context, changes <-chan string) {
	for {
		select {
		case <-ctx.Done():
			return
		case name, ok := <-changes:
			if !ok {
				return
			}
			l.markDirty(name)
		}
	}
}

func (l *Loop) markDirty(names ...string) {
	l.dirtyMu.Lock()
	for _, n := range names {
		l.dirty[n] = struct{}{}
		l.fresh[n] = struct{}{}
	}
	l.dirtyMu.Unlock()
	select {
	case l.notify <- struct{}{}:
	default:
	}
}

func (l *Loop) takeDirty() map[string]struct{} {
	l.dirtyMu.Lock()
	defer l.dirtyMu.Unlock()
	d := l.dirty
	l.dirty = map[string]struct{}{}
	return d
}

// finished reports whether Run should return, with WithUntilInstalled:
// every site Installed, or some site failed.
func (l *Loop) finished() (bool, error) {
	if !l.o.untilInstalled || !l.fleet.started || l.out.pending {
		return false, nil // with a status write pending, the status is not out yet
	}
	l.mu.RLock()
	defer l.mu.RUnlock()
	if n := len(denies(l.fleet.problems)); n > 0 {
		return true, fmt.Errorf("%w: %d problems in the repository concern no site that loaded (status/README.md lists them)", ErrSitesFailed, n)
	}
	var failed []string
	installed := 0
	for name, r := range l.ix.sites {
		switch {
		case r.orphaned || r.deleting:
			installed++ // not part of the fleet any more
		case r.phase.Failed() || r.phase.Blocked():
			failed = append(failed, name)
		case r.phase == engine.PhaseInstalled && r.caughtUp():
			installed++
		}
	}
	if len(failed) > 0 {
		return true, fmt.Errorf("%w: %s", ErrSitesFailed, listNames(failed, maxListed))
	}
	return installed == len(l.ix.sites), nil
}

// settled reports, with WithUntilInstalled, whether the engine's statuses
// would end Run: then they are written at once rather than after the
// status interval.
func (l *Loop) settled(ctx context.Context) bool {
	if !l.o.untilInstalled {
		return false
	}
	// The sites are taken under the lock, the engine asked without it.
	type site struct{ name, applied string }
	var list []site
	l.mu.RLock()
	for name, r := range l.ix.sites {
		if r.orphaned || r.deleting {
			continue
		}
		if r.blocked {
			l.mu.RUnlock()
			return true
		}
		list = append(list, site{name, r.applied})
	}
	l.mu.RUnlock()
	installed := true
	for _, s := range list {
		st, err := l.eng.Status(ctx, s.name)
		switch {
		case err != nil:
			installed = false
		case st.Phase.Failed():
			return true
		case st.Phase != engine.PhaseInstalled:
			installed = false
		case !caughtUp(s.applied, st.Revision, st.Reason.NeedsAttention()):
			installed = false
		}
	}
	return installed
}

// Ready reports whether the first pass has finished.
func (l *Loop) Ready() bool { return l.ready.Load() }

// backoffMax is the longest wait of a backoff.
const backoffMax = 5 * time.Minute

// backoff doubles a wait from one second up to backoffMax.
type backoff struct{ d time.Duration }

func newBackoff() *backoff { return &backoff{} }

func (b *backoff) next() time.Duration {
	if b.d == 0 {
		b.d = time.Second
	} else {
		b.d = min(2*b.d, backoffMax)
	}
	return b.d
}

func (b *backoff) reset() { b.d = 0 }
