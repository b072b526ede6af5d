package sim

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"os"
	"os/exec"
	"reflect"
	"syscall"
	"testing"
	"time"

	"github.com/siteops/siteops/engine"
	"github.com/siteops/siteops/render"
)

// crashChildEnv makes the test binary run as the crash test's child: an
// engine at full speed on the given state directory, printing every
// published status as a line of JSON until every site is installed.
const crashChildEnv = "SITEOPS_SIM_CRASH_CHILD"

func TestMain(m *testing.M) {
	if dir := os.Getenv(crashChildEnv); dir != "" {
		os.Exit(crashChild(dir))
	}
	os.Exit(m.Run())
}

// crashSites is the crash test's fleet: a single node, a compact cluster
// and a highly-available one with workers.
func crashSites() []*render.Bundle {
	return []*render.Bundle{newSite("c-sno", 1, 0).bundle(), newSite("c-3n", 3, 0).bundle(), newSite("c-ha", 3, 2).bundle()}
}

// observation is what the child prints of a status.
type observation struct {
	Start   bool         `json:"start,omitempty"`
	Site    string       `json:"site"`
	Phase   engine.Phase `json:"phase"`
	Percent int          `json:"percent"`
	Hosts   []hostObs    `json:"hosts"`
}

type hostObs struct {
	Name    string `json:"name"`
	State   string `json:"state"`
	Stage   string `json:"stage"`
	Percent int    `json:"percent"`
}

func crashChild(dir string) int {
	ctx := context.Background()
	// A fast but finite clock: the runner commits at each event time,
	// giving the parent many points to kill it at.
	e, err := New(ctx, Options{StateDir: dir, Speed: 1500})
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 3
	}
	out := bufio.NewWriter(os.Stdout)
	print := func(st engine.SiteStatus, start bool) {
		o := observation{Start: start, Site: st.Site, Phase: st.Phase, Percent: st.Cluster.Percent}
		for _, h := range st.Hosts {
			o.Hosts = append(o.Hosts, hostObs{h.Name, h.State, h.Stage, h.Percent})
		}
		b, _ := json.Marshal(o)
		out.Write(append(b, '\n'))
		out.Flush()
	}
	// What the store held at start: the last commit before the kill.
	names, _ := e.Sites(ctx)
	for _, n := range names {
		st, _ := e.Status(ctx, n)
		print(st, true)
	}
	changes := e.Subscribe(ctx)
	for _, b := range crashSites() {
		if err := e.Apply(ctx, b, "r1"); err != nil {
			fmt.Fprintln(os.Stderr, err)
			return 3
		}
	}
	// finished reports every site's final status once all are installed:
	// change notices coalesce, and a process restarted after the last
	// commit gets none.
	finished := func() bool {
		var all []engine.SiteStatus
		for _, b := range crashSites() {
			s, err := e.Status(ctx, b.Site)
			if err != nil || s.Phase != engine.PhaseInstalled {
				return false
			}
			all = append(all, s)
		}
		for _, s := range all {
			print(s, false)
		}
		e.Close()
		return true
	}
	if finished() {
		return 0
	}
	for n := range changes {
		st, err := e.Status(ctx, n)
		if err != nil {
			continue
		}
		print(st, false)
		if finished() {
			return 0
		}
	}
	return 4
}

// A process killed (SIGKILL) at many points of an installation resumes on
// restart: nothing installs twice, no reported progress is lost, and every
// site installs.
func TestCrashResume(t *testing.T) {
	dir := t.TempDir()
	rng := rand.New(rand.NewPCG(1, 2))
	var all []observation
	kills := 0
	for run := 0; ; run++ {
		if run > 200 {
			t.Fatalf("not installed after %d runs", run)
		}
		// Each run gets a deadline: a child that stops making progress is
		// killed and the test fails instead of hanging.
		ctx, cancel := context.WithTimeout(t.Context(), 2*time.Minute)
		defer cancel()
		cmd := exec.CommandContext(ctx, os.Args[0], "-test.run=^$")
		cmd.Env = append(os.Environ(), crashChildEnv+"="+dir)
		stdout, err := cmd.StdoutPipe()
		if err != nil {
			t.Fatal(err)
		}
		cmd.Stderr = os.Stderr
		if err := cmd.Start(); err != nil {
			t.Fatal(err)
		}
		killAfter := 1 + rng.IntN(12)
		sc := bufio.NewScanner(stdout)
		sc.Buffer(make([]byte, 1<<20), 1<<20)
		lines := 0
		killed := false
		for sc.Scan() {
			var o observation
			if err := json.Unmarshal(sc.Bytes(), &o); err != nil {
				t.Fatalf("child output %q: %v", sc.Text(), err)
			}
			all = append(all, o)
			lines++
			if lines == killAfter {
				cmd.Process.Signal(syscall.SIGKILL)
				killed = true
				kills++
				break
			}
		}
		go func() {
			for sc.Scan() {
			}
		}()
		err = cmd.Wait()
		if !killed {
			if err != nil {
				t.Fatalf("child failed: %v", err)
			}
			break
		}
	}
	t.Logf("%d kills, %d observations", kills, len(all))
	if kills < 15 {
		t.Errorf("only %d kills: the test did not interrupt the installation enough", kills)
	}
	checkMonotonic(t, all)
}

// checkMonotonic checks the observations of all runs, in order: a site's
// and each host's percentages never go down, a host never goes back to
// an earlier stage of its installation, and what a restarted process
// reports first is never behind what was reported before the kill.
func checkMonotonic(t *testing.T, all []observation) {
	t.Helper()
	sitePct := map[string]int{}
	hostPct := map[string]int{}
	hostStage := map[string]string{}
	installed := map[string]bool{}
	final := map[string]engine.Phase{}
	for i, o := range all {
		if o.Percent < sitePct[o.Site] {
			t.Errorf("observation %d: %s went from %d%% to %d%%", i, o.Site, sitePct[o.Site], o.Percent)
		}
		sitePct[o.Site] = o.Percent
		final[o.Site] = o.Phase
		for _, h := range o.Hosts {
			key := o.Site + "/" + h.Name
			if h.Percent < hostPct[key] {
				t.Errorf("observation %d: %s went from stage %q (%d%%) back to %q (%d%%)", i, key, hostStage[key], hostPct[key], h.Stage, h.Percent)
			}
			if h.Stage == "Starting installation" && hostStage[key] != "" && hostStage[key] != "Starting installation" {
				t.Errorf("observation %d: %s started installing again after %q", i, key, hostStage[key])
			}
			if installed[key] && h.State != "installed" {
				t.Errorf("observation %d: %s left installed for %s", i, key, h.State)
			}
			installed[key] = installed[key] || h.State == "installed"
			hostPct[key] = max(hostPct[key], h.Percent)
			if h.Stage != "" {
				hostStage[key] = h.Stage
			}
		}
	}
	for _, b := range crashSites() {
		if final[b.Site] != engine.PhaseInstalled {
			t.Errorf("%s ended %s", b.Site, final[b.Site])
		}
	}
}

// Closing and reopening the store gives back the same statuses, and the
// installation goes on from there.
func TestRestartResumes(t *testing.T) {
	dir := t.TempDir()
	e := newStepped(t, Options{StateDir: dir})
	s := newSite("rs", 3, 1)
	apply(t, e, s.bundle(), "r1")
	runUntil(t, e, 30*time.Second, 3*time.Hour, func() bool { return status(t, e, "rs").Phase == engine.PhaseInstalling })
	before := status(t, e, "rs")
	now := e.Now()
	if err := e.Close(); err != nil {
		t.Fatal(err)
	}
	e2 := newStepped(t, Options{StateDir: dir})
	if got := e2.Now(); !got.Equal(now) {
		t.Errorf("clock %v, want %v", got, now)
	}
	if after := status(t, e2, "rs"); !reflect.DeepEqual(before, after) {
		t.Errorf("status after restart differs")
	}
	runUntil(t, e2, 30*time.Second, 3*time.Hour, func() bool { return status(t, e2, "rs").Phase == engine.PhaseInstalled })
}
