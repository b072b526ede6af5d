// Command hubdemo installs the example fleet through a real API server
// without hardware, in one command (make hub-demo): it starts a local hub
// (etcd and kube-apiserver with the upstream CRDs, internal/hubtest),
// prepares what an operator puts there before siteops (namespaces, pull
// and BMC Secrets, the ClusterImageSet), then runs `siteops hub-sim` and
// `siteops run --engine hub` on examples/fleet with the dashboard, until
// interrupted.
//
// Usage:
//
//	go run ./hack/hubdemo [-bin bin/siteops] [-speed 60] [-listen 127.0.0.1:8080] [-dir DIR]
package main

import (
	"context"
	"flag"
	"fmt"
	"os"
	"os/exec"
	"os/signal"
	"path/filepath"
	"sync"
	"syscall"
	"time"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/rest"

	"github.com/siteops/siteops/internal/hubtest"
	"github.com/siteops/siteops/render"
	"github.com/siteops/siteops/sites"
)

func main() {
	if err := run(); err != nil {
		fmt.Fprintln(os.Stderr, "hubdemo:", err)
		os.Exit(1)
	}
}

func run() error {
	bin := flag.String("bin", "bin/siteops", "the siteops binary")
	speed := flag.String("speed", "60", "hub-sim's speed: virtual seconds per second, or max")
	listen := flag.String("listen", "127.0.0.1:8080", "address of the dashboard")
	dir := flag.String("dir", filepath.Join(os.TempDir(), "siteops-hub-demo"), "where the hub and the loop keep their data (wiped at start)")
	fleet := flag.String("fleet", "examples/fleet", "the fleet directory")
	manifests := flag.String("extra-manifests-dir", "examples/extra-manifests", "the extra manifests")
	flag.Parse()

	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	if err := os.RemoveAll(*dir); err != nil {
		return err
	}
	fmt.Println("hubdemo: starting the hub (the first time builds etcd and kube-apiserver, some minutes)")
	h, err := hubtest.Start(ctx, hubtest.WithDir(filepath.Join(*dir, "hub")), hubtest.WithBuildLog(os.Stderr), hubtest.WithLifetime(8*time.Hour))
	if err != nil {
		return err
	}
	defer h.Stop()
	// The loop commits status/ into its fleet directory: it works on a
	// copy, so that the repository stays clean.
	copyDir := filepath.Join(*dir, "fleet")
	if err := os.CopyFS(copyDir, os.DirFS(*fleet)); err != nil {
		return err
	}
	*fleet = copyDir
	if err := prepare(ctx, h.Config(), *fleet); err != nil {
		return err
	}
	fmt.Printf("hubdemo: hub at %s, kubeconfig %s\n", h.URL(), h.Kubeconfig())
	fmt.Printf("hubdemo: dashboard on http://%s/ once the loop runs; Ctrl-C stops everything\n", *listen)
	fmt.Printf("hubdemo: try: kubectl --kubeconfig %s get agentclusterinstall -A -o jsonpath='{range .items[*].status.conditions[*]}{.type}={.status} {end}'\n", h.Kubeconfig())

	procs := []*exec.Cmd{
		exec.CommandContext(ctx, *bin, "hub-sim", "--kubeconfig", h.Kubeconfig(), "--speed", *speed, "--finalize-namespaces"),
		exec.CommandContext(ctx, *bin, "run", "--engine", "hub", "--kubeconfig", h.Kubeconfig(), "--dir", *fleet,
			"--extra-manifests-dir", *manifests, "--state-dir", filepath.Join(*dir, "state"), "--listen", *listen),
	}
	var wg sync.WaitGroup
	errs := make(chan error, len(procs))
	for _, c := range procs {
		c.Stdout, c.Stderr = os.Stdout, os.Stderr
		c.Cancel = func() error { return c.Process.Signal(os.Interrupt) }
		c.WaitDelay = 10 * time.Second
		if err := c.Start(); err != nil {
			return err
		}
		wg.Go(func() {
			if err := c.Wait(); err != nil && ctx.Err() == nil {
				errs <- fmt.Errorf("%s: %w", c.Args[1], err)
				stop()
			}
		})
	}
	wg.Wait()
	close(errs)
	return <-errs
}

// prepare creates every namespace the fleet's objects go to, and each
// site's pull and BMC Secrets and ClusterImageSet, as an operator
// prepares a hub.
func prepare(ctx context.Context, cfg *rest.Config, fleet string) error {
	kc, err := kubernetes.NewForConfig(cfg)
	if err != nil {
		return err
	}
	loaded, err := sites.Load(ctx, os.DirFS(fleet), []string{"."})
	if err != nil {
		return err
	}
	if loaded.Problems.HasErrors() {
		return fmt.Errorf("%s: %v", fleet, loaded.Problems)
	}
	r := render.New()
	for _, s := range loaded.Sites {
		b, ps := r.Render(s)
		if b == nil {
			return fmt.Errorf("site %s: %v", s.Name, ps)
		}
		for _, o := range b.Objects {
			if o.Namespace == "" {
				continue
			}
			ns := &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: o.Namespace}}
			if _, err := kc.CoreV1().Namespaces().Create(ctx, ns, metav1.CreateOptions{}); err != nil && !apierrors.IsAlreadyExists(err) {
				return err
			}
		}
		if err := hubtest.CreatePrerequisites(ctx, cfg, b, false); err != nil {
			return err
		}
	}
	return nil
}
