package hubsim

import (
	"log/slog"

	"k8s.io/apimachinery/pkg/labels"

	"github.com/siteops/siteops/engine/sim"
)

// Defaults of the options.
const (
	// DefaultQPS and DefaultBurst bound the simulator's requests: one
	// limiter for every client of the process.
	DefaultQPS   = 200
	DefaultBurst = 400
	// DefaultWorkers is how many sites are read or written at once.
	DefaultWorkers = 8
)

// An Option configures New.
type Option func(*options)

type options struct {
	speed          float64
	selector       labels.Selector
	logger         *slog.Logger
	qps            float32
	burst          int
	workers        int
	stateNamespace string
	finalizeNS     bool
}

func defaultOptions() options {
	return options{
		speed:          sim.DefaultSpeed,
		selector:       labels.Everything(),
		logger:         slog.New(slog.DiscardHandler),
		qps:            DefaultQPS,
		burst:          DefaultBurst,
		workers:        DefaultWorkers,
		stateNamespace: DefaultStateNamespace,
	}
}

// WithSpeed sets how many virtual seconds pass per real second
// (sim.SpeedMax: as fast as possible; default sim.DefaultSpeed).
func WithSpeed(s float64) Option { return func(o *options) { o.speed = s } }

// WithNamespaceSelector limits the simulator to the sites of namespaces
// whose labels match.
func WithNamespaceSelector(sel labels.Selector) Option {
	return func(o *options) { o.selector = sel }
}

// WithLogger logs what the simulator does (nothing by default).
func WithLogger(l *slog.Logger) Option { return func(o *options) { o.logger = l } }

// WithRateLimit bounds the requests: qps per second on average, burst at
// once.
func WithRateLimit(qps float32, burst int) Option {
	return func(o *options) { o.qps, o.burst = qps, max(burst, 1) }
}

// WithWorkers sets how many sites are read or written at once.
func WithWorkers(n int) Option { return func(o *options) { o.workers = max(n, 1) } }

// WithStateNamespace keeps the simulation's state in another namespace
// (default DefaultStateNamespace).
func WithStateNamespace(ns string) Option { return func(o *options) { o.stateNamespace = ns } }

// WithNamespaceFinalizer makes the simulator also play the namespace
// controller of kube-controller-manager for the namespaces of deleted
// sites: on a bare API server (no controller manager) a deleted Namespace
// otherwise stays Terminating for ever.
func WithNamespaceFinalizer(on bool) Option { return func(o *options) { o.finalizeNS = on } }
