package hubtest_test

import (
	"context"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/client-go/discovery"
	"k8s.io/client-go/kubernetes"

	"github.com/siteops/siteops/internal/hubtest"
)

func TestMain(m *testing.M) { hubtest.Main(m) }

// TestCRDsServed checks that every kind siteops renders is served.
func TestCRDsServed(t *testing.T) {
	h := hubtest.Shared(t)
	dc, err := discovery.NewDiscoveryClientForConfig(h.Config())
	if err != nil {
		t.Fatal(err)
	}
	for _, gvk := range []schema.GroupVersionKind{
		{Group: "hive.openshift.io", Version: "v1", Kind: "ClusterDeployment"},
		{Group: "hive.openshift.io", Version: "v1", Kind: "ClusterImageSet"},
		{Group: "extensions.hive.openshift.io", Version: "v1beta1", Kind: "AgentClusterInstall"},
		{Group: "agent-install.openshift.io", Version: "v1beta1", Kind: "InfraEnv"},
		{Group: "agent-install.openshift.io", Version: "v1beta1", Kind: "NMStateConfig"},
		{Group: "agent-install.openshift.io", Version: "v1beta1", Kind: "Agent"},
		{Group: "metal3.io", Version: "v1alpha1", Kind: "BareMetalHost"},
		{Group: "metal3.io", Version: "v1alpha1", Kind: "HostFirmwareSettings"},
		{Group: "cluster.open-cluster-management.io", Version: "v1", Kind: "ManagedCluster"},
		{Group: "agent.open-cluster-management.io", Version: "v1", Kind: "KlusterletAddonConfig"},
	} {
		list, err := dc.ServerResourcesForGroupVersion(gvk.GroupVersion().String())
		if err != nil {
			t.Errorf("%s: %v", gvk, err)
			continue
		}
		found := false
		for _, r := range list.APIResources {
			found = found || r.Kind == gvk.Kind
		}
		if !found {
			t.Errorf("%s is not served", gvk)
		}
	}
}

// TestPlainUserHasNoRights checks that RBAC is on: the plain user is
// refused until a role is bound to it, the admin is not.
func TestPlainUserHasNoRights(t *testing.T) {
	h := hubtest.Shared(t)
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	plain := kubernetes.NewForConfigOrDie(h.UserConfig())
	if _, err := plain.CoreV1().Namespaces().List(ctx, metav1.ListOptions{}); err == nil {
		t.Fatalf("user %s listed namespaces without any role", hubtest.PlainUser)
	}
	admin := kubernetes.NewForConfigOrDie(h.Config())
	if _, err := admin.CoreV1().Namespaces().List(ctx, metav1.ListOptions{}); err != nil {
		t.Fatalf("admin: %v", err)
	}
}

// TestRestartKeepsData stops and starts the API server of a hub of its
// own: requests fail while it is down, and what was written is still
// there afterwards.
func TestRestartKeepsData(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Minute)
	defer cancel()
	h, err := hubtest.Start(ctx)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(h.Stop)
	cs := kubernetes.NewForConfigOrDie(h.Config())
	ns := &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: "kept"}}
	if _, err := cs.CoreV1().Namespaces().Create(ctx, ns, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	h.StopAPIServer()
	short, c2 := context.WithTimeout(ctx, 5*time.Second)
	_, err = cs.CoreV1().Namespaces().Get(short, "kept", metav1.GetOptions{})
	c2()
	if err == nil {
		t.Fatal("the stopped API server answered")
	}
	if err := h.StartAPIServer(ctx); err != nil {
		t.Fatal(err)
	}
	if _, err := cs.CoreV1().Namespaces().Get(ctx, "kept", metav1.GetOptions{}); err != nil {
		t.Fatalf("after restart: %v", err)
	}
}
