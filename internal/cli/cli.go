// Package cli is the siteops command line: flags, wiring and exit codes.
// Each command binds its flags and calls the packages that do the work;
// nothing here is logic a package test could not reach.
package cli

import (
	"context"
	"errors"
	"fmt"
	"io"
	"strings"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"

	"github.com/siteops/siteops/sites"
)

// Exit codes shared by every command.
const (
	ExitOK      = 0 // everything succeeded
	ExitFailure = 1 // some site or input failed; the rest was done
	ExitUsage   = 2 // the command line was wrong; nothing was done
)

// exitError carries an exit code out of a command.
type exitError struct {
	code int
	err  error
}

func (e *exitError) Error() string { return e.err.Error() }
func (e *exitError) Unwrap() error { return e.err }

func usageError(format string, args ...any) error {
	return &exitError{code: ExitUsage, err: fmt.Errorf(format, args...)}
}

// errFailed reports that problems were already printed.
var errFailed = &exitError{code: ExitFailure, err: errors.New("some sites failed")}

// Main runs the command line and returns the process exit code.
func Main(ctx context.Context, args []string, stdout, stderr io.Writer) int {
	growPipe(stdout)
	root := newRoot(stdout, stderr)
	var prof profiler
	prof.addFlags(root)
	root.SetArgs(args)
	root.SetOut(stdout)
	root.SetErr(stderr)
	cmd, err := root.ExecuteContextC(ctx)
	prof.stop(func(msg string) { fmt.Fprintf(stderr, "siteops: warning: %s\n", msg) })
	if err == nil {
		return ExitOK
	}
	if errors.Is(err, context.Canceled) {
		fmt.Fprintln(stderr, "siteops: interrupted")
		return ExitFailure
	}
	var ee *exitError
	if errors.As(err, &ee) {
		if ee != errFailed {
			fmt.Fprintf(stderr, "siteops: %v\n", ee.err)
		}
		return ee.code
	}
	if isUsage(err) {
		// cobra's own errors: unknown flags, wrong argument counts.
		help := "siteops --help"
		if cmd != nil && cmd != root {
			help = cmd.CommandPath() + " --help"
		}
		fmt.Fprintf(stderr, "siteops: %v%s\nRun '%s' for usage.\n", err, flagSuggestion(cmd, err), help)
		return ExitUsage
	}
	fmt.Fprintf(stderr, "siteops: %v\n", err)
	return ExitFailure
}

func newRoot(stdout, stderr io.Writer) *cobra.Command {
	root := &cobra.Command{
		Use:           "siteops",
		Short:         "GitOps for bare-metal OpenShift fleets: render, check and install sites from Git",
		Version:       Version(),
		SilenceErrors: true,
		SilenceUsage:  true,
	}
	root.AddCommand(newRenderCommand(stdout, stderr))
	root.AddCommand(newCheckCommand(stdout, stderr))
	root.AddCommand(newConvertCommand(stdout, stderr))
	root.AddCommand(newRunCommand(stdout, stderr))
	root.AddCommand(newStatusCommand(stdout, stderr))
	root.AddCommand(newWaitCommand(stdout, stderr))
	root.AddCommand(newPlanCommand(stdout, stderr))
	root.AddCommand(newHubSimCommand(stdout, stderr))
	return root
}

// flagSuggestion names the flag of cmd closest to the unknown one err
// reports: "; did you mean --root?", or "".
func flagSuggestion(cmd *cobra.Command, err error) string {
	name, ok := strings.CutPrefix(err.Error(), "unknown flag: --")
	if !ok || cmd == nil {
		return ""
	}
	var names []string
	cmd.Flags().VisitAll(func(f *pflag.Flag) { names = append(names, f.Name) })
	cmd.InheritedFlags().VisitAll(func(f *pflag.Flag) { names = append(names, f.Name) })
	if s := sites.Suggest(name, names); s != "" {
		return "; did you mean --" + s + "?"
	}
	return ""
}

// isUsage recognises the errors cobra returns for a wrong command line.
func isUsage(err error) bool {
	msg := err.Error()
	for _, prefix := range []string{"unknown command", "unknown flag", "unknown shorthand flag", "invalid argument", "flag needs an argument", "accepts ", "requires at least", "required flag"} {
		if strings.HasPrefix(msg, prefix) {
			return true
		}
	}
	return false
}
