package hub_test

import (
	"context"
	"strings"
	"testing"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/client-go/dynamic"
	"k8s.io/client-go/kubernetes"

	"github.com/siteops/siteops/engine"
	"github.com/siteops/siteops/engine/hub"
	"github.com/siteops/siteops/internal/hubtest"
	"github.com/siteops/siteops/render"
)

// TestApplyWaveOrder applies the example single-node site to an empty
// hub: the engine creates the Namespace, stops there naming the missing
// prerequisites, and once they exist sends every object once, wave by
// wave, with the siteops labels and the bundle hash.
func TestApplyWaveOrder(t *testing.T) {
	h := hubtest.Shared(t)
	var log requestLog
	e := newEngine(t, log.wrap(h.Config()))
	b := exampleBundle(t, exampleSNO, "wave-sno")
	ctx := testContext(t)

	if err := e.Apply(ctx, b, "rev1"); err != nil {
		t.Fatal(err)
	}
	st, err := e.Status(ctx, b.Site)
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"ClusterImageSet " + imageSet, "Secret wave-sno/" + pullSecret, "Secret wave-sno/"} {
		if !strings.Contains(st.Message, want) {
			t.Errorf("status message does not name %q: %s", want, st.Message)
		}
	}
	if st.Phase != engine.PhasePending || st.Reason != engine.ReasonPrerequisiteMissing {
		t.Errorf("phase %s reason %s, want Pending, PrerequisiteMissing", st.Phase, st.Reason)
	}
	if got := patches(log.list()); len(got) != 1 || !strings.Contains(got[0], "/namespaces/wave-sno") {
		t.Fatalf("before the prerequisites exist only the Namespace is applied; sent %v", got)
	}

	createPrerequisites(t, h.Config(), b)
	log.reset()
	if err := e.Apply(ctx, b, "rev1"); err != nil {
		t.Fatal(err)
	}
	sent := patches(log.list())
	if len(sent) != len(b.Objects)-1 {
		t.Errorf("sent %d applies for %d objects not yet there:\n%s", len(sent), len(b.Objects)-1, strings.Join(sent, "\n"))
	}
	// Each apply's wave, in the order sent, never goes down.
	wave := map[string]int{}
	for _, o := range b.Objects {
		wave[strings.ToLower(o.Kind)] = o.Wave
	}
	last := -1
	for _, s := range sent {
		w, ok := wave[kindOfPath(s)]
		if !ok {
			t.Fatalf("request %s matches no kind of the bundle", s)
		}
		if w < last {
			t.Errorf("wave %d sent after wave %d: %s", w, last, s)
		}
		last = w
	}
	st = waitStatus(t, e, b.Site, func(st engine.SiteStatus) bool { return len(st.Resources) == len(b.Objects) })
	if st.Revision != "rev1" {
		t.Errorf("revision %q", st.Revision)
	}
	hash, _ := b.Hash()
	cd, err := dynamic.NewForConfigOrDie(h.Config()).Resource(gvrCD).Namespace("wave-sno").Get(ctx, "wave-sno", metav1.GetOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if l := cd.GetLabels(); l[hub.LabelManagedBy] != hub.ManagedByValue || l[hub.LabelSite] != "wave-sno" {
		t.Errorf("ClusterDeployment labels %v", l)
	}
	if got := cd.GetAnnotations()[hub.AnnotationBundleHash]; got != hash {
		t.Errorf("bundle hash annotation %q, want %q", got, hash)
	}
	if m := managers(cd); len(m) != 1 || m[0] != hub.FieldManager+"/Apply" {
		t.Errorf("field managers %v, want only %s/Apply", m, hub.FieldManager)
	}
}

// kindOfPath is the lower-case kind of a request path's resource
// (".../configmaps/name" is "configmap").
func kindOfPath(req string) string {
	parts := strings.Split(req, "/")
	if len(parts) < 2 {
		return ""
	}
	res := parts[len(parts)-2]
	if strings.HasSuffix(res, "sses") || strings.HasSuffix(res, "ches") {
		return strings.TrimSuffix(res, "es")
	}
	return strings.TrimSuffix(res, "s")
}

func patches(reqs []string) []string {
	var out []string
	for _, r := range reqs {
		if strings.HasPrefix(r, "PATCH ") {
			out = append(out, r)
		}
	}
	return out
}

func managers(u *unstructured.Unstructured) []string {
	var out []string
	for _, m := range u.GetManagedFields() {
		out = append(out, m.Manager+"/"+string(m.Operation))
	}
	return out
}

// TestUnchangedBundleSendsNothing applies a site, then the same bundle
// again, then the same bundle from a new engine (a restart): neither
// sends a request, whether siteops made the site's namespace or found it
// made beforehand, and the status lists the namespace either way.
func TestUnchangedBundleSendsNothing(t *testing.T) {
	h := hubtest.Shared(t)
	for _, tc := range []struct {
		site         string
		ownNamespace bool
	}{
		{"same-sno", true},
		{"same-premade-sno", false},
	} {
		t.Run(tc.site, func(t *testing.T) {
			b := exampleBundle(t, exampleSNO, tc.site)
			ctx := testContext(t)
			if !tc.ownNamespace {
				if err := hubtest.CreatePrerequisites(ctx, h.Config(), b, true); err != nil {
					t.Fatal(err)
				}
			}
			e := newEngine(t, h.Config())
			applyAll(t, e, h.Config(), b, "rev1")

			var log requestLog
			e2 := newEngine(t, log.wrap(h.Config()))
			log.reset()
			for i := range 2 {
				if err := e2.Apply(ctx, b, "rev2"); err != nil {
					t.Fatal(err)
				}
				if got := log.list(); len(got) != 0 {
					t.Fatalf("apply %d of an unchanged bundle after a restart sent %d requests: %v", i+1, len(got), got)
				}
			}
			st, err := e2.Status(ctx, b.Site)
			if err != nil {
				t.Fatal(err)
			}
			if st.Revision != "rev2" {
				t.Errorf("revision %q, want the one applied last", st.Revision)
			}
			// The namespace is an object of the site whoever made it, as
			// in the embedded engine's status.
			listed := false
			for _, r := range st.Resources {
				listed = listed || (r.Kind == render.KindNamespace && r.Name == tc.site)
			}
			if !listed {
				t.Errorf("the status does not list the Namespace %s: %+v", tc.site, st.Resources)
			}
			sites, err := e2.Sites(ctx)
			if err != nil {
				t.Fatal(err)
			}
			found := false
			for _, s := range sites {
				found = found || s == b.Site
			}
			if !found {
				t.Errorf("a restarted engine does not list %s: %v", b.Site, sites)
			}
		})
	}
}

// TestConflictReported lets another field manager take a field siteops
// set; a change of the site then reports the conflict with the manager
// and the field, and leaves the other manager's value, until the engine
// runs with force.
func TestConflictReported(t *testing.T) {
	h := hubtest.Shared(t)
	ctx := testContext(t)
	b := exampleBundle(t, exampleSNO, "conflict-sno")
	e := newEngine(t, h.Config())
	applyAll(t, e, h.Config(), b, "rev1")

	dyn := dynamic.NewForConfigOrDie(h.Config())
	other := `{"apiVersion":"hive.openshift.io/v1","kind":"ClusterDeployment","metadata":{"name":"conflict-sno","namespace":"conflict-sno"},"spec":{"baseDomain":"taken.example.net"}}`
	force := true
	if _, err := dyn.Resource(gvrCD).Namespace("conflict-sno").Patch(ctx, "conflict-sno", types.ApplyPatchType, []byte(other), metav1.PatchOptions{FieldManager: "acm-operator", Force: &force}); err != nil {
		t.Fatal(err)
	}
	b2 := exampleBundle(t, exampleSNO, "conflict-sno")
	cd := objectOf(t, b2, render.KindClusterDeployment)
	_ = unstructured.SetNestedField(cd.Content, "changed-by-git", "metadata", "annotations", "siteops-test/changed")
	if err := e.Apply(ctx, b2, "rev2"); err != nil {
		t.Fatal(err)
	}
	st := waitStatus(t, e, b2.Site, func(st engine.SiteStatus) bool { return strings.Contains(st.Message, "acm-operator") })
	if st.Reason != engine.ReasonApplyConflict || st.Revision != "rev1" {
		t.Errorf("reason %s, revision %q; want ApplyConflict, rev1 kept", st.Reason, st.Revision)
	}
	for _, want := range []string{"ClusterDeployment conflict-sno/conflict-sno", ".spec.baseDomain", `"acm-operator"`, "--force-conflicts"} {
		if !strings.Contains(st.Message, want) {
			t.Errorf("conflict message lacks %q: %s", want, st.Message)
		}
	}
	got, err := dyn.Resource(gvrCD).Namespace("conflict-sno").Get(ctx, "conflict-sno", metav1.GetOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if d, _, _ := unstructured.NestedString(got.Object, "spec", "baseDomain"); d != "taken.example.net" {
		t.Errorf("siteops overwrote the other manager's field: baseDomain %q", d)
	}

	forced := newEngine(t, h.Config(), hub.WithForceConflicts(true))
	if err := forced.Apply(ctx, b2, "rev2"); err != nil {
		t.Fatal(err)
	}
	got, err = dyn.Resource(gvrCD).Namespace("conflict-sno").Get(ctx, "conflict-sno", metav1.GetOptions{})
	if err != nil {
		t.Fatal(err)
	}
	want, _, _ := unstructured.NestedString(cd.Content, "spec", "baseDomain")
	if d, _, _ := unstructured.NestedString(got.Object, "spec", "baseDomain"); d != want {
		t.Errorf("with force, baseDomain %q, want %q", d, want)
	}
}

// TestForeignObjectLeftAlone: a namespace and a ConfigMap made by someone
// else under the names the site renders. siteops uses the namespace as it
// is, refuses to take the ConfigMap, says so, and changes neither.
func TestForeignObjectLeftAlone(t *testing.T) {
	h := hubtest.Shared(t)
	ctx := testContext(t)
	cs := kubernetes.NewForConfigOrDie(h.Config())
	const site = "foreign-sno"
	ns, err := cs.CoreV1().Namespaces().Create(ctx, &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: site}}, metav1.CreateOptions{})
	if err != nil {
		t.Fatal(err)
	}
	cm, err := cs.CoreV1().ConfigMaps(site).Create(ctx, &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Name: site, Namespace: site}, Data: map[string]string{"owner": "someone else"}}, metav1.CreateOptions{})
	if err != nil {
		t.Fatal(err)
	}
	b := exampleBundle(t, exampleSNO, site)
	createPrerequisites(t, h.Config(), b)
	e := newEngine(t, h.Config())
	if err := e.Apply(ctx, b, "rev1"); err != nil {
		t.Fatal(err)
	}
	st := waitStatus(t, e, site, func(st engine.SiteStatus) bool { return strings.Contains(st.Message, "not created by siteops") })
	if st.Reason != engine.ReasonApplyConflict || !strings.Contains(st.Message, "ConfigMap foreign-sno/foreign-sno") {
		t.Errorf("reason %s; the message must name the ConfigMap: %s", st.Reason, st.Message)
	}
	gotNS, err := cs.CoreV1().Namespaces().Get(ctx, site, metav1.GetOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if gotNS.ResourceVersion != ns.ResourceVersion || gotNS.Labels[hub.LabelManagedBy] != "" {
		t.Errorf("the foreign namespace was changed: labels %v", gotNS.Labels)
	}
	gotCM, err := cs.CoreV1().ConfigMaps(site).Get(ctx, site, metav1.GetOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if gotCM.ResourceVersion != cm.ResourceVersion || gotCM.Data["owner"] != "someone else" {
		t.Errorf("the foreign ConfigMap was changed: %v %v", gotCM.Labels, gotCM.Data)
	}
	// Deleting the site leaves both alone too.
	if err := e.Delete(ctx, site); err != nil {
		t.Fatal(err)
	}
	waitGone(t, e, site)
	if _, err := cs.CoreV1().ConfigMaps(site).Get(ctx, site, metav1.GetOptions{}); err != nil {
		t.Errorf("the foreign ConfigMap went with the site: %v", err)
	}
	if n, err := cs.CoreV1().Namespaces().Get(ctx, site, metav1.GetOptions{}); err != nil || n.DeletionTimestamp != nil {
		t.Errorf("the foreign namespace went with the site: %v", err)
	}
}

// waitGone waits until the engine no longer has the site.
func waitGone(t testing.TB, e *hub.Engine, site string) {
	t.Helper()
	waitFor(t, "site "+site+" gone", func() bool {
		_, err := e.Status(context.Background(), site)
		return err != nil
	})
}

// TestInstancesKeepApart: a second siteops instance on the same hub does
// not list the first one's site, refuses to take its objects (saying
// whose they are), and its deletion of the site touches nothing.
func TestInstancesKeepApart(t *testing.T) {
	h := hubtest.Shared(t)
	ctx := testContext(t)
	const site = "instance-sno"
	b := exampleBundle(t, exampleSNO, site)
	applyAll(t, newEngine(t, h.Config()), h.Config(), b, "rev1")

	other := newEngine(t, h.Config(), hub.WithInstance("lab-fleet"))
	names, err := other.Sites(ctx)
	if err != nil {
		t.Fatal(err)
	}
	for _, n := range names {
		if n == site {
			t.Fatalf("instance lab-fleet lists %s of the default instance", site)
		}
	}
	if err := other.Delete(ctx, site); err == nil {
		t.Error("instance lab-fleet accepted to delete a site it does not hold")
	}
	if err := other.Apply(ctx, b, "rev1"); err != nil {
		t.Fatal(err)
	}
	st := waitStatus(t, other, site, func(st engine.SiteStatus) bool { return st.Reason == engine.ReasonApplyConflict })
	if !strings.Contains(st.Message, `siteops instance "default"`) {
		t.Errorf("message: %s", st.Message)
	}
	cd, err := dynamic.NewForConfigOrDie(h.Config()).Resource(gvrCD).Namespace(site).Get(ctx, site, metav1.GetOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if got := cd.GetLabels()[hub.LabelInstance]; got != hub.DefaultInstance {
		t.Errorf("ClusterDeployment instance label %q after the other instance's apply", got)
	}
}
