package sim

import (
	"bufio"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"testing"
	"time"

	"github.com/siteops/siteops/render"
)

var updateHistory = flag.Bool("update-history", false, "rewrite testdata/fleet-history.golden from this run")

// goldenFleet is a mixed fleet whose whole history the golden file holds:
// the example sites, a compact, an arbiter and a pool cluster, a site that
// fails validation, one with a failing worker and a slow one, a day-2
// worker, a refused bundle, a re-apply and a deletion under way. MAC ranges are fixed so that the history does
// not depend on which tests ran before.
func goldenFleet(t *testing.T) (first []*render.Bundle, later map[int][]func(*Engine)) {
	t.Helper()
	ex := renderDir(t, "examples/fleet")
	for k, v := range renderDir(t, "examples/sim") {
		ex[k] = v
	}
	for _, n := range sortedSites(ex) {
		first = append(first, ex[n])
	}
	site := func(name string, masters, workers, mac int) *siteBuilder {
		s := newSite(name, masters, workers)
		s.macBase = 0x7000 + mac
		return s
	}
	sno := site("gold-sno", 1, 0, 1)
	compact := site("gold-compact", 3, 0, 2)
	ha := site("gold-ha", 3, 2, 3)
	arb := site("gold-arbiter", 2, 0, 4)
	arb.arbiters = 1
	pool := site("gold-pool", 1, 0, 5)
	pool.pool = true
	pool.annotations["gold-pool-cp-0"] = map[string]string{"bmac.agent-install.openshift.io/cluster-reference.namespace": "gold-pool", "bmac.agent-install.openshift.io/cluster-reference.name": "gold-pool"}
	small := site("gold-small", 1, 0, 6)
	small.hardware["gold-small-cp-0"] = "cpus=4,memoryMiB=16384"
	slow := site("gold-slow", 3, 3, 8)
	slow.hardware["gold-slow-w-2"] = "failAt=writing-image-to-disk"
	slow.hardware["gold-slow-w-1"] = "diskSpeedMs=30,latencyMs=150"
	gone := site("gold-gone", 3, 0, 7)
	dup := site("gold-dup", 1, 0, 1) // the MACs of gold-sno: refused
	for _, s := range []*siteBuilder{sno, compact, ha, arb, pool, small, slow, gone, dup} {
		first = append(first, s.bundle())
	}
	step := func(f func(*Engine)) []func(*Engine) { return []func(*Engine){f} }
	later = map[int][]func(*Engine){
		// gold-gone is deleted while it installs.
		20: step(func(e *Engine) {
			if err := e.Delete(context.Background(), "gold-gone"); err != nil {
				t.Fatal(err)
			}
		}),
		// gold-compact is applied again at a new revision mid-install.
		25: step(func(e *Engine) { apply(t, e, compact.bundle(), "rev2") }),
		// gold-sno gets a day-2 worker once installed.
		150: step(func(e *Engine) {
			sno.workers = 1
			apply(t, e, sno.bundle(), "rev3")
		}),
	}
	return first, later
}

// TestFleetHistoryGolden runs a mixed fleet on a stepped clock and holds
// every site's status and state, minute by minute, to the history recorded
// in testdata: the simulation's results and the order of its events do not
// change when its machinery does. After a change of behaviour, record the
// new history with -update-history (its own name: a package's -update
// flag would collide with another test file's).
func TestFleetHistoryGolden(t *testing.T) {
	first, later := goldenFleet(t)
	e := newStepped(t, Options{})
	for _, b := range first {
		apply(t, e, b, "rev1")
	}
	// A stepped engine's runner commits what Apply changed whenever it
	// wakes; flushing commits it at a known instant.
	flush := func() {
		if err := e.Flush(context.Background()); err != nil {
			t.Fatal(err)
		}
	}
	flush()
	var got []string
	for minute := 1; minute <= 240; minute++ {
		for _, f := range later[minute] {
			f(e)
			flush()
		}
		if err := e.Advance(context.Background(), time.Minute); err != nil {
			t.Fatal(err)
		}
		got = append(got, fmt.Sprintf("%d %s", minute, fleetDigest(t, e)))
	}
	final := finalStatuses(t, e)
	path := filepath.Join("testdata", "fleet-history.golden")
	if *updateHistory {
		if err := os.MkdirAll("testdata", 0o755); err != nil {
			t.Fatal(err)
		}
		body := strings.Join(got, "\n") + "\n" + final
		if err := os.WriteFile(path, []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	f, err := os.Open(path)
	if err != nil {
		t.Fatalf("%v (record it with go test ./engine/sim/ -run TestFleetHistoryGolden -update-history)", err)
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	sc.Buffer(nil, 16<<20)
	var want []string
	for len(want) < len(got) && sc.Scan() {
		want = append(want, sc.Text())
	}
	var rest strings.Builder
	for sc.Scan() {
		rest.WriteString(sc.Text() + "\n")
	}
	for i := range got {
		if i >= len(want) || got[i] != want[i] {
			t.Errorf("the fleet's history departs from the recorded one at minute %d", i+1)
			break
		}
	}
	if rest.String() != final {
		t.Errorf("final statuses differ from the recorded ones:\n%s", firstDifference(rest.String(), final))
	}
}

// fleetDigest sums up every site's published status and kept state.
func fleetDigest(t *testing.T, e *Engine) string {
	t.Helper()
	h := sha256.New()
	names, _ := e.Sites(context.Background())
	for _, n := range names {
		st := status(t, e, n)
		b, err := json.Marshal(st)
		if err != nil {
			t.Fatal(err)
		}
		fmt.Fprintf(h, "%s status %s\n", n, b)
	}
	e.mu.Lock()
	defer e.mu.Unlock()
	keys := make([]string, 0, len(e.sites))
	for n := range e.sites {
		keys = append(keys, n)
	}
	sort.Strings(keys)
	for _, n := range keys {
		b, err := json.Marshal(e.sites[n].st)
		if err != nil {
			t.Fatal(err)
		}
		fmt.Fprintf(h, "%s state %s\n", n, b)
	}
	return hex.EncodeToString(h.Sum(nil))[:24]
}

// finalStatuses are the statuses at the end, one JSON document a line.
func finalStatuses(t *testing.T, e *Engine) string {
	t.Helper()
	var b strings.Builder
	names, _ := e.Sites(context.Background())
	for _, n := range names {
		doc, err := json.Marshal(status(t, e, n))
		if err != nil {
			t.Fatal(err)
		}
		b.Write(doc)
		b.WriteByte('\n')
	}
	return b.String()
}

func firstDifference(want, got string) string {
	w, g := strings.Split(want, "\n"), strings.Split(got, "\n")
	for i := 0; i < len(w) || i < len(g); i++ {
		var a, b string
		if i < len(w) {
			a = w[i]
		}
		if i < len(g) {
			b = g[i]
		}
		if a != b {
			return fmt.Sprintf("line %d\nwant %s\ngot  %s", i+1, a, b)
		}
	}
	return ""
}
