package source

import (
	"bytes"
	"context"
	"fmt"
	"log/slog"
	"strconv"
	"testing"
	"time"

	"github.com/siteops/siteops/internal/gittest"
)

// BenchmarkGitOneSiteChange measures, on repositories of 10,000 and
// 50,000 sites served by git daemon on loopback, the time from a
// one-file commit on the server to its status pushed: Next (fetch, tree
// diff) then WriteStatus (one status file per site, and a README with a
// row per site; one file and one row changed: commit and push). The
// first clone and status write are timed once and reported too. The cost
// of a write should not grow with the fleet.
func BenchmarkGitOneSiteChange(b *testing.B) {
	for _, sites := range []int{10000, 50000} {
		b.Run(strconv.Itoa(sites), func(b *testing.B) { benchOneSiteChange(b, sites) })
	}
}

func benchOneSiteChange(b *testing.B, sites int) {
	files := make(map[string]string, 2*sites+1)
	status := NewStatusFiles()
	rows := make([][]byte, sites)
	for i := range sites {
		name := fmt.Sprintf("site-%05d", i)
		files["sites/"+name+"/siteconfig.yaml"] = "apiVersion: ran.openshift.io/v1\nkind: SiteConfig\nmetadata:\n  name: " + name + "\n"
		files["sites/"+name+"/kustomization.yaml"] = "resources: [siteconfig.yaml]\n"
		status.Set(name+".yaml", []byte("site: "+name+"\nphase: Installed\nrevision: 0\n"))
		rows[i] = fmt.Appendf(nil, "| [%s](%s.yaml) | Installed | | 100%% | 1 | 0 | The cluster is installed. |\n", name, name)
	}
	readme := func() []byte { return bytes.Join(append([][]byte{[]byte("# Fleet status\n\n")}, rows...), nil) }
	status.Set("README.md", readme())
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
		n := (i * 7919) % sites
		site := fmt.Sprintf("site-%05d", n)
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
		b.StopTimer()
		status.Set(site+".yaml", fmt.Appendf(nil, "site: %s\nphase: Installed\nrevision: %d\n", site, i))
		rows[n] = fmt.Appendf(nil, "| [%s](%s.yaml) | Installed | | 100%% | 1 | %d | The cluster is installed. |\n", site, site, i)
		status.Set("README.md", readme())
		b.StartTimer()
		t2 := time.Now()
		changed, err := g.WriteStatus(ctx, status, "Status of "+site)
		if err != nil || !changed {
			b.Fatalf("WriteStatus = %v, %v", changed, err)
		}
		inWrite += time.Since(t2)
	}
	b.ReportMetric(float64(inNext.Microseconds())/1000/float64(i), "next-ms/op")
	b.ReportMetric(float64(inWrite.Microseconds())/1000/float64(i), "write-ms/op")
	b.ReportMetric(clone.Seconds(), "clone-s")
	b.ReportMetric(firstStatus.Seconds(), "first-status-s")
}
