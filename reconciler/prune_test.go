package reconciler

import (
	"context"
	"errors"
	"github.com/siteops/siteops/reconciler/source"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/siteops/siteops/engine"
	"github.com/siteops/siteops/engine/sim"
	"github.com/siteops/siteops/internal/gittest"
	"github.com/siteops/siteops/reconciler/status"
)

func TestRemovedSitesAreOrphanedOrPruned(t *testing.T) {
	srv := gittest.StartDaemon(t)
	srv.Seed(t, "fleet.git", "../examples/fleet")
	seed := srv.Head(t, "fleet.git", "main")
	state := t.TempDir()
	r := startRun(t, srv.URL("fleet.git"), state)
	waitStatus(t, srv, "every site Installed", allInstalledAt(seed))

	kust := strings.Replace(read(t, "../examples/fleet/kustomization.yaml"), "  - tidewater-dualstack.yaml\n", "", 1)
	rev := srv.Commit(t, "fleet.git", "main", map[string]string{"kustomization.yaml": kust, "tidewater-dualstack.yaml": gittest.Remove}, "Retire tidewater")
	r.loop.src.Trigger()
	docs := waitStatus(t, srv, "tidewater orphaned", func(docs map[string]status.Document) bool {
		return docs["tidewater-ds-01"].Orphaned
	})
	if d := docs["tidewater-ds-01"]; d.Phase != engine.PhaseInstalled || !strings.Contains(d.Message, "--prune") || d.ObservedRevision != rev {
		t.Errorf("orphaned tidewater-ds-01: %s observed %s: %s", d.Phase, source.ShortRevision(d.ObservedRevision), d.Message)
	}
	r.stop()

	// With --prune, the next run deletes it through the engine: its
	// status file goes once the engine has torn it down.
	pruned := startRun(t, srv.URL("fleet.git"), state, WithPrune(true))
	docs = waitStatus(t, srv, "tidewater gone", func(docs map[string]status.Document) bool {
		_, ok := docs["tidewater-ds-01"]
		return !ok && len(docs) == 3
	})
	if _, err := pruned.eng.Status(context.Background(), "tidewater-ds-01"); !errors.Is(err, engine.ErrNotFound) {
		t.Errorf("the engine still holds tidewater-ds-01: %v", err)
	}
	for _, name := range []string{"granite-ha-01", "kestrel-3n-01", "marlow-sno-01"} {
		if docs[name].Phase != engine.PhaseInstalled {
			t.Errorf("%s: %s", name, docs[name].Phase)
		}
	}
}

func TestPruningStopsAtTheDeletionBudget(t *testing.T) {
	// Six single-node sites, all removed by one change: over the budget
	// of max(10 %, 5), so none is deleted.
	fleet, names := singleNodeFleet(t, 6)
	l, _ := startDirLoop(t, fleet, "status", sim.Options{Speed: sim.SpeedMax}, WithPrune(true))
	waitDocs := func(what string, ok func(map[string]status.Document) bool) map[string]status.Document {
		t.Helper()
		return waitDirStatus(t, filepath.Join(fleet, "status"), what, ok)
	}
	waitDocs("six sites Installed", allInstalled(names))
	for i := range 6 {
		os.Remove(filepath.Join(fleet, "site"+string(rune('a'+i))+".yaml"))
	}
	docs := waitDocs("six sites orphaned", func(docs map[string]status.Document) bool {
		for _, n := range names {
			if !docs[n].Orphaned {
				return false
			}
		}
		return true
	})
	if m := docs[names[0]].Message; !strings.Contains(m, "deletion budget of 5") {
		t.Errorf("an orphaned site's message: %q, want the deletion budget", m)
	}
	held, err := l.eng.Sites(context.Background())
	if err != nil || len(held) != 6 {
		t.Errorf("the engine holds %v (%v), want all six: nothing deleted over the budget", held, err)
	}
}

func TestADeletionThatFailsIsTriedAgainAndStopsNoOtherSite(t *testing.T) {
	fleet, names := singleNodeFleet(t, 6)
	eng := &failingEngine{}
	eng.fail.Store(true)
	l, _ := startDirLoopWith(t, fleet, "status", sim.Options{Speed: sim.SpeedMax},
		func(e engine.Engine) engine.Engine { eng.Engine = e; return eng }, WithPrune(true))
	statusDir := filepath.Join(fleet, "status")
	waitDirStatus(t, statusDir, "six sites Installed", allInstalled(names))

	// One site removed, another changed in the same pass: the deletion
	// fails, the change is still applied and its status written.
	os.Remove(filepath.Join(fleet, "sitea.yaml"))
	siteb := filepath.Join(fleet, "siteb.yaml")
	writeFile(t, fleet, "siteb.yaml", strings.Replace(read(t, siteb), "region: north", "region: north-2", 1))
	docs := waitDirStatus(t, statusDir, "sitea orphaned", func(docs map[string]status.Document) bool {
		return docs[names[0]].Orphaned
	})
	if m := docs[names[0]].Message; !strings.Contains(m, "could not delete it (the BMC of sitea-sno-01 does not answer)") || !strings.Contains(m, "tried again") {
		t.Errorf("sitea's message: %q, want why the deletion failed and that it is tried again", m)
	}
	if n := counter(t, l, "siteops_reconcile_sites_applied_total"); n != 7 {
		t.Errorf("%v bundles applied, want 7: the six sites and siteb changed in the pass whose deletion failed", n)
	}

	// The engine answers again: the next pass deletes the site.
	eng.fail.Store(false)
	writeFile(t, fleet, "sitec.yaml", strings.Replace(read(t, filepath.Join(fleet, "sitec.yaml")), "region: north", "region: north-3", 1))
	waitDirStatus(t, statusDir, "sitea gone", func(docs map[string]status.Document) bool {
		_, ok := docs[names[0]]
		return !ok && len(docs) == 5
	})
	if _, err := eng.Status(context.Background(), names[0]); !errors.Is(err, engine.ErrNotFound) {
		t.Errorf("the engine still holds %s: %v", names[0], err)
	}
}

func TestARestartOnABrokenRevisionDeletesNothing(t *testing.T) {
	srv := gittest.StartDaemon(t)
	url := srv.Seed(t, "fleet.git", "../examples/fleet")
	state := t.TempDir()
	first := startRun(t, url, state, WithUntilInstalled(true))
	if err := first.wait(); err != nil {
		t.Fatal(err)
	}
	first.stop()

	// While siteops is stopped, a commit breaks one file. The restarted
	// loop knows the site only from its state: the load error does not
	// name it, and yet it must not take it for removed.
	broken := srv.Commit(t, "fleet.git", "main", map[string]string{"marlow-sno.yaml": "apiVersion: ran.openshift.io/v1\nkind: SiteConfig\nspec: [\n"}, "Break marlow")
	r := startRun(t, url, state, WithPrune(true))
	docs := waitStatus(t, srv, "the broken revision evaluated", func(docs map[string]status.Document) bool {
		return docs["marlow-sno-01"].ObservedRevision == broken
	})
	if st, err := r.eng.Status(context.Background(), "marlow-sno-01"); err != nil || st.Phase != engine.PhaseInstalled {
		t.Errorf("the engine's marlow-sno-01 after a restart on a broken revision: %v %v, want still Installed", st.Phase, err)
	}
	if d := docs["marlow-sno-01"]; d.Phase != engine.PhaseInstalled || !d.Orphaned || !strings.Contains(d.Message, "load errors") {
		t.Errorf("marlow-sno-01: %s orphaned=%v: %s; want kept, saying the revision has load errors", d.Phase, d.Orphaned, d.Message)
	}

	// Repaired: the site is found again, as it was.
	fixed := srv.Commit(t, "fleet.git", "main", map[string]string{"marlow-sno.yaml": read(t, "../examples/fleet/marlow-sno.yaml")}, "Repair marlow")
	r.loop.src.Trigger()
	docs = waitStatus(t, srv, "every site Installed again", allInstalledAt(fixed))
	if d := docs["marlow-sno-01"]; d.Orphaned {
		t.Errorf("marlow-sno-01 stays orphaned after the repair: %s", d.Message)
	}
}
