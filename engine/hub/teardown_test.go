package hub_test

import (
	"strings"
	"testing"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/client-go/dynamic"
	"k8s.io/client-go/kubernetes"

	"github.com/siteops/siteops/engine"
	"github.com/siteops/siteops/engine/assisted"
	"github.com/siteops/siteops/engine/hub"
	"github.com/siteops/siteops/internal/hubtest"
)

// TestDeleteOrderAndStuckFinalizer deletes a site whose ClusterDeployment
// carries the assisted-service finalizer, with nobody to remove it: after
// the delete timeout the status names the object and the finalizer, and
// nothing after it in the teardown order is deleted. Once the test (as
// the controller) removes the finalizer, the teardown goes on in order,
// the Namespace last.
func TestDeleteOrderAndStuckFinalizer(t *testing.T) {
	h := hubtest.Shared(t)
	ctx := testContext(t)
	const site = "delete-sno"
	b := exampleBundle(t, exampleSNO, site)
	e := newEngine(t, h.Config())
	applyAll(t, e, h.Config(), b, "rev1")
	dyn := dynamic.NewForConfigOrDie(h.Config())
	fin := `{"metadata":{"finalizers":["` + assisted.FinalizerClusterDeployment + `"]}}`
	if _, err := dyn.Resource(gvrCD).Namespace(site).Patch(ctx, site, types.MergePatchType, []byte(fin), metav1.PatchOptions{FieldManager: "assisted-service"}); err != nil {
		t.Fatal(err)
	}
	var log requestLog
	del := newEngine(t, log.wrap(h.Config()), hub.WithDeleteTimeout(time.Second))
	if err := del.Delete(ctx, site); err != nil {
		t.Fatal(err)
	}
	st := waitStatus(t, del, site, func(st engine.SiteStatus) bool { return strings.Contains(st.Message, "deletion stuck") })
	if st.Phase != engine.PhaseDeleting || st.Reason != engine.ReasonDeletionStuck {
		t.Errorf("phase %s reason %s, want Deleting, DeletionStuck", st.Phase, st.Reason)
	}
	for _, want := range []string{"ClusterDeployment " + site + "/" + site, assisted.FinalizerClusterDeployment, "assisted-service", "kubectl patch clusterdeployment.hive.openshift.io " + site + " -n " + site} {
		if !strings.Contains(st.Message, want) {
			t.Errorf("stuck message lacks %q: %s", want, st.Message)
		}
	}
	if d := deletes(log.list()); len(d) != 1 || !strings.Contains(d[0], "/clusterdeployments/") {
		t.Fatalf("while the ClusterDeployment stays, nothing else may be deleted; deleted %v", d)
	}

	// The controller finishes: the finalizer goes.
	if _, err := dyn.Resource(gvrCD).Namespace(site).Patch(ctx, site, types.MergePatchType, []byte(`{"metadata":{"finalizers":null}}`), metav1.PatchOptions{}); err != nil {
		t.Fatal(err)
	}
	// Without a namespace controller the Namespace stays Terminating:
	// the test finalizes it as kube-controller-manager would.
	cs := kubernetes.NewForConfigOrDie(h.Config())
	waitFor(t, "namespace "+site+" terminating", func() bool {
		ns, err := cs.CoreV1().Namespaces().Get(ctx, site, metav1.GetOptions{})
		return err == nil && ns.DeletionTimestamp != nil
	})
	st = waitStatus(t, del, site, func(st engine.SiteStatus) bool {
		return strings.Contains(st.Message, "Namespace "+site+" is still there")
	})
	if !strings.Contains(st.Message, "kubernetes (removed by the namespace controller") {
		t.Errorf("the stuck namespace's message does not name its finalizer: %s", st.Message)
	}
	ns, err := cs.CoreV1().Namespaces().Get(ctx, site, metav1.GetOptions{})
	if err != nil {
		t.Fatal(err)
	}
	ns.Spec.Finalizers = nil
	if _, err := cs.CoreV1().Namespaces().Finalize(ctx, ns, metav1.UpdateOptions{}); err != nil {
		t.Fatal(err)
	}
	waitGone(t, del, site)

	// The order of the deletes: ClusterDeployment, AgentClusterInstall,
	// ManagedCluster and KlusterletAddonConfig, BareMetalHost and
	// firmware settings, the rest, the Namespace.
	order := []string{"clusterdeployments", "agentclusterinstalls", "klusterletaddonconfigs|managedclusters", "baremetalhosts|hostfirmwaresettings", "configmaps|infraenvs|nmstateconfigs", "/namespaces/" + site + "$"}
	d := deletes(log.list())
	if len(d) != len(b.Objects) {
		t.Errorf("%d deletes for %d objects: %v", len(d), len(b.Objects), d)
	}
	step := 0
	for _, r := range d {
		for step < len(order) && !matchAny(r, order[step]) {
			step++
		}
		if step == len(order) {
			t.Fatalf("delete out of order: %s in %v", r, d)
		}
	}
}

func deletes(reqs []string) []string {
	var out []string
	for _, r := range reqs {
		if strings.HasPrefix(r, "DELETE ") {
			out = append(out, r)
		}
	}
	return out
}

// matchAny reports whether r contains one of the |-separated parts; a
// part ending in $ must end r.
func matchAny(r, alts string) bool {
	for _, a := range strings.Split(alts, "|") {
		if strings.HasSuffix(a, "$") {
			if strings.HasSuffix(r, strings.TrimSuffix(a, "$")) {
				return true
			}
		} else if strings.Contains(r, "/"+strings.Trim(a, "/")+"/") {
			return true
		}
	}
	return false
}
