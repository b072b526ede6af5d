package cli

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"time"

	"github.com/spf13/cobra"

	"github.com/siteops/siteops/internal/statusview"
)

type statusFlags struct {
	src    statusSourceFlags
	output string
	watch  bool
}

func newStatusCommand(stdout, stderr io.Writer) *cobra.Command {
	f := &statusFlags{}
	cmd := &cobra.Command{
		Use:   "status [SITE...]",
		Short: "Show the status of the fleet's sites, or of one site's hosts",
		Long: `Status prints a table of the sites (phase, reason, progress, hosts done,
revision, time since the site last moved, message) from the status files the
loop commits: those of the current directory's status/ (or --dir's), of a
branch of the fleet repository (--repo, --branch), or of a running siteops
run (--server, its JSON API). With one SITE it prints that site's page: its
hosts with their stage, progress and failing validations, its policy
findings, conditions and latest events. docs/status.md says what each phase
and reason means and what to do about it.

Exit status: 0 every site named was shown; 1 a site has no status file, a
file cannot be read, or the source cannot be read; 2 usage error.`,
		Example: `  siteops status
  siteops status marlow-sno-01
  siteops status --repo https://git.example.com/fleet.git -o wide
  siteops status --server http://127.0.0.1:8080 -w`,
		RunE: func(cmd *cobra.Command, args []string) error {
			return runStatus(cmd, f, args, stdout, stderr)
		},
	}
	fl := cmd.Flags()
	f.src.bind(fl, statusview.DefaultWaitInterval)
	fl.StringVarP(&f.output, "output", "o", "", "output format: wide, yaml or json (default: a table)")
	fl.BoolVarP(&f.watch, "watch", "w", false, "print again whenever the status changes, until interrupted")
	return cmd
}

func runStatus(cmd *cobra.Command, f *statusFlags, sites []string, stdout, stderr io.Writer) error {
	format, err := statusview.ParseFormat(f.output)
	if err != nil {
		return usageError("%v", err)
	}
	src, err := f.src.source(cmd.Flags())
	if err != nil {
		return err
	}
	ctx := cmd.Context()
	var last []byte
	for {
		page, problems, err := statusPage(ctx, src, sites, format)
		if err != nil {
			if f.watch && last != nil && ctx.Err() == nil {
				fmt.Fprintf(stderr, "siteops: warning: %v\n", err)
			} else {
				return &exitError{code: ExitFailure, err: err}
			}
		} else if !bytes.Equal(page, last) {
			if last != nil {
				io.WriteString(stdout, "\n")
			}
			stdout.Write(page)
			last = page
		}
		if !f.watch {
			if len(problems) > 0 {
				if format == statusview.FormatYAML || format == statusview.FormatJSON {
					for _, p := range problems {
						fmt.Fprintf(stderr, "siteops: %v\n", p)
					}
				}
				return errFailed
			}
			return nil
		}
		select {
		case <-ctx.Done():
			return nil
		case <-time.After(f.src.interval):
		}
	}
}

// statusPage renders what status prints once, and why the sites that
// are missing or unreadable are (the table shows them; YAML and JSON
// leave them out).
func statusPage(ctx context.Context, src statusview.Source, sites []string, format statusview.Format) ([]byte, []error, error) {
	entries, err := src.Read(ctx, sites)
	if err != nil {
		return nil, nil, err
	}
	var buf bytes.Buffer
	var problems []error
	for _, e := range entries {
		if e.Err != nil {
			problems = append(problems, e.Err)
		}
	}
	switch {
	case len(entries) == 0:
		buf.WriteString("No status file in " + src.String() + " yet: the loop writes one per site after its first pass.\n")
	case len(sites) == 1 && format == statusview.FormatTable && entries[0].Doc != nil:
		err = statusview.WriteSite(&buf, entries[0].Doc)
	default:
		err = statusview.Write(&buf, entries, format)
	}
	return buf.Bytes(), problems, err
}
