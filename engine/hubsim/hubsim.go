package hubsim

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"maps"
	"net/http"
	"slices"
	"sync"
	"sync/atomic"
	"time"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/client-go/dynamic"
	"k8s.io/client-go/dynamic/dynamicinformer"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/rest"
	"k8s.io/client-go/tools/cache"

	"k8s.io/client-go/util/workqueue"

	"github.com/siteops/siteops/engine"
	"github.com/siteops/siteops/engine/sim"
	"github.com/siteops/siteops/internal/kubeclient"
	"github.com/siteops/siteops/internal/kuberetry"
)

// retryFor bounds the retries of one request on 429, 5xx and dropped
// connections; the site is queued again after that.
const retryFor = 2 * time.Minute

// syncTimeout bounds the first list of every kind.
const syncTimeout = 2 * time.Minute

// Simulator plays the hub's controllers on an API server.
type Simulator struct {
	o     options
	dyn   dynamic.Interface
	kc    kubernetes.Interface
	eng   *sim.Engine
	store *cmStore

	factory dynamicinformer.DynamicSharedInformerFactory
	// informers of the watched kinds by kind, the Agents and the
	// Namespaces.
	informers map[string]cache.SharedIndexInformer
	agents    cache.SharedIndexInformer
	nss       cache.SharedIndexInformer

	// namespaces queues namespaces to read into the simulation; sites
	// queues sites whose objects to write back.
	namespaces workqueue.TypedRateLimitingInterface[string]
	sites      workqueue.TypedRateLimitingInterface[string]

	mu sync.Mutex
	// applied is the digest of the bundle last applied per site.
	applied map[string]string
	// siteNS maps sites to their namespace and back.
	siteNS map[string]string
	// written is the digest of the last write per object and part.
	written map[string]string
	// tombs are the namespaces of deleted sites whose objects are not all
	// gone yet: nothing there is simulated again until they are.
	tombs map[string]bool

	requests atomic.Int64
}

// New connects to the API server of cfg and opens the simulation, resuming
// the state kept there. Run starts it.
func New(ctx context.Context, cfg *rest.Config, opts ...Option) (*Simulator, error) {
	o := defaultOptions()
	for _, opt := range opts {
		opt(&o)
	}
	s := &Simulator{
		o:       o,
		applied: map[string]string{},
		siteNS:  map[string]string{},
		written: map[string]string{},
		tombs:   map[string]bool{},
	}
	cfg = kubeclient.Config(cfg, o.qps, o.burst, "siteops-hub-sim", o.logger)
	cfg.Wrap(func(rt http.RoundTripper) http.RoundTripper { return countingTransport{rt, &s.requests} })
	var err error
	if s.dyn, err = dynamic.NewForConfig(cfg); err != nil {
		return nil, fmt.Errorf("hub client: %w", err)
	}
	if s.kc, err = kubernetes.NewForConfig(cfg); err != nil {
		return nil, fmt.Errorf("hub client: %w", err)
	}
	s.store = newCMStore(context.WithoutCancel(ctx), s.kc, o.stateNamespace, o.workers)
	if err := retry(ctx, func() error { return s.store.ensureNamespace(ctx) }); err != nil {
		return nil, fmt.Errorf("hub %s: %w", cfg.Host, err)
	}
	if err := s.loadTombs(ctx); err != nil {
		return nil, err
	}
	// A new simulation starts at the wall clock, so that the times it
	// writes read as recent to whoever watches the hub; a resumed one
	// keeps its own clock.
	start := time.Now().UTC().Truncate(time.Second)
	s.eng, err = sim.New(ctx, sim.Options{Store: s.store, Speed: o.speed, Logger: o.logger, Start: start})
	if err != nil {
		return nil, fmt.Errorf("resume the simulation from %s: %w", o.stateNamespace, err)
	}
	return s, nil
}

// Requests is how many requests the simulator sent to the API server.
func (s *Simulator) Requests() int64 { return s.requests.Load() }

// Engine is the simulation the simulator drives.
func (s *Simulator) Engine() *sim.Engine { return s.eng }

// Run watches the hub and plays the controllers until ctx is done, then
// commits the simulation's state.
func (s *Simulator) Run(ctx context.Context) error {
	defer s.eng.Close()
	s.namespaces = workqueue.NewTypedRateLimitingQueue(workqueue.DefaultTypedControllerRateLimiter[string]())
	s.sites = workqueue.NewTypedRateLimitingQueue(workqueue.DefaultTypedControllerRateLimiter[string]())
	defer s.namespaces.ShutDown()
	defer s.sites.ShutDown()
	s.startInformers(ctx)
	sctx, cancel := context.WithTimeout(ctx, syncTimeout)
	synced := []cache.InformerSynced{s.agents.HasSynced, s.nss.HasSynced}
	for _, inf := range s.informers {
		synced = append(synced, inf.HasSynced)
	}
	ok := cache.WaitForCacheSync(sctx.Done(), synced...)
	cancel()
	if !ok {
		if ctx.Err() != nil {
			return nil
		}
		return errors.New("the hub's objects could not be listed within " + syncTimeout.String() + "; check the CRDs are installed and the credentials may list and watch them")
	}
	// A restart writes every site back: what the last run committed may
	// not have reached the hub yet.
	names, _ := s.eng.Sites(ctx)
	for _, n := range names {
		s.sites.Add(n)
	}
	updates := s.eng.Subscribe(ctx)
	var wg sync.WaitGroup
	for range s.o.workers {
		wg.Go(func() { s.work(ctx, s.namespaces, s.reconcile) })
		wg.Go(func() { s.work(ctx, s.sites, s.writeSite) })
	}
	go func() {
		for name := range updates {
			s.sites.Add(name)
		}
	}()
	<-ctx.Done()
	s.namespaces.ShutDown()
	s.sites.ShutDown()
	wg.Wait()
	return nil
}

// work takes keys off q until it shuts down; a key whose handling failed
// is tried again later, with backoff.
func (s *Simulator) work(ctx context.Context, q workqueue.TypedRateLimitingInterface[string], fn func(context.Context, string) error) {
	for {
		key, quit := q.Get()
		if quit {
			return
		}
		if err := fn(ctx, key); err != nil && ctx.Err() == nil {
			// A conflict is another writer's newer object: read it again.
			level := slog.LevelWarn
			if apierrors.IsConflict(err) {
				level = slog.LevelDebug
			}
			s.o.logger.Log(ctx, level, "hub-sim step failed; trying again", "key", key, "err", err)
			q.AddRateLimited(key)
		} else {
			q.Forget(key)
		}
		q.Done(key)
	}
}

// startInformers watches the six kinds, the Agents and the Namespaces,
// every namespace, with no label selector: objects applied by any client
// count.
func (s *Simulator) startInformers(ctx context.Context) {
	s.factory = dynamicinformer.NewDynamicSharedInformerFactory(s.dyn, 0)
	s.informers = map[string]cache.SharedIndexInformer{}
	enqueue := cache.ResourceEventHandlerFuncs{
		AddFunc: s.onObject,
		UpdateFunc: func(o, n any) {
			if changedForControllers(o, n) {
				s.onObject(n)
			}
		},
		DeleteFunc: s.onObject,
	}
	for _, w := range watchedKinds {
		inf := s.factory.ForResource(w.gvr).Informer()
		inf.AddEventHandler(enqueue)
		s.informers[w.kind] = inf
	}
	s.agents = s.factory.ForResource(gvrAgent).Informer()
	s.agents.AddEventHandler(enqueue)
	s.nss = s.factory.ForResource(gvrNS).Informer()
	s.nss.AddEventHandler(enqueue)
	s.factory.Start(ctx.Done())
}

// onObject queues the namespace of an object; a ClusterImageSet or a
// Namespace concerns every site that uses it, which the namespace's own
// queueing covers.
func (s *Simulator) onObject(obj any) {
	if d, ok := obj.(cache.DeletedFinalStateUnknown); ok {
		obj = d.Obj
	}
	u, ok := obj.(*unstructured.Unstructured)
	if !ok {
		return
	}
	switch {
	case u.GetKind() == "Namespace":
		s.namespaces.Add(u.GetName())
	case u.GetNamespace() != "":
		s.namespaces.Add(u.GetNamespace())
	default: // a ClusterImageSet: every site may use it.
		for _, ns := range s.siteNamespaces() {
			s.namespaces.Add(ns)
		}
	}
}

// changedForControllers reports whether an update changed what the
// simulated controllers read: the spec (generation), labels, annotations,
// finalizers or deletion. A status write alone, most of them the
// simulator's own, changes nothing they read.
func changedForControllers(o, n any) bool {
	a, ok1 := o.(*unstructured.Unstructured)
	b, ok2 := n.(*unstructured.Unstructured)
	if !ok1 || !ok2 {
		return true
	}
	return a.GetGeneration() != b.GetGeneration() ||
		(a.GetDeletionTimestamp() == nil) != (b.GetDeletionTimestamp() == nil) ||
		!maps.Equal(a.GetLabels(), b.GetLabels()) ||
		!maps.Equal(a.GetAnnotations(), b.GetAnnotations()) ||
		!slices.Equal(a.GetFinalizers(), b.GetFinalizers())
}

func (s *Simulator) siteNamespaces() []string {
	s.mu.Lock()
	defer s.mu.Unlock()
	out := make([]string, 0, len(s.siteNS))
	for _, ns := range s.siteNS {
		out = append(out, ns)
	}
	return out
}

func retry(ctx context.Context, fn func() error) error {
	return kuberetry.Do(ctx, retryFor, func(context.Context) error { return fn() })
}

// notFound reports whether err says the simulation has no such site.
func notFound(err error) bool { return errors.Is(err, engine.ErrNotFound) }

// countingTransport counts requests.
type countingTransport struct {
	rt http.RoundTripper
	n  *atomic.Int64
}

func (t countingTransport) RoundTrip(r *http.Request) (*http.Response, error) {
	t.n.Add(1)
	return t.rt.RoundTrip(r)
}
