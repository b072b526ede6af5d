package reconciler

import "net/http"

// dashboard serves the status page.
func (l *Loop) dashboard() http.Handler { return http.NotFoundHandler() }
