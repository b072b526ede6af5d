package source

import (
	"bytes"
	"context"
	"fmt"
	"log/slog"
	"strconv"
	"syscall"
	"testing"
	"time"

	"github.com/siteops/siteops/internal/gittest"
)

// BenchmarkGitOneSiteChange measures, on repositories of 10,000 and
// 50,000 sites served by git daemon on loopback, the time from a
// one-file commit on the server to its status pushed: Next (fetch, tree
// diff) then WriteStatus (one status file per site, a README of counts
// and 100 pages of rows, as the loop writes them past 1,000 sites; one
// file and one page changed: commit and push). The
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
	const pages = 100
	rows := make([][]byte, sites)
	for i := range sites {
		name := fmt.Sprintf("site-%05d", i)
		files["sites/"+name+"/siteconfig.yaml"] = "apiVersion: ran.openshift.io/v1\nkind: SiteConfig\nmetadata:\n  name: " + name + "\n"
		files["sites/"+name+"/kustomization.yaml"] = "resources: [siteconfig.yaml]\n"
		status.Set(name+".yaml", []byte("site: "+name+"\nphase: Installed\nrevision: 0\n"))
		rows[i] = fmt.Appendf(nil, "| [%s](%s.yaml) | Installed | | 100%% | 1 | 0 | The cluster is installed. |\n", name, name)
	}
	// Site n is on page n%pages: the page's rows, those of every
	// pages-th site.
	page := func(n int) []byte {
		b := [][]byte{fmt.Appendf(nil, "# Fleet status: page %02d\n\n", n%pages)}
		for j := n % pages; j < sites; j += pages {
			b = append(b, rows[j])
		}
		return bytes.Join(b, nil)
	}
	status.Set("README.md", []byte("# Fleet status\n\n| phase | sites |\n| --- | ---: |\n| Installed | "+strconv.Itoa(sites)+" |\n"))
	for n := range pages {
		status.Set(fmt.Sprintf("pages/%02d.md", n), page(n))
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
	var inNext, inWrite, cpu time.Duration
	b.ResetTimer()
	for b.Loop() {
		b.StopTimer()
		i++
		n := (i * 7919) % sites
		site := fmt.Sprintf("site-%05d", n)
		srv.Commit(b, "fleet.git", "main", map[string]string{"sites/" + site + "/siteconfig.yaml": fmt.Sprintf("name: %s\nv: %d\n", site, i)}, "change "+site)
		b.StartTimer()
		c0 := cpuTime()
		g.Trigger()
		t0 := time.Now()
		snap, err := g.Next(ctx)
		t1 := time.Now()
		inNext += t1.Sub(t0)
		if err != nil || len(snap.Changed) != 1 {
			b.Fatalf("Next = %q, %v", snap.Changed, err)
		}
		b.StopTimer()
		cpu += cpuTime() - c0
		status.Set(site+".yaml", fmt.Appendf(nil, "site: %s\nphase: Installed\nrevision: %d\n", site, i))
		rows[n] = fmt.Appendf(nil, "| [%s](%s.yaml) | Installed | | 100%% | 1 | %d | The cluster is installed. |\n", site, site, i)
		status.Set(fmt.Sprintf("pages/%02d.md", n%pages), page(n))
		b.StartTimer()
		t2, c2 := time.Now(), cpuTime()
		changed, err := g.WriteStatus(ctx, status, "Status of "+site)
		if err != nil || !changed {
			b.Fatalf("WriteStatus = %v, %v", changed, err)
		}
		inWrite += time.Since(t2)
		cpu += cpuTime() - c2
	}
	b.ReportMetric(float64(inNext.Microseconds())/1000/float64(i), "next-ms/op")
	b.ReportMetric(float64(inWrite.Microseconds())/1000/float64(i), "write-ms/op")
	b.ReportMetric(float64(cpu.Microseconds())/1000/float64(i), "cpu-ms/op")
	b.ReportMetric(clone.Seconds(), "clone-s")
	b.ReportMetric(firstStatus.Seconds(), "first-status-s")
}

// cpuTime is the CPU time (user and system) this process has used: the
// part of a write that the machine's load does not inflate. The git
// processes serving the repository are not counted.
func cpuTime() time.Duration {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		return 0
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}
