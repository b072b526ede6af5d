package reconciler

import (
	"context"
	"strings"
	"time"

	"github.com/siteops/siteops/engine"
	"github.com/siteops/siteops/reconciler/status"
)

// Each site's progress is logged as the engine reports it, whether or not
// a status write follows: a phase change at info level, with the site's
// message, the cluster's installation percent every progressStep, and a
// reason that needs a person at warn level when it appears.

// progressStep is the step, in percent, at which installation progress
// is logged.
const progressStep = 25

// seen is what was last logged of a site.
type seen struct {
	phase  engine.Phase
	reason engine.Reason
	step   int
}

// observe logs what changed in a site's document since it was last
// logged.
func (l *Loop) observe(r *record, doc *status.Document) {
	step := doc.Cluster.Percent / progressStep
	l.mu.Lock()
	last := r.seen
	r.seen = seen{phase: doc.Phase, reason: doc.Reason, step: step}
	l.mu.Unlock()
	switch {
	case doc.Reason != last.reason && doc.Reason.NeedsAttention():
		l.o.logger.Warn("site needs attention", "site", r.name, "revision", r.observed, "phase", string(doc.Phase),
			"reason", string(doc.Reason), "summary", doc.Reason.Summary(), "message", doc.Message)
	case doc.Reason != last.reason && last.reason.NeedsAttention():
		l.o.logger.Info("site no longer needs attention", "site", r.name, "revision", r.observed, "phase", string(doc.Phase),
			"was", string(last.reason), "message", doc.Message)
	}
	switch {
	case doc.Phase != last.phase:
		l.o.logger.Info("site "+strings.ToLower(string(doc.Phase)), "site", r.name, "revision", r.observed,
			"from", string(last.phase), "phase", string(doc.Phase), "percent", doc.Cluster.Percent, "message", doc.Message)
	case step > last.step && doc.Phase == engine.PhaseInstalling:
		l.o.logger.Info("site progress", "site", r.name, "revision", r.observed, "percent", doc.Cluster.Percent,
			"message", doc.Message)
	}
}

// publishEvery bounds how often watch counts the sites per phase for the
// metrics: counting is a walk over the fleet.
const publishEvery = time.Second

// watch logs the progress of the sites whose engine status changed since
// it last looked, and keeps the metrics of phases current.
func (l *Loop) watch(ctx context.Context) {
	if l.o.clock.Since(l.published) >= publishEvery {
		defer func() {
			l.publish()
			l.published = l.o.clock.Now()
		}()
	}
	l.dirtyMu.Lock()
	names := make([]string, 0, len(l.fresh))
	for n := range l.fresh {
		names = append(names, n)
	}
	clear(l.fresh)
	l.dirtyMu.Unlock()
	for _, name := range names {
		l.mu.RLock()
		r := l.ix.sites[name]
		l.mu.RUnlock()
		if r == nil {
			continue
		}
		if doc, ok := l.document(ctx, r); ok {
			l.observe(r, &doc)
		}
	}
}
