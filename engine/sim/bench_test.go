package sim

import (
	"context"
	"fmt"
	"testing"
	"time"

	"github.com/siteops/siteops/render"
)

// BenchmarkInstall installs b.N single-node sites on one engine with a
// stepped clock: the cost of the simulation itself, store included.
func BenchmarkInstall(b *testing.B) {
	bundles := make([]*render.Bundle, b.N)
	for i := range bundles {
		bundles[i] = newSite(fmt.Sprintf("sno-%05d", i), 1, 0).bundle()
	}
	e := newStepped(b, Options{NoSync: true})
	b.ResetTimer()
	for _, bu := range bundles {
		apply(b, e, bu, "r1")
	}
	for range 12 {
		if err := e.Advance(context.Background(), 10*time.Minute); err != nil {
			b.Fatal(err)
		}
	}
	b.StopTimer()
	b.ReportMetric(float64(e.Steps())/float64(b.N), "steps/site")
	names, _ := e.Sites(context.Background())
	for _, n := range names {
		if st := status(b, e, n); st.Phase != "Installed" {
			b.Fatalf("%s: %s", n, dump(b, st))
		}
	}
}
