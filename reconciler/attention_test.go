package reconciler

import (
	"bytes"
	"encoding/json"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/siteops/siteops/engine"
	"github.com/siteops/siteops/engine/sim"
	"github.com/siteops/siteops/reconciler/status"
)

// syncBuffer is a log sink the loop and the test share.
type syncBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (s *syncBuffer) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.Write(p)
}

func (s *syncBuffer) String() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.String()
}

// gauge reads one labelled value of a gauge.
func gauge(t *testing.T, l *Loop, name, label, value string) float64 {
	t.Helper()
	mfs, err := l.o.gatherer.Gather()
	if err != nil {
		t.Fatal(err)
	}
	for _, mf := range mfs {
		if mf.GetName() != name {
			continue
		}
		for _, m := range mf.GetMetric() {
			for _, lp := range m.GetLabel() {
				if lp.GetName() == label && lp.GetValue() == value {
					return m.GetGauge().GetValue()
				}
			}
		}
	}
	t.Fatalf("no metric %s{%s=%q}", name, label, value)
	return 0
}

// Each case of attention, built from sites of examples/sim: a worker that
// fails while the cluster installs, a host short of CPUs, a machine that
// never registers, and a change the engine refuses. Each shows in the
// status document, the WARN log, the metric and the dashboard; the site
// that installs cleanly shows in none.
func TestAttentionCasesReachEveryOutput(t *testing.T) {
	fleet := t.TempDir()
	copyTree(t, "../examples/sim", fleet)
	logs := &syncBuffer{}
	logger := slog.New(slog.NewTextHandler(logs, &slog.HandlerOptions{Level: slog.LevelInfo}))
	l, _ := startDirLoop(t, fleet, "status", sim.Options{Speed: sim.SpeedMax}, WithLogger(logger))
	statusDir := filepath.Join(fleet, "status")

	want := map[string]engine.Reason{
		"aster-ha-01":  engine.ReasonPartiallyInstalled,
		"birch-sno-01": engine.ReasonValidationsFailing,
		"dune-sno-01":  engine.ReasonNotRegistering,
		"cedar-sno-01": "",
	}
	docs := waitDirStatus(t, statusDir, "every site with its reason", func(docs map[string]status.Document) bool {
		for site, r := range want {
			d, ok := docs[site]
			if !ok || d.Reason != r || (site == "cedar-sno-01" || site == "aster-ha-01") && d.Phase != engine.PhaseInstalled {
				return false
			}
		}
		return true
	})
	for site, r := range want {
		if got := status.NeedsAttention(ptr(docs[site])); got != (r != "") {
			t.Errorf("%s: needs attention %v with reason %q", site, got, r)
		}
	}
	for site, r := range want {
		line := "site needs attention\" site=" + site
		if has := strings.Contains(logs.String(), line); has != (r != "") {
			t.Errorf("%s: WARN line present %v, want %v:\n%s", site, has, r != "", logs.String())
		}
		if r != "" && !strings.Contains(logs.String(), "level=WARN msg=\"site needs attention\" site="+site) {
			t.Errorf("%s: the attention line is not at WARN level", site)
		}
	}
	srv := httptest.NewServer(l.Handler())
	defer srv.Close()
	l.publish()
	for _, r := range []engine.Reason{engine.ReasonPartiallyInstalled, engine.ReasonValidationsFailing, engine.ReasonNotRegistering} {
		if n := gauge(t, l, "siteops_sites_attention", "reason", string(r)); n != 1 {
			t.Errorf("siteops_sites_attention{reason=%q} = %v, want 1", r, n)
		}
	}
	if n := gauge(t, l, "siteops_sites_attention", "reason", string(engine.ReasonNoProgress)); n != 0 {
		t.Errorf("siteops_sites_attention{reason=NoProgress} = %v, want 0", n)
	}
	var o struct {
		Attention int `json:"attention"`
		Rows      []struct {
			Site      string `json:"site"`
			Reason    string `json:"reason"`
			Attention string `json:"attention"`
		} `json:"rows"`
	}
	getJSON(t, srv.URL+"/api/sites?attention=1", &o)
	if o.Attention != 3 || len(o.Rows) != 3 {
		t.Fatalf("dashboard: %d need attention, %d rows; want 3: %+v", o.Attention, len(o.Rows), o.Rows)
	}
	for _, row := range o.Rows {
		if row.Reason != string(want[row.Site]) || !strings.HasPrefix(row.Attention, row.Reason+": ") {
			t.Errorf("dashboard row %+v", row)
		}
	}

	// A change the engine refuses (a hardware value it cannot read) keeps
	// the installed revision and says which it refused.
	installedRev := docs["cedar-sno-01"].Revision
	cedar := filepath.Join(fleet, "cedar-sno.yaml")
	writeFile(t, fleet, "cedar-sno.yaml", strings.Replace(read(t, cedar), "cpus=8,", "cpus=eight,", 1))
	docs = waitDirStatus(t, statusDir, "cedar refused", func(docs map[string]status.Document) bool {
		return docs["cedar-sno-01"].Reason == engine.ReasonChangeRefused
	})
	d := docs["cedar-sno-01"]
	if d.Revision != installedRev || d.RefusedRevision == "" || d.RefusedRevision == installedRev || d.RefusedRevision != d.ObservedRevision {
		t.Errorf("cedar: revision %q refused %q observed %q; want the installed one kept and the new one refused", d.Revision, d.RefusedRevision, d.ObservedRevision)
	}
	if d.Phase != engine.PhaseInstalled || !strings.HasPrefix(d.Message, "Refused: ") {
		t.Errorf("cedar: %s: %s", d.Phase, d.Message)
	}
}

func ptr[T any](v T) *T { return &v }

func getJSON(t *testing.T, url string, v any) {
	t.Helper()
	client := &http.Client{Timeout: 30 * time.Second}
	resp, err := client.Get(url)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	if resp.StatusCode != 200 {
		t.Fatalf("GET %s: %s", url, resp.Status)
	}
	if err := json.NewDecoder(resp.Body).Decode(v); err != nil {
		t.Fatal(err)
	}
}

// A site added by a later commit that reuses the boot MAC of a site the
// commit did not touch is blocked by the incremental pass, as a check of
// the whole tree would block it; the site it collides with goes on.
func TestAnIncrementalPassHoldsANewSiteToTheWholeFleet(t *testing.T) {
	fleet, statusDir, names := twoInstalledSites(t)
	docs := addSitecWithMACOfSitea(t, fleet, statusDir)
	c := docs["sitec-sno-01"]
	if c.Phase != engine.PhasePolicyFailed || c.Reason != engine.ReasonPolicyDenied {
		t.Errorf("sitec: %s/%s", c.Phase, c.Reason)
	}
	if !hasMACFinding(c, names[0]) {
		t.Errorf("sitec has no mac-unique finding naming %s: %+v", names[0], c.Findings)
	}
	for _, n := range names {
		if d := docs[n]; d.Phase != engine.PhaseInstalled || d.Reason != "" {
			t.Errorf("%s: %s/%s: %s", n, d.Phase, d.Reason, d.Message)
		}
	}
}

// A second definition of a site, in a file added later, is not used: the
// pass reports it and checks nothing of it, so neither the site it
// repeats nor a site whose boot MAC it takes gets a finding from it, and
// the fleet keeps the first definition's facts: a new site with the first
// one's boot MAC is still held to it.
func TestASecondDefinitionIsNotChecked(t *testing.T) {
	fleet, statusDir, names := twoInstalledSites(t)

	// sitea again, under its own name, with siteb's boot MAC.
	sitea := read(t, filepath.Join(fleet, "sitea.yaml"))
	writeFile(t, fleet, "sitea-again.yaml", strings.ReplaceAll(sitea, "0a:5e:00:7a", "0a:5e:00:7b"))
	deadline := time.Now().Add(time.Minute)
	for !strings.Contains(readOrEmpty(filepath.Join(statusDir, "README.md")), "already defined") {
		if time.Now().After(deadline) {
			t.Fatalf("the second definition is not reported:\n%s", readOrEmpty(filepath.Join(statusDir, "README.md")))
		}
		time.Sleep(50 * time.Millisecond)
	}
	docs := dirStatus(t, statusDir)
	for _, n := range names {
		d := docs[n]
		if d.Phase != engine.PhaseInstalled || d.Reason != "" {
			t.Errorf("%s: %s/%s: %s", n, d.Phase, d.Reason, d.Message)
		}
		for _, f := range d.Findings {
			if f.Rule == "ztp.nodes.mac-unique" {
				t.Errorf("%s has a finding from the definition not used: %s", n, f.Message)
			}
		}
	}
	if readme := readOrEmpty(filepath.Join(statusDir, "README.md")); strings.Contains(readme, "mac-unique") {
		t.Errorf("the definition not used was checked:\n%s", readme)
	}

	c := addSitecWithMACOfSitea(t, fleet, statusDir)["sitec-sno-01"]
	if !hasMACFinding(c, names[0]) {
		t.Errorf("sitec, with sitea's boot MAC, is %s with no mac-unique finding naming %s: %+v", c.Phase, names[0], c.Findings)
	}
}

// twoInstalledSites starts a loop on two single-node sites, sitea and
// siteb, and waits until both are Installed.
func twoInstalledSites(t *testing.T) (fleet, statusDir string, names []string) {
	t.Helper()
	fleet, names = singleNodeFleet(t, 2)
	startDirLoop(t, fleet, "status", sim.Options{Speed: sim.SpeedMax})
	statusDir = filepath.Join(fleet, "status")
	waitDirStatus(t, statusDir, "two sites Installed", allInstalled(names))
	return fleet, statusDir, names
}

// addSitecWithMACOfSitea adds sitec, a copy of sitea under another name
// and addresses but with sitea's boot MAC, and waits for its status.
func addSitecWithMACOfSitea(t *testing.T, fleet, statusDir string) map[string]status.Document {
	t.Helper()
	sitea := read(t, filepath.Join(fleet, "sitea.yaml"))
	writeFile(t, fleet, "sitec.yaml", strings.NewReplacer("sitea", "sitec", "198.51.100.70", "198.51.100.79").Replace(sitea))
	return waitDirStatus(t, statusDir, "sitec decided", func(docs map[string]status.Document) bool {
		return docs["sitec-sno-01"].Phase != ""
	})
}

// hasMACFinding reports whether d has a mac-unique finding naming site.
func hasMACFinding(d status.Document, site string) bool {
	for _, f := range d.Findings {
		if f.Rule == "ztp.nodes.mac-unique" && strings.Contains(f.Message, site) {
			return true
		}
	}
	return false
}

func readOrEmpty(p string) string {
	data, _ := os.ReadFile(p)
	return string(data)
}

// A site that loads but does not render (an extra manifest that is not
// YAML) is blocked as RenderFailed, with the render's problem; the others
// install.
func TestASiteThatDoesNotRenderIsBlocked(t *testing.T) {
	fleet, names := singleNodeFleet(t, 2)
	writeFile(t, fleet, "em/bad.yaml", "apiVersion: v1\nkind: ConfigMap\nmetadata: [\n")
	siteb := filepath.Join(fleet, "siteb.yaml")
	writeFile(t, fleet, "siteb.yaml", strings.Replace(read(t, siteb), "      networkType: OVNKubernetes\n",
		"      networkType: OVNKubernetes\n      extraManifestPath: em\n", 1))
	startDirLoop(t, fleet, "status", sim.Options{Speed: sim.SpeedMax})
	docs := waitDirStatus(t, filepath.Join(fleet, "status"), "sitea Installed, siteb blocked", func(docs map[string]status.Document) bool {
		return docs[names[0]].Phase == engine.PhaseInstalled && docs[names[1]].Phase != ""
	})
	b := docs[names[1]]
	if b.Phase != engine.PhaseInvalid || b.Reason != engine.ReasonRenderFailed || !strings.Contains(b.Message, "does not render") {
		t.Errorf("siteb: %s/%s: %s", b.Phase, b.Reason, b.Message)
	}
	found := false
	for _, f := range b.Findings {
		found = found || strings.Contains(f.Message, "em/bad.yaml")
	}
	if !found {
		t.Errorf("siteb's findings do not name em/bad.yaml: %+v", b.Findings)
	}
}
