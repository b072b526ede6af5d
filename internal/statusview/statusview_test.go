package statusview

import (
	"bytes"
	"context"
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/siteops/siteops/engine"
	"github.com/siteops/siteops/reconciler/status"
)

func TestBarAndShortDuration(t *testing.T) {
	for _, tc := range []struct {
		percent int
		want    string
	}{
		{0, "[....................]   0%"},
		{45, "[#########...........]  45%"},
		{100, "[####################] 100%"},
		{140, "[####################] 100%"},
		{-3, "[....................]   0%"},
	} {
		if got := bar(tc.percent); got != tc.want {
			t.Errorf("bar(%d) = %q, want %q", tc.percent, got, tc.want)
		}
	}
	for d, want := range map[time.Duration]string{
		12 * time.Second: "12s", 5 * time.Minute: "5m", 3 * time.Hour: "3h", 47 * time.Hour: "47h", 72 * time.Hour: "3d",
	} {
		if got := ShortDuration(d); got != want {
			t.Errorf("ShortDuration(%s) = %s, want %s", d, got, want)
		}
	}
}

// Ages are measured on the engine's clock: the newest time any document
// reports, not the wall clock.
func TestAgeUsesTheEnginesClock(t *testing.T) {
	t0 := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	later := t0.Add(90 * time.Minute)
	stuck := &status.Document{SiteStatus: engine.SiteStatus{Site: "a", LastProgressAt: &t0}}
	moving := &status.Document{SiteStatus: engine.SiteStatus{Site: "b", Events: []engine.Event{{Time: later, Message: "m"}}}}
	entries := []status.Entry{{Site: "a", Doc: stuck}, {Site: "b", Doc: moving}, {Site: "c", Err: errors.New("x")}}
	now := EngineNow(entries)
	if !now.Equal(later) {
		t.Fatalf("EngineNow = %s, want %s", now, later)
	}
	if got := Age(stuck, now); got != "1h" {
		t.Errorf("stuck: %s", got)
	}
	if got := Age(&status.Document{}, now); got != "-" {
		t.Errorf("no time: %s", got)
	}
}

// Untrusted text stays on its row: a line break or escape sequence in a
// message is shown as a space.
func TestTableKeepsValuesOnTheirRow(t *testing.T) {
	doc := &status.Document{SiteStatus: engine.SiteStatus{Site: "a\nb", Phase: engine.PhaseInstalling, Message: "x\x1b[2Jy\tz"}}
	var buf bytes.Buffer
	if err := Write(&buf, []status.Entry{{Site: doc.Site, Doc: doc}}, FormatWide); err != nil {
		t.Fatal(err)
	}
	lines := strings.Split(strings.TrimSpace(buf.String()), "\n")
	if len(lines) != 2 || strings.Contains(buf.String(), "\x1b") || !strings.Contains(lines[1], "a b") {
		t.Errorf("%q", buf.String())
	}
}

type fixedSource []status.Entry

func (f fixedSource) Read(context.Context, []string) ([]status.Entry, error) { return f, nil }
func (f fixedSource) String() string                                         { return "fixed" }

// On a terminal the progress bars are drawn once a read, erased before
// the next, and messages print above them.
func TestWaitDrawsBarsOnATerminal(t *testing.T) {
	doc := &status.Document{SiteStatus: engine.SiteStatus{Site: "a", Phase: engine.PhaseInstalled, Cluster: engine.ClusterStatus{Percent: 100},
		Hosts: []engine.HostStatus{{Name: "a-0", State: "installed", Percent: 100}}}}
	var buf bytes.Buffer
	out, err := Wait(context.Background(), fixedSource{{Site: "a", Doc: doc}}, []string{"a"}, WaitOptions{Goal: GoalInstalled, Terminal: true}, &buf)
	if err != nil || out != Done {
		t.Fatalf("%v %v", out, err)
	}
	want := "a  Installed    [####################] 100%\n  a-0                      [####################] 100% installed\n"
	if buf.String() != want {
		t.Errorf("got\n%q\nwant\n%q", buf.String(), want)
	}
}
