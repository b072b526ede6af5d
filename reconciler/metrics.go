package reconciler

import (
	"github.com/prometheus/client_golang/prometheus"

	"github.com/siteops/siteops/engine"
	"github.com/siteops/siteops/policy/report"
)

// metrics are the loop's Prometheus metrics. The Git source registers its
// own (siteops_git_*) in the same registry. docs/operations.md lists them.
type metrics struct {
	passDuration   *prometheus.HistogramVec
	passErrors     prometheus.Counter
	sitesApplied   prometheus.Counter
	sitesPerPhase  *prometheus.GaugeVec
	sitesAttention *prometheus.GaugeVec
	findings       *prometheus.GaugeVec
	lastRevision   *prometheus.GaugeVec
	lastSuccess    prometheus.Gauge
	statusWrites   prometheus.Counter
	statusErrors   prometheus.Counter
	webhookRefused prometheus.Counter
}

// Pass kinds, the label of siteops_reconcile_pass_duration_seconds.
const (
	passFull        = "full"        // the whole tree was loaded
	passIncremental = "incremental" // only what a commit changed
	passStatus      = "status"      // installation progress, no new revision
)

func newMetrics(reg prometheus.Registerer) *metrics {
	m := &metrics{
		passDuration: prometheus.NewHistogramVec(prometheus.HistogramOpts{
			Name:    "siteops_reconcile_pass_duration_seconds",
			Help:    "Wall time of one pass of the loop, by kind: full, incremental (a new revision) or status (progress only).",
			Buckets: prometheus.ExponentialBuckets(0.005, 2.5, 12),
		}, []string{"kind"}),
		passErrors: prometheus.NewCounter(prometheus.CounterOpts{
			Name: "siteops_reconcile_errors_total",
			Help: "Passes that could not finish (the source, the engine or the status write failed).",
		}),
		sitesApplied: prometheus.NewCounter(prometheus.CounterOpts{
			Name: "siteops_reconcile_sites_applied_total",
			Help: "Bundles handed to the engine (sites whose rendered resources changed).",
		}),
		sitesPerPhase: prometheus.NewGaugeVec(prometheus.GaugeOpts{
			Name: "siteops_sites",
			Help: "Sites by phase, as last reported (status documents follow within the status interval).",
		}, []string{"phase"}),
		sitesAttention: prometheus.NewGaugeVec(prometheus.GaugeOpts{
			Name: "siteops_sites_attention",
			Help: "Sites that need a person, by reason (docs/status.md says what to do about each).",
		}, []string{"reason"}),
		findings: prometheus.NewGaugeVec(prometheus.GaugeOpts{
			Name: "siteops_policy_findings",
			Help: "Policy findings of the observed revision, by rule and severity (waived findings included).",
		}, []string{"rule", "severity"}),
		lastRevision: prometheus.NewGaugeVec(prometheus.GaugeOpts{
			Name: "siteops_reconcile_last_success_revision",
			Help: "1 for the revision of the last pass that finished; the revision is the label.",
		}, []string{"revision"}),
		lastSuccess: prometheus.NewGauge(prometheus.GaugeOpts{
			Name: "siteops_reconcile_last_success_timestamp_seconds",
			Help: "Unix time the last pass over a new revision finished.",
		}),
		statusWrites: prometheus.NewCounter(prometheus.CounterOpts{
			Name: "siteops_status_writes_total",
			Help: "Status writes that changed the status directory (commits, in a repository).",
		}),
		statusErrors: prometheus.NewCounter(prometheus.CounterOpts{
			Name: "siteops_status_write_errors_total",
			Help: "Status writes that failed; the status is written again at the next pass.",
		}),
		webhookRefused: prometheus.NewCounter(prometheus.CounterOpts{
			Name: "siteops_webhook_refused_total",
			Help: "Webhook and approval requests refused for a missing or wrong signature.",
		}),
	}
	for _, c := range []prometheus.Collector{m.passDuration, m.passErrors, m.sitesApplied, m.sitesPerPhase,
		m.sitesAttention, m.findings, m.lastRevision, m.lastSuccess, m.statusWrites, m.statusErrors, m.webhookRefused} {
		reg.MustRegister(c)
	}
	m.setPhases(nil)
	m.setAttention(nil)
	return m
}

// setPhases publishes the number of sites per phase, every phase present
// so that a query sees zeros rather than gaps.
func (m *metrics) setPhases(count map[engine.Phase]int) {
	for _, p := range engine.Phases() {
		m.sitesPerPhase.WithLabelValues(string(p)).Set(float64(count[p]))
	}
}

// setAttention publishes the number of sites that need a person per
// reason, every such reason present.
func (m *metrics) setAttention(count map[engine.Reason]int) {
	for _, r := range engine.AttentionReasons() {
		m.sitesAttention.WithLabelValues(string(r)).Set(float64(count[r]))
	}
}

// setFindings publishes the findings per rule.
func (m *metrics) setFindings(count map[[2]string]int) {
	m.findings.Reset()
	for k, n := range count {
		m.findings.WithLabelValues(k[0], k[1]).Set(float64(n))
	}
}

// findingKey is the label pair of a finding.
func findingKey(f report.Finding) [2]string { return [2]string{f.Rule, string(f.Severity)} }

// setRevision marks the revision of the last pass that finished.
func (m *metrics) setRevision(rev string, unix float64) {
	m.lastRevision.Reset()
	m.lastRevision.WithLabelValues(rev).Set(1)
	m.lastSuccess.Set(unix)
}
