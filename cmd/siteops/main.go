// Command siteops renders, checks and installs bare-metal OpenShift sites
// defined in Git. See the README and docs/ for the commands.
package main

import (
	"context"
	"os"
	"os/signal"
	"syscall"

	"github.com/siteops/siteops/internal/cli"
)

func main() {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	code := cli.Main(ctx, os.Args[1:], os.Stdout, os.Stderr)
	stop()
	os.Exit(code)
}
