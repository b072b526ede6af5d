package policy

import (
	"runtime"
	"time"
)

// Option configures Load.
type Option func(*options)

type options struct {
	policyDirs  []string
	dataDirs    []string
	namespace   string
	siteTimeout time.Duration
	workers     int
	maxFileSize int64
	memBudget   uint64
	// topdown evaluates every query with OPA's topdown evaluator, not
	// internal/irvm: the tests compare the two.
	topdown bool
}

// DefaultNamespace is the package user policies live in, as with conftest.
const DefaultNamespace = "main"

// DefaultSiteTimeout bounds the evaluation of one site. The built-in
// library needs well under a millisecond per site; the limit is there for
// user policies that never end.
const DefaultSiteTimeout = 10 * time.Second

// DefaultMaxFileSize is the largest policy or data file read.
const DefaultMaxFileSize = 4 << 20

// WithUserPolicies adds directories (or single files) of Rego policies,
// read recursively; *.rego files are loaded, as conftest's --policy does.
func WithUserPolicies(dirs ...string) Option {
	return func(o *options) { o.policyDirs = append(o.policyDirs, dirs...) }
}

// WithNamespace sets the package user rules are read from (default
// "main"); packages below it (main.network, ...) are read too.
func WithNamespace(ns string) Option { return func(o *options) { o.namespace = ns } }

// WithDataDirs adds directories of YAML and JSON files that user policies
// see under data, the directory path below each root being the data path
// (conftest's --data).
func WithDataDirs(dirs ...string) Option {
	return func(o *options) { o.dataDirs = append(o.dataDirs, dirs...) }
}

// WithSiteTimeout bounds the evaluation of one site; a site that takes
// longer gets a policy.timeout finding and the others go on.
func WithSiteTimeout(d time.Duration) Option { return func(o *options) { o.siteTimeout = d } }

// WithMemoryBudget sets how far the heap may grow above its size at Load
// while sites are evaluated (default DefaultMemoryBudget); evaluations in
// flight when it is exceeded are stopped and run again one at a time, and
// a site over the budget on its own gets a policy.error finding.
func WithMemoryBudget(bytes uint64) Option { return func(o *options) { o.memBudget = bytes } }

// WithWorkers sets how many sites are evaluated at once (default GOMAXPROCS).
func WithWorkers(n int) Option { return func(o *options) { o.workers = n } }

func applyOptions(opts []Option) options {
	o := options{namespace: DefaultNamespace, siteTimeout: DefaultSiteTimeout,
		workers: runtime.GOMAXPROCS(0), maxFileSize: DefaultMaxFileSize, memBudget: DefaultMemoryBudget}
	for _, opt := range opts {
		opt(&o)
	}
	if o.workers < 1 {
		o.workers = 1
	}
	if o.siteTimeout <= 0 {
		o.siteTimeout = DefaultSiteTimeout
	}
	if o.namespace == "" {
		o.namespace = DefaultNamespace
	}
	return o
}
