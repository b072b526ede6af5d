package source

import (
	"errors"

	"github.com/prometheus/client_golang/prometheus"
)

// gitMetrics are the counters of a Git source. Two sources registered on
// one registry share them.
type gitMetrics struct {
	fetchErrors prometheus.Counter
	pushErrors  prometheus.Counter
	pushRetries prometheus.Counter
}

// The metric names and help texts, in one place.
var (
	fetchErrorsOpts = prometheus.CounterOpts{
		Name: "siteops_git_fetch_errors_total",
		Help: "Fetches from the fleet repository that failed (network, authentication, unknown branch).",
	}
	pushErrorsOpts = prometheus.CounterOpts{
		Name: "siteops_git_push_errors_total",
		Help: "Status pushes that failed, rejected ones (non-fast-forward) included.",
	}
	pushRetriesOpts = prometheus.CounterOpts{
		Name: "siteops_git_push_retries_total",
		Help: "Status pushes tried again after a failure, on the fetched tip, after a backoff.",
	}
)

func newGitMetrics(reg prometheus.Registerer) (*gitMetrics, error) {
	m := &gitMetrics{}
	for _, c := range []struct {
		dst  *prometheus.Counter
		opts prometheus.CounterOpts
	}{
		{&m.fetchErrors, fetchErrorsOpts},
		{&m.pushErrors, pushErrorsOpts},
		{&m.pushRetries, pushRetriesOpts},
	} {
		counter, err := register(reg, prometheus.NewCounter(c.opts))
		if err != nil {
			return nil, err
		}
		*c.dst = counter
	}
	return m, nil
}

// register registers c, or returns the counter already registered under
// its name.
func register(reg prometheus.Registerer, c prometheus.Counter) (prometheus.Counter, error) {
	if reg == nil {
		return c, nil
	}
	err := reg.Register(c)
	var are prometheus.AlreadyRegisteredError
	if errors.As(err, &are) {
		if existing, ok := are.ExistingCollector.(prometheus.Counter); ok {
			return existing, nil
		}
	}
	return c, err
}
