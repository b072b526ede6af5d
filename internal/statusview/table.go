package statusview

import (
	"encoding/json"
	"fmt"
	"io"
	"strconv"
	"strings"
	"text/tabwriter"
	"time"

	"github.com/siteops/siteops/internal/termtext"
	"github.com/siteops/siteops/reconciler/source"
	"github.com/siteops/siteops/reconciler/status"
)

// Format is how documents are printed.
type Format string

// The formats of `siteops status -o`.
const (
	FormatTable Format = ""
	FormatWide  Format = "wide"
	FormatYAML  Format = "yaml"
	FormatJSON  Format = "json"
)

// Formats lists the formats -o takes.
var Formats = []Format{FormatWide, FormatYAML, FormatJSON}

// ParseFormat reads -o.
func ParseFormat(s string) (Format, error) {
	switch f := Format(s); f {
	case FormatTable, "table", FormatWide, FormatYAML, FormatJSON:
		if f == "table" {
			return FormatTable, nil
		}
		return f, nil
	}
	return "", fmt.Errorf("-o %q: use wide, yaml or json (or nothing for the table)", s)
}

// maxMessage is how much of a message the narrow table shows.
const maxMessage = 60

// Write prints entries in format f: a table (one row a site; an entry
// that could not be read is a row that says why), or the documents as
// YAML or JSON.
func Write(w io.Writer, entries []status.Entry, f Format) error {
	switch f {
	case FormatYAML:
		printed := 0
		for _, e := range entries {
			if e.Doc == nil {
				continue
			}
			data, err := status.Encode(e.Doc)
			if err != nil {
				return err
			}
			if printed++; printed > 1 {
				io.WriteString(w, "---\n")
			}
			if _, err := w.Write(data); err != nil {
				return err
			}
		}
		return nil
	case FormatJSON:
		docs := []*status.Document{}
		for _, e := range entries {
			if e.Doc != nil {
				docs = append(docs, e.Doc)
			}
		}
		enc := json.NewEncoder(w)
		enc.SetIndent("", "  ")
		return enc.Encode(docs)
	}
	return writeTable(w, entries, f == FormatWide, EngineNow(entries))
}

func writeTable(w io.Writer, entries []status.Entry, wide bool, now time.Time) error {
	tw := tabwriter.NewWriter(w, 0, 4, 2, ' ', 0)
	head := "SITE\tPHASE\tREASON\tPROGRESS\tHOSTS\tREVISION\tAGE\tMESSAGE"
	if wide {
		head = "SITE\tPHASE\tREASON\tPROGRESS\tHOSTS\tREVISION\tOBSERVED\tREFUSED\tFINDINGS\tAGE\tMESSAGE"
	}
	fmt.Fprintln(tw, head)
	for _, e := range entries {
		if e.Err != nil {
			cols := []string{termtext.OneLine(e.Site), "?", "-", "-", "-", "-", "-", termtext.OneLine(e.Err.Error())}
			if wide {
				cols = []string{termtext.OneLine(e.Site), "?", "-", "-", "-", "-", "-", "-", "-", "-", termtext.OneLine(e.Err.Error())}
			}
			fmt.Fprintln(tw, strings.Join(cols, "\t"))
			continue
		}
		d := e.Doc
		msg := d.Message
		if a := status.AttentionLine(d); a != "" && wide {
			msg = a + ". " + msg
		}
		if !wide {
			msg = truncate(msg, maxMessage)
		}
		cols := []string{termtext.OneLine(e.Site), string(d.Phase), dash(string(d.Reason)), strconv.Itoa(d.Cluster.Percent) + "%",
			fmt.Sprintf("%d/%d", status.HostsDone(d), len(d.Hosts)), dash(source.ShortRevision(d.Revision))}
		if wide {
			deny, warn := status.CountFindings(d.Findings)
			cols = append(cols, dash(source.ShortRevision(d.ObservedRevision)), dash(source.ShortRevision(d.RefusedRevision)),
				fmt.Sprintf("%d deny, %d warn", deny, warn))
		}
		cols = append(cols, Age(d, now), termtext.OneLine(msg))
		fmt.Fprintln(tw, strings.Join(cols, "\t"))
	}
	return tw.Flush()
}

// Age is how long before now, in the engine's time, the site last moved,
// kubectl's way (45s, 12m, 3h, 2d); "-" when the document does not say.
func Age(d *status.Document, now time.Time) string {
	at := lastMoved(d)
	if at.IsZero() || at.After(now) {
		return "-"
	}
	return ShortDuration(now.Sub(at))
}

// lastMoved is when the site last made progress, or else its latest
// event.
func lastMoved(d *status.Document) time.Time {
	if d.LastProgressAt != nil {
		return *d.LastProgressAt
	}
	var at time.Time
	for _, ev := range d.Events {
		if ev.Time.After(at) {
			at = ev.Time
		}
	}
	return at
}

// EngineNow is the newest time the documents report (an event, a
// progress, a condition's transition): the engine's clock as far as the
// documents know it. Ages are measured against it, not the wall clock,
// because the engine's time is its own (the simulated engine's runs at
// --speed).
func EngineNow(entries []status.Entry) time.Time {
	var now time.Time
	later := func(t time.Time) {
		if t.After(now) {
			now = t
		}
	}
	for _, e := range entries {
		if e.Doc == nil {
			continue
		}
		later(lastMoved(e.Doc))
		for _, ev := range e.Doc.Events {
			later(ev.Time)
		}
		for _, r := range e.Doc.Resources {
			for _, c := range r.Conditions {
				later(c.LastTransitionTime)
			}
		}
	}
	return now
}

// ShortDuration shows d in its largest whole unit.
func ShortDuration(d time.Duration) string {
	switch {
	case d < time.Minute:
		return strconv.Itoa(int(d/time.Second)) + "s"
	case d < time.Hour:
		return strconv.Itoa(int(d/time.Minute)) + "m"
	case d < 48*time.Hour:
		return strconv.Itoa(int(d/time.Hour)) + "h"
	}
	return strconv.Itoa(int(d/(24*time.Hour))) + "d"
}

func dash(s string) string {
	if s == "" {
		return "-"
	}
	return s
}

func truncate(s string, n int) string {
	r := []rune(s)
	if len(r) <= n {
		return s
	}
	return string(r[:n-1]) + "…"
}
