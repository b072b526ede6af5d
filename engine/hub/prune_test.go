package hub_test

import (
	"slices"
	"strings"
	"testing"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/dynamic"

	"github.com/siteops/siteops/engine"
	"github.com/siteops/siteops/internal/hubtest"
	"github.com/siteops/siteops/render"
)

// TestNodeRemovedInOneStep applies the example HA site, then the same
// site without its last worker: the worker's BareMetalHost,
// NMStateConfig and HostFirmwareSettings go in that one apply, the rest
// of the site stays, and the next apply of the same bundle sends
// nothing.
func TestNodeRemovedInOneStep(t *testing.T) {
	h := hubtest.Shared(t)
	ctx := testContext(t)
	const site = "prune-ha"
	b := exampleBundle(t, "granite-ha-01", site)
	e := newEngine(t, h.Config())
	applyAll(t, e, h.Config(), b, "rev1")

	const worker = "granite-w-1.granite.example.net"
	smaller := &render.Bundle{Site: site}
	var removed []string
	for _, o := range b.Objects {
		if o.Name == worker {
			removed = append(removed, o.Ref())
			continue
		}
		smaller.Objects = append(smaller.Objects, o)
	}
	if len(removed) != 3 {
		t.Fatalf("the worker has %d objects in the bundle, want 3 (BareMetalHost, NMStateConfig, HostFirmwareSettings): %v", len(removed), removed)
	}
	var log requestLog
	e2 := newEngine(t, log.wrap(h.Config()))
	if err := e2.Apply(ctx, smaller, "rev2"); err != nil {
		t.Fatal(err)
	}
	var deleted []string
	for _, r := range deletes(log.list()) {
		deleted = append(deleted, kindOfPath(r))
		if !strings.HasSuffix(r, "/"+worker) {
			t.Errorf("deleted an object of another node: %s", r)
		}
	}
	slices.Sort(deleted)
	if want := []string{"baremetalhost", "hostfirmwaresetting", "nmstateconfig"}; !slices.Equal(deleted, want) {
		t.Errorf("deleted %v, want %v", deleted, want)
	}
	dyn := dynamic.NewForConfigOrDie(h.Config())
	bmhs, err := dyn.Resource(gvrBMH).Namespace(site).List(ctx, metav1.ListOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if len(bmhs.Items) != 4 {
		t.Errorf("%d BareMetalHosts left, want 4", len(bmhs.Items))
	}
	st := waitStatus(t, e2, site, func(st engine.SiteStatus) bool { return len(st.Resources) == len(smaller.Objects) })
	if st.Revision != "rev2" || st.Reason != "" {
		t.Errorf("revision %q reason %q after the removal", st.Revision, st.Reason)
	}
	log.reset()
	if err := e2.Apply(ctx, smaller, "rev2"); err != nil {
		t.Fatal(err)
	}
	if got := log.list(); len(got) != 0 {
		t.Errorf("the smaller bundle again sent %v", got)
	}
}
