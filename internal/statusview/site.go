package statusview

import (
	"fmt"
	"io"
	"slices"
	"strconv"
	"strings"
	"text/tabwriter"

	"github.com/siteops/siteops/engine"
	"github.com/siteops/siteops/internal/termtext"
	"github.com/siteops/siteops/reconciler/source"
	"github.com/siteops/siteops/reconciler/status"
)

// maxEventsShown is how many of the latest events a site's page lists.
const maxEventsShown = 10

// WriteSite prints one site as the dashboard's site page shows it: phase,
// reason and message, revisions, the failing cluster validations, the
// hosts with their failing validations, findings, conditions and the
// latest events.
func WriteSite(w io.Writer, d *status.Document) error {
	p := &printer{w: w}
	p.line("Site:       %s", termtext.OneLine(d.Site))
	p.line("Phase:      %s", d.Phase)
	if d.Reason != "" {
		p.line("Reason:     %s", d.Reason)
	}
	if d.Message != "" {
		p.line("Message:    %s", termtext.OneLine(d.Message))
	}
	if a := status.AttentionLine(d); a != "" {
		p.line("Attention:  %s", termtext.OneLine(a))
	}
	if d.Orphaned {
		p.line("Orphaned:   no longer defined in the repository and not deleted: delete it with --prune, or add it back")
	}
	p.line("Cluster:    %s%s, %d%%", dash(d.Cluster.State), parens(d.Cluster.StateInfo), d.Cluster.Percent)
	p.line("Revision:   %s (the engine keeps it)", dash(source.ShortRevision(d.Revision)))
	if d.RefusedRevision != "" {
		p.line("Refused:    %s (the engine refused it; see the message)", source.ShortRevision(d.RefusedRevision))
	}
	if o := d.ObservedRevision; o != "" && o != d.Revision && o != d.RefusedRevision {
		p.line("Observed:   %s (not applied)", source.ShortRevision(o))
	}
	if vs := status.FailingValidations(d.Cluster.Validations); len(vs) > 0 {
		p.section("Failing cluster validations")
		for _, v := range vs {
			p.line("  %s: %s", v.ID, termtext.OneLine(v.Message))
		}
	}

	p.section(fmt.Sprintf("Hosts (%d)", len(d.Hosts)))
	if len(d.Hosts) == 0 {
		p.line("  No host is known yet.")
	} else {
		tw := tabwriter.NewWriter(w, 0, 4, 2, ' ', 0)
		fmt.Fprintln(tw, "  HOST\tROLE\tBMH\tSTATE\tSTAGE\tPROGRESS\tFAILING VALIDATIONS")
		for _, h := range d.Hosts {
			var failing []string
			for _, v := range status.FailingValidations(h.Validations) {
				failing = append(failing, v.ID)
			}
			fmt.Fprintf(tw, "  %s\t%s\t%s\t%s\t%s\t%d%%\t%s\n", termtext.OneLine(status.HostLabel(h)), dash(h.Role), dash(h.ProvisioningState),
				dash(h.State), dash(termtext.OneLine(h.Stage)), h.Percent, dash(strings.Join(failing, ", ")))
		}
		tw.Flush()
		for _, h := range d.Hosts {
			for _, v := range status.FailingValidations(h.Validations) {
				p.line("  %s %s: %s", termtext.OneLine(status.HostLabel(h)), v.ID, termtext.OneLine(v.Message))
			}
			for _, dp := range h.DiskProblems {
				p.line("  %s disk: %s", termtext.OneLine(status.HostLabel(h)), termtext.OneLine(dp))
			}
		}
	}

	deny, warn := status.CountFindings(d.Findings)
	p.section(fmt.Sprintf("Policy findings (%d deny, %d warn)", deny, warn))
	if len(d.Findings) == 0 {
		p.line("  No policy finding for this site.")
	}
	for _, f := range d.Findings {
		waived := ""
		if f.Waived != "" {
			waived = " (waived: " + termtext.OneLine(f.Waived) + ")"
		}
		p.line("  %s%s %s: %s [%s]", f.Severity, waived, f.Pos, termtext.OneLine(f.Message), f.Rule)
		if f.Remediation != "" {
			p.line("    fix: %s", termtext.OneLine(f.Remediation))
		}
	}

	p.section("Conditions")
	any := false
	for _, r := range d.Resources {
		for _, c := range r.Conditions {
			any = true
			p.line("  %s %s: %s=%s %s %s", r.Kind, termtext.OneLine(r.Name), c.Type, c.Status, c.Reason, termtext.OneLine(c.Message))
		}
	}
	if !any {
		p.line("  No condition reported yet.")
	}

	p.section("Latest events (engine time, newest first)")
	events := slices.Clone(d.Events)
	slices.SortStableFunc(events, func(a, b engine.Event) int { return b.Time.Compare(a.Time) })
	if len(events) == 0 {
		p.line("  No event yet.")
	}
	for _, ev := range events[:min(len(events), maxEventsShown)] {
		p.line("  %s  %s  %s  %s", ev.Time.UTC().Format("2006-01-02 15:04:05"), termtext.OneLine(ev.Object), ev.Reason, termtext.OneLine(ev.Message))
	}
	return p.err
}

// Summary is one line about a site: its phase, reason, progress and
// hosts done.
func Summary(d *status.Document) string {
	s := string(d.Phase)
	if d.Reason != "" {
		s += " (" + string(d.Reason) + ")"
	}
	return s + ", " + strconv.Itoa(d.Cluster.Percent) + "%, " + strconv.Itoa(status.HostsDone(d)) + "/" + strconv.Itoa(len(d.Hosts)) + " hosts done"
}

type printer struct {
	w   io.Writer
	err error
}

func (p *printer) line(format string, args ...any) {
	if p.err == nil {
		_, p.err = fmt.Fprintf(p.w, format+"\n", args...)
	}
}

func (p *printer) section(title string) { p.line("\n%s", title) }

func parens(s string) string {
	if s == "" {
		return ""
	}
	return " (" + termtext.OneLine(s) + ")"
}
