package cli

import (
	"context"
	"errors"
	"fmt"
	"io"
	"strings"
	"time"

	"github.com/spf13/cobra"

	"github.com/siteops/siteops/internal/statusview"
)

// The exit codes of `siteops wait`, in the spirit of the agent
// installer's wait-for (openshift/installer cmd/openshift-install/agent/
// waitfor.go: distinct codes for a failed installation), beside the
// codes every command shares (0 done, 1 the source cannot be read, 2
// usage).
const (
	ExitWaitNotFound = 3 // a site has no status document
	ExitWaitTimedOut = 4 // --timeout passed first
	ExitWaitBlocked  = 5 // the loop holds a site back: Invalid or PolicyFailed
	ExitWaitFailed   = 6 // a site's installation failed
)

// waitExitCodes maps each outcome of a wait to its exit code.
var waitExitCodes = map[statusview.Outcome]int{
	statusview.Done:     ExitOK,
	statusview.NotFound: ExitWaitNotFound,
	statusview.TimedOut: ExitWaitTimedOut,
	statusview.Blocked:  ExitWaitBlocked,
	statusview.Failed:   ExitWaitFailed,
}

type waitFlags struct {
	src     statusSourceFlags
	goal    string
	timeout time.Duration
}

func newWaitCommand(stdout, stderr io.Writer) *cobra.Command {
	f := &waitFlags{}
	cmd := &cobra.Command{
		Use:   "wait SITE...",
		Short: "Wait until sites are installed or deleted, printing each host's progress",
		Long: `Wait reads the sites' status (as status does: --dir, --repo or --server)
every --interval and prints each change: the site's phase and progress, each
host's state, stage and percent (progress bars on a terminal), and each
failing validation of a host that is stuck. It keeps no state of its own:
run again after a timeout or an interrupt, it continues from where the
installation is.

--for installed waits until every site is Installed; --for deleted until no
site has a status file any more (the loop drops it once the site is gone).

Exit status: 0 done; 1 the status cannot be read, or interrupted; 2 usage
error; 3 a site has no status file (wrong name, or not reconciled yet);
4 --timeout passed first; 5 the loop holds a site back (Invalid or
PolicyFailed: fix the site); 6 a site's installation failed.`,
		Example: `  siteops wait marlow-sno-01 --timeout 90m
  siteops wait granite-ha-01 kestrel-3n-01 --repo https://git.example.com/fleet.git --timeout 2h
  siteops wait old-site --for deleted --server http://127.0.0.1:8080`,
		Args: cobra.MinimumNArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			return runWait(cmd, f, args, stdout)
		},
	}
	fl := cmd.Flags()
	f.src.bind(fl, statusview.DefaultWaitInterval)
	fl.StringVar(&f.goal, "for", string(statusview.GoalInstalled), "what to wait for: installed or deleted")
	fl.DurationVar(&f.timeout, "timeout", 0, "give up after this long (exit 4); 0: never")
	return cmd
}

func runWait(cmd *cobra.Command, f *waitFlags, sites []string, stdout io.Writer) error {
	goal := statusview.Goal(f.goal)
	if goal != statusview.GoalInstalled && goal != statusview.GoalDeleted {
		return usageError("--for %q: use installed or deleted", f.goal)
	}
	if f.timeout < 0 {
		return usageError("--timeout %s: give a duration such as 90m, or 0 to wait without a limit", f.timeout)
	}
	f.src.awaitDir = true
	src, err := f.src.source(cmd.Flags())
	if err != nil {
		return err
	}
	ctx := cmd.Context()
	if f.timeout > 0 {
		var cancel context.CancelFunc
		ctx, cancel = context.WithTimeout(ctx, f.timeout)
		defer cancel()
	}
	out, err := statusview.Wait(ctx, src, sites, statusview.WaitOptions{Goal: goal, Interval: f.src.interval, Terminal: isTerminal(stdout)}, stdout)
	if err != nil {
		if errors.Is(err, context.Canceled) {
			return err
		}
		return &exitError{code: ExitFailure, err: err}
	}
	names := strings.Join(sites, ", ")
	switch out {
	case statusview.Done:
		for _, s := range sites {
			fmt.Fprintf(stdout, "%s: %s\n", s, goal)
		}
		return nil
	case statusview.TimedOut:
		return &exitError{code: waitExitCodes[out], err: fmt.Errorf("--timeout %s passed before %s were %s; run the same command again to keep waiting", f.timeout, names, goal)}
	case statusview.Blocked:
		return &exitError{code: waitExitCodes[out], err: fmt.Errorf("the loop holds a site back until its files are fixed: see siteops status SITE")}
	case statusview.Failed:
		return &exitError{code: waitExitCodes[out], err: fmt.Errorf("an installation failed: see siteops status SITE for its hosts and events")}
	}
	return &exitError{code: waitExitCodes[out], err: fmt.Errorf("wait for %s: %s", names, out)}
}
