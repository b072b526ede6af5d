// Command benchhubsim measures a whole GitOps path without hardware:
// `siteops run --engine hub` applying a fleet of single-node sites to a
// real API server (etcd and kube-apiserver started on loopback by
// internal/hubtest, with the upstream CRDs) while `siteops hub-sim --speed
// max` plays the hub's controllers on it, until every site is Installed.
//
// Usage:
//
//	go run ./hack/benchhubsim [-sites 1000] [-bin siteops] [-work DIR]
//
// It prints the wall time to all Installed, the API requests the server
// counted (apiserver_request_total, both processes, watches included),
// the peak resident set size of each process (Linux) and the size of
// etcd's data directory at the end. MB are 10^6 bytes.
package main

import (
	"bufio"
	"bytes"
	"context"
	"flag"
	"fmt"
	"io"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"text/tabwriter"
	"time"

	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/rest"

	"github.com/siteops/siteops/hack/fleetgen/gen"
	"github.com/siteops/siteops/hack/internal/benchutil"
	"github.com/siteops/siteops/hack/internal/hubfleet"
	"github.com/siteops/siteops/internal/hubtest"
)

func main() {
	if err := run(os.Args[1:], os.Stdout, os.Stderr); err != nil {
		fmt.Fprintln(os.Stderr, "benchhubsim:", err)
		os.Exit(1)
	}
}

func run(args []string, stdout, stderr io.Writer) error {
	fl := flag.NewFlagSet("benchhubsim", flag.ContinueOnError)
	n := fl.Int("sites", 1000, "single-node sites in the fleet")
	bin := fl.String("bin", "", "the siteops binary (default: built into the work directory)")
	work := fl.String("work", "", "work directory (default a temporary one, removed)")
	limit := fl.Duration("timeout", 30*time.Minute, "give up after this long")
	if err := fl.Parse(args); err != nil {
		return err
	}
	if *n <= 0 || *n > gen.MaxSites {
		return fmt.Errorf("-sites must be 1..%d", gen.MaxSites)
	}
	root := *work
	if root == "" {
		var err error
		if root, err = os.MkdirTemp("", "benchhubsim-"); err != nil {
			return err
		}
		defer os.RemoveAll(root)
	}
	ctx, cancel := context.WithTimeout(context.Background(), *limit+10*time.Minute)
	defer cancel()
	if *bin == "" {
		*bin = filepath.Join(root, "siteops")
		build := exec.CommandContext(ctx, "go", "build", "-o", *bin, "./cmd/siteops")
		build.Stderr = stderr
		if err := build.Run(); err != nil {
			return fmt.Errorf("build siteops: %w", err)
		}
	}
	fleet := filepath.Join(root, "fleet")
	if _, err := os.Stat(fleet); err != nil {
		if _, err := gen.Generate(fleet, gen.Config{Sites: *n, Shape: gen.ShapeSNO, Layout: gen.LayoutFiles, Manifests: 5, Seed: 1}); err != nil {
			return err
		}
	}
	fmt.Fprintln(stderr, "benchhubsim: starting the hub")
	h, err := hubtest.Start(ctx, hubtest.WithBuildLog(stderr), hubtest.WithLifetime(*limit+10*time.Minute))
	if err != nil {
		return err
	}
	defer h.Stop()
	fmt.Fprintln(stderr, "benchhubsim: preparing namespaces, Secrets and ClusterImageSets")
	if err := hubfleet.Prepare(ctx, h.Config(), fleet); err != nil {
		return err
	}
	before, err := requestTotal(ctx, h.Config())
	if err != nil {
		return err
	}

	simCmd := exec.CommandContext(ctx, *bin, "hub-sim", "--kubeconfig", h.Kubeconfig(), "--speed", "max",
		"--kube-qps", "3000", "--kube-burst", "6000", "--workers", "32", "--log-level", "warn")
	simCmd.Stderr = stderr
	if err := simCmd.Start(); err != nil {
		return err
	}
	defer simCmd.Process.Kill()
	start := time.Now()
	runCmd := exec.CommandContext(ctx, *bin, "run", "--engine", "hub", "--kubeconfig", h.Kubeconfig(),
		"--kube-qps", "1000", "--kube-burst", "2000", "--dir", fleet, "--extra-manifests-dir", filepath.Join(fleet, gen.ExtraManifestsDir),
		"--state-dir", filepath.Join(root, "state"), "--listen", "", "--until-installed", "--timeout", limit.String(),
		"--log-level", "warn")
	runCmd.Stderr = stderr
	runErr := runCmd.Run()
	wall := time.Since(start)
	_ = simCmd.Process.Signal(syscall.SIGINT)
	simDone := make(chan error, 1)
	go func() { simDone <- simCmd.Wait() }()
	select {
	case <-simDone:
	case <-time.After(30 * time.Second):
		_ = simCmd.Process.Kill()
		<-simDone
	}
	if runErr != nil {
		return fmt.Errorf("siteops run: %w (after %s)", runErr, wall.Round(time.Second))
	}
	after, err := requestTotal(ctx, h.Config())
	if err != nil {
		return err
	}
	etcd, err := dirSize(filepath.Join(h.Dir(), "etcd"))
	if err != nil {
		return err
	}
	rss := func(ps *os.ProcessState) string {
		if b, ok := benchutil.PeakRSS(ps); ok {
			return benchutil.MB(b)
		}
		return "n/a"
	}
	tw := tabwriter.NewWriter(stdout, 0, 0, 2, ' ', tabwriter.AlignRight)
	fmt.Fprintln(tw, "sites\twall to all Installed s\tsites/s\tAPI requests\tper site\trun peak RSS MB\thub-sim peak RSS MB\tetcd MB\t")
	reqs := after - before
	fmt.Fprintf(tw, "%d\t%.1f\t%.1f\t%.0f\t%.1f\t%s\t%s\t%s\t\n", *n, wall.Seconds(), float64(*n)/wall.Seconds(), reqs, reqs/float64(*n),
		rss(runCmd.ProcessState), rss(simCmd.ProcessState), benchutil.MB(etcd))
	return tw.Flush()
}

// requestTotal sums the API server's apiserver_request_total counters.
func requestTotal(ctx context.Context, cfg *rest.Config) (float64, error) {
	kc, err := kubernetes.NewForConfig(cfg)
	if err != nil {
		return 0, err
	}
	raw, err := kc.Discovery().RESTClient().Get().AbsPath("/metrics").DoRaw(ctx)
	if err != nil {
		return 0, fmt.Errorf("read the API server's metrics: %w", err)
	}
	total := 0.0
	sc := bufio.NewScanner(bytes.NewReader(raw))
	sc.Buffer(make([]byte, 1<<20), 1<<20)
	for sc.Scan() {
		line := sc.Text()
		if !strings.HasPrefix(line, "apiserver_request_total{") {
			continue
		}
		v, err := strconv.ParseFloat(line[strings.LastIndexByte(line, ' ')+1:], 64)
		if err == nil {
			total += v
		}
	}
	return total, sc.Err()
}

func dirSize(dir string) (int64, error) {
	var total int64
	err := filepath.WalkDir(dir, func(_ string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.Type().IsRegular() {
			info, err := d.Info()
			if err != nil {
				return err
			}
			total += info.Size()
		}
		return nil
	})
	return total, err
}
