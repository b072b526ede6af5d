package reconciler

import (
	"bytes"
	"context"
	"crypto/hmac"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"io"
	clocktesting "k8s.io/utils/clock/testing"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	"sigs.k8s.io/yaml"

	"github.com/siteops/siteops/engine"
	"github.com/siteops/siteops/engine/sim"
	"github.com/siteops/siteops/internal/gittest"
	"github.com/siteops/siteops/policy/report"
	"github.com/siteops/siteops/reconciler/source"
	"github.com/siteops/siteops/reconciler/status"
	"github.com/siteops/siteops/render"
	"github.com/siteops/siteops/sites"
)

// exampleSites are the clusters of examples/fleet.
var exampleSites = []string{"granite-ha-01", "kestrel-3n-01", "marlow-sno-01", "tidewater-ds-01"}

// run is a loop over a real Git source and the simulated engine, running
// in the background.
type run struct {
	t      *testing.T
	loop   *Loop
	eng    *sim.Engine
	src    *source.Git
	cancel context.CancelFunc
	done   chan error
}

// startRun starts a loop on the repository at url, keeping its state in
// state. The engine runs at --speed max.
func startRun(t *testing.T, url, state string, opts ...Option) *run {
	t.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	src, err := source.NewGit(ctx, source.GitOptions{URL: url, Branch: "main", StateDir: state, Interval: time.Hour})
	if err != nil {
		cancel()
		t.Fatal(err)
	}
	eng, err := sim.New(ctx, sim.Options{StateDir: filepath.Join(state, "engine"), Speed: sim.SpeedMax})
	if err != nil {
		cancel()
		src.Close()
		t.Fatal(err)
	}
	manifests, err := sites.ReadManifestDir(os.DirFS("../examples/extra-manifests"), ".")
	if err != nil {
		t.Fatal(err)
	}
	all := append([]Option{WithPolicy(builtinPolicy(t)), WithStateDir(state), WithStatusInterval(0),
		WithRenderOptions(render.WithDefaultManifests(manifests))}, opts...)
	r := &run{t: t, loop: New(src, eng, all...), eng: eng, src: src, cancel: cancel, done: make(chan error, 1)}
	go func() { r.done <- r.loop.Run(ctx) }()
	t.Cleanup(func() { r.stop() })
	return r
}

// wait waits for Run to return (WithUntilInstalled) and returns its error.
func (r *run) wait() error {
	r.t.Helper()
	select {
	case err := <-r.done:
		r.done <- err
		return err
	case <-time.After(2 * time.Minute):
		r.t.Fatal("the loop did not finish within 2 minutes")
		return nil
	}
}

// stop stops the loop and releases the engine and the source.
func (r *run) stop() {
	if r.cancel == nil {
		return
	}
	r.cancel()
	<-r.done
	r.done <- nil
	r.eng.Close()
	r.src.Close()
	r.cancel = nil
}

// statusOf reads the status documents of the repository's main branch.
func statusOf(t *testing.T, srv *gittest.Server) map[string]status.Document {
	t.Helper()
	head := srv.Head(t, "fleet.git", "main")
	docs := map[string]status.Document{}
	for p, content := range srv.Files(t, "fleet.git", head, "status") {
		if !strings.HasSuffix(p, ".yaml") {
			continue
		}
		var d status.Document
		if err := yaml.Unmarshal([]byte(content), &d); err != nil {
			t.Fatalf("%s: %v", p, err)
		}
		docs[strings.TrimSuffix(strings.TrimPrefix(p, "status/"), ".yaml")] = d
	}
	return docs
}

// waitStatus polls the repository until the pushed status satisfies ok.
func waitStatus(t *testing.T, srv *gittest.Server, what string, ok func(map[string]status.Document) bool) map[string]status.Document {
	t.Helper()
	deadline := time.Now().Add(time.Minute)
	for {
		docs := statusOf(t, srv)
		if ok(docs) {
			return docs
		}
		if time.Now().After(deadline) {
			t.Fatalf("no status with %s within a minute; last: %s", what, summarize(docs))
		}
		time.Sleep(50 * time.Millisecond)
	}
}

func summarize(docs map[string]status.Document) string {
	var b strings.Builder
	for name, d := range docs {
		b.WriteString("\n  " + name + ": " + string(d.Phase) + "/" + string(d.Reason) + " observed " + source.ShortRevision(d.ObservedRevision) + " applied " + source.ShortRevision(d.Revision) + ": " + d.Message)
	}
	return b.String()
}

// allInstalledAt reports whether every example site is Installed, from
// revision rev.
func allInstalledAt(rev string) func(map[string]status.Document) bool {
	return func(docs map[string]status.Document) bool {
		for _, name := range exampleSites {
			if d, ok := docs[name]; !ok || d.Phase != engine.PhaseInstalled || d.ObservedRevision != rev {
				return false
			}
		}
		return true
	}
}

func read(t *testing.T, p string) string {
	t.Helper()
	data, err := os.ReadFile(p)
	if err != nil {
		t.Fatal(err)
	}
	return string(data)
}

func TestRunInstallsTheFleetAndARestartReinstallsNothing(t *testing.T) {
	srv := gittest.StartDaemon(t)
	url := srv.Seed(t, "fleet.git", "../examples/fleet")
	seed := srv.Head(t, "fleet.git", "main")
	state := t.TempDir()

	first := startRun(t, url, state, WithUntilInstalled(true))
	if err := first.wait(); err != nil {
		t.Fatalf("Run = %v, want nil once every site is installed", err)
	}
	first.stop()
	docs := statusOf(t, srv)
	if !allInstalledAt(seed)(docs) {
		t.Fatalf("pushed status: %s", summarize(docs))
	}
	for _, name := range exampleSites {
		if d := docs[name]; d.Revision != seed || d.Cluster.Percent != 100 {
			t.Errorf("%s: revision %s, cluster %d%%; want %s, 100%%", name, d.Revision, d.Cluster.Percent, seed)
		}
	}
	head := srv.Head(t, "fleet.git", "main")
	readme := srv.Files(t, "fleet.git", head, "status/README.md")["status/README.md"]
	for _, name := range exampleSites {
		if !strings.Contains(readme, "| ["+name+"]("+name+".yaml) | Installed |  | 100% |") {
			t.Errorf("README.md has no Installed row for %s:\n%s", name, readme)
		}
	}

	// A restart on the same state directory, nothing new: no apply, no
	// status commit.
	again := startRun(t, url, state, WithUntilInstalled(true))
	if err := again.wait(); err != nil {
		t.Fatal(err)
	}
	again.stop()
	if h := srv.Head(t, "fleet.git", "main"); h != head {
		t.Errorf("a restart with nothing new committed %s", h)
		logDiff(t, srv, head, h)
	}
	if n := counter(t, again.loop, "siteops_reconcile_sites_applied_total"); n != 0 {
		t.Errorf("a restart applied %v sites, want 0", n)
	}

	// A site pushed later is picked up by the next run; the others are
	// not applied again.
	wren := strings.NewReplacer("marlow", "wren", "0a:5e:00:01", "0a:5e:00:71", "198.51.100.1", "198.51.100.7").
		Replace(read(t, "../examples/fleet/marlow-sno.yaml"))
	kust := strings.Replace(read(t, "../examples/fleet/kustomization.yaml"), "  - marlow-sno.yaml\n", "  - marlow-sno.yaml\n  - wren-sno.yaml\n", 1)
	added := srv.Commit(t, "fleet.git", "main", map[string]string{"wren-sno.yaml": wren, "kustomization.yaml": kust}, "Add wren")
	third := startRun(t, url, state, WithUntilInstalled(true))
	if err := third.wait(); err != nil {
		t.Fatal(err)
	}
	third.stop()
	docs = statusOf(t, srv)
	if d := docs["wren-sno-01"]; d.Phase != engine.PhaseInstalled || d.Revision != added {
		t.Errorf("wren-sno-01: %s at %s, want Installed at %s", d.Phase, d.Revision, added)
	}
	for _, name := range exampleSites {
		if d := docs[name]; d.Revision != seed || d.ObservedRevision != added || d.Phase != engine.PhaseInstalled {
			t.Errorf("%s: applied %s, observed %s, %s; want applied %s (not again), observed %s, Installed",
				name, source.ShortRevision(d.Revision), source.ShortRevision(d.ObservedRevision), d.Phase, source.ShortRevision(seed), source.ShortRevision(added))
		}
	}
	if n := counter(t, third.loop, "siteops_reconcile_sites_applied_total"); n != 1 {
		t.Errorf("the run after the push applied %v sites, want 1", n)
	}

	// A commit that touches no site changes no status: no status commit.
	notes := srv.Commit(t, "fleet.git", "main", map[string]string{"NOTES.md": "# Notes\n"}, "Notes")
	fourth := startRun(t, url, state, WithUntilInstalled(true))
	if err := fourth.wait(); err != nil {
		t.Fatal(err)
	}
	fourth.stop()
	if h := srv.Head(t, "fleet.git", "main"); h != notes {
		t.Errorf("a commit that touches no site was followed by status commit %s", h)
		logDiff(t, srv, notes, h)
	}
}

func TestARestartAppliesWhatTheEngineNeverTookIn(t *testing.T) {
	srv := gittest.StartDaemon(t)
	url := srv.Seed(t, "fleet.git", "../examples/fleet")
	seed := srv.Head(t, "fleet.git", "main")
	state := t.TempDir()
	engineDir, saved := filepath.Join(state, "engine"), filepath.Join(t.TempDir(), "engine")
	runOnce := func() *run {
		r := startRun(t, url, state, WithUntilInstalled(true))
		if err := r.wait(); err != nil {
			t.Fatal(err)
		}
		r.stop()
		return r
	}

	runOnce()
	if err := os.CopyFS(saved, os.DirFS(engineDir)); err != nil {
		t.Fatal(err)
	}
	srv.Commit(t, "fleet.git", "main", map[string]string{"marlow-sno.yaml": strings.Replace(read(t, "../examples/fleet/marlow-sno.yaml"), "region: north", "region: north-2", 1)}, "Move marlow")
	if n := counter(t, runOnce().loop, "siteops_reconcile_sites_applied_total"); n != 1 {
		t.Fatalf("the run after the change applied %v sites, want 1", n)
	}

	// The engine's state as it was before it took in the change, as a
	// process killed before the engine committed it leaves it; the loop
	// remembers the change as applied.
	if err := os.RemoveAll(engineDir); err != nil {
		t.Fatal(err)
	}
	if err := os.CopyFS(engineDir, os.DirFS(saved)); err != nil {
		t.Fatal(err)
	}
	if n := counter(t, runOnce().loop, "siteops_reconcile_sites_applied_total"); n != 1 {
		t.Errorf("the restart applied %v sites, want 1: the one the engine lacks", n)
	}
	eng, err := sim.New(context.Background(), sim.Options{StateDir: engineDir, Stepped: true})
	if err != nil {
		t.Fatal(err)
	}
	defer eng.Close()
	// The site is applied again at the revision the restart reconciled
	// (the status commits came after the change); the others stay.
	for _, name := range exampleSites {
		st, err := eng.Status(context.Background(), name)
		switch {
		case err != nil:
			t.Errorf("%s: %v", name, err)
		case name == "marlow-sno-01" && st.Revision == seed:
			t.Errorf("the engine still holds %s at %s, from before the change", name, source.ShortRevision(seed))
		case name != "marlow-sno-01" && st.Revision != seed:
			t.Errorf("the engine holds %s at %s, want %s", name, source.ShortRevision(st.Revision), source.ShortRevision(seed))
		}
	}
}

// A run until installed that follows a change to an installed site ends
// only once the site's status shows the engine installing the change:
// the site was Installed before the engine took the change in, and a
// status written in between still shows the revision before. Without
// the wait, 11 of 12 rounds after the first ended at the revision before;
// the rounds make a pass by chance unlikely.
func TestUntilInstalledEndsWithTheChangeInTheStatus(t *testing.T) {
	srv := gittest.StartDaemon(t)
	url := srv.Seed(t, "fleet.git", "../examples/fleet")
	state := t.TempDir()
	for round := range 4 {
		change := srv.Commit(t, "fleet.git", "main", map[string]string{"marlow-sno.yaml": strings.Replace(read(t, "../examples/fleet/marlow-sno.yaml"), "region: north", "region: north-"+strconv.Itoa(round), 1)}, "Move marlow")
		r := startRun(t, url, state, WithUntilInstalled(true))
		if err := r.wait(); err != nil {
			t.Fatal(err)
		}
		r.stop()
		doc, ok := statusOf(t, srv)["marlow-sno-01"]
		switch {
		case !ok:
			t.Fatalf("round %d: no status of marlow-sno-01", round)
		case doc.Phase != engine.PhaseInstalled:
			t.Errorf("round %d: marlow-sno-01 is %s, want Installed", round, doc.Phase)
		case doc.Revision != change:
			t.Errorf("round %d: the run ended with marlow-sno-01's status at %s, want the change %s", round, source.ShortRevision(doc.Revision), source.ShortRevision(change))
		}
	}
}

// counter reads a counter or gauge without labels from the loop's metrics.
func counter(t *testing.T, l *Loop, name string) float64 {
	t.Helper()
	mfs, err := l.o.gatherer.Gather()
	if err != nil {
		t.Fatal(err)
	}
	for _, mf := range mfs {
		if mf.GetName() == name {
			m := mf.GetMetric()[0]
			if c := m.GetCounter(); c != nil {
				return c.GetValue()
			}
			return m.GetGauge().GetValue()
		}
	}
	t.Fatalf("no metric %s", name)
	return 0
}

// installed starts a loop on a new repository of the example fleet and
// waits until it is installed.
func installed(t *testing.T, srv *gittest.Server, opts ...Option) (*run, string) {
	t.Helper()
	srv.Seed(t, "fleet.git", "../examples/fleet")
	seed := srv.Head(t, "fleet.git", "main")
	r := startRun(t, srv.URL("fleet.git"), t.TempDir(), opts...)
	waitStatus(t, srv, "every site Installed", allInstalledAt(seed))
	return r, seed
}

func TestWebhook(t *testing.T) {
	srv := gittest.StartHTTP(t)
	secret := []byte("s3cret")
	r, seed := installed(t, srv, WithWebhookSecret(secret))
	web := httptest.NewServer(r.loop.Handler())
	defer web.Close()

	changed := strings.Replace(read(t, "../examples/fleet/marlow-sno.yaml"), "region: north", "region: north-2", 1)
	rev := srv.Commit(t, "fleet.git", "main", map[string]string{"marlow-sno.yaml": changed}, "Move marlow")
	body := []byte(`{"ref":"refs/heads/main","after":"` + rev + `"}`)
	sign := func(key []byte) string {
		mac := hmac.New(sha256.New, key)
		mac.Write(body)
		return "sha256=" + hex.EncodeToString(mac.Sum(nil))
	}
	tests := []struct {
		name      string
		signature string
		want      int
	}{
		{"no signature", "", http.StatusUnauthorized},
		{"signed with another secret", sign([]byte("guess")), http.StatusUnauthorized},
		{"not hex", "sha256=zz", http.StatusUnauthorized},
		{"sha1 instead of sha256", "sha1=" + strings.TrimPrefix(sign(secret), "sha256="), http.StatusUnauthorized},
		{"signed with the secret", sign(secret), http.StatusAccepted},
	}
	for _, tt := range tests {
		req, _ := http.NewRequest(http.MethodPost, web.URL+"/hooks/git", bytes.NewReader(body))
		if tt.signature != "" {
			req.Header.Set(SignatureHeader, tt.signature)
		}
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
		if resp.StatusCode != tt.want {
			t.Errorf("%s: %s, want %d", tt.name, resp.Status, tt.want)
		}
		if tt.want == http.StatusUnauthorized {
			// A refused request does not fetch: the interval is an hour.
			if d := statusOf(t, srv)["marlow-sno-01"]; d.ObservedRevision != seed {
				t.Fatalf("%s: the loop reconciled %s", tt.name, d.ObservedRevision)
			}
		}
	}
	if n := counter(t, r.loop, "siteops_webhook_refused_total"); n != 4 {
		t.Errorf("siteops_webhook_refused_total = %v, want 4", n)
	}
	docs := waitStatus(t, srv, "marlow-sno-01 at the pushed revision", func(docs map[string]status.Document) bool {
		return docs["marlow-sno-01"].ObservedRevision == rev && docs["marlow-sno-01"].Revision == rev
	})
	if d := docs["granite-ha-01"]; d.ObservedRevision != seed {
		t.Errorf("granite-ha-01 observed %s: a site the commit did not touch was evaluated again", d.ObservedRevision)
	}

	for path, want := range map[string]int{"/healthz": 200, "/readyz": 200, "/metrics": 200, "/": 200, "/sites/marlow-sno-01": 200} {
		resp, err := http.Get(web.URL + path)
		if err != nil {
			t.Fatal(err)
		}
		data, _ := io.ReadAll(resp.Body)
		resp.Body.Close()
		if resp.StatusCode != want {
			t.Errorf("GET %s: %s", path, resp.Status)
		}
		if path == "/metrics" && !bytes.Contains(data, []byte(`siteops_sites{phase="Installed"} 4`)) {
			t.Errorf("/metrics does not count 4 Installed sites:\n%s", data)
		}
	}
}

func TestABrokenRevisionKeepsTheLastGoodState(t *testing.T) {
	srv := gittest.StartDaemon(t)
	r, seed := installed(t, srv)

	// One file that no longer parses: its site keeps what it had.
	broken := srv.Commit(t, "fleet.git", "main", map[string]string{"marlow-sno.yaml": "apiVersion: ran.openshift.io/v1\nkind: SiteConfig\nspec: [\n"}, "Break marlow")
	r.loop.src.Trigger()
	docs := waitStatus(t, srv, "marlow-sno-01 blocked", func(docs map[string]status.Document) bool {
		return docs["marlow-sno-01"].ObservedRevision == broken
	})
	d := docs["marlow-sno-01"]
	if d.Phase != engine.PhaseInvalid || d.Reason != engine.ReasonLoadFailed || d.Revision != seed || !strings.Contains(d.Message, "not applied") || !strings.Contains(d.Message, source.ShortRevision(seed)) {
		t.Errorf("marlow-sno-01 after a broken revision: %s, applied %s: %s", d.Phase, source.ShortRevision(d.Revision), d.Message)
	}
	if len(d.Findings) == 0 || d.Findings[0].Rule != "site.load" || d.Findings[0].Pos.File != "marlow-sno.yaml" {
		t.Errorf("marlow-sno-01 findings = %+v, want site.load in marlow-sno.yaml", d.Findings)
	}
	if st, err := r.eng.Status(context.Background(), "marlow-sno-01"); err != nil || st.Phase != engine.PhaseInstalled {
		t.Errorf("the engine's marlow-sno-01: %v %v, want still Installed", st.Phase, err)
	}
	for _, name := range []string{"granite-ha-01", "kestrel-3n-01", "tidewater-ds-01"} {
		if docs[name].Phase != engine.PhaseInstalled {
			t.Errorf("%s: %s, want Installed", name, docs[name].Phase)
		}
	}

	// A kustomization that does not build: every site keeps its state.
	bad := srv.Commit(t, "fleet.git", "main", map[string]string{"kustomization.yaml": "generators: {oops\n"}, "Break the kustomization")
	r.loop.src.Trigger()
	docs = waitStatus(t, srv, "every site blocked", func(docs map[string]status.Document) bool {
		for _, name := range exampleSites {
			if docs[name].ObservedRevision != bad {
				return false
			}
		}
		return true
	})
	for _, name := range exampleSites {
		if d := docs[name]; d.Phase != engine.PhaseInvalid || d.Reason != engine.ReasonLoadFailed || d.Orphaned {
			t.Errorf("%s after a broken kustomization: %s orphaned=%v: %s", name, d.Phase, d.Orphaned, d.Message)
		}
	}
	held, err := r.eng.Sites(context.Background())
	if err != nil || len(held) != len(exampleSites) {
		t.Errorf("the engine holds %v (%v), want the 4 sites", held, err)
	}

	// Repaired: everything is back to Installed, nothing was applied.
	fixed := srv.Commit(t, "fleet.git", "main", map[string]string{"marlow-sno.yaml": read(t, "../examples/fleet/marlow-sno.yaml"),
		"kustomization.yaml": read(t, "../examples/fleet/kustomization.yaml")}, "Repair")
	r.loop.src.Trigger()
	waitStatus(t, srv, "every site Installed again", allInstalledAt(fixed))
	if n := counter(t, r.loop, "siteops_reconcile_sites_applied_total"); n != 4 {
		t.Errorf("%v bundles applied in all, want only the 4 of the first revision", n)
	}
}

func TestADenyFindingBlocksOnlyItsSite(t *testing.T) {
	srv := gittest.StartDaemon(t)
	r, seed := installed(t, srv)
	kestrel := strings.Replace(read(t, "../examples/fleet/kestrel-compact.yaml"), "- 192.0.2.70", "- 203.0.113.70", 1)
	tidewater := strings.Replace(read(t, "../examples/fleet/tidewater-dualstack.yaml"), "        site: tidewater\n", "        site: tidewater\n        zone: b\n", 1)
	rev := srv.Commit(t, "fleet.git", "main", map[string]string{"kestrel-compact.yaml": kestrel, "tidewater-dualstack.yaml": tidewater}, "Move a VIP")
	r.loop.src.Trigger()
	docs := waitStatus(t, srv, "the commit evaluated", func(docs map[string]status.Document) bool {
		return docs["kestrel-3n-01"].ObservedRevision == rev && docs["tidewater-ds-01"].Revision == rev
	})
	k := docs["kestrel-3n-01"]
	if k.Phase != engine.PhasePolicyFailed || k.Revision != seed || !strings.Contains(k.Message, "ztp.network.vip-in-machine-network") {
		t.Errorf("kestrel-3n-01: %s, applied %s: %s", k.Phase, source.ShortRevision(k.Revision), k.Message)
	}
	found := false
	for _, f := range k.Findings {
		found = found || (f.Rule == "ztp.network.vip-in-machine-network" && f.Pos.File == "kestrel-compact.yaml" && f.Pos.Line > 0)
	}
	if !found {
		t.Errorf("kestrel-3n-01 findings = %+v, want the VIP rule with its line", k.Findings)
	}
	// The document says what to do, not only what is wrong.
	if len(k.Findings) == 0 || k.Findings[0].Remediation == "" ||
		!strings.Contains(k.Message, "To fix it: "+strings.TrimSuffix(k.Findings[0].Remediation, ".")) || !strings.Contains(k.Message, "Push a commit") {
		t.Errorf("kestrel-3n-01 message does not say how to unblock it: %s", k.Message)
	}
	if tw := docs["tidewater-ds-01"]; tw.Phase == engine.PhasePolicyFailed {
		t.Errorf("tidewater-ds-01 is blocked too: %s", tw.Message)
	}
	if m := docs["marlow-sno-01"]; m.ObservedRevision != seed || m.Phase != engine.PhaseInstalled {
		t.Errorf("marlow-sno-01: %s observed %s; a site the commit did not touch changed", m.Phase, source.ShortRevision(m.ObservedRevision))
	}
}

// logDiff logs what changed in the repository between two commits.
func logDiff(t *testing.T, srv *gittest.Server, from, to string) {
	t.Helper()
	t.Log(gittest.Git(t, srv.Dir()+"/fleet.git", "diff", from, to))
}

func TestAnOutageIsSurvivedAndNoStatusIsLost(t *testing.T) {
	srv := gittest.StartDaemon(t)
	r, _ := installed(t, srv)

	// The server goes away; a human commit waits on it meanwhile.
	srv.Stop()
	changed := strings.Replace(read(t, "../examples/fleet/granite-ha.yaml"), "region: central", "region: central-2", 1)
	rev := srv.Commit(t, "fleet.git", "main", map[string]string{"granite-ha.yaml": changed}, "Move granite")
	r.loop.src.Trigger()
	deadline := time.Now().Add(time.Minute)
	for counter(t, r.loop, "siteops_reconcile_errors_total") == 0 {
		if time.Now().After(deadline) {
			t.Fatal("the failed fetch was not counted")
		}
		time.Sleep(20 * time.Millisecond)
	}
	if !r.loop.Ready() {
		t.Error("a failed fetch made the loop not ready")
	}
	if s := r.loop.summary(); !strings.Contains(s.Problem, "read the source") {
		t.Errorf("the dashboard's problem = %q, want the failed fetch", s.Problem)
	}

	// Back: the commit is reconciled and its status pushed.
	srv.Start()
	r.loop.src.Trigger()
	docs := waitStatus(t, srv, "granite-ha-01 at the commit made during the outage", func(docs map[string]status.Document) bool {
		return docs["granite-ha-01"].Revision == rev
	})
	if d := docs["granite-ha-01"]; d.Phase != engine.PhaseInstalled {
		t.Errorf("granite-ha-01: %s: %s", d.Phase, d.Message)
	}
	if s := r.loop.summary(); s.Problem != "" {
		t.Errorf("the problem stays after the recovery: %q", s.Problem)
	}
}

// A status write that fails is tried again after a backoff on the loop's
// clock: not before the clock moves, and at once when it does.
func TestAStatusWriteThatFailsIsTriedAgain(t *testing.T) {
	fleet := t.TempDir()
	if err := os.CopyFS(fleet, os.DirFS("../examples/fleet")); err != nil {
		t.Fatal(err)
	}
	// The status directory cannot be made while a file has its name.
	statusDir := filepath.Join(t.TempDir(), "status")
	if err := os.WriteFile(statusDir, []byte("in the way\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	clk := clocktesting.NewFakeClock(time.Now())
	l, done := startDirLoop(t, fleet, statusDir, sim.Options{Speed: sim.SpeedMax}, WithUntilInstalled(true), WithClock(clk))

	// Once the engine is done, nothing but the retry timer makes the
	// loop write again.
	deadline := time.Now().Add(time.Minute)
	for counter(t, l, "siteops_status_write_errors_total") == 0 || !allEngineInstalled(t, l.eng) || !clk.HasWaiters() {
		if time.Now().After(deadline) {
			t.Fatal("no failed status write with the engine done and a retry armed")
		}
		time.Sleep(20 * time.Millisecond)
	}
	time.Sleep(100 * time.Millisecond) // the engine's last change notices
	if err := os.Remove(statusDir); err != nil {
		t.Fatal(err)
	}
	// The retry waits on the loop's clock, which has not moved.
	select {
	case err := <-done:
		t.Fatalf("Run returned %v before its retry was due", err)
	case <-time.After(200 * time.Millisecond):
	}
	for {
		clk.Step(backoffMax)
		select {
		case err := <-done:
			if err != nil {
				t.Fatal(err)
			}
		case <-time.After(100 * time.Millisecond):
			if time.Now().After(deadline) {
				t.Fatal("the status write was not tried again")
			}
			continue
		}
		break
	}
	for _, name := range exampleSites {
		data, err := os.ReadFile(filepath.Join(statusDir, name+".yaml"))
		if err != nil {
			t.Fatal(err)
		}
		if !strings.Contains(string(data), "\nphase: Installed\n") {
			t.Errorf("%s.yaml is not Installed:\n%s", name, data)
		}
	}
}

// startDirLoop starts a loop over the directory fleet, with the status in
// statusDir, on an engine with engOpts; Run's error arrives on the
// channel. The loop stops at the end of the test.
func startDirLoop(t *testing.T, fleet, statusDir string, engOpts sim.Options, opts ...Option) (*Loop, chan error) {
	t.Helper()
	return startDirLoopWith(t, fleet, statusDir, engOpts, nil, opts...)
}

// startDirLoopWith is startDirLoop with the engine wrapped by wrap, when
// not nil.
func startDirLoopWith(t *testing.T, fleet, statusDir string, engOpts sim.Options, wrap func(engine.Engine) engine.Engine, opts ...Option) (*Loop, chan error) {
	t.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	src, err := source.NewDir(ctx, source.DirOptions{Dir: fleet, StatusDir: statusDir})
	if err != nil {
		cancel()
		t.Fatal(err)
	}
	simEng, err := sim.New(ctx, engOpts)
	if err != nil {
		cancel()
		t.Fatal(err)
	}
	var eng engine.Engine = simEng
	if wrap != nil {
		eng = wrap(simEng)
	}
	manifests, err := sites.ReadManifestDir(os.DirFS("../examples/extra-manifests"), ".")
	if err != nil {
		t.Fatal(err)
	}
	all := append([]Option{WithPolicy(builtinPolicy(t)), WithStatusInterval(0), WithRenderOptions(render.WithDefaultManifests(manifests))}, opts...)
	l := New(src, eng, all...)
	done, stopped := make(chan error, 1), make(chan struct{})
	go func() {
		done <- l.Run(ctx)
		close(stopped)
	}()
	t.Cleanup(func() {
		cancel()
		select {
		case <-stopped:
		case <-time.After(time.Minute):
			t.Error("the loop did not stop")
		}
		simEng.Close()
		src.Close()
	})
	return l, done
}

func TestManualApprovalThroughTheAPI(t *testing.T) {
	fleet := t.TempDir()
	if err := os.CopyFS(fleet, os.DirFS("../examples/fleet")); err != nil {
		t.Fatal(err)
	}
	secret := []byte("approver")
	l, done := startDirLoop(t, fleet, "status", sim.Options{Speed: sim.SpeedMax, Approve: sim.ApproveManual},
		WithUntilInstalled(true), WithWebhookSecret(secret))
	web := httptest.NewServer(l.Handler())
	defer web.Close()
	post := func(site string, body, key []byte) int {
		mac := hmac.New(sha256.New, key)
		mac.Write(body)
		req, _ := http.NewRequest(http.MethodPost, web.URL+"/api/sites/"+site+"/approve", bytes.NewReader(body))
		req.Header.Set(SignatureHeader, "sha256="+hex.EncodeToString(mac.Sum(nil)))
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
		return resp.StatusCode
	}
	approveBody := func(site, host string, at time.Time) []byte {
		body, _ := json.Marshal(ApproveRequest{Site: site, Host: host, Time: at.UTC().Format(time.RFC3339)})
		return body
	}
	approve := func(site, host string, key []byte) int { return post(site, approveBody(site, host, time.Now()), key) }

	// Every host registers and waits for a person.
	hosts := map[string][]string{}
	deadline := time.Now().Add(time.Minute)
	for len(hosts) < len(exampleSites) {
		if time.Now().After(deadline) {
			t.Fatalf("hosts never all waited for approval: %v", hosts)
		}
		hosts = map[string][]string{}
		for _, d := range l.Documents() {
			var names []string
			for _, h := range d.Hosts {
				if h.Agent != "" && !h.Approved {
					names = append(names, h.Name)
				}
			}
			if len(names) == len(d.Hosts) && len(names) > 0 {
				hosts[d.Site] = names
			}
		}
		time.Sleep(20 * time.Millisecond)
	}
	if code := approve("marlow-sno-01", hosts["marlow-sno-01"][0], []byte("guess")); code != http.StatusUnauthorized {
		t.Errorf("approval signed with another secret: %d, want 401", code)
	}
	if code := approve("nosuch-site", "x", secret); code != http.StatusNotFound {
		t.Errorf("approval for an unknown site: %d, want 404", code)
	}
	if code := approve("marlow-sno-01", "nosuch-host", secret); code != http.StatusConflict {
		t.Errorf("approval of an unknown host: %d, want 409", code)
	}
	// What the signature covers: the site, and a time near the server's.
	h0 := hosts["marlow-sno-01"][0]
	if code := post("marlow-sno-01", approveBody("kestrel-3n-01", h0, time.Now()), secret); code != http.StatusBadRequest {
		t.Errorf("a body signed for another site: %d, want 400", code)
	}
	if code := post("marlow-sno-01", approveBody("marlow-sno-01", h0, time.Now().Add(-time.Hour)), secret); code != http.StatusBadRequest {
		t.Errorf("an approval an hour old: %d, want 400", code)
	}
	select {
	case err := <-done:
		t.Fatalf("Run returned %v before any approval", err)
	default:
	}
	first := approveBody("marlow-sno-01", h0, time.Now())
	if code := post("marlow-sno-01", first, secret); code != http.StatusAccepted {
		t.Errorf("approve marlow-sno-01 %s: %d", h0, code)
	}
	if code := post("marlow-sno-01", first, secret); code != http.StatusConflict {
		t.Errorf("the same approval replayed: %d, want 409", code)
	}
	hosts["marlow-sno-01"] = hosts["marlow-sno-01"][1:]
	for site, names := range hosts {
		for _, h := range names {
			if code := approve(site, h, secret); code != http.StatusAccepted {
				t.Errorf("approve %s %s: %d", site, h, code)
			}
		}
	}
	select {
	case err := <-done:
		if err != nil {
			t.Fatalf("Run = %v, want every site installed once approved", err)
		}
	case <-time.After(time.Minute):
		t.Fatal("the approved sites did not install")
	}
}

func TestABlockedMessageSaysWhyAndWhatToDo(t *testing.T) {
	rev, applied := strings.Repeat("a", 40), strings.Repeat("b", 40)
	vip := report.Finding{Rule: "ztp.network.vip-in-machine-network", Severity: report.Deny, Message: "the API VIP is outside the machine network.",
		Pos: sites.Position{File: "kestrel.yaml", Line: 12}, Remediation: "move the VIP into the machine network."}
	for _, tc := range []struct {
		name     string
		findings []report.Finding
		applied  string
		want     []string
	}{
		{"deny with a remedy", []report.Finding{vip}, applied, []string{
			"Revision aaaaaaaaaaaa is not applied: why (kestrel.yaml:12: ztp.network.vip-in-machine-network: the API VIP is outside the machine network).",
			"The engine keeps revision bbbbbbbbbbbb.", "To fix it: move the VIP into the machine network.", "Push a commit"}},
		{"two findings", []report.Finding{vip, vip}, "", []string{"; and 1 more)", "Nothing was applied yet.", "To fix it:"}},
		{"no finding", nil, applied, []string{"is not applied: why. The engine keeps", "Push a commit"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got := blockedMessage(rev, "why", tc.findings, tc.applied)
			for _, w := range tc.want {
				if !strings.Contains(got, w) {
					t.Errorf("message lacks %q:\n%s", w, got)
				}
			}
			if strings.Contains(got, "..") {
				t.Errorf("message has a doubled period:\n%s", got)
			}
		})
	}
}

func TestAnApplyThatFailsSaysWhy(t *testing.T) {
	fleet, names := singleNodeFleet(t, 2)
	eng := &failingEngine{}
	startDirLoopWith(t, fleet, "status", sim.Options{Speed: sim.SpeedMax},
		func(e engine.Engine) engine.Engine { eng.Engine = e; return eng })
	statusDir := filepath.Join(fleet, "status")
	waitDirStatus(t, statusDir, "two sites Installed", allInstalled(names))

	eng.failApply.Store(true)
	writeFile(t, fleet, "sitea.yaml", strings.Replace(read(t, filepath.Join(fleet, "sitea.yaml")), "region: north", "region: north-2", 1))
	docs := waitDirStatus(t, statusDir, "sitea blocked", func(docs map[string]status.Document) bool {
		return docs[names[0]].Reason == engine.ReasonEngineError
	})
	if p := docs[names[0]].Phase; p != engine.PhaseInstalled {
		t.Errorf("sitea's phase %s; an apply that fails leaves the engine's phase", p)
	}
	if m := docs[names[0]].Message; !strings.Contains(m, "(the hub refuses the bundle)") || !strings.Contains(m, "The engine keeps revision") {
		t.Errorf("sitea's message: %q, want the engine's reason and the revision it keeps", m)
	}
	if d := docs[names[1]]; d.Phase != engine.PhaseInstalled {
		t.Errorf("siteb: %s: %s, want Installed", d.Phase, d.Message)
	}
}

func TestABundleRefusedInABatchKeepsNoOtherOut(t *testing.T) {
	fleet, names := singleNodeFleet(t, 2)
	eng := &batchRefusingEngine{}
	startDirLoopWith(t, fleet, "status", sim.Options{Speed: sim.SpeedMax},
		func(e engine.Engine) engine.Engine { eng.Engine = e; return eng })
	statusDir := filepath.Join(fleet, "status")
	before := waitDirStatus(t, statusDir, "two sites Installed", allInstalled(names))

	eng.refuse.Store(names[0])
	for _, f := range []string{"sitea.yaml", "siteb.yaml"} {
		writeFile(t, fleet, f, strings.Replace(read(t, filepath.Join(fleet, f)), "region: north", "region: north-2", 1))
	}
	docs := waitDirStatus(t, statusDir, "sitea blocked and siteb applied", func(docs map[string]status.Document) bool {
		b := docs[names[1]]
		return docs[names[0]].Reason == engine.ReasonEngineError &&
			b.Revision != before[names[1]].Revision && b.Revision == b.ObservedRevision
	})
	if m := docs[names[0]].Message; !strings.Contains(m, "(the hub refuses the bundle)") {
		t.Errorf("sitea's message: %q, want the engine's reason", m)
	}
	if eng.batches.Load() == 0 {
		t.Error("the loop never handed a batch to an engine that takes batches")
	}
}

func TestShutdownWritesTheLastStatus(t *testing.T) {
	fleet := t.TempDir()
	if err := os.CopyFS(fleet, os.DirFS("../examples/fleet")); err != nil {
		t.Fatal(err)
	}
	statusDir := filepath.Join(fleet, "status")
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	src, err := source.NewDir(ctx, source.DirOptions{Dir: fleet})
	if err != nil {
		t.Fatal(err)
	}
	defer src.Close()
	eng, err := sim.New(ctx, sim.Options{Stepped: true})
	if err != nil {
		t.Fatal(err)
	}
	defer eng.Close()
	manifests, err := sites.ReadManifestDir(os.DirFS("../examples/extra-manifests"), ".")
	if err != nil {
		t.Fatal(err)
	}
	// Progress is written at most hourly: only the first pass and the
	// shutdown write within the test. The engine's clock moves only when
	// the test steps it.
	l := New(src, eng, WithPolicy(builtinPolicy(t)), WithStatusInterval(time.Hour), WithRenderOptions(render.WithDefaultManifests(manifests)))
	done := make(chan error, 1)
	go func() { done <- l.Run(ctx) }()
	waitDirStatus(t, statusDir, "the first pass written", func(docs map[string]status.Document) bool { return len(docs) == len(exampleSites) })
	if allInstalled(exampleSites)(dirStatus(t, statusDir)) {
		t.Fatal("the first pass found the fleet installed already")
	}
	for range 48 {
		if allEngineInstalled(t, eng) {
			break
		}
		if err := eng.Advance(ctx, time.Hour); err != nil {
			t.Fatal(err)
		}
	}
	if !allEngineInstalled(t, eng) {
		t.Fatal("the engine did not install the fleet in 48 virtual hours")
	}
	if allInstalled(exampleSites)(dirStatus(t, statusDir)) {
		t.Fatal("the status was written before the shutdown; the test proves nothing")
	}
	cancel()
	select {
	case err := <-done:
		if !errors.Is(err, context.Canceled) {
			t.Fatalf("Run = %v, want context.Canceled", err)
		}
	case <-time.After(time.Minute):
		t.Fatal("Run did not return after the cancel")
	}
	if docs := dirStatus(t, statusDir); !allInstalled(exampleSites)(docs) {
		t.Errorf("the status at shutdown is not the engine's last: %s", summarize(docs))
	}
}

// allEngineInstalled reports whether the engine has installed every
// example site.
func allEngineInstalled(t *testing.T, eng engine.Engine) bool {
	t.Helper()
	for _, name := range exampleSites {
		st, err := eng.Status(context.Background(), name)
		if err != nil || st.Phase != engine.PhaseInstalled {
			return false
		}
	}
	return true
}

func TestSignedRequestsWithoutASecretSayHowToTurnThemOn(t *testing.T) {
	l := New(nil, nil, WithRegistry(prometheus.NewRegistry()))
	web := httptest.NewServer(l.Handler())
	defer web.Close()
	for _, path := range []string{"/hooks/git", "/api/sites/marlow-sno-01/approve"} {
		resp, err := http.Post(web.URL+path, "application/json", strings.NewReader(`{"host":"a"}`))
		if err != nil {
			t.Fatal(err)
		}
		msg, _ := io.ReadAll(resp.Body)
		resp.Body.Close()
		if resp.StatusCode != http.StatusForbidden || !strings.Contains(string(msg), "--webhook-secret-file") {
			t.Errorf("POST %s without a configured secret: %d %q, want 403 naming --webhook-secret-file", path, resp.StatusCode, msg)
		}
	}
}
