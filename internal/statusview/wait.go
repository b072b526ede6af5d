package statusview

import (
	"context"
	"errors"
	"fmt"
	"io"
	"strings"
	"time"

	"github.com/siteops/siteops/engine"
	"github.com/siteops/siteops/internal/termtext"
	"github.com/siteops/siteops/reconciler/status"
)

// Goal is what a wait waits for.
type Goal string

// The goals of `siteops wait --for`.
const (
	// GoalInstalled: the site's phase is Installed.
	GoalInstalled Goal = "installed"
	// GoalDeleted: the site has no status document any more (the loop
	// drops it once the engine deleted the site).
	GoalDeleted Goal = "deleted"
)

// Outcome is how a wait ended, the worst of its sites.
type Outcome int

// The outcomes, best first.
const (
	// Done: every site reached the goal.
	Done Outcome = iota
	// TimedOut: the wait's deadline passed first.
	TimedOut
	// NotFound: a site has no status document (waiting for installed).
	NotFound
	// Blocked: the loop holds a site's revision back (Invalid,
	// PolicyFailed): it does not install until the site is fixed.
	Blocked
	// Failed: a site's installation failed.
	Failed
)

func (o Outcome) String() string {
	return [...]string{"done", "timed out", "not found", "blocked", "failed"}[o]
}

// WaitOptions configure Wait.
type WaitOptions struct {
	Goal Goal
	// Interval between two reads of the source (default 2 s, as the
	// agent installer's wait-for polls).
	Interval time.Duration
	// Terminal draws progress bars redrawn in place; otherwise a line is
	// printed for each change.
	Terminal bool
}

// DefaultWaitInterval is how often a wait reads its source.
const DefaultWaitInterval = 2 * time.Second

// siteState is what a wait last printed of a site, to print changes only.
type siteState struct {
	summary   string
	attention string
	hosts     map[string]string
	failing   map[string]string
	final     Outcome
	settled   bool
}

// Wait reads src every interval until every site in sites reaches the
// goal, one fails or is blocked or has no document, or ctx ends (TimedOut
// when its deadline passed). It prints to w each change of a site's
// phase, of each host's state, stage and percent, and each failing
// validation of a host; on a terminal it redraws progress bars instead.
// It returns an error when the source cannot be read at the first
// attempt or ctx is cancelled; later read errors are printed and retried.
func Wait(ctx context.Context, src Source, sites []string, o WaitOptions, w io.Writer) (Outcome, error) {
	if o.Interval <= 0 {
		o.Interval = DefaultWaitInterval
	}
	states := map[string]*siteState{}
	for _, s := range sites {
		states[s] = &siteState{hosts: map[string]string{}, failing: map[string]string{}}
	}
	bars := &barPrinter{w: w}
	first := true
	tick := time.NewTicker(o.Interval)
	defer tick.Stop()
	for {
		entries, err := src.Read(ctx, sites)
		switch {
		case err != nil && ctx.Err() != nil:
			return ctxOutcome(ctx, w, states, sites)
		case err != nil && first:
			return Failed, err
		case err != nil:
			fmt.Fprintf(w, "warning: %v (trying again in %s)\n", err, o.Interval)
		default:
			if o.Terminal {
				bars.clear() // messages print above the bars
			}
			var frame []string
			for _, e := range entries {
				frame = append(frame, observe(w, e, states[e.Site], o)...)
			}
			if o.Terminal {
				bars.draw(frame)
			}
			if out, over := settle(states, sites); over {
				return out, nil
			}
		}
		first = false
		select {
		case <-ctx.Done():
			return ctxOutcome(ctx, w, states, sites)
		case <-tick.C:
		}
	}
}

// ctxOutcome is TimedOut when ctx's deadline passed, and the context's
// error when it was cancelled.
func ctxOutcome(ctx context.Context, w io.Writer, states map[string]*siteState, sites []string) (Outcome, error) {
	if !errors.Is(ctx.Err(), context.DeadlineExceeded) {
		return Failed, ctx.Err()
	}
	for _, s := range sites {
		if st := states[s]; !st.settled && st.summary != "" {
			fmt.Fprintf(w, "%s: still %s\n", s, st.summary)
		}
	}
	return TimedOut, nil
}

// settle reports the outcome once every site reached the goal or one
// ended badly.
func settle(states map[string]*siteState, sites []string) (Outcome, bool) {
	worst, all := Done, true
	for _, s := range sites {
		st := states[s]
		if !st.settled {
			all = false
			continue
		}
		worst = max(worst, st.final)
	}
	if worst > Done {
		return worst, true
	}
	return Done, all
}

// observe records entry e in st, prints what changed (unless on a
// terminal) and returns the lines of its progress bars.
func observe(w io.Writer, e status.Entry, st *siteState, o WaitOptions) []string {
	say := func(format string, args ...any) {
		if !o.Terminal {
			fmt.Fprintf(w, format+"\n", args...)
		}
	}
	site := termtext.OneLine(e.Site)
	if errors.Is(e.Err, ErrNoStatusYet) && o.Goal == GoalInstalled {
		if st.summary != "waiting" {
			st.summary = "waiting"
			fmt.Fprintf(w, "%s: waiting for the loop's first status\n", site)
		}
		return []string{site + ": no status yet"}
	}
	if e.Err != nil {
		if !errors.Is(e.Err, ErrNotFound) && !errors.Is(e.Err, ErrNoStatusYet) {
			if msg := e.Err.Error(); msg != st.summary {
				st.summary = msg
				fmt.Fprintf(w, "%s: %s\n", site, termtext.OneLine(msg))
			}
			return []string{site + ": unreadable"}
		}
		st.settled = true
		if o.Goal == GoalDeleted {
			st.final = Done
			if st.summary != "deleted" {
				st.summary = "deleted"
				fmt.Fprintf(w, "%s: deleted\n", site)
			}
			return []string{site + ": deleted"}
		}
		st.final = NotFound
		fmt.Fprintf(w, "%s: no status document: the loop has not reconciled a site of that name (check its name with siteops status)\n", site)
		return []string{site + ": not found"}
	}
	d := e.Doc
	sum := Summary(d)
	if sum != st.summary {
		st.summary = sum
		say("%s: %s%s", site, sum, messageSuffix(d))
	}
	if a := status.AttentionLine(d); a != st.attention {
		st.attention = a
		if a != "" {
			fmt.Fprintf(w, "%s: needs attention: %s\n", site, termtext.OneLine(a))
		}
	}
	lines := []string{fmt.Sprintf("%s  %-12s %s", site, d.Phase, bar(d.Cluster.Percent))}
	for _, h := range d.Hosts {
		label := termtext.OneLine(status.HostLabel(h))
		now := hostLine(h)
		if now != st.hosts[label] {
			st.hosts[label] = now
			say("%s: host %s: %s", site, label, now)
		}
		lines = append(lines, fmt.Sprintf("  %-24s %s %s", label, bar(h.Percent), hostStage(h)))
		for _, v := range status.FailingValidations(h.Validations) {
			key := label + "/" + v.ID
			if st.failing[key] != v.Message {
				st.failing[key] = v.Message
				fmt.Fprintf(w, "%s: host %s validation %s fails: %s\n", site, label, v.ID, termtext.OneLine(v.Message))
			}
		}
	}
	switch {
	case o.Goal == GoalInstalled && d.Phase == engine.PhaseInstalled:
		st.settled, st.final = true, Done
	case o.Goal == GoalInstalled && d.Phase.Failed():
		st.settled, st.final = true, Failed
	case o.Goal == GoalInstalled && d.Phase.Blocked():
		st.settled, st.final = true, Blocked
	}
	return lines
}

func messageSuffix(d *status.Document) string {
	if d.Message == "" {
		return ""
	}
	return ": " + termtext.OneLine(d.Message)
}

// hostLine is a host's state, stage and percent.
func hostLine(h engine.HostStatus) string {
	s := h.State
	if s == "" {
		s = dash(h.ProvisioningState)
	}
	if h.Stage != "" {
		s += ", " + h.Stage
	}
	return termtext.OneLine(fmt.Sprintf("%s %d%%", s, h.Percent))
}

func hostStage(h engine.HostStatus) string {
	return termtext.OneLine(strings.TrimSpace(dash(h.State) + " " + h.Stage))
}

// barWidth is how many cells a progress bar has.
const barWidth = 20

// bar draws percent as [#####...............]  25%.
func bar(percent int) string {
	p := min(max(percent, 0), 100)
	n := p * barWidth / 100
	return fmt.Sprintf("[%s%s] %3d%%", strings.Repeat("#", n), strings.Repeat(".", barWidth-n), p)
}

// barPrinter redraws a block of lines in place on a terminal.
type barPrinter struct {
	w     io.Writer
	lines int
}

// clear erases the block drawn last: up to its first line, then to the
// end of the screen.
func (b *barPrinter) clear() {
	if b.lines > 0 {
		fmt.Fprintf(b.w, "\x1b[%dA\x1b[J", b.lines)
		b.lines = 0
	}
}

func (b *barPrinter) draw(lines []string) {
	var sb strings.Builder
	for _, l := range lines {
		sb.WriteString(l)
		sb.WriteString("\n")
	}
	io.WriteString(b.w, sb.String())
	b.lines = len(lines)
}
