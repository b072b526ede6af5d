// Command benchargocd measures the Argo CD plugin path against `siteops
// render` on one generated fleet.
//
// Usage:
//
//	go run ./hack/benchargocd -bin PATH [-sites 1000] [-shape sno] [-manifests 20] [-runs 3]
//
// It writes a fleet with hack/fleetgen's generator (files layout, the
// extra-manifest set in extra-manifests/) as a repository, then times,
// -runs times each:
//
//   - render: PATH render --root DIR --extra-manifests-dir DIR/extra-manifests DIR
//   - plugin command: PATH render --argocd-plugin, in DIR, with the
//     parameters Argo CD would pass (the generate command of
//     examples/argocd/plugin.yaml, alone);
//   - argocd-cmp-server: the real Argo CD sidecar (hack/argocd/build.sh)
//     serving examples/argocd/plugin.yaml, driven by cmpclient as the
//     repo-server drives it: the repository sent as a tarball, the
//     command run, the manifests returned over gRPC and split into
//     objects.
//
// It prints best and median wall time and sites per second per row, and
// the plugin path's median over render's.
package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"os/exec"
	"os/signal"
	"path/filepath"
	"strings"
	"text/tabwriter"
	"time"

	"github.com/siteops/siteops/hack/fleetgen/gen"
	"github.com/siteops/siteops/hack/internal/benchutil"
)

func main() {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt)
	defer stop()
	bin := flag.String("bin", "bin/siteops", "the siteops binary")
	sites := flag.Int("sites", 1000, "sites in the fleet")
	shape := flag.String("shape", "sno", "sno, ha or mixed")
	manifests := flag.Int("manifests", 20, "extra-manifest files")
	runs := flag.Int("runs", 3, "runs of each")
	work := flag.String("work", "", "work directory (default: a temporary one, removed)")
	flag.Parse()
	if err := run(ctx, *bin, *sites, *shape, *manifests, *runs, *work, os.Stdout); err != nil {
		fmt.Fprintln(os.Stderr, "benchargocd:", err)
		os.Exit(1)
	}
}

type row struct {
	name  string
	times []time.Duration
	bytes int64
}

func run(ctx context.Context, bin string, n int, shape string, manifests, runs int, work string, out io.Writer) error {
	bin, err := filepath.Abs(bin)
	if err != nil {
		return err
	}
	sh, err := gen.ParseShape(shape)
	if err != nil {
		return err
	}
	if work == "" {
		if work, err = os.MkdirTemp("", "benchargocd-"); err != nil {
			return err
		}
		defer os.RemoveAll(work)
	}
	repo := filepath.Join(work, "repo")
	fmt.Fprintf(os.Stderr, "generating %d %s sites in %s\n", n, shape, repo)
	if _, err := gen.Generate(repo, gen.Config{Sites: n, Shape: sh, Layout: gen.LayoutFiles, Manifests: manifests, Seed: 1}); err != nil {
		return err
	}
	tools, err := buildArgoCD(ctx)
	if err != nil {
		return err
	}
	sock, stopServer, err := startCMPServer(ctx, tools, bin, work)
	if err != nil {
		return err
	}
	defer stopServer()

	params := `{"parameters":[{"name":"extra-manifests-dir","string":"` + gen.ExtraManifestsDir + `"}]}`
	pluginEnv := []string{"ARGOCD_APP_SOURCE_PATH=.", "PARAM_EXTRA_MANIFESTS_DIR=" + gen.ExtraManifestsDir}
	rows := []struct {
		name string
		dir  string
		env  []string
		argv []string
	}{
		{"render", "", nil, []string{bin, "render", "--root", repo, "--extra-manifests-dir", filepath.Join(repo, gen.ExtraManifestsDir), repo}},
		{"plugin command", repo, pluginEnv, []string{bin, "render", "--argocd-plugin"}},
		{"argocd-cmp-server", "", []string{"ARGOCD_PLUGINSOCKFILEPATH=" + sock}, []string{filepath.Join(tools, "cmpclient"), "-raw", "-repo", repo, "-path", ".", "-plugin", "siteops-v1", "-source", params}},
		{"+ repo-server split", "", []string{"ARGOCD_PLUGINSOCKFILEPATH=" + sock}, []string{filepath.Join(tools, "cmpclient"), "-repo", repo, "-path", ".", "-plugin", "siteops-v1", "-source", params}},
	}
	var results []row
	for _, r := range rows {
		res := row{name: r.name}
		for i := 0; i < runs; i++ {
			fmt.Fprintf(os.Stderr, "%s, run %d\n", r.name, i+1)
			d, size, err := timeRun(ctx, r.dir, r.env, r.argv)
			if err != nil {
				return fmt.Errorf("%s: %w", r.name, err)
			}
			res.times = append(res.times, d)
			res.bytes = size
		}
		results = append(results, res)
	}
	tw := tabwriter.NewWriter(out, 2, 8, 2, ' ', tabwriter.AlignRight)
	fmt.Fprintf(tw, "SITES\tPATH\tRUNS\tBEST\tMEDIAN\tSITES/S\tOUTPUT MB\t\n")
	_, base := benchutil.BestMedian(results[0].times)
	for _, r := range results {
		best, med := benchutil.BestMedian(r.times)
		fmt.Fprintf(tw, "%d\t%s\t%d\t%.2fs\t%.2fs\t%.0f\t%s\t\n", n, r.name, len(r.times), best.Seconds(), med.Seconds(), float64(n)/med.Seconds(), benchutil.MB(r.bytes))
	}
	if err := tw.Flush(); err != nil {
		return err
	}
	_, plugin := benchutil.BestMedian(results[2].times)
	fmt.Fprintf(out, "argocd-cmp-server median / render median: %.2f\n", plugin.Seconds()/base.Seconds())
	return nil
}

// countingWriter counts and discards.
type countingWriter struct{ n int64 }

func (c *countingWriter) Write(p []byte) (int, error) { c.n += int64(len(p)); return len(p), nil }

func timeRun(ctx context.Context, dir string, env, argv []string) (time.Duration, int64, error) {
	ctx, cancel := context.WithTimeout(ctx, 10*time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, argv[0], argv[1:]...)
	cmd.Dir = dir
	cmd.Env = append(os.Environ(), env...)
	var stdout countingWriter
	var stderr strings.Builder
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	start := time.Now()
	err := cmd.Run()
	d := time.Since(start)
	if err != nil {
		tail := stderr.String()
		if len(tail) > 4096 {
			tail = tail[len(tail)-4096:]
		}
		return 0, 0, fmt.Errorf("%v\n%s", err, tail)
	}
	if stdout.n == 0 {
		return 0, 0, errors.New("no output")
	}
	return d, stdout.n, nil
}

// buildArgoCD runs hack/argocd/build.sh and returns the directory of the
// binaries.
func buildArgoCD(ctx context.Context) (string, error) {
	cmd := exec.CommandContext(ctx, "hack/argocd/build.sh")
	cmd.Stderr = os.Stderr
	out, err := cmd.Output()
	if err != nil {
		return "", fmt.Errorf("hack/argocd/build.sh (run from the repository root): %w", err)
	}
	return strings.TrimSpace(string(out)), nil
}

// startCMPServer runs argocd-cmp-server with examples/argocd/plugin.yaml
// and siteops on its PATH, and returns its socket directory.
func startCMPServer(ctx context.Context, tools, bin, work string) (string, func(), error) {
	sock, err := os.MkdirTemp("", "cmp")
	if err != nil {
		return "", nil, err
	}
	config := filepath.Join(work, "cmp-config")
	if err := os.MkdirAll(config, 0o755); err != nil {
		return "", nil, err
	}
	plugin, err := os.ReadFile("examples/argocd/plugin.yaml")
	if err != nil {
		return "", nil, err
	}
	if err := os.WriteFile(filepath.Join(config, "plugin.yaml"), plugin, 0o644); err != nil {
		return "", nil, err
	}
	binDir := filepath.Join(work, "bin")
	if err := os.MkdirAll(binDir, 0o755); err != nil {
		return "", nil, err
	}
	if err := os.Symlink(bin, filepath.Join(binDir, "siteops")); err != nil {
		return "", nil, err
	}
	ctx, cancel := context.WithCancel(ctx)
	cmd := exec.CommandContext(ctx, filepath.Join(tools, "argocd-cmp-server"), "--config-dir-path", config, "--loglevel", "error")
	cmd.Env = append(os.Environ(), "ARGOCD_PLUGINSOCKFILEPATH="+sock, "ARGOCD_CMP_WORKDIR="+work,
		"PATH="+binDir+string(os.PathListSeparator)+os.Getenv("PATH"))
	cmd.Stderr = os.Stderr
	if err := cmd.Start(); err != nil {
		cancel()
		return "", nil, err
	}
	stop := func() { cancel(); cmd.Wait(); os.RemoveAll(sock) }
	for deadline := time.Now().Add(time.Minute); ; time.Sleep(50 * time.Millisecond) {
		if _, err := os.Stat(filepath.Join(sock, "siteops-v1.sock")); err == nil {
			return sock, stop, nil
		}
		if time.Now().After(deadline) {
			stop()
			return "", nil, errors.New("argocd-cmp-server did not serve within a minute")
		}
	}
}
