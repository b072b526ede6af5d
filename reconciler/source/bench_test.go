package source

import (
	"context"
	"fmt"
	"log/slog"
	"testing"
	"time"

	"github.com/siteops/siteops/internal/gittest"
)

// BenchmarkGitOneSiteChange10000 measures, on a 10,000-site repository
// served by git daemon on loopback, the time from a one-file commit on
// the server to its status pushed: Next (fetch, tree diff) then
// WriteStatus (10,000 status files, one changed: commit and push). The
// first clone and status write are timed once and reported too.
func BenchmarkGitOneSiteChange10000(b *testing.B) {
	const sites = 10000
	files := make(map[string]string, 2*sites+1)
	status := NewStatusFiles()
	for i := range sites {
		name := fmt.Sprintf("site-%05d", i)
		files["sites/"+name+"/siteconfig.yaml"] = "apiVersion: ran.openshift.io/v1\nkind: SiteConfig\nmetadata:\n  name: " + name + "\n"
		files["sites/"+name+"/kustomization.yaml"] = "resources: [siteconfig.yaml]\n"
		status.Set(name+".yaml", []byte("site: "+name+"\nphase: Installed\nrevision: 0\n"))
	}
	srv := gittest.StartDaemon(b)
	url := srv.SeedFiles(b, "fleet.git", files)
	ctx := context.Background()
	g, err := NewGit(ctx, GitOptions{URL: url, StateDir: b.TempDir(), Logger: slog.New(slog.DiscardHandler)})
	if err != nil {
		b.Fatal(err)
	}
	defer g.Close()

	start := time.Now()
	if _, err := g.Next(ctx); err != nil {
		b.Fatal(err)
	}
	clone := time.Since(start)
	start = time.Now()
	if _, err := g.WriteStatus(ctx, status, "Status of every site"); err != nil {
		b.Fatal(err)
	}
	firstStatus := time.Since(start)

	i := 0
	var inNext, inWrite time.Duration
	b.ResetTimer()
	for b.Loop() {
		b.StopTimer()
		i++
		site := fmt.Sprintf("site-%05d", i%sites)
		srv.Commit(b, "fleet.git", "main", map[string]string{"sites/" + site + "/siteconfig.yaml": fmt.Sprintf("name: %s\nv: %d\n", site, i)}, "change "+site)
		b.StartTimer()
		g.Trigger()
		t0 := time.Now()
		snap, err := g.Next(ctx)
		t1 := time.Now()
		inNext += t1.Sub(t0)
		if err != nil || len(snap.Changed) != 1 {
			b.Fatalf("Next = %q, %v", snap.Changed, err)
		}
		status.Set(site+".yaml", fmt.Appendf(nil, "site: %s\nphase: Installed\nrevision: %d\n", site, i))
		changed, err := g.WriteStatus(ctx, status, "Status of "+site)
		if err != nil || !changed {
			b.Fatalf("WriteStatus = %v, %v", changed, err)
		}
		inWrite += time.Since(t1)
	}
	b.ReportMetric(float64(inNext.Milliseconds())/float64(i), "next-ms/op")
	b.ReportMetric(float64(inWrite.Milliseconds())/float64(i), "write-ms/op")
	b.ReportMetric(clone.Seconds(), "clone-s")
	b.ReportMetric(firstStatus.Seconds(), "first-status-s")
}
