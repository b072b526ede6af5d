package sim

import (
	"context"
	"errors"
	"fmt"
	"math"
	"runtime/debug"
	"sort"
	"strings"
	"sync"
	"time"

	"github.com/siteops/siteops/engine"
	"github.com/siteops/siteops/engine/assisted"
	"github.com/siteops/siteops/render"
)

// Engine is the simulated installation engine. It implements
// engine.Engine.
type Engine struct {
	opts Options

	// mu guards the simulation: sites, the queue, the clock and the
	// indexes.
	mu    sync.Mutex
	now   time.Time
	sites map[string]*site
	q     queue
	dirty []*site
	gone  []string
	// installing counts the sites the last commit wrote that still have
	// timers pending: they change again in the batch under way.
	installing int
	owners     map[string]string // "Kind namespace/name" → site
	macs       map[string]string // boot MAC → site
	// nmIndex finds NMStateConfigs by label, across sites.
	nmIndex map[string][]nmRef
	hwCache map[string]hardware
	// hostResults is the list the host monitor evaluates into, and
	// condScratch the one conditions are computed into, both reused.
	hostResults []assisted.Result
	condScratch []assisted.Cond
	// steps counts the timers run, for benchmarks.
	steps  uint64
	closed bool

	// savedClock is the virtual time last saved with the state.
	savedClock time.Time
	// anchorWall and anchorVirt map real to virtual time at finite speed.
	anchorWall time.Time
	anchorVirt time.Time

	store *store
	// commitMu serializes commits, so that statuses publish in order.
	commitMu sync.Mutex
	counters counters

	// lineMu guards the waiting line of applied bundles the runner has not
	// taken in yet (admit.go), which ApplyBatch fills without mu while the
	// runner holds it at SpeedMax: the bundles in the order they came, the
	// same by site, the sites being deleted (whose bundles are refused as
	// Apply refuses them) and whether the engine closed.
	lineMu     sync.Mutex
	line       []*incoming
	lineBy     map[string]*incoming
	deleting   map[string]bool
	lineClosed bool

	pubMu     sync.RWMutex
	published map[string]*engine.SiteStatus
	subs      map[*subscriber]struct{}

	wake   chan struct{}
	stop   context.CancelFunc
	done   chan struct{}
	runErr error
}

var (
	_ engine.Engine       = (*Engine)(nil)
	_ engine.BatchApplier = (*Engine)(nil)
)

// site is one site's state plus its bookkeeping for the next commit.
type site struct {
	st           *siteState
	dirty        bool
	desiredDirty bool
	// listedDeleting is whether the site is in Engine.deleting.
	listedDeleting bool
}

// New opens (or creates) the engine's store under opts.StateDir, resumes
// every site it holds where the last commit left it, and starts the clock.
func New(ctx context.Context, opts Options) (*Engine, error) {
	opts.defaults()
	if opts.Approve != ApproveAuto && opts.Approve != ApproveManual {
		return nil, fmt.Errorf("approve mode %q: use %s or %s", opts.Approve, ApproveAuto, ApproveManual)
	}
	if opts.Speed < 0 || math.IsNaN(opts.Speed) {
		return nil, fmt.Errorf("speed %v: use a positive number of virtual seconds per second, or max", opts.Speed)
	}
	e := &Engine{
		opts:      opts,
		now:       opts.Start.UTC(),
		sites:     map[string]*site{},
		lineBy:    map[string]*incoming{},
		deleting:  map[string]bool{},
		owners:    map[string]string{},
		macs:      map[string]string{},
		nmIndex:   map[string][]nmRef{},
		hwCache:   map[string]hardware{},
		published: map[string]*engine.SiteStatus{},
		subs:      map[*subscriber]struct{}{},
		wake:      make(chan struct{}, 1),
		done:      make(chan struct{}),
	}
	if opts.StateDir != "" || opts.Store != nil {
		st, where, err := opts.openStore()
		if err != nil {
			return nil, err
		}
		e.store = st
		states, clock, unreadable, err := st.load()
		if err != nil {
			st.close()
			return nil, fmt.Errorf("load %s: %w", where, err)
		}
		for _, err := range unreadable {
			opts.Logger.Error("a site's saved state cannot be read: the site starts again from its next bundle, the others resume",
				"store", where, "error", err)
		}
		if !clock.IsZero() {
			e.now = clock.UTC()
			e.savedClock = e.now
		}
		if err := e.resume(states); err != nil {
			st.close()
			return nil, err
		}
	}
	e.anchorWall, e.anchorVirt = time.Now(), e.now
	rctx, cancel := context.WithCancel(context.WithoutCancel(ctx))
	e.stop = cancel
	go e.run(rctx)
	return e, nil
}

// resume rebuilds the indexes, the queue and the statuses of loaded sites.
func (e *Engine) resume(states map[string]*siteState) error {
	names := make([]string, 0, len(states))
	for n := range states {
		names = append(names, n)
	}
	sort.Strings(names)
	for _, n := range names {
		st := states[n]
		s := &site{st: st}
		e.sites[n] = s
		e.listDeleting(s)
		e.index(n, nil, st.Desired)
		for _, t := range st.Timers {
			e.q.push(s, t)
		}
		status := buildStatus(st, e.opts.Approve)
		e.published[n] = &status
	}
	return nil
}

// Apply records the desired state of one site. A bundle that contradicts
// itself or another site is refused: the site's status says why, and the
// previously accepted bundle (if any) stays in force. The change is
// committed with the runner's next batch (at once when idle); its status
// is published after that commit. Flush commits at once. A process killed
// in between loses the apply, not the state before it: the loop applies
// the site again when it starts.
func (e *Engine) Apply(ctx context.Context, b *render.Bundle, revision string) error {
	return e.ApplyBatch(ctx, []*render.Bundle{b}, revision)[0]
}

// ApplyBatch applies many bundles of one revision as Apply does each, and
// returns one error per bundle (nil where it was applied). The bundles are
// read before the engine is locked, and taken under one lock.
//
// At SpeedMax the runner takes in bundles between its chunks of events,
// as many as keep the sites changing in one batch under
// Options.AdmitWithin; the rest wait, in the order they came. The caller
// waits for neither the runner's chunk under way nor its turn. Delete
// drops a bundle that waits; Flush and Close take in every one.
func (e *Engine) ApplyBatch(ctx context.Context, bs []*render.Bundle, revision string) []error {
	errs := make([]error, len(bs))
	ins := make([]*incoming, len(bs))
	for i, b := range bs {
		if b == nil || b.Site == "" {
			errs[i] = errNoSite
			continue
		}
		ins[i] = prepare(b, revision)
	}
	if !e.paced() {
		e.mu.Lock()
	} else if !e.mu.TryLock() {
		// The runner is in a chunk of events: leave the bundles for it.
		for i, in := range ins {
			if in != nil {
				errs[i] = e.enqueue(in)
			}
		}
		e.poke()
		return errs
	}
	defer e.mu.Unlock()
	if e.closed {
		for i := range errs {
			if errs[i] == nil {
				errs[i] = errClosed
			}
		}
		return errs
	}
	e.catchUp()
	for i, in := range ins {
		switch {
		case in == nil:
		case e.admits():
			errs[i] = e.applyLocked(in)
		default:
			errs[i] = e.enqueue(in)
		}
	}
	e.poke()
	return errs
}

// Delete tears a site down in the upstream finalizer order (the controllers' finalizers); the
// installed cluster itself is never touched. The site disappears from
// Sites and Status once the teardown finished.
func (e *Engine) Delete(ctx context.Context, name string) error {
	e.mu.Lock()
	defer e.mu.Unlock()
	waited := e.dropWaiting(name)
	s, err := e.siteLocked("delete", name)
	if err != nil {
		if waited && errors.Is(err, engine.ErrNotFound) {
			return nil // the site was never taken in
		}
		return err
	}
	if s.st.Deleting == nil {
		o := e.op(s)
		o.startTeardown()
		o.finish()
		e.poke()
	}
	return nil
}

// Approve approves an agent of a site, named by its Agent name (the host
// id), its BareMetalHost's name or its hostname: what --approve manual
// leaves to the user.
func (e *Engine) Approve(ctx context.Context, siteName, agentOrHost string) error {
	e.mu.Lock()
	defer e.mu.Unlock()
	s, err := e.siteLocked("approve", siteName)
	if err != nil {
		return err
	}
	var names []string
	for _, h := range s.st.Hosts {
		if h.ID == agentOrHost || h.BMH == agentOrHost || h.Hostname == agentOrHost ||
			h.Inventory != nil && h.Inventory.Hostname == agentOrHost {
			o := e.op(s)
			o.approve(h)
			o.finish()
			e.poke()
			return nil
		}
		names = append(names, h.BMH+" (agent "+h.ID+")")
	}
	if len(names) == 0 {
		return fmt.Errorf("approve: site %s has no agent yet; wait until its hosts registered", siteName)
	}
	return fmt.Errorf("approve: site %s has no agent or host named %q; its agents are %s", siteName, agentOrHost, strings.Join(names, ", "))
}

// siteLocked brings the clock up to date and returns a site for an
// operation; callers hold mu.
func (e *Engine) siteLocked(verb, name string) (*site, error) {
	if e.closed {
		return nil, fmt.Errorf("%s: the engine is closed", verb)
	}
	e.catchUp()
	s := e.sites[name]
	if s == nil {
		return nil, fmt.Errorf("%s: site %s: %w", verb, name, engine.ErrNotFound)
	}
	return s, nil
}

// Status reports one site as of the last commit.
func (e *Engine) Status(ctx context.Context, name string) (engine.SiteStatus, error) {
	e.pubMu.RLock()
	defer e.pubMu.RUnlock()
	st, ok := e.published[name]
	if !ok {
		return engine.SiteStatus{}, engine.ErrNotFound
	}
	return *st, nil
}

// Sites lists the sites of the last commit, sorted.
func (e *Engine) Sites(ctx context.Context) ([]string, error) {
	e.pubMu.RLock()
	defer e.pubMu.RUnlock()
	out := make([]string, 0, len(e.published))
	for n := range e.published {
		out = append(out, n)
	}
	sort.Strings(out)
	return out, nil
}

// Now is the engine's virtual time.
func (e *Engine) Now() time.Time {
	e.mu.Lock()
	defer e.mu.Unlock()
	return e.now
}

// Advance moves a stepped engine's clock forward by d, running every event
// due on the way, then commits and publishes. It is how tests step time.
func (e *Engine) Advance(ctx context.Context, d time.Duration) error {
	if !e.opts.Stepped {
		return errors.New("advance: the engine's clock runs by itself; set Options.Stepped")
	}
	e.mu.Lock()
	if e.closed {
		e.mu.Unlock()
		return errors.New("advance: the engine is closed")
	}
	target := e.now.Add(d)
	func() {
		defer e.mu.Unlock()
		e.process(target, math.MaxInt)
		e.now = target
	}()
	return e.commit()
}

// Steps is how many simulation steps (timers) the engine ran since it
// started: what benchmarks divide by.
func (e *Engine) Steps() uint64 {
	e.mu.Lock()
	defer e.mu.Unlock()
	return e.steps
}

// Flush takes in the bundles that wait (ApplyBatch), then commits and
// publishes what changed since the last commit.
func (e *Engine) Flush(ctx context.Context) error {
	e.mu.Lock()
	e.admitWaiting(true)
	e.mu.Unlock()
	return e.commit()
}

// Close stops the clock, commits and closes the store.
func (e *Engine) Close() error {
	e.mu.Lock()
	if e.closed {
		e.mu.Unlock()
		return nil
	}
	e.closed = true
	e.mu.Unlock()
	e.lineMu.Lock()
	e.lineClosed = true
	e.lineMu.Unlock()
	e.stop()
	<-e.done
	e.mu.Lock()
	e.admitWaiting(true)
	e.mu.Unlock()
	err := e.commit()
	if e.store != nil {
		if cerr := e.store.close(); err == nil {
			err = cerr
		}
	}
	e.pubMu.Lock()
	for s := range e.subs {
		s.close()
	}
	e.pubMu.Unlock()
	return err
}

// poke wakes the runner.
func (e *Engine) poke() {
	select {
	case e.wake <- struct{}{}:
	default:
	}
}

// catchUp runs the events due by now (at finite speed, the wall clock
// moved since the runner last looked). Callers hold mu.
func (e *Engine) catchUp() {
	if e.opts.Stepped || math.IsInf(e.opts.Speed, 1) {
		return
	}
	target := e.virtualNow()
	e.process(target, math.MaxInt)
	if target.After(e.now) {
		e.now = target
	}
}

// virtualNow maps the wall clock to virtual time at finite speed.
func (e *Engine) virtualNow() time.Time {
	elapsed := time.Since(e.anchorWall)
	return e.anchorVirt.Add(time.Duration(float64(elapsed) * e.opts.Speed))
}

// conflicts finds the objects and MACs of d another site owns.
func (e *Engine) conflicts(name string, d *desired) []refusal {
	var out []refusal
	for _, o := range d.Objects {
		if o.Kind == "ClusterImageSet" {
			continue // a hub object every cluster of its release shares
		}
		if owner, ok := e.owners[o.String()]; ok && owner != name {
			out = append(out, refusal{o, reasonOwnedElsewhere, fmt.Sprintf("%s is already applied by site %s; an object belongs to one site: remove it from %s or from %s", o, owner, name, owner)})
		}
	}
	for _, b := range d.BMHs {
		if owner, ok := e.macs[b.BootMAC]; ok && owner != name {
			ref := objectRef{Kind: render.KindBareMetalHost, Namespace: b.Namespace, Name: b.Name}
			out = append(out, refusal{ref, reasonDuplicateMAC, fmt.Sprintf("%s boots from MAC %s, which a host of site %s already uses; a machine belongs to one site: fix the bootMACAddress or remove the node from %s", ref, b.BootMAC, owner, owner)})
		}
	}
	return out
}

// index moves a site's ownership and label entries from old to d.
func (e *Engine) index(name string, old, d *desired) {
	e.indexNMStates(name, old, d)
	if old != nil {
		for _, o := range old.Objects {
			if e.owners[o.String()] == name {
				delete(e.owners, o.String())
			}
		}
		for _, b := range old.BMHs {
			if e.macs[b.BootMAC] == name {
				delete(e.macs, b.BootMAC)
			}
		}
	}
	if d != nil {
		for _, o := range d.Objects {
			e.owners[o.String()] = name
		}
		for _, b := range d.BMHs {
			e.macs[b.BootMAC] = name
		}
	}
}

// markDirty queues a site for the next commit. Callers hold mu.
func (e *Engine) markDirty(s *site) {
	if !s.dirty {
		s.dirty = true
		e.dirty = append(e.dirty, s)
	}
}

// process runs queued events up to target, at most limit of them, and
// returns how many ran. Callers hold mu.
func (e *Engine) process(target time.Time, limit int) int {
	n := 0
	tn := target.UnixNano()
	for n < limit && e.q.len() > 0 && e.q.h[0].at <= tn {
		ent := e.q.pop()
		s := ent.site
		if e.sites[s.st.Name] != s {
			continue
		}
		t, ok := s.take(ent.id)
		if !ok {
			continue
		}
		if t.At.After(e.now) {
			e.now = t.At
		}
		e.runTimer(s, t)
		e.steps++
		n++
	}
	return n
}

// runTimer fires one timer. A bug that panics stops that site's step,
// not the engine: the panic is logged and recorded on the site.
func (e *Engine) runTimer(s *site, t timer) {
	defer func() {
		if r := recover(); r != nil {
			e.opts.Logger.Error("simulation step failed", "site", s.st.Name, "timer", t.Kind, "panic", r, "stack", string(debug.Stack()))
			o := e.op(s)
			o.event("", "InternalError", fmt.Sprintf("The simulation of step %s failed: %v", t.Kind, r))
			e.markDirty(s)
		}
	}()
	o := e.op(s)
	o.fire(t)
	o.finish()
}

// take removes a timer from the site, reporting whether it was pending.
func (s *site) take(id uint64) (timer, bool) {
	for i, t := range s.st.Timers {
		if t.ID == id {
			s.st.Timers = append(s.st.Timers[:i], s.st.Timers[i+1:]...)
			return t, true
		}
	}
	return timer{}, false
}
