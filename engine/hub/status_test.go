package hub_test

import (
	"strings"
	"testing"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/client-go/dynamic"

	"github.com/siteops/siteops/engine"
	"github.com/siteops/siteops/internal/hubtest"
	"github.com/siteops/siteops/render"
)

// TestStatusFromControllers plays assisted-service, BMAC and Hive on a
// real hub: it writes the status subresources as they would, and the
// engine's status follows: the host registers, validations fail and
// pass, the installation runs and completes. Each change reaches
// Subscribe.
func TestStatusFromControllers(t *testing.T) {
	h := hubtest.Shared(t)
	ctx := testContext(t)
	const site = "status-sno"
	b := exampleBundle(t, exampleSNO, site)
	e := newEngine(t, h.Config())
	applyAll(t, e, h.Config(), b, "rev1")
	dyn := dynamic.NewForConfigOrDie(h.Config())
	changes := e.Subscribe(ctx)
	drain(changes)

	bmhName := objectOf(t, b, render.KindBareMetalHost).Name
	ieName := objectOf(t, b, render.KindInfraEnv).Name

	// The bare-metal operator provisions the discovery image; the agent
	// registers (assisted-service creates the Agent, BMAC labels it).
	setStatus(t, dyn, gvrBMH, site, bmhName, map[string]any{
		"provisioning":      map[string]any{"state": "provisioned", "ID": "x"},
		"operationalStatus": "OK", "errorMessage": "", "errorCount": int64(0), "poweredOn": true, "provisioningFailCount": int64(0),
	})
	agent := &unstructured.Unstructured{Object: map[string]any{
		"apiVersion": "agent-install.openshift.io/v1beta1", "kind": "Agent",
		"metadata": map[string]any{"name": "5f1c9a2e-0000-4000-8000-000000000001", "namespace": site, "labels": map[string]any{
			"infraenvs.agent-install.openshift.io":                   ieName,
			"agent-install.openshift.io/bmh":                         bmhName,
			"agent-install.openshift.io/clusterdeployment-namespace": site,
		}},
		"spec": map[string]any{"approved": true, "role": "master", "hostname": bmhName,
			"clusterDeploymentName": map[string]any{"name": site, "namespace": site}},
	}}
	if _, err := dyn.Resource(gvrAg).Namespace(site).Create(ctx, agent, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	setStatus(t, dyn, gvrAg, site, agent.GetName(), map[string]any{
		"debugInfo": map[string]any{"state": "insufficient", "stateInfo": "Host cannot be installed due to following failing validation(s): Host couldn't synchronize with any NTP server"},
		"validationsInfo": map[string]any{"network": []any{
			map[string]any{"id": "ntp-synced", "status": "failure", "message": "Host couldn't synchronize with any NTP server"},
			map[string]any{"id": "connected", "status": "success", "message": "Host is connected"},
		}},
	})
	waitNotified(t, changes, site)
	// The BareMetalHost and the Agent reach the engine through caches of
	// their own, in either order: wait for both.
	st := waitStatus(t, e, site, func(st engine.SiteStatus) bool {
		return len(st.Hosts) == 1 && st.Hosts[0].State == "insufficient" && st.Hosts[0].ProvisioningState == "provisioned"
	})
	hst := st.Hosts[0]
	if hst.Name != bmhName || hst.Agent != agent.GetName() || hst.ProvisioningState != "provisioned" || !hst.Approved || hst.Role != "master" {
		t.Errorf("host %+v", hst)
	}
	if len(hst.Validations) != 1 || hst.Validations[0].ID != "ntp-synced" {
		t.Errorf("failing validations %+v, want only ntp-synced", hst.Validations)
	}
	if st.Phase != engine.PhaseProvisioning {
		t.Errorf("phase %s with a registered host, want Provisioning", st.Phase)
	}

	// The cluster installs.
	aciStatus := func(state, info string, pct int64, conds ...map[string]any) map[string]any {
		c := make([]any, len(conds))
		for i, x := range conds {
			c[i] = x
		}
		return map[string]any{"debugInfo": map[string]any{"state": state, "stateInfo": info}, "progress": map[string]any{"totalPercentage": pct}, "conditions": c}
	}
	now := time.Now().UTC().Format(time.RFC3339)
	setStatus(t, dyn, gvrACI, site, site, aciStatus("installing", "Installation in progress", 42,
		map[string]any{"type": "Completed", "status": "False", "reason": "InstallationInProgress", "message": "The installation is in progress: Installation in progress", "lastTransitionTime": now}))
	waitNotified(t, changes, site)
	st = waitStatus(t, e, site, func(st engine.SiteStatus) bool { return st.Phase == engine.PhaseInstalling })
	if st.Cluster.State != "installing" || st.Cluster.Percent != 42 || !strings.Contains(st.Message, "42%") {
		t.Errorf("cluster %+v message %q", st.Cluster, st.Message)
	}
	var aciRes *engine.ResourceStatus
	for i, r := range st.Resources {
		if r.Kind == render.KindAgentClusterInstall {
			aciRes = &st.Resources[i]
		}
	}
	if aciRes == nil || len(aciRes.Conditions) != 1 || aciRes.Conditions[0].Reason != "InstallationInProgress" || aciRes.Conditions[0].LastTransitionTime.IsZero() {
		t.Errorf("AgentClusterInstall conditions %+v", aciRes)
	}

	// Hive marks the ClusterDeployment installed.
	setStatus(t, dyn, gvrACI, site, site, aciStatus("installed", "Cluster is installed", 100))
	cd, err := dyn.Resource(gvrCD).Namespace(site).Get(ctx, site, metav1.GetOptions{})
	if err != nil {
		t.Fatal(err)
	}
	_ = unstructured.SetNestedField(cd.Object, true, "spec", "installed")
	if _, err := dyn.Resource(gvrCD).Namespace(site).Update(ctx, cd, metav1.UpdateOptions{FieldManager: "hive"}); err != nil {
		t.Fatal(err)
	}
	st = waitStatus(t, e, site, func(st engine.SiteStatus) bool { return st.Cluster.Installed })
	if st.Phase != engine.PhaseInstalled {
		t.Errorf("phase %s of an installed cluster", st.Phase)
	}
}

// setStatus writes an object's status subresource as its controller
// would.
func setStatus(t testing.TB, dyn dynamic.Interface, gvr schema.GroupVersionResource, ns, name string, status map[string]any) {
	t.Helper()
	ctx := testContext(t)
	res := dyn.Resource(gvr).Namespace(ns)
	u, err := res.Get(ctx, name, metav1.GetOptions{})
	if err != nil {
		t.Fatal(err)
	}
	u.Object["status"] = status
	if _, err := res.UpdateStatus(ctx, u, metav1.UpdateOptions{FieldManager: "controller"}); err != nil {
		t.Fatalf("status of %s %s/%s: %v", gvr.Resource, ns, name, err)
	}
}

func drain(ch <-chan string) {
	for {
		select {
		case <-ch:
		case <-time.After(200 * time.Millisecond):
			return
		}
	}
}

// waitNotified waits until Subscribe names the site.
func waitNotified(t testing.TB, ch <-chan string, site string) {
	t.Helper()
	timeout := time.After(testTimeout)
	for {
		select {
		case s := <-ch:
			if s == site {
				return
			}
		case <-timeout:
			t.Fatalf("no change of %s reached Subscribe", site)
		}
	}
}

// waitFor polls cond until it holds.
func waitFor(t testing.TB, what string, cond func() bool) {
	t.Helper()
	deadline := time.Now().Add(testTimeout)
	for !cond() {
		if time.Now().After(deadline) {
			t.Fatalf("%s: not within %s", what, testTimeout)
		}
		time.Sleep(50 * time.Millisecond)
	}
}
