package hubsim_test

import (
	"context"
	"testing"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/client-go/dynamic"
	"k8s.io/client-go/kubernetes"

	"github.com/siteops/siteops/engine/assisted"
	"github.com/siteops/siteops/internal/hubtest"
)

// The upstream-shaped output of siteops render, created with the
// Kubernetes client alone (no siteops engine, no siteops labels), installs
// under the simulator: the AgentClusterInstall carries the conditions the
// upstream documentation lists, the ClusterDeployment becomes installed
// with its metadata and Secrets, the Agent carries BMAC's labels. Deleting
// the ClusterDeployment then runs the finalizers in order: the
// ClusterDeployment and the AgentClusterInstall go, and the Agent with
// them.
func TestAnyClientInstalls(t *testing.T) {
	h := hubtest.Shared(t)
	const name = "anyclient-sno"
	b, err := hubtest.ExampleBundle(repoRoot, exampleSNO, name)
	if err != nil {
		t.Fatal(err)
	}
	startSim(t, h.Config(), "anyclient")
	applyWithClient(t, h.Config(), b, "anyclient")
	dyn := dynamic.NewForConfigOrDie(h.Config())

	waitFor(t, "the AgentClusterInstall completes", func() (bool, string) {
		aci, err := get(t, dyn, gvrACI, name, name)
		if err != nil {
			return false, err.Error()
		}
		conds, msg := condTypes(aci)
		return conds[assisted.CondCompleted] == "True", msg
	})
	aci, _ := get(t, dyn, gvrACI, name, name)
	conds, msg := condTypes(aci)
	for _, want := range []string{"SpecSynced", "Validated", "RequirementsMet", "Completed", "Failed", "Stopped"} {
		if _, ok := conds[want]; !ok {
			t.Errorf("AgentClusterInstall lacks condition %s: %s", want, msg)
		}
	}
	if st, _, _ := unstructured.NestedString(aci.Object, "status", "debugInfo", "state"); st != "installed" && st != "adding-hosts" {
		t.Errorf("AgentClusterInstall debugInfo.state %q", st)
	}
	if fins := aci.GetFinalizers(); len(fins) != 1 || fins[0] != assisted.FinalizerACI {
		t.Errorf("AgentClusterInstall finalizers %v", fins)
	}
	waitFor(t, "the ClusterDeployment is installed", func() (bool, string) {
		cd, err := get(t, dyn, gvrCD, name, name)
		if err != nil {
			return false, err.Error()
		}
		installed, _, _ := unstructured.NestedBool(cd.Object, "spec", "installed")
		ref, _, _ := unstructured.NestedString(cd.Object, "spec", "clusterMetadata", "adminPasswordSecretRef", "name")
		return installed && ref == name+assisted.SecretSuffixAdminPassword, "spec " + string(mustJSON(cd.Object["spec"]))
	})
	cs := kubernetes.NewForConfigOrDie(h.Config())
	for _, sec := range []string{name + assisted.SecretSuffixKubeconfig, name + assisted.SecretSuffixAdminPassword} {
		s, err := cs.CoreV1().Secrets(name).Get(context.Background(), sec, metav1.GetOptions{})
		if err != nil {
			t.Errorf("Secret %s: %v", sec, err)
			continue
		}
		if s.Labels[assisted.LabelSecretCD] != name {
			t.Errorf("Secret %s labels %v", sec, s.Labels)
		}
	}
	agents, err := dyn.Resource(gvrAgent).Namespace(name).List(context.Background(), metav1.ListOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if len(agents.Items) != 1 {
		t.Fatalf("%d Agents, want 1", len(agents.Items))
	}
	a := agents.Items[0]
	if a.GetLabels()[assisted.LabelAgentBMH] == "" || a.GetLabels()[assisted.LabelInfraEnv] == "" {
		t.Errorf("Agent labels %v lack BMAC's", a.GetLabels())
	}
	if ok, _, _ := unstructured.NestedBool(a.Object, "spec", "approved"); !ok {
		t.Errorf("Agent not approved")
	}
	if st, _, _ := unstructured.NestedString(a.Object, "status", "debugInfo", "state"); st != "installed" && st != "added-to-existing-cluster" {
		t.Errorf("Agent state %q", st)
	}

	// Deletion: the ClusterDeployment's finalizer holds it until the
	// simulated teardown reached it; then it, the AgentClusterInstall
	// (deleted by the test, as the CD finalizer asks) and the Agent go.
	ctx := testContext(t)
	if err := dyn.Resource(gvrCD).Namespace(name).Delete(ctx, name, metav1.DeleteOptions{}); err != nil {
		t.Fatal(err)
	}
	if err := dyn.Resource(gvrACI).Namespace(name).Delete(ctx, name, metav1.DeleteOptions{}); err != nil {
		t.Fatal(err)
	}
	waitFor(t, "the ClusterDeployment, AgentClusterInstall and Agent are gone", func() (bool, string) {
		_, errCD := get(t, dyn, gvrCD, name, name)
		_, errACI := get(t, dyn, gvrACI, name, name)
		ags, _ := dyn.Resource(gvrAgent).Namespace(name).List(ctx, metav1.ListOptions{})
		n := 0
		if ags != nil {
			n = len(ags.Items)
		}
		return apierrors.IsNotFound(errCD) && apierrors.IsNotFound(errACI) && n == 0, "cd " + errString(errCD) + ", aci " + errString(errACI)
	})
}

func errString(err error) string {
	if err == nil {
		return "present"
	}
	return err.Error()
}
