package hubsim_test

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"testing"
	"time"

	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/labels"
	"k8s.io/client-go/rest"

	"github.com/siteops/siteops/engine"
	"github.com/siteops/siteops/engine/hub"
	"github.com/siteops/siteops/engine/hubsim"
	"github.com/siteops/siteops/engine/sim"
	"github.com/siteops/siteops/internal/hubtest"
	"github.com/siteops/siteops/render"
)

// pair runs the same sites through the embedded engine and through the hub
// engine with the simulator behind it.
type pair struct {
	t    *testing.T
	cfg  *rest.Config
	test string
	emb  *sim.Engine
	hub  *hub.Engine
	sim  *hubsim.Simulator
}

func newPair(t *testing.T, cfg *rest.Config, test string) *pair {
	t.Helper()
	ctx := testContext(t)
	emb, err := sim.New(ctx, sim.Options{Speed: sim.SpeedMax})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { emb.Close() })
	// The hub engine labels what it applies with its instance: the
	// simulator of the test takes the namespaces siteops created.
	hs := startSimOf(t, cfg, test, labels.SelectorFromSet(labels.Set{hub.LabelInstance: test}))
	// The settle bound runs on the engine's clock: virtual minutes in the
	// embedded engine, wall seconds on the hub.
	he, err := hub.New(ctx, cfg, hub.WithRateLimit(500, 1000), hub.WithRetryInterval(300*time.Millisecond), hub.WithInstance(test),
		hub.WithBounds(engine.Bounds{SettleAfter: 2 * time.Second}))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { he.Close() })
	return &pair{t: t, cfg: cfg, test: test, emb: emb, hub: he, sim: hs}
}

// apply gives both engines the bundle; on the hub, siteops creates the
// site's namespace and the operator then puts the prerequisites there.
func (p *pair) apply(b *render.Bundle, rev string) {
	p.t.Helper()
	ctx := testContext(p.t)
	if err := p.emb.Apply(ctx, b, rev); err != nil {
		p.t.Fatal(err)
	}
	if err := p.hub.Apply(ctx, b, rev); err != nil {
		p.t.Fatal(err)
	}
	if err := hubtest.CreatePrerequisites(ctx, p.cfg, b, false); err != nil {
		p.t.Fatal(err)
	}
	if err := p.hub.Apply(ctx, b, rev); err != nil {
		p.t.Fatal(err)
	}
}

// settle waits until the embedded engine's site reached done, then until
// the hub engine reports the same document, and fails with the
// differences if it never does.
func (p *pair) settle(site string, done func(engine.SiteStatus) bool) engine.SiteStatus {
	p.t.Helper()
	var want engine.SiteStatus
	waitFor(p.t, "embedded site "+site, func() (bool, string) {
		st, err := p.emb.Status(context.Background(), site)
		want = st
		return err == nil && done(st), fmt.Sprintf("%s %s", st.Phase, st.Message)
	})
	w := normalize(want)
	var g string
	deadline := time.Now().Add(settleTimeout)
	for time.Now().Before(deadline) {
		got, err := p.hub.Status(context.Background(), site)
		g = normalize(got)
		if err == nil && g == w {
			return want
		}
		time.Sleep(200 * time.Millisecond)
	}
	inner, _ := p.sim.Engine().Status(context.Background(), site)
	p.t.Logf("the simulator's own status of %s: %s %s", site, inner.Phase, inner.Message)
	p.t.Fatalf("site %s: the hub's status differs from the embedded engine's:\n%s", site, lineDiff(w, g))
	return want
}

// settleTimeout bounds how long the hub's document may lag the embedded
// engine's once that one is final.
const settleTimeout = 45 * time.Second

// gone waits until both engines no longer have the site.
func (p *pair) gone(site string) {
	p.t.Helper()
	waitFor(p.t, "site "+site+" deleted from both engines", func() (bool, string) {
		_, e1 := p.emb.Status(context.Background(), site)
		st, e2 := p.hub.Status(context.Background(), site)
		return errors.Is(e1, engine.ErrNotFound) && errors.Is(e2, engine.ErrNotFound), fmt.Sprintf("embedded %v, hub %v %s", e1, e2, st.Message)
	})
}

// normalize leaves out of a status what differs by nature between two
// runs: times, events (each engine's own log) and generated ids.
func normalize(st engine.SiteStatus) string {
	st.Events = nil
	st.LastProgressAt = nil
	st.Cluster.InstallStartedAt, st.Cluster.InstalledAt = nil, nil
	if m := st.Cluster.Metadata; m != nil {
		c := *m
		c.ClusterID, c.InfraID = "", ""
		st.Cluster.Metadata = &c
	}
	for i := range st.Hosts {
		st.Hosts[i].Agent = ""
	}
	for i := range st.Resources {
		r := &st.Resources[i]
		if r.Kind == "Agent" {
			r.Name = ""
		}
		for j := range r.Conditions {
			r.Conditions[j].LastTransitionTime = time.Time{}
		}
	}
	b, _ := json.MarshalIndent(st, "", "  ")
	return string(b)
}

// lineDiff shows the lines of a and b that differ, side by side.
func lineDiff(a, b string) string {
	al, bl := strings.Split(a, "\n"), strings.Split(b, "\n")
	var out []string
	for i := range max(len(al), len(bl)) {
		var x, y string
		if i < len(al) {
			x = al[i]
		}
		if i < len(bl) {
			y = bl[i]
		}
		if x != y {
			out = append(out, fmt.Sprintf("line %d\n  embedded: %s\n  hub:      %s", i+1, x, y))
		}
	}
	if len(out) > 40 {
		out = append(out[:40], "...")
	}
	return strings.Join(out, "\n") + "\n--- embedded\n" + a + "\n--- hub\n" + b
}

func installed(st engine.SiteStatus) bool { return st.Phase == engine.PhaseInstalled }

// The example single-node site ends with the same status document through
// both engines.
func TestEquivalenceSNO(t *testing.T) {
	h := hubtest.Shared(t)
	p := newPair(t, h.Config(), "eqsno")
	b, err := hubtest.ExampleBundle(repoRoot, exampleSNO, "eq-sno")
	if err != nil {
		t.Fatal(err)
	}
	p.apply(b, "r1")
	p.settle("eq-sno", installed)
}

// without returns the bundle without the objects of a node (those named
// after its host name, and its BMC Secret).
func without(b *render.Bundle, node string) *render.Bundle {
	out := &render.Bundle{Site: b.Site}
	for _, o := range b.Objects {
		if !strings.Contains(o.Name, node) {
			out.Objects = append(out.Objects, o)
		}
	}
	return out
}

// A multi-node site through its life: installed without one worker, the
// worker added as a day-2 host by a later revision, another worker
// removed, then the site deleted. After each step both engines end with
// the same status document.
func TestEquivalenceLifecycle(t *testing.T) {
	h := hubtest.Shared(t)
	p := newPair(t, h.Config(), "eqlife")
	const site = "eq-life"
	full, err := hubtest.ExampleBundle(repoRoot, "granite-ha-01", site)
	if err != nil {
		t.Fatal(err)
	}
	day1 := without(full, "granite-w-1")
	if len(day1.Objects) == len(full.Objects) {
		t.Fatal("the example HA site has no worker granite-w-1")
	}
	for i, o := range day1.Objects {
		if o.Kind == render.KindAgentClusterInstall {
			c := *o
			c.Content = deepCopy(o.Content)
			if err := unstructured.SetNestedField(c.Content, int64(1), "spec", "provisionRequirements", "workerAgents"); err != nil {
				t.Fatal(err)
			}
			day1.Objects[i] = &c
		}
	}
	p.apply(day1, "r1")
	p.settle(site, installed)

	p.apply(full, "r2")
	p.settle(site, func(st engine.SiteStatus) bool {
		return installed(st) && st.Revision == "r2" && len(st.Hosts) == 5 && allDone(st)
	})

	removed := without(full, "granite-w-0")
	p.apply(removed, "r3")
	p.settle(site, func(st engine.SiteStatus) bool {
		return installed(st) && st.Revision == "r3" && len(st.Hosts) == 4
	})

	if err := p.emb.Delete(context.Background(), site); err != nil {
		t.Fatal(err)
	}
	if err := p.hub.Delete(context.Background(), site); err != nil {
		t.Fatal(err)
	}
	p.gone(site)
}

func deepCopy(m map[string]any) map[string]any {
	return (&unstructured.Unstructured{Object: m}).DeepCopy().Object
}

// allDone reports whether every host finished installing.
func allDone(st engine.SiteStatus) bool {
	for _, h := range st.Hosts {
		if h.Percent != 100 {
			return false
		}
	}
	return true
}

// withHardware sets the simulated hardware of one node's BareMetalHost.
func withHardware(t *testing.T, b *render.Bundle, node, hw string) *render.Bundle {
	t.Helper()
	out := &render.Bundle{Site: b.Site}
	found := false
	for _, o := range b.Objects {
		if o.Kind == render.KindBareMetalHost && strings.Contains(o.Name, node) {
			c := *o
			c.Content = deepCopy(o.Content)
			ann, _, _ := unstructured.NestedStringMap(c.Content, "metadata", "annotations")
			if ann == nil {
				ann = map[string]string{}
			}
			ann[sim.AnnotationHardware] = hw
			if err := unstructured.SetNestedStringMap(c.Content, ann, "metadata", "annotations"); err != nil {
				t.Fatal(err)
			}
			o, found = &c, true
		}
		out.Objects = append(out.Objects, o)
	}
	if !found {
		t.Fatalf("site %s has no BareMetalHost %s", b.Site, node)
	}
	return out
}

// A host that fails a validation holds its site in discovery, and a
// worker that fails during the installation fails the cluster (the site
// asks for both its workers): both engines say so in the same words.
func TestEquivalenceFailures(t *testing.T) {
	h := hubtest.Shared(t)
	p := newPair(t, h.Config(), "eqfail")
	sno, err := hubtest.ExampleBundle(repoRoot, exampleSNO, "eq-invalid")
	if err != nil {
		t.Fatal(err)
	}
	p.apply(withHardware(t, sno, exampleSNO, "memoryMiB=8192"), "r1")
	ha, err := hubtest.ExampleBundle(repoRoot, "granite-ha-01", "eq-failed-worker")
	if err != nil {
		t.Fatal(err)
	}
	p.apply(withHardware(t, ha, "granite-w-1", "failAt=writing-image-to-disk"), "r1")

	st := p.settle("eq-invalid", func(st engine.SiteStatus) bool { return st.Reason == engine.ReasonValidationsFailing })
	if len(st.Hosts) != 1 || len(st.Hosts[0].Validations) == 0 {
		t.Errorf("the host of eq-invalid fails no validation: %+v", st.Hosts)
	}
	st = p.settle("eq-failed-worker", func(st engine.SiteStatus) bool { return st.Phase == engine.PhaseFailed })
	for _, h := range st.Hosts {
		if strings.Contains(h.Name, "granite-w-1") && !strings.Contains(h.StateInfo, "simulated failure") {
			t.Errorf("the failed worker says %q", h.StateInfo)
		}
	}
}
