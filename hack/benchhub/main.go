// Command benchhub measures the hub engine (engine/hub) against a real
// API server: etcd and kube-apiserver started on loopback by
// internal/hubtest, with the upstream CRDs.
//
// Usage:
//
//	go run ./hack/benchhub [-sites 1000] [-qps 1000] [-burst 2000] [-concurrency 32] [-work DIR]
//
// benchhub generates a fleet of single-node sites (hack/fleetgen), starts
// a hub and puts on it what an operator prepares before siteops: each
// site's namespace with its pull secret and BMC Secret, and the
// ClusterImageSet. Then it runs itself twice as a child process that
// streams the fleet through the renderer into a new engine and applies
// every site: first on the empty hub, then again with nothing changed (a
// restart). Each run prints the wall time of the applies, the API
// requests sent during them (watches left out) per site and per object,
// and the child's peak resident set size (Linux). The hub's own processes
// are not counted. MB are 10^6 bytes.
package main

import (
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"io"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"sync/atomic"
	"text/tabwriter"
	"time"

	"k8s.io/client-go/tools/clientcmd"

	"github.com/siteops/siteops/engine/hub"
	"github.com/siteops/siteops/hack/fleetgen/gen"
	"github.com/siteops/siteops/hack/internal/benchutil"
	"github.com/siteops/siteops/hack/internal/hubfleet"
	"github.com/siteops/siteops/internal/hubtest"
	"github.com/siteops/siteops/render"
	"github.com/siteops/siteops/sites"
)

func main() {
	if err := run(os.Args[1:], os.Stdout, os.Stderr); err != nil {
		fmt.Fprintln(os.Stderr, "benchhub:", err)
		os.Exit(1)
	}
}

// result is what a child reports.
type result struct {
	Sites    int     `json:"sites"`
	Objects  int     `json:"objects"`
	ApplySec float64 `json:"applySec"`
	Requests int64   `json:"requests"`
	Held     int     `json:"held"`
}

func run(args []string, stdout, stderr io.Writer) error {
	fl := flag.NewFlagSet("benchhub", flag.ContinueOnError)
	n := fl.Int("sites", 1000, "single-node sites in the fleet")
	qps := fl.Float64("qps", 1000, "client-side requests per second (--kube-qps)")
	burst := fl.Int("burst", 2000, "client-side burst (--kube-burst)")
	conc := fl.Int("concurrency", 32, "sites applied at once")
	work := fl.String("work", "", "work directory (default a temporary one, removed)")
	child := fl.Bool("child", false, "internal: apply the fleet in -dir to the hub of -kubeconfig and print JSON")
	dir := fl.String("dir", "", "internal: fleet directory")
	kubeconfig := fl.String("kubeconfig", "", "internal: the hub")
	if err := fl.Parse(args); err != nil {
		return err
	}
	if *child {
		return runChild(*dir, *kubeconfig, float32(*qps), *burst, *conc, stdout)
	}
	if *n <= 0 || *n > gen.MaxSites {
		return fmt.Errorf("-sites must be 1..%d", gen.MaxSites)
	}
	root := *work
	if root == "" {
		var err error
		if root, err = os.MkdirTemp("", "benchhub-"); err != nil {
			return err
		}
		defer os.RemoveAll(root)
	}
	fleet := filepath.Join(root, "fleet")
	if _, err := os.Stat(fleet); err != nil {
		if _, err := gen.Generate(fleet, gen.Config{Sites: *n, Shape: gen.ShapeSNO, Layout: gen.LayoutFiles, Manifests: 5, Seed: 1}); err != nil {
			return err
		}
	}
	ctx, cancel := context.WithTimeout(context.Background(), time.Hour)
	defer cancel()
	fmt.Fprintln(stderr, "benchhub: starting the hub")
	h, err := hubtest.Start(ctx, hubtest.WithBuildLog(stderr), hubtest.WithLifetime(time.Hour))
	if err != nil {
		return err
	}
	defer h.Stop()
	fmt.Fprintln(stderr, "benchhub: preparing namespaces, Secrets and ClusterImageSets")
	if err := hubfleet.Prepare(ctx, h.Config(), fleet); err != nil {
		return err
	}
	self, err := os.Executable()
	if err != nil {
		return err
	}
	tw := tabwriter.NewWriter(stdout, 0, 0, 2, ' ', tabwriter.AlignRight)
	fmt.Fprintln(tw, "run\tsites\tobjects\tapply s\tsites/s\trequests\tper site\tper object\tpeak RSS MB\theld\t")
	for _, name := range []string{"first apply", "restart, unchanged"} {
		cmd := exec.CommandContext(ctx, self, "-child", "-dir", fleet, "-kubeconfig", h.Kubeconfig(),
			"-qps", strconv.FormatFloat(*qps, 'f', -1, 64), "-burst", strconv.Itoa(*burst), "-concurrency", strconv.Itoa(*conc))
		cmd.Stderr = stderr
		out, err := cmd.Output()
		if err != nil {
			return fmt.Errorf("%s: %w", name, err)
		}
		var r result
		if err := json.Unmarshal(out, &r); err != nil {
			return fmt.Errorf("%s: child printed %q: %w", name, out, err)
		}
		rss := "n/a"
		if b, ok := benchutil.PeakRSS(cmd.ProcessState); ok {
			rss = benchutil.MB(b)
		}
		fmt.Fprintf(tw, "%s\t%d\t%d\t%.1f\t%.0f\t%d\t%.2f\t%.2f\t%s\t%d\t\n", name, r.Sites, r.Objects, r.ApplySec,
			float64(r.Sites)/r.ApplySec, r.Requests, float64(r.Requests)/float64(r.Sites), float64(r.Requests)/float64(r.Objects), rss, r.Held)
	}
	return tw.Flush()
}

// runChild applies the fleet with a new engine and reports the requests
// sent while applying.
func runChild(dir, kubeconfig string, qps float32, burst, conc int, stdout io.Writer) error {
	ctx := context.Background()
	cfg, err := clientcmd.BuildConfigFromFlags("", kubeconfig)
	if err != nil {
		return err
	}
	var counting atomic.Bool
	var requests atomic.Int64
	cfg.WrapTransport = func(rt http.RoundTripper) http.RoundTripper {
		return roundTripper(func(req *http.Request) (*http.Response, error) {
			if counting.Load() && req.URL.Query().Get("watch") != "true" {
				requests.Add(1)
			}
			return rt.RoundTrip(req)
		})
	}
	e, err := hub.New(ctx, cfg, hub.WithRateLimit(qps, burst), hub.WithConcurrency(conc))
	if err != nil {
		return err
	}
	defer e.Close()
	md, err := sites.ReadManifestDir(os.DirFS(filepath.Join(dir, gen.ExtraManifestsDir)), ".")
	if err != nil {
		return err
	}
	r := render.New(render.WithDefaultManifests(md))
	var res result
	counting.Store(true)
	start := time.Now()
	res.Sites, res.Objects, err = hubfleet.EachBundle(ctx, dir, r, conc, func(b *render.Bundle) error {
		return e.Apply(ctx, b, "bench")
	})
	res.ApplySec = time.Since(start).Seconds()
	counting.Store(false)
	if err != nil {
		return err
	}
	res.Requests = requests.Load()
	names, _ := e.Sites(ctx)
	for _, n := range names {
		if st, err := e.Status(ctx, n); err == nil && st.Reason != "" && st.Reason.NeedsAttention() {
			res.Held++
			if res.Held == 1 {
				fmt.Fprintln(os.Stderr, "benchhub: held:", st.Site, st.Reason, st.Message)
			}
		}
	}
	return json.NewEncoder(stdout).Encode(res)
}

type roundTripper func(*http.Request) (*http.Response, error)

func (f roundTripper) RoundTrip(r *http.Request) (*http.Response, error) { return f(r) }
