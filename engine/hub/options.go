package hub

import (
	"log/slog"
	"time"

	"github.com/siteops/siteops/engine"
)

// Defaults of the options.
const (
	// DefaultQPS and DefaultBurst limit the requests siteops sends; a
	// hub's API server also serves its controllers.
	DefaultQPS   = 50
	DefaultBurst = 100
	// DefaultConcurrency is how many sites are applied or deleted at once.
	DefaultConcurrency = 16
	// DefaultDeleteTimeout is how long one object may take to go before
	// its deletion is reported stuck with its finalizers.
	DefaultDeleteTimeout = 10 * time.Minute
	// DefaultRetryInterval is how often a site held back (a missing
	// prerequisite, a conflict, an unreachable hub) is tried again.
	DefaultRetryInterval = 30 * time.Second
	// DefaultRetryFor is how long one request is retried on 429, 5xx and
	// connection errors before Apply gives up and the site waits for the
	// next retry.
	DefaultRetryFor = 2 * time.Minute
)

// An Option configures New.
type Option func(*options)

type options struct {
	qps            float32
	burst          int
	concurrency    int
	forceConflicts bool
	deleteTimeout  time.Duration
	retryInterval  time.Duration
	retryFor       time.Duration
	logger         *slog.Logger
	bounds         engine.Bounds
	instance       string
}

func defaultOptions() options {
	return options{
		qps:           DefaultQPS,
		burst:         DefaultBurst,
		concurrency:   DefaultConcurrency,
		deleteTimeout: DefaultDeleteTimeout,
		retryInterval: DefaultRetryInterval,
		retryFor:      DefaultRetryFor,
		logger:        slog.New(slog.DiscardHandler),
		bounds:        engine.DefaultBounds,
		instance:      DefaultInstance,
	}
}

// WithRateLimit sets the client-side rate limit: qps requests per second
// on average, burst at once.
func WithRateLimit(qps float32, burst int) Option {
	return func(o *options) { o.qps, o.burst = qps, burst }
}

// WithConcurrency sets how many sites are applied or deleted at once.
func WithConcurrency(n int) Option { return func(o *options) { o.concurrency = max(n, 1) } }

// WithForceConflicts makes server-side apply take over fields another
// field manager owns instead of reporting the conflict.
func WithForceConflicts(force bool) Option { return func(o *options) { o.forceConflicts = force } }

// WithDeleteTimeout changes DefaultDeleteTimeout.
func WithDeleteTimeout(d time.Duration) Option { return func(o *options) { o.deleteTimeout = d } }

// WithRetryInterval changes DefaultRetryInterval.
func WithRetryInterval(d time.Duration) Option { return func(o *options) { o.retryInterval = d } }

// WithRetryFor changes DefaultRetryFor.
func WithRetryFor(d time.Duration) Option { return func(o *options) { o.retryFor = d } }

// WithBounds sets how long a site may go without registering a host or
// without progress before it needs attention (a zero bound takes its
// default, a negative one is off).
func WithBounds(b engine.Bounds) Option { return func(o *options) { o.bounds = b.WithDefaults() } }

// WithInstance names this siteops on the hub (LabelInstance); give each
// fleet repository that shares a hub its own.
func WithInstance(name string) Option { return func(o *options) { o.instance = name } }

// WithLogger logs what the engine does (nothing by default).
func WithLogger(l *slog.Logger) Option { return func(o *options) { o.logger = l } }
