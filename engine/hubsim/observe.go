package hubsim

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"slices"
	"sort"
	"strconv"
	"strings"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/labels"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/client-go/tools/cache"

	"github.com/siteops/siteops/engine/sim"
	"github.com/siteops/siteops/render"
)

// seen is one object of a namespace with its kind.
type seen struct {
	w   watched
	obj *unstructured.Unstructured
}

func (o seen) deleting() bool { return o.obj.GetDeletionTimestamp() != nil }

// gather lists the watched objects of a namespace, in watchedKinds order
// and by name within a kind.
func (s *Simulator) gather(ns string) []seen {
	var out []seen
	for _, w := range watchedKinds {
		if !w.namespaced {
			continue
		}
		objs, _ := s.informers[w.kind].GetIndexer().ByIndex(cache.NamespaceIndex, ns)
		var list []seen
		for _, o := range objs {
			if u, ok := o.(*unstructured.Unstructured); ok {
				list = append(list, seen{w, u})
			}
		}
		sort.Slice(list, func(i, j int) bool { return list[i].obj.GetName() < list[j].obj.GetName() })
		out = append(out, list...)
	}
	return out
}

// selected reports whether the namespace's labels match the selector.
func (s *Simulator) selected(ns string) bool {
	if s.o.selector.Empty() {
		return true
	}
	obj, ok, _ := s.nss.GetIndexer().GetByKey(ns)
	if !ok {
		return false
	}
	u, ok := obj.(*unstructured.Unstructured)
	return ok && s.o.selector.Matches(labels.Set(u.GetLabels()))
}

// siteOf names the site of a namespace: siteops's site label on its
// objects, else the namespace.
func siteOf(ns string, objs []seen) string {
	for _, o := range objs {
		if v := o.obj.GetLabels()[labelSite]; v != "" {
			return v
		}
	}
	return ns
}

// reconcile reads a namespace into the simulation: the controllers'
// finalizers on new objects, the site's bundle applied when it changed,
// the site deleted when its ClusterDeployment goes, and the finalizers of
// deleted objects released once the simulated controllers are done with
// them.
func (s *Simulator) reconcile(ctx context.Context, ns string) error {
	if !s.selected(ns) {
		return nil
	}
	objs := s.gather(ns)
	site := siteOf(ns, objs)
	s.mu.Lock()
	if len(objs) > 0 {
		s.siteNS[site] = ns
	} else {
		// The objects are gone: the site keeps the name it had.
		for name, n := range s.siteNS {
			if n == ns {
				site = name
			}
		}
	}
	tomb := s.tombs[ns]
	s.mu.Unlock()
	if len(objs) == 0 {
		if tomb {
			if err := s.setTomb(ctx, ns, false); err != nil {
				return err
			}
		}
		if err := s.eng.Delete(ctx, site); err != nil && !notFound(err) {
			return err
		}
		return s.finishNamespace(ctx, ns, site)
	}
	for _, o := range objs {
		if err := s.addFinalizer(ctx, o); err != nil {
			return err
		}
	}
	cdGoing := slices.ContainsFunc(objs, func(o seen) bool { return o.w.kind == render.KindClusterDeployment && o.deleting() })
	switch {
	case cdGoing && !tomb:
		if err := s.setTomb(ctx, ns, true); err != nil {
			return err
		}
		if err := s.eng.Delete(ctx, site); err != nil && !notFound(err) {
			return err
		}
	case !tomb:
		if err := s.apply(ctx, site, objs); err != nil {
			return err
		}
	}
	view, err := s.eng.Objects(ctx, site)
	gone := notFound(err)
	if err != nil && !gone {
		return err
	}
	for _, o := range objs {
		if o.deleting() && (gone || releasable(o, view)) {
			if err := s.removeFinalizer(ctx, o); err != nil {
				return err
			}
		}
	}
	if !gone && !view.Deleting {
		if err := s.approveAgents(ctx, site, ns, view); err != nil {
			return err
		}
	}
	// Agents of hosts the simulation removed (a node taken out, a
	// teardown) go.
	if err := s.deleteAgents(ctx, ns, view); err != nil {
		return err
	}
	if !gone {
		s.sites.Add(site)
	}
	return nil
}

// releasable reports whether the simulated controller of a deleted object
// finished with it: during a site's teardown, once its step passed (the
// finalizer order of engine/sim); otherwise once the simulation no longer
// has it.
func releasable(o seen, v sim.SiteObjects) bool {
	name := o.obj.GetName()
	if v.Deleting {
		switch o.w.kind {
		case render.KindBareMetalHost:
			return v.TeardownDone > sim.TeardownBareMetalHosts
		case render.KindClusterDeployment, render.KindAgentClusterInstall:
			return v.TeardownDone > sim.TeardownClusterDeployment
		default:
			return v.TeardownDone > sim.TeardownInfraEnvs
		}
	}
	switch o.w.kind {
	case render.KindBareMetalHost:
		return !slices.ContainsFunc(v.BareMetalHosts, func(b sim.BareMetalHostStatus) bool { return b.Name == name })
	case render.KindInfraEnv:
		return !slices.ContainsFunc(v.InfraEnvs, func(ie sim.InfraEnvStatus) bool { return ie.Name == name })
	case render.KindAgentClusterInstall:
		return v.AgentClusterInstall == nil || v.AgentClusterInstall.Name != name
	}
	return true
}

// apply builds the site's bundle from the objects not being deleted and
// applies it when it changed since the last apply.
func (s *Simulator) apply(ctx context.Context, site string, objs []seen) error {
	b := &render.Bundle{Site: site}
	revision := ""
	imageSets := map[string]bool{}
	for _, o := range objs {
		if o.deleting() {
			continue
		}
		b.Objects = append(b.Objects, toObject(o))
		if o.w.kind == render.KindClusterDeployment || revision == "" {
			revision = o.obj.GetAnnotations()[annotationRevision]
		}
		if o.w.kind == render.KindAgentClusterInstall {
			if n, _, _ := unstructured.NestedString(o.obj.Object, "spec", "imageSetRef", "name"); n != "" {
				imageSets[n] = true
			}
		}
	}
	for n := range imageSets {
		if obj, ok, _ := s.informers[kindImageSet].GetIndexer().GetByKey(n); ok {
			b.Objects = append(b.Objects, toObject(seen{watchedKinds[len(watchedKinds)-1], obj.(*unstructured.Unstructured)}))
		}
	}
	if len(b.Objects) == 0 {
		return nil
	}
	digest := bundleDigest(b, revision)
	s.mu.Lock()
	same := s.applied[site] == digest
	s.mu.Unlock()
	if same {
		return nil
	}
	if err := s.eng.Apply(ctx, b, revision); err != nil {
		return fmt.Errorf("site %s: %w", site, err)
	}
	s.mu.Lock()
	s.applied[site] = digest
	s.mu.Unlock()
	return nil
}

// toObject is what the controllers read of an object: its identity,
// labels and annotations (without siteops's and kubectl's bookkeeping)
// and spec, so that a status written back changes nothing.
func toObject(o seen) *render.Object {
	u := o.obj
	meta := map[string]any{"name": u.GetName()}
	if u.GetNamespace() != "" {
		meta["namespace"] = u.GetNamespace()
	}
	if l := u.GetLabels(); len(l) > 0 {
		meta["labels"] = stringMap(l, "")
	}
	if a := stringMap(u.GetAnnotations(), ownAnnotationPrefix); len(a) > 0 {
		meta["annotations"] = a
	}
	content := map[string]any{"apiVersion": u.GetAPIVersion(), "kind": u.GetKind(), "metadata": meta}
	if spec, ok := u.Object["spec"]; ok {
		content["spec"] = spec
	}
	wave, _ := strconv.Atoi(u.GetAnnotations()["ran.openshift.io/ztp-deploy-wave"])
	return &render.Object{APIVersion: u.GetAPIVersion(), Kind: o.w.kind, Namespace: u.GetNamespace(), Name: u.GetName(), Wave: wave, Content: content}
}

// stringMap copies a label or annotation map as JSON-compatible data,
// leaving out siteops's own keys (prefix) and kubectl's copy of the
// object.
func stringMap(m map[string]string, skipPrefix string) map[string]any {
	out := make(map[string]any, len(m))
	for k, v := range m {
		if (skipPrefix != "" && strings.HasPrefix(k, skipPrefix)) || k == annotationLastApplied {
			continue
		}
		out[k] = v
	}
	return out
}

func bundleDigest(b *render.Bundle, revision string) string {
	h := sha256.New()
	h.Write([]byte(revision))
	for _, o := range b.Objects {
		j, _ := json.Marshal(o.Content)
		h.Write(j)
	}
	return hex.EncodeToString(h.Sum(nil))
}

// addFinalizer puts the controller's finalizer on an object it has not
// seen yet (not on one already being deleted).
func (s *Simulator) addFinalizer(ctx context.Context, o seen) error {
	f := o.w.finalizer
	if f == "" || o.deleting() || slices.Contains(o.obj.GetFinalizers(), f) {
		return nil
	}
	return s.patchFinalizers(ctx, o, append(slices.Clone(o.obj.GetFinalizers()), f))
}

// removeFinalizer takes the controller's finalizer off a deleted object.
func (s *Simulator) removeFinalizer(ctx context.Context, o seen) error {
	f := o.w.finalizer
	if f == "" || !slices.Contains(o.obj.GetFinalizers(), f) {
		return nil
	}
	return s.patchFinalizers(ctx, o, slices.DeleteFunc(slices.Clone(o.obj.GetFinalizers()), func(x string) bool { return x == f }))
}

// patchFinalizers sets an object's finalizers if it did not change since
// it was read (resourceVersion): a conflict is read again and retried by
// the queue.
func (s *Simulator) patchFinalizers(ctx context.Context, o seen, fins []string) error {
	if fins == nil {
		fins = []string{}
	}
	body, _ := json.Marshal(map[string]any{"metadata": map[string]any{"finalizers": fins, "resourceVersion": o.obj.GetResourceVersion()}})
	err := retry(ctx, func() error {
		_, err := s.dyn.Resource(o.w.gvr).Namespace(o.obj.GetNamespace()).Patch(ctx, o.obj.GetName(), types.MergePatchType, body, metav1.PatchOptions{FieldManager: managerAssisted})
		return err
	})
	if apierrors.IsNotFound(err) {
		return nil
	}
	if err != nil {
		return fmt.Errorf("%s %s/%s finalizers: %w", o.w.kind, o.obj.GetNamespace(), o.obj.GetName(), err)
	}
	return nil
}

// approveAgents hands the simulation the approvals a user wrote on Agents
// (spec.approved) that the simulated controllers did not give themselves:
// hosts that match no BareMetalHost, or all of them with manual approval.
func (s *Simulator) approveAgents(ctx context.Context, site, ns string, view sim.SiteObjects) error {
	approved := map[string]bool{}
	for _, a := range view.Agents {
		approved[a.Name] = a.Approved
	}
	objs, _ := s.agents.GetIndexer().ByIndex(cache.NamespaceIndex, ns)
	for _, o := range objs {
		u, ok := o.(*unstructured.Unstructured)
		if !ok {
			continue
		}
		want, _, _ := unstructured.NestedBool(u.Object, "spec", "approved")
		if have, known := approved[u.GetName()]; known && want && !have {
			if err := s.eng.Approve(ctx, site, u.GetName()); err != nil {
				return fmt.Errorf("approve Agent %s/%s: %w", ns, u.GetName(), err)
			}
		}
	}
	return nil
}
