package dashboard

import (
	"net/http"
	"net/http/httptest"
	"testing"

	"github.com/siteops/siteops/reconciler/status"
)

// BenchmarkRequest measures one request over a 10,000-site fleet: every
// request reads, ranks, filters and sorts the whole fleet.
func BenchmarkRequest(b *testing.B) {
	docs := bigFleet(10000)
	h := New(func() []status.Document { return docs })
	for _, target := range []string{
		"/",
		"/?q=site-09&page=3",
		"/?attention=1",
		"/api/sites",
		"/sites/site-09999",
		"/api/sites/site-09999",
	} {
		b.Run(target, func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				rec := httptest.NewRecorder()
				h.ServeHTTP(rec, httptest.NewRequest(http.MethodGet, target, nil))
				if rec.Code != http.StatusOK {
					b.Fatalf("status %d", rec.Code)
				}
			}
		})
	}
}
