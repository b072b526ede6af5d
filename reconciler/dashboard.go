package reconciler

import (
	"net/http"

	"github.com/siteops/siteops/reconciler/dashboard"
)

// dashboard serves the status page over the documents the loop builds.
func (l *Loop) dashboard() http.Handler {
	return dashboard.New(l.Documents, dashboard.WithLogger(l.o.logger), dashboard.WithSummary(l.summary))
}

// summary is what the dashboard shows of the fleet as a whole.
func (l *Loop) summary() dashboard.Summary {
	l.mu.RLock()
	defer l.mu.RUnlock()
	return dashboard.Summary{Source: l.o.sourceName, Revision: l.fleet.revision, LastPass: l.fleet.lastPass, Problem: l.fleet.lastError}
}
