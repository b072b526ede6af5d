package hubtest

import (
	"context"
	"fmt"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/client-go/dynamic"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/rest"

	"github.com/siteops/siteops/render"
)

// TestReleaseImage is the release image of the ClusterImageSets
// CreatePrerequisites makes.
const TestReleaseImage = "quay.io/openshift-release-dev/ocp-release:4.20.6-x86_64"

// CreatePrerequisites makes what an operator puts on a hub before a site
// and siteops never creates: the ClusterImageSets the bundle names, and in
// their namespaces the pull secrets and BMC Secrets (with placeholder
// data). With namespaces, it creates the bundle's Namespaces first, as an
// operator who prepares them does; without, they must exist already.
// What exists already is left as it is.
func CreatePrerequisites(ctx context.Context, cfg *rest.Config, b *render.Bundle, namespaces bool) error {
	cs, err := kubernetes.NewForConfig(cfg)
	if err != nil {
		return err
	}
	dyn, err := dynamic.NewForConfig(cfg)
	if err != nil {
		return err
	}
	gvrCIS := schema.GroupVersionResource{Group: "hive.openshift.io", Version: "v1", Resource: "clusterimagesets"}
	for _, o := range b.Objects {
		var secret, imageSet string
		switch o.Kind {
		case render.KindNamespace:
			if namespaces {
				_, err = cs.CoreV1().Namespaces().Create(ctx, &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: o.Name}}, metav1.CreateOptions{})
			}
		case render.KindClusterDeployment, render.KindInfraEnv:
			secret, _, _ = unstructured.NestedString(o.Content, "spec", "pullSecretRef", "name")
		case render.KindBareMetalHost:
			secret, _, _ = unstructured.NestedString(o.Content, "spec", "bmc", "credentialsName")
		case render.KindAgentClusterInstall:
			imageSet, _, _ = unstructured.NestedString(o.Content, "spec", "imageSetRef", "name")
		}
		if secret != "" {
			s := &corev1.Secret{ObjectMeta: metav1.ObjectMeta{Name: secret, Namespace: o.Namespace}, StringData: map[string]string{"placeholder": "test"}}
			_, err = cs.CoreV1().Secrets(o.Namespace).Create(ctx, s, metav1.CreateOptions{})
		}
		if imageSet != "" {
			u := &unstructured.Unstructured{Object: map[string]any{
				"apiVersion": "hive.openshift.io/v1", "kind": "ClusterImageSet",
				"metadata": map[string]any{"name": imageSet},
				"spec":     map[string]any{"releaseImage": TestReleaseImage},
			}}
			_, err = dyn.Resource(gvrCIS).Create(ctx, u, metav1.CreateOptions{})
		}
		if err != nil && !apierrors.IsAlreadyExists(err) {
			return fmt.Errorf("prerequisites of site %s: %w", b.Site, err)
		}
		err = nil
	}
	return nil
}
