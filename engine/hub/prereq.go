package hub

import (
	"context"
	"fmt"
	"sort"
	"strings"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"

	"github.com/siteops/siteops/render"
)

// prerequisite is an object a rendered object names and siteops never
// creates: the controllers fail on it when it is missing.
type prerequisite struct {
	kind  string // render kind of the object that names it
	field []string
	what  string // KindClusterImageSet or KindSecret
	role  string
}

// prerequisites are the references the controllers resolve first: the
// ClusterImageSet of an AgentClusterInstall (assisted-service
// api/hiveextension/v1beta1/agentclusterinstall_types.go ImageSetRef), the
// pull secret of a ClusterDeployment and an InfraEnv (Hive
// apis/hive/v1/clusterdeployment_types.go PullSecretRef, assisted-service
// api/v1beta1/infraenv_types.go PullSecretRef) and the BMC credentials of
// a BareMetalHost (baremetal-operator apis/metal3.io/v1alpha1/
// baremetalhost_types.go BMCDetails.CredentialsName). Secrets are looked
// up in the namespace of the object that names them.
var prerequisites = []prerequisite{
	{render.KindAgentClusterInstall, []string{"spec", "imageSetRef", "name"}, KindClusterImageSet, "release image set"},
	{render.KindClusterDeployment, []string{"spec", "pullSecretRef", "name"}, KindSecret, "pull secret"},
	{render.KindInfraEnv, []string{"spec", "pullSecretRef", "name"}, KindSecret, "pull secret"},
	{render.KindBareMetalHost, []string{"spec", "bmc", "credentialsName"}, KindSecret, "BMC credentials"},
}

// checkPrerequisites looks for every prerequisite the bundle names:
// ClusterImageSets in the cache, Secrets by their metadata alone (their
// data is never read). A Secret in a namespace this apply created cannot
// be there yet.
func (e *Engine) checkPrerequisites(ctx context.Context, site string, objs []*desiredObject, created map[string]bool) (*problem, error) {
	missing := map[string]bool{}
	rendered := map[string]bool{}
	for _, d := range objs {
		if d.src.Kind == render.KindNamespace {
			rendered[d.src.Name] = true
		}
	}
	for _, d := range objs {
		if ns := d.src.Namespace; d.kind.namespaced && ns != "" && !rendered[ns] {
			ok, err := e.namespaceExists(ctx, ns)
			if err != nil {
				return nil, err
			}
			if !ok {
				missing[fmt.Sprintf("Namespace %s (holds %s; the site does not render it)", ns, d.ref())] = true
			}
		}
		for _, p := range prerequisites {
			if d.src.Kind != p.kind {
				continue
			}
			name, _, _ := unstructured.NestedString(d.obj.Object, p.field...)
			if name == "" {
				continue
			}
			switch p.what {
			case KindClusterImageSet:
				if e.ks.cis == nil {
					missing[fmt.Sprintf("ClusterImageSet %s (%s; the hub serves no ClusterImageSets: is Hive installed?)", name, p.role)] = true
				} else if e.ks.cis.get("", name) == nil {
					missing[fmt.Sprintf("ClusterImageSet %s (%s)", name, p.role)] = true
				}
			case KindSecret:
				ns := d.src.Namespace
				ok, err := e.secretExists(ctx, ns, name, created[ns])
				if err != nil {
					return nil, err
				}
				if !ok {
					missing[fmt.Sprintf("Secret %s/%s (%s)", ns, name, p.role)] = true
				}
			}
		}
	}
	if len(missing) == 0 {
		return nil, nil
	}
	list := make([]string, 0, len(missing))
	for m := range missing {
		list = append(list, m)
	}
	sort.Strings(list)
	return &problem{reasonPrerequisiteMissing, fmt.Sprintf("site %s: missing on the hub: %s; siteops never creates these from the repository: create them on the hub and siteops goes on by itself", site, strings.Join(list, ", "))}, nil
}

// namespaceExists looks for a namespace the site does not render, once
// per engine when it is there.
func (e *Engine) namespaceExists(ctx context.Context, name string) (bool, error) {
	key := "namespace " + name
	e.mu.Lock()
	seen := e.seenSecrets[key]
	e.mu.Unlock()
	if seen {
		return true, nil
	}
	err := e.retry(ctx, func(ctx context.Context) error {
		_, err := e.meta.Resource(gvrNamespace).Get(ctx, name, metav1.GetOptions{})
		return err
	})
	switch {
	case apierrors.IsNotFound(err):
		return false, nil
	case err != nil:
		return false, fmt.Errorf("look for Namespace %s: %w", name, err)
	}
	e.mu.Lock()
	e.seenSecrets[key] = true
	e.mu.Unlock()
	return true, nil
}

func (e *Engine) secretExists(ctx context.Context, namespace, name string, newNamespace bool) (bool, error) {
	key := namespace + "/" + name
	e.mu.Lock()
	seen := e.seenSecrets[key]
	e.mu.Unlock()
	if seen {
		return true, nil
	}
	if newNamespace {
		return false, nil
	}
	err := e.retry(ctx, func(ctx context.Context) error {
		_, err := e.meta.Resource(gvrSecret).Namespace(namespace).Get(ctx, name, metav1.GetOptions{})
		return err
	})
	switch {
	case apierrors.IsNotFound(err):
		return false, nil
	case err != nil:
		return false, fmt.Errorf("look for Secret %s: %w", key, err)
	}
	e.mu.Lock()
	e.seenSecrets[key] = true
	e.mu.Unlock()
	return true, nil
}
