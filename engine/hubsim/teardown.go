package hubsim

import (
	"context"
	"fmt"
	"slices"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/client-go/tools/cache"

	"github.com/siteops/siteops/engine/assisted"
	"github.com/siteops/siteops/engine/sim"
)

// tombName is the ConfigMap that marks a namespace whose site was deleted.
func tombName(ns string) string { return configMapName("tomb-" + ns) }

// loadTombs reads the namespaces of sites deleted by a previous run.
func (s *Simulator) loadTombs(ctx context.Context) error {
	var list *corev1.ConfigMapList
	err := retry(ctx, func() (err error) {
		list, err = s.kc.CoreV1().ConfigMaps(s.o.stateNamespace).List(ctx, metav1.ListOptions{LabelSelector: labelState + "=tomb"})
		return err
	})
	if err != nil {
		return fmt.Errorf("list the deleted sites in %s: %w", s.o.stateNamespace, err)
	}
	for _, cm := range list.Items {
		if ns := cm.Annotations[annotationTomb]; ns != "" {
			s.tombs[ns] = true
		}
	}
	return nil
}

// annotationTomb names the namespace a tomb ConfigMap stands for.
const annotationTomb = "hubsim.siteops.io/deleted-namespace"

// setTomb marks (or unmarks) a namespace whose site is being deleted: its
// remaining objects are not simulated again, even after a restart, until
// they are all gone.
func (s *Simulator) setTomb(ctx context.Context, ns string, on bool) error {
	cms := s.kc.CoreV1().ConfigMaps(s.o.stateNamespace)
	err := retry(ctx, func() error {
		if !on {
			err := cms.Delete(ctx, tombName(ns), metav1.DeleteOptions{})
			if apierrors.IsNotFound(err) {
				return nil
			}
			return err
		}
		cm := &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{
			Name: tombName(ns), Labels: map[string]string{labelState: "tomb"},
			Annotations: map[string]string{annotationTomb: ns},
		}}
		_, err := cms.Create(ctx, cm, metav1.CreateOptions{FieldManager: managerSim})
		if apierrors.IsAlreadyExists(err) {
			return nil
		}
		return err
	})
	if err != nil {
		return fmt.Errorf("namespace %s: record the site's deletion: %w", ns, err)
	}
	s.mu.Lock()
	if on {
		s.tombs[ns] = true
	} else {
		delete(s.tombs, ns)
	}
	s.mu.Unlock()
	return nil
}

// deleteAgents deletes the Agents of a namespace the simulation no longer
// has (all of them once the site is gone), releasing their finalizer as
// the Agent controller does once the host is deregistered, and releases
// the finalizer of an Agent a user deleted.
func (s *Simulator) deleteAgents(ctx context.Context, ns string, view sim.SiteObjects) error {
	keep := map[string]bool{}
	for _, a := range view.Agents {
		keep[a.Name] = true
	}
	objs, _ := s.agents.GetIndexer().ByIndex(cache.NamespaceIndex, ns)
	for _, o := range objs {
		u, ok := o.(*unstructured.Unstructured)
		if !ok {
			continue
		}
		if keep[u.GetName()] && u.GetDeletionTimestamp() == nil {
			continue
		}
		a := seen{watched{kind: kindAgent, gvr: gvrAgent, namespaced: true, finalizer: assisted.FinalizerAgent}, u}
		if err := s.removeFinalizer(ctx, a); err != nil {
			return err
		}
		if u.GetDeletionTimestamp() != nil {
			continue
		}
		err := retry(ctx, func() error {
			return s.dyn.Resource(gvrAgent).Namespace(ns).Delete(ctx, u.GetName(), metav1.DeleteOptions{})
		})
		if err != nil && !apierrors.IsNotFound(err) {
			return fmt.Errorf("delete Agent %s/%s: %w", ns, u.GetName(), err)
		}
	}
	return nil
}

// finishNamespace runs when a namespace has none of the site's objects
// left: its Agents go, and, when the simulator plays the namespace
// controller, a Terminating namespace is finalized once its Agents and
// the completion's Secrets are gone.
func (s *Simulator) finishNamespace(ctx context.Context, ns, site string) error {
	if err := s.deleteAgents(ctx, ns, sim.SiteObjects{}); err != nil {
		return err
	}
	s.mu.Lock()
	if s.siteNS[site] == ns {
		delete(s.siteNS, site)
		delete(s.applied, site)
	}
	s.mu.Unlock()
	if !s.o.finalizeNS {
		return nil
	}
	obj, ok, _ := s.nss.GetIndexer().GetByKey(ns)
	u, _ := obj.(*unstructured.Unstructured)
	if !ok || u == nil || u.GetDeletionTimestamp() == nil {
		return nil
	}
	if agents, _ := s.agents.GetIndexer().ByIndex(cache.NamespaceIndex, ns); len(agents) > 0 {
		return nil // their deletion queues the namespace again
	}
	err := retry(ctx, func() error {
		return s.kc.CoreV1().Secrets(ns).DeleteCollection(ctx, metav1.DeleteOptions{}, metav1.ListOptions{LabelSelector: assisted.LabelSecretCD})
	})
	if err != nil && !apierrors.IsNotFound(err) {
		return fmt.Errorf("namespace %s: delete the cluster's Secrets: %w", ns, err)
	}
	spec, _, _ := unstructured.NestedStringSlice(u.Object, "spec", "finalizers")
	if !slices.Contains(spec, string(corev1.FinalizerKubernetes)) {
		return nil
	}
	fin := &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: ns, ResourceVersion: u.GetResourceVersion()}}
	for _, f := range spec {
		if f != string(corev1.FinalizerKubernetes) {
			fin.Spec.Finalizers = append(fin.Spec.Finalizers, corev1.FinalizerName(f))
		}
	}
	err = retry(ctx, func() error {
		_, err := s.kc.CoreV1().Namespaces().Finalize(ctx, fin, metav1.UpdateOptions{})
		return err
	})
	if err != nil && !apierrors.IsNotFound(err) && !apierrors.IsConflict(err) {
		return fmt.Errorf("finalize namespace %s: %w", ns, err)
	}
	return nil
}
