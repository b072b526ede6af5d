package hub

import (
	"context"
	"errors"
	"fmt"
	"sort"
	"strings"
	"time"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"

	"github.com/siteops/siteops/engine"
	"github.com/siteops/siteops/render"
)

// deletePollInterval is how often a teardown step looks at the cache for
// its objects to be gone.
const deletePollInterval = 200 * time.Millisecond

// liveObject is one cached object of a site with its kind.
type liveObject struct {
	kind *kind
	obj  *unstructured.Unstructured
}

func (l liveObject) ref() string {
	if l.obj.GetNamespace() == "" {
		return l.kind.gvk.Kind + " " + l.obj.GetName()
	}
	return l.kind.gvk.Kind + " " + l.obj.GetNamespace() + "/" + l.obj.GetName()
}

// objectsOf lists the cached objects of a site.
func (e *Engine) objectsOf(site string) []liveObject {
	var out []liveObject
	for _, k := range e.ks.all() {
		for _, u := range k.bySite(site) {
			out = append(out, liveObject{k, u})
		}
	}
	sort.Slice(out, func(i, j int) bool { return out[i].ref() < out[j].ref() })
	return out
}

// Delete starts tearing the site down in the upstream order and returns;
// the site's status shows the progress (phase Deleting) and an object
// whose finalizer does not finish within the delete timeout. Only
// objects siteops created are deleted; the installed cluster is never
// touched.
func (e *Engine) Delete(ctx context.Context, name string) error {
	s := e.site(name)
	e.mu.Lock()
	if s.deleting {
		e.mu.Unlock()
		return nil
	}
	if s.pending == nil && len(e.objectsOf(name)) == 0 {
		delete(e.sites, name)
		e.mu.Unlock()
		return fmt.Errorf("delete site %s: %w", name, engine.ErrNotFound)
	}
	s.deleting, s.pending = true, nil
	s.addEvent(time.Now(), "", "Deleting", fmt.Sprintf("Deleting site %s in the teardown order: %s; the installed cluster is not touched", name, stepsText()))
	e.mu.Unlock()
	e.setProblem(s, nil)
	e.wg.Add(1)
	go e.teardown(s)
	return nil
}

func stepsText() string {
	parts := make([]string, len(teardownSteps))
	for i, st := range teardownSteps {
		parts[i] = st.what
	}
	return strings.Join(parts, ", then ")
}

// teardown runs the steps; each deletes its objects and waits until they
// are gone. An object still there after the delete timeout is reported
// with its finalizers, and the teardown keeps waiting for it: siteops
// never removes a finalizer itself.
func (e *Engine) teardown(s *site) {
	defer e.wg.Done()
	s.mu.Lock() // wait for an Apply under way
	s.mu.Unlock()
	select {
	case e.sem <- struct{}{}:
	case <-e.ctx.Done():
		return
	}
	defer func() { <-e.sem }()
	for i := range teardownSteps {
		if err := e.teardownStep(s, i); err != nil {
			if e.ctx.Err() == nil {
				e.setProblem(s, &problem{reasonDeletionStuck, fmt.Sprintf("site %s: deleting %s: %v", s.name, teardownSteps[i].what, err)})
			}
			return
		}
	}
	e.mu.Lock()
	s.addEvent(time.Now(), "", "Deleted", fmt.Sprintf("Site %s deleted", s.name))
	delete(e.sites, s.name)
	e.mu.Unlock()
	e.notify(s.name)
}

func (e *Engine) teardownStep(s *site, step int) error {
	var todo []liveObject
	for _, l := range e.objectsOf(s.name) {
		if stepOf(l.kind.gvk.Kind) == step {
			todo = append(todo, l)
		}
	}
	if len(todo) == 0 {
		return nil
	}
	for _, l := range todo {
		if l.obj.GetDeletionTimestamp() != nil {
			continue
		}
		if err := e.deleteObject(e.ctx, l); err != nil {
			return err
		}
		e.event(s, l.ref(), "Deleting", "Deleted by siteops; waiting for it to go")
	}
	deadline := time.Now().Add(e.o.deleteTimeout)
	reported := false
	for {
		left := e.stillThere(todo)
		if len(left) == 0 {
			if reported {
				e.setProblem(s, nil)
			}
			return nil
		}
		if !reported && time.Now().After(deadline) {
			reported = true
			e.setProblem(s, &problem{reasonDeletionStuck, stuckMessage(s.name, left, e.o.deleteTimeout)})
		}
		select {
		case <-e.ctx.Done():
			return e.ctx.Err()
		case <-time.After(deletePollInterval):
		}
	}
}

func (e *Engine) deleteObject(ctx context.Context, l liveObject) error {
	policy := metav1.DeletePropagationBackground
	// The uid precondition makes sure the object deleted is the one
	// siteops saw with its labels, not one made since under the same name.
	uid := l.obj.GetUID()
	opts := metav1.DeleteOptions{PropagationPolicy: &policy, Preconditions: &metav1.Preconditions{UID: &uid}}
	err := e.retry(ctx, func(ctx context.Context) error {
		res := e.dyn.Resource(l.kind.gvr)
		if l.kind.namespaced {
			return res.Namespace(l.obj.GetNamespace()).Delete(ctx, l.obj.GetName(), opts)
		}
		return res.Delete(ctx, l.obj.GetName(), opts)
	})
	if apierrors.IsNotFound(err) || apierrors.IsConflict(err) {
		return nil
	}
	if err != nil {
		return fmt.Errorf("%s: %w", l.ref(), err)
	}
	return nil
}

// stillThere returns the objects of todo the cache still holds, as the
// cache has them now (with their finalizers).
func (e *Engine) stillThere(todo []liveObject) []liveObject {
	var left []liveObject
	for _, l := range todo {
		cur := l.kind.get(l.obj.GetNamespace(), l.obj.GetName())
		if cur != nil && cur.GetUID() == l.obj.GetUID() {
			left = append(left, liveObject{l.kind, cur})
		}
	}
	return left
}

// stuckMessage names each object still there, its finalizers, the
// controller that should remove them and what a person can do.
func stuckMessage(site string, left []liveObject, timeout time.Duration) string {
	parts := make([]string, 0, len(left))
	for _, l := range left {
		fin := l.obj.GetFinalizers()
		if l.kind.gvk.Kind == render.KindNamespace {
			// A namespace's own finalizers are in its spec.
			spec, _, _ := unstructured.NestedStringSlice(l.obj.Object, "spec", "finalizers")
			fin = append(spec, fin...)
		}
		if len(fin) == 0 {
			parts = append(parts, fmt.Sprintf("%s is still there after %s without a finalizer", l.ref(), timeout))
			continue
		}
		owners := make([]string, 0, len(fin))
		for _, f := range fin {
			if o := finalizerOwners[f]; o != "" {
				owners = append(owners, fmt.Sprintf("%s (removed by %s)", f, o))
			} else {
				owners = append(owners, f)
			}
		}
		if l.kind.gvk.Kind == render.KindNamespace {
			parts = append(parts, fmt.Sprintf("%s is still there after %s: finalizer %s has not finished; the namespace controller removes it once nothing is left in the namespace: look at what is (kubectl api-resources --verbs=list --namespaced -o name | xargs -n1 kubectl get -n %s)",
				l.ref(), timeout, strings.Join(owners, ", "), l.obj.GetName()))
			continue
		}
		res := strings.ToLower(l.kind.gvk.Kind)
		if l.kind.gvk.Group != "" {
			res += "." + l.kind.gvk.Group
		}
		nsFlag := ""
		if l.obj.GetNamespace() != "" {
			nsFlag = " -n " + l.obj.GetNamespace()
		}
		parts = append(parts, fmt.Sprintf("%s is still there after %s: finalizer %s has not finished; look at that controller's logs, and only if it is gone for good remove the finalizer by hand (kubectl patch %s %s%s --type=merge -p '{\"metadata\":{\"finalizers\":null}}'); siteops never does that itself",
			l.ref(), timeout, strings.Join(owners, ", "), res, l.obj.GetName(), nsFlag))
	}
	return fmt.Sprintf("site %s: deletion stuck: %s", site, strings.Join(parts, "; "))
}

// prune deletes the objects of the site the bundle no longer has, in the
// teardown order, without waiting for them to go: a node taken out of a
// site loses its BareMetalHost, NMStateConfig and firmware settings in
// one step.
func (e *Engine) prune(ctx context.Context, s *site, objs []*desiredObject) error {
	want := map[string]bool{}
	for _, d := range objs {
		want[objectKey(d.kind, d.src.Namespace, d.src.Name)] = true
	}
	var gone []liveObject
	for _, l := range e.objectsOf(s.name) {
		if !want[objectKey(l.kind, l.obj.GetNamespace(), l.obj.GetName())] && l.obj.GetDeletionTimestamp() == nil {
			gone = append(gone, l)
		}
	}
	sort.SliceStable(gone, func(i, j int) bool { return stepOf(gone[i].kind.gvk.Kind) < stepOf(gone[j].kind.gvk.Kind) })
	var errs []error
	for _, l := range gone {
		if err := e.deleteObject(ctx, l); err != nil {
			errs = append(errs, err)
			continue
		}
		e.event(s, l.ref(), "Removed", "No longer in the site's bundle: deleted")
	}
	return errors.Join(errs...)
}
