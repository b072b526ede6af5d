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

// crashStep is how far the child's clock moves for each step the parent
// asks for.
const crashStep = 2 * time.Minute

// stepDone ends the child's output for one step.
const stepDone = "{}"

// crashChild runs a stepped engine: each line on stdin moves its clock by
// crashStep; it then prints the statuses that changed, a line each, and
// stepDone. The parent decides when to kill it, so the number of kills
// does not depend on how loaded the machine is.
func crashChild(dir string) int {
	ctx := context.Background()
	e, err := New(ctx, Options{StateDir: dir, Stepped: true})
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 3
	}
	out := bufio.NewWriter(os.Stdout)
	last := map[string]string{}
	print := func(st engine.SiteStatus, start bool) {
		o := observation{Start: start, Site: st.Site, Phase: st.Phase, Percent: st.Cluster.Percent}
		for _, h := range st.Hosts {
			o.Hosts = append(o.Hosts, hostObs{h.Name, h.State, h.Stage, h.Percent})
		}
		b, _ := json.Marshal(o)
		if !start && last[st.Site] == string(b) {
			return
		}
		last[st.Site] = string(b)
		out.Write(append(b, '\n'))
	}
	// What the store held at start: the last commit before the kill.
	names, _ := e.Sites(ctx)
	for _, n := range names {
		st, _ := e.Status(ctx, n)
		print(st, true)
	}
	for _, b := range crashSites() {
		if err := e.Apply(ctx, b, "r1"); err != nil {
			fmt.Fprintln(os.Stderr, err)
			return 3
		}
	}
	fmt.Fprintln(out, stepDone)
	out.Flush()
	in := bufio.NewScanner(os.Stdin)
	for in.Scan() {
		if err := e.Advance(ctx, crashStep); err != nil {
			fmt.Fprintln(os.Stderr, err)
			return 3
		}
		done := true
		for _, b := range crashSites() {
			st, err := e.Status(ctx, b.Site)
			if err != nil {
				done = false
				continue
			}
			print(st, false)
			done = done && st.Phase == engine.PhaseInstalled
		}
		fmt.Fprintln(out, stepDone)
		out.Flush()
		if done {
			// Change notices coalesce: report every site's final status,
			// not only the one whose notice came last.
			for _, b := range crashSites() {
				if st, err := e.Status(ctx, b.Site); err == nil {
					print(st, false)
				}
			}
			e.Close()
			return 0
		}
	}
	return 4
}

// A process killed (SIGKILL) at many points of an installation resumes on
// restart: nothing installs twice, no reported progress is lost, and every
// site installs. The parent steps the child's clock and kills it during a
// step after a random number of steps; each child has a deadline, so a
// child that stops answering fails the test instead of hanging it.
func TestCrashResume(t *testing.T) {
	dir := t.TempDir()
	rng := rand.New(rand.NewPCG(1, 2))
	var all []observation
	kills := 0
	for run := 0; ; run++ {
		if run > 300 {
			t.Fatalf("not installed after %d runs", run)
		}
		killed, finished, obs := crashRun(t, dir, 1+rng.IntN(3))
		all = append(all, obs...)
		if killed {
			kills++
		}
		if finished {
			break
		}
	}
	t.Logf("%d kills, %d observations", kills, len(all))
	if kills < 10 {
		t.Errorf("only %d kills: the test did not interrupt the installation enough", kills)
	}
	checkMonotonic(t, all)
}

// crashChildTimeout bounds one child's life.
const crashChildTimeout = 2 * time.Minute

// crashRun runs one child: it steps its clock killAfter times, then asks
// for one more step and kills it at once. It reports whether it killed
// the child, whether the child finished the installation first, and what
// the child printed.
func crashRun(t *testing.T, dir string, killAfter int) (killed, finished bool, obs []observation) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), crashChildTimeout)
	defer cancel()
	cmd := exec.CommandContext(ctx, os.Args[0], "-test.run=^$")
	cmd.Env = append(os.Environ(), crashChildEnv+"="+dir)
	cmd.WaitDelay = 5 * time.Second
	cmd.Stderr = os.Stderr
	stdin, err := cmd.StdinPipe()
	if err != nil {
		t.Fatal(err)
	}
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	sc := bufio.NewScanner(stdout)
	sc.Buffer(make([]byte, 1<<20), 1<<20)
	// readStep reads the lines of one step; false when the child ended.
	readStep := func() bool {
		for sc.Scan() {
			if sc.Text() == stepDone {
				return true
			}
			var o observation
			if err := json.Unmarshal(sc.Bytes(), &o); err != nil {
				t.Fatalf("child output %q: %v", sc.Text(), err)
			}
			obs = append(obs, o)
		}
		return false
	}
	alive := readStep()
	for step := 0; alive && step < killAfter; step++ {
		if _, err := stdin.Write([]byte("step\n")); err != nil {
			alive = false
			break
		}
		alive = readStep()
	}
	if alive {
		stdin.Write([]byte("step\n"))
		cmd.Process.Signal(syscall.SIGKILL)
		killed = true
		go func() {
			for sc.Scan() {
			}
		}()
	}
	err = cmd.Wait()
	if ctx.Err() != nil {
		t.Fatalf("the child did not answer within %v", crashChildTimeout)
	}
	if !killed {
		if err != nil {
			t.Fatalf("child failed: %v", err)
		}
		finished = true
	}
	return killed, finished, obs
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
