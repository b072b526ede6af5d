package hub

import (
	"context"
	"fmt"
	"sort"
	"strings"
	"sync"
	"time"

	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/util/validation"
	"k8s.io/client-go/dynamic"
	"k8s.io/client-go/metadata"
	"k8s.io/client-go/rest"

	"github.com/siteops/siteops/engine"
	"github.com/siteops/siteops/render"
)

// Engine applies sites to a hub. It implements engine.Engine.
type Engine struct {
	o    options
	dyn  dynamic.Interface
	meta metadata.Interface
	ks   *kinds

	// sem bounds the sites applied or deleted at once.
	sem chan struct{}

	mu    sync.Mutex
	sites map[string]*site
	subs  map[*subscriber]struct{}
	// seenSecrets are Secrets ("namespace/name") and namespaces
	// ("namespace name") found present: a prerequisite once there is not
	// asked for again.
	seenSecrets map[string]bool

	ctx    context.Context
	cancel context.CancelFunc
	wg     sync.WaitGroup
}

var _ engine.Engine = (*Engine)(nil)

// site is what the engine keeps of one site between calls. The objects
// themselves are in the informers' caches.
type site struct {
	name string
	// mu serializes Apply and Delete of the site.
	mu sync.Mutex

	// The fields below are guarded by Engine.mu.
	revision string
	hash     string
	// pending is the bundle to apply again when the site is held back
	// (problem set, not deleting).
	pending *render.Bundle
	problem *problem
	// borrowed are the Namespaces of the bundle made beforehand: objects
	// of the site its status lists, though not siteops's.
	borrowed []borrowed
	deleting bool
	events   []engine.Event
	// The stall clock: the progress seen last, since when, and whether
	// the bound of the site's phase passed.
	progressKey string
	progressAt  time.Time
	stalled     bool
	settled     bool
}

// borrowed is a Namespace of a bundle that siteops found made beforehand.
type borrowed struct {
	kind *kind
	name string
}

// problem is why a site is held back, in the reason table's terms.
type problem struct {
	reason  engine.Reason
	message string
}

// New connects to the hub of cfg, lists what siteops manages there and
// starts watching it. Close stops it.
func New(ctx context.Context, cfg *rest.Config, opts ...Option) (*Engine, error) {
	o, c, err := newClients(cfg, opts)
	if err != nil {
		return nil, err
	}
	ectx, cancel := context.WithCancel(context.Background())
	e := &Engine{
		o:           o,
		dyn:         c.dyn,
		meta:        c.meta,
		sem:         make(chan struct{}, o.concurrency),
		sites:       map[string]*site{},
		subs:        map[*subscriber]struct{}{},
		seenSecrets: map[string]bool{},
		ctx:         ectx,
		cancel:      cancel,
	}
	if errs := validation.IsValidLabelValue(o.instance); len(errs) > 0 || o.instance == "" {
		cancel()
		return nil, fmt.Errorf("instance %q: not a label value (%s)", o.instance, strings.Join(errs, "; "))
	}
	e.ks = newKinds(c.dyn, c.meta, c.mapper, o.instance, ectx.Done(), e.onEvent)
	if err := e.retry(ctx, e.ks.start); err != nil {
		cancel()
		return nil, fmt.Errorf("hub %s: %w", cfg.Host, err)
	}
	e.wg.Add(2)
	// Sites held back are applied again every retry interval; the time
	// bounds are checked at least as often.
	go e.every(e.o.retryInterval, e.retryHeld)
	go e.every(stallCheckInterval(e.o.retryInterval, e.o.bounds), e.checkStalls)
	return e, nil
}

// Close stops the informers and the retries. Teardowns under way stop
// where they are; Delete resumes them.
func (e *Engine) Close() error {
	e.cancel()
	e.wg.Wait()
	e.mu.Lock()
	for s := range e.subs {
		s.close()
	}
	e.subs = map[*subscriber]struct{}{}
	e.mu.Unlock()
	return nil
}

// Sites lists the sites that have objects on the hub or a bundle waiting.
func (e *Engine) Sites(context.Context) ([]string, error) {
	set := map[string]bool{}
	for _, k := range e.ks.all() {
		for _, s := range k.informer.GetIndexer().ListIndexFuncValues(indexSite) {
			if objs, _ := k.informer.GetIndexer().ByIndex(indexSite, s); len(objs) > 0 {
				set[s] = true
			}
		}
	}
	e.mu.Lock()
	for name, s := range e.sites {
		if s.pending != nil {
			set[name] = true
		}
	}
	e.mu.Unlock()
	out := make([]string, 0, len(set))
	for s := range set {
		out = append(out, s)
	}
	sort.Strings(out)
	return out, nil
}

// site returns the engine's record of a site, making it on first use.
func (e *Engine) site(name string) *site {
	e.mu.Lock()
	defer e.mu.Unlock()
	return e.siteLocked(name)
}

// siteLocked is site for a caller that holds e.mu.
func (e *Engine) siteLocked(name string) *site {
	s := e.sites[name]
	if s == nil {
		s = &site{name: name}
		e.sites[name] = s
	}
	return s
}

// setProblem records why a site is held back (nil: it is not) and
// notifies subscribers when that changes.
func (e *Engine) setProblem(s *site, p *problem) {
	e.mu.Lock()
	changed := (s.problem == nil) != (p == nil) || (p != nil && *p != *s.problem)
	s.problem = p
	if changed && p != nil {
		s.addEvent(time.Now(), "", string(p.reason), p.message)
	}
	e.mu.Unlock()
	if changed {
		e.o.logger.Info("site held back", "site", s.name, "reason", reasonOf(p), "message", messageOf(p))
		e.notify(s.name)
	}
}

func reasonOf(p *problem) engine.Reason {
	if p == nil {
		return ""
	}
	return p.reason
}

func messageOf(p *problem) string {
	if p == nil {
		return ""
	}
	return p.message
}

// addEvent keeps the latest engine.MaxEvents events. Engine.mu is held.
func (s *site) addEvent(t time.Time, object, reason, message string) {
	s.events = append(s.events, engine.Event{Time: t.UTC(), Object: object, Reason: reason, Message: message})
	if n := len(s.events) - engine.MaxEvents; n > 0 {
		s.events = append(s.events[:0:0], s.events[n:]...)
	}
}

// event records an event of a site and notifies subscribers.
func (e *Engine) event(s *site, object, reason, message string) {
	e.mu.Lock()
	s.addEvent(time.Now(), object, reason, message)
	e.mu.Unlock()
	e.notify(s.name)
}

// onEvent maps an informer event to the site it concerns.
func (e *Engine) onEvent(obj any) {
	u, ok := obj.(*unstructured.Unstructured)
	if !ok {
		return
	}
	if s := u.GetLabels()[LabelSite]; s != "" {
		e.notify(s)
		return
	}
	if s := e.siteOfAgent(u); s != "" {
		e.notify(s)
	}
}

// every runs fn every d until the engine closes.
func (e *Engine) every(d time.Duration, fn func()) {
	defer e.wg.Done()
	t := time.NewTicker(d)
	defer t.Stop()
	for {
		select {
		case <-e.ctx.Done():
			return
		case <-t.C:
		}
		fn()
	}
}

// retryHeld applies again the sites held back.
func (e *Engine) retryHeld() {
	e.mu.Lock()
	var todo []*render.Bundle
	var revs []string
	for _, s := range e.sites {
		if s.pending != nil && !s.deleting {
			todo = append(todo, s.pending)
			revs = append(revs, s.revision)
		}
	}
	e.mu.Unlock()
	for i, b := range todo {
		if err := e.Apply(e.ctx, b, revs[i]); err != nil && e.ctx.Err() == nil {
			e.o.logger.Warn("apply retry failed", "site", b.Site, "error", err)
		}
	}
}

// stallCheckInterval is the retry interval, or a quarter of the shortest
// bound when that is shorter: a bound is then seen to pass within a
// quarter of its length.
func stallCheckInterval(retry time.Duration, b engine.Bounds) time.Duration {
	d := retry
	for _, bound := range []time.Duration{b.StuckAfter, b.NoProgressAfter, b.SettleAfter} {
		if bound > 0 {
			d = min(d, bound/4)
		}
	}
	return max(d, minStallCheckInterval)
}

// minStallCheckInterval keeps a tiny bound from making the checks spin.
const minStallCheckInterval = 100 * time.Millisecond
