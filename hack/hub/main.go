// Command hub starts a Kubernetes hub on loopback for a person to try
// siteops against (`make hub`): etcd and kube-apiserver built from the Go
// module proxy and cached, the upstream CRDs installed. It prints the
// kubeconfig path and runs until interrupted.
//
//	go run ./hack/hub [-dir DIR] [-lifetime 8h]
//	siteops run --engine hub --kubeconfig DIR/kubeconfig ...
package main

import (
	"context"
	"flag"
	"fmt"
	"os"
	"os/signal"
	"path/filepath"
	"syscall"
	"time"

	"github.com/siteops/siteops/internal/hubtest"
)

func main() {
	dir := flag.String("dir", filepath.Join(os.TempDir(), "siteops-hub"), "where the hub keeps its data, certificates, logs and kubeconfig (wiped at start)")
	lifetime := flag.Duration("lifetime", 8*time.Hour, "stop the hub after this long")
	buildOnly := flag.Bool("build-only", false, "build the binaries into the cache and exit")
	flag.Parse()
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	if *buildOnly {
		start := time.Now()
		etcd, apiserver, err := hubtest.Build(ctx, nil)
		if err != nil {
			fmt.Fprintln(os.Stderr, "hub:", err)
			os.Exit(1)
		}
		fmt.Printf("etcd: %s\nkube-apiserver: %s\n(%s)\n", etcd, apiserver, time.Since(start).Round(time.Second))
		return
	}
	if err := os.RemoveAll(*dir); err != nil {
		fmt.Fprintln(os.Stderr, "hub:", err)
		os.Exit(1)
	}
	fmt.Fprintln(os.Stderr, "starting the hub (the first run builds etcd and kube-apiserver: about 5 minutes)")
	h, err := hubtest.Start(ctx, hubtest.WithDir(*dir), hubtest.WithLifetime(*lifetime), hubtest.WithBuildLog(os.Stderr))
	if err != nil {
		fmt.Fprintln(os.Stderr, "hub:", err)
		os.Exit(1)
	}
	defer h.Stop()
	fmt.Printf("hub ready at %s\nkubeconfig: %s\nlogs: %s\nCtrl-C stops it.\n", h.URL(), h.Kubeconfig(), h.Dir())
	select {
	case <-ctx.Done():
	case <-time.After(*lifetime):
	}
}
