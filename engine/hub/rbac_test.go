package hub_test

import (
	"context"
	"os"
	"strings"
	"testing"

	rbacv1 "k8s.io/api/rbac/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/kubernetes"
	"sigs.k8s.io/yaml"

	"github.com/siteops/siteops/engine"
	"github.com/siteops/siteops/engine/hub"
	"github.com/siteops/siteops/internal/hubtest"
)

// TestLeastPrivilegeClusterRole runs the engine as a user bound to
// exactly deploy/clusterrole.yaml: it starts, applies a site, reads its
// status and deletes it. Before the binding, it cannot start.
func TestLeastPrivilegeClusterRole(t *testing.T) {
	h := hubtest.Shared(t)
	ctx := testContext(t)
	short, cancel := context.WithTimeout(ctx, 5*e2eShort)
	_, err := hub.New(short, h.UserConfig(), hub.WithRetryFor(e2eShort))
	cancel()
	if err == nil || !strings.Contains(err.Error(), "forbidden") {
		t.Fatalf("without a role the engine started (or failed otherwise): %v", err)
	}

	data, err := os.ReadFile("../../deploy/clusterrole.yaml")
	if err != nil {
		t.Fatal(err)
	}
	var role rbacv1.ClusterRole
	if err := yaml.UnmarshalStrict(data, &role); err != nil {
		t.Fatal(err)
	}
	role.Name = "siteops-least-privilege-test"
	cs := kubernetes.NewForConfigOrDie(h.Config())
	if _, err := cs.RbacV1().ClusterRoles().Create(ctx, &role, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	binding := &rbacv1.ClusterRoleBinding{
		ObjectMeta: metav1.ObjectMeta{Name: role.Name},
		RoleRef:    rbacv1.RoleRef{APIGroup: rbacv1.GroupName, Kind: "ClusterRole", Name: role.Name},
		Subjects:   []rbacv1.Subject{{APIGroup: rbacv1.GroupName, Kind: rbacv1.UserKind, Name: hubtest.PlainUser}},
	}
	if _, err := cs.RbacV1().ClusterRoleBindings().Create(ctx, binding, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		_ = cs.RbacV1().ClusterRoleBindings().Delete(context.Background(), role.Name, metav1.DeleteOptions{})
		_ = cs.RbacV1().ClusterRoles().Delete(context.Background(), role.Name, metav1.DeleteOptions{})
	})

	const site = "rbac-sno"
	b := exampleBundle(t, exampleSNO, site)
	var e *hub.Engine
	waitFor(t, "the role to take effect", func() bool {
		c, cancel := context.WithTimeout(ctx, 5*e2eShort)
		defer cancel()
		var err error
		e, err = hub.New(c, h.UserConfig(), hub.WithRetryInterval(shortRetryEvery), hub.WithRetryFor(e2eShort))
		return err == nil
	})
	t.Cleanup(func() { _ = e.Close() })
	st := applyAll(t, e, h.Config(), b, "rev1")
	if st.Reason != "" {
		t.Errorf("applied with the least-privilege role: reason %s: %s", st.Reason, st.Message)
	}
	if err := e.Delete(ctx, site); err != nil {
		t.Fatal(err)
	}
	// The namespace is the last step; without a namespace controller
	// it stays Terminating, so the test waits for the steps before it.
	waitFor(t, "the site's objects but the Namespace gone", func() bool {
		st, err := e.Status(ctx, site)
		if err != nil {
			return false
		}
		return len(st.Resources) == 1 && st.Resources[0].Kind == "Namespace" && st.Phase == engine.PhaseDeleting
	})
}
