package reconciler

import (
	"log/slog"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	"k8s.io/utils/clock"

	"github.com/siteops/siteops/policy"
	"github.com/siteops/siteops/render"
	"github.com/siteops/siteops/sites"
)

// Option configures a Loop.
type Option func(*options)

type options struct {
	logger         *slog.Logger
	registerer     prometheus.Registerer
	gatherer       prometheus.Gatherer
	policy         *policy.Engine
	renderOpts     []render.Option
	loadOpts       []sites.Option
	prune          bool
	statusInterval time.Duration
	stateDir       string
	untilInstalled bool
	webhookSecret  []byte
	allowedHosts   []string
	sourceName     string
	maxKept        int
	clock          clock.WithTicker
}

// DefaultStatusInterval is the shortest time between two status writes
// caused by installation progress alone: each write is a commit.
const DefaultStatusInterval = 10 * time.Second

// defaultMaxKept is how many rendered bundles a pass keeps in memory to
// apply them; beyond that, sites are rendered a second time to be
// applied, so that a pass over a large fleet never holds every bundle.
const defaultMaxKept = 256

func applyOptions(opts []Option) options {
	o := options{logger: slog.New(slog.DiscardHandler), statusInterval: DefaultStatusInterval, maxKept: defaultMaxKept,
		clock: clock.RealClock{}}
	for _, opt := range opts {
		opt(&o)
	}
	if o.registerer == nil {
		reg := prometheus.NewRegistry()
		o.registerer, o.gatherer = reg, reg
	}
	return o
}

// WithLogger sets the logger; each site's phase changes are logged at
// info level with the keys site and revision.
func WithLogger(l *slog.Logger) Option {
	return func(o *options) {
		if l != nil {
			o.logger = l
		}
	}
}

// WithRegistry registers the loop's metrics in reg and serves reg at
// /metrics. Without it the loop uses a registry of its own.
func WithRegistry(reg *prometheus.Registry) Option {
	return func(o *options) {
		if reg != nil {
			o.registerer, o.gatherer = reg, reg
		}
	}
}

// WithPolicy checks every site with the engine before it is applied;
// deny findings block the site. Without it nothing is checked.
func WithPolicy(e *policy.Engine) Option { return func(o *options) { o.policy = e } }

// WithRenderOptions passes options to the renderer (the default
// extra-manifest set).
func WithRenderOptions(opts ...render.Option) Option {
	return func(o *options) { o.renderOpts = append(o.renderOpts, opts...) }
}

// WithLoadOptions passes options to the site loader.
func WithLoadOptions(opts ...sites.Option) Option {
	return func(o *options) { o.loadOpts = append(o.loadOpts, opts...) }
}

// WithPrune lets the loop delete, through the engine, the sites removed
// from the repository, within the policy's deletion budget. Without it
// such sites are reported as orphaned.
func WithPrune(prune bool) Option { return func(o *options) { o.prune = prune } }

// WithStatusInterval sets the shortest time between two status writes
// caused by installation progress alone (DefaultStatusInterval). A pass
// over a new revision writes at its end regardless. Zero writes on every
// change.
func WithStatusInterval(d time.Duration) Option {
	return func(o *options) { o.statusInterval = max(d, 0) }
}

// WithStateDir keeps the loop's memory of applied bundles in dir, so that
// a restart applies nothing that was applied already.
func WithStateDir(dir string) Option { return func(o *options) { o.stateDir = dir } }

// WithUntilInstalled makes Run return once every site is Installed (nil)
// or some site failed (ErrSitesFailed).
func WithUntilInstalled(until bool) Option { return func(o *options) { o.untilInstalled = until } }

// WithWebhookSecret enables POST /hooks/git: a request signed with secret
// (X-Hub-Signature-256, as GitHub sends) makes the source fetch now.
func WithWebhookSecret(secret []byte) Option { return func(o *options) { o.webhookSecret = secret } }

// WithAllowedHosts adds host names the HTTP surface answers to besides IP
// addresses and localhost (the name of a reverse proxy in front of it). A
// request naming another host is refused: a web page whose name an
// attacker re-points at 127.0.0.1 (DNS rebinding) must not reach the
// dashboard or its API.
func WithAllowedHosts(hosts ...string) Option {
	return func(o *options) { o.allowedHosts = append(o.allowedHosts, hosts...) }
}

// WithSourceName is how the dashboard names the source (a URL and branch,
// or a directory). It must hold no credentials.
func WithSourceName(name string) Option { return func(o *options) { o.sourceName = name } }

// WithClock sets the clock the loop waits on: between progress writes,
// before retries, for the times it records. Tests step a fake clock
// (k8s.io/utils/clock/testing) instead of sleeping. The default is the
// real clock.
func WithClock(c clock.WithTicker) Option {
	return func(o *options) {
		if c != nil {
			o.clock = c
		}
	}
}

// withMaxKept changes defaultMaxKept, for tests.
func withMaxKept(n int) Option { return func(o *options) { o.maxKept = n } }
