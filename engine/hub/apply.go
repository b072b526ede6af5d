package hub

import (
	"context"
	"errors"
	"fmt"
	"sort"
	"strings"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/util/validation"

	"github.com/siteops/siteops/engine"
	"github.com/siteops/siteops/internal/tomap"
	"github.com/siteops/siteops/render"
)

// Why the engine holds a site back, in the terms of engine's reason
// table. An object siteops did not create counts as a conflict: somebody
// else owns what the site sets.
const (
	reasonPrerequisiteMissing = engine.ReasonPrerequisiteMissing
	reasonApplyConflict       = engine.ReasonApplyConflict
	reasonNotOurs             = engine.ReasonApplyConflict
	reasonRefused             = engine.ReasonChangeRefused
	reasonUnreachable         = engine.ReasonEngineError
	reasonDeletionStuck       = engine.ReasonDeletionStuck
)

// desiredObject is one object of the bundle as it is sent.
type desiredObject struct {
	src  *render.Object
	kind *kind
	obj  *unstructured.Unstructured
}

func (d *desiredObject) ref() string { return d.src.Ref() }

// Apply applies the bundle wave by wave with server-side apply. A site
// whose objects all carry the bundle's hash is left alone without a
// request. A missing prerequisite, a conflict with another field manager
// or an object siteops did not create holds the site back: its status
// says why, and it is tried again every retry interval. Apply returns an
// error only when the hub could not be reached.
func (e *Engine) Apply(ctx context.Context, b *render.Bundle, revision string) error {
	if b == nil || b.Site == "" {
		return errors.New("apply: a bundle without a site")
	}
	if errs := validation.IsValidLabelValue(b.Site); len(errs) > 0 {
		return fmt.Errorf("site %s: the name cannot be a label value (%s); siteops labels every object with it", b.Site, strings.Join(errs, "; "))
	}
	hash, err := b.Hash()
	if err != nil {
		return fmt.Errorf("site %s: %w", b.Site, err)
	}
	s := e.site(b.Site)
	s.mu.Lock()
	defer s.mu.Unlock()
	e.mu.Lock()
	if s.deleting {
		e.mu.Unlock()
		return fmt.Errorf("site %s is being deleted; apply it again once its deletion finished", b.Site)
	}
	s.revision, s.hash = revision, hash
	e.mu.Unlock()

	objs, refused := e.desired(ctx, b, hash, revision)
	if refused != nil {
		e.hold(s, b, refused)
		return nil
	}
	e.mu.Lock()
	s.borrowed = borrowedNamespaces(objs)
	e.mu.Unlock()
	if e.upToDate(b.Site, objs, hash) {
		e.release(s)
		return nil
	}
	select {
	case e.sem <- struct{}{}:
	case <-ctx.Done():
		return ctx.Err()
	}
	defer func() { <-e.sem }()

	p, err := e.applyWaves(ctx, b.Site, objs)
	if err != nil {
		e.hold(s, b, &problem{reasonUnreachable, fmt.Sprintf("site %s: the hub did not take the bundle: %v; siteops tries again", b.Site, err)})
		return fmt.Errorf("site %s: %w", b.Site, err)
	}
	if p != nil {
		e.hold(s, b, p)
		return nil
	}
	if err := e.prune(ctx, s, objs); err != nil {
		e.hold(s, b, &problem{reasonUnreachable, fmt.Sprintf("site %s: removing objects no longer in the bundle: %v; siteops tries again", b.Site, err)})
		return fmt.Errorf("site %s: %w", b.Site, err)
	}
	e.release(s)
	e.event(s, "", "Applied", fmt.Sprintf("Applied revision %s (%d objects)", orNone(revision), len(objs)))
	return nil
}

// hold keeps the bundle for the retry loop and records why.
func (e *Engine) hold(s *site, b *render.Bundle, p *problem) {
	e.mu.Lock()
	s.pending = b
	e.mu.Unlock()
	e.setProblem(s, p)
}

func (e *Engine) release(s *site) {
	e.mu.Lock()
	s.pending = nil
	e.mu.Unlock()
	e.setProblem(s, nil)
}

func orNone(s string) string {
	if s == "" {
		return "(none)"
	}
	return s
}

// desired turns the bundle into the objects to send, in wave order, with
// the labels and annotations that mark them as siteops's. A Secret, or a
// kind the hub does not serve, refuses the bundle.
func (e *Engine) desired(ctx context.Context, b *render.Bundle, hash, revision string) ([]*desiredObject, *problem) {
	src := append([]*render.Object(nil), b.Objects...)
	sort.SliceStable(src, func(i, j int) bool { return src[i].Wave < src[j].Wave })
	out := make([]*desiredObject, 0, len(src))
	var notServed []string
	for _, o := range src {
		if o.Kind == KindSecret && (o.APIVersion == "v1") {
			return nil, &problem{reasonRefused, fmt.Sprintf("site %s: %s: siteops does not create Secrets from repository content; create it on the hub (for example with an external secrets operator) and remove it from the site definition", b.Site, o.Ref())}
		}
		gv, err := schema.ParseGroupVersion(o.APIVersion)
		if err != nil {
			return nil, &problem{reasonRefused, fmt.Sprintf("site %s: %s: apiVersion %q: %v", b.Site, o.Ref(), o.APIVersion, err)}
		}
		k, err := e.ks.managedKind(ctx, gv.WithKind(o.Kind))
		if errors.Is(err, errNotServed) {
			notServed = append(notServed, o.APIVersion+" "+o.Kind)
			continue
		}
		if err != nil {
			return nil, &problem{reasonRefused, fmt.Sprintf("site %s: %s: %v", b.Site, o.Ref(), err)}
		}
		u := &unstructured.Unstructured{Object: tomap.Copy(o.Content).(map[string]any)}
		mark(u, e.o.instance, b.Site, hash, revision)
		out = append(out, &desiredObject{src: o, kind: k, obj: u})
	}
	if len(notServed) > 0 {
		sort.Strings(notServed)
		return nil, &problem{reasonPrerequisiteMissing, fmt.Sprintf("site %s: the hub does not serve %s; install the operator that owns it (its CRD) on the hub", b.Site, strings.Join(compact(notServed), ", "))}
	}
	return out, nil
}

// mark puts on an object the labels and annotations that make it
// siteops's.
func mark(u *unstructured.Unstructured, instance, site, hash, revision string) {
	labels := u.GetLabels()
	if labels == nil {
		labels = map[string]string{}
	}
	labels[LabelManagedBy] = ManagedByValue
	labels[LabelInstance] = instance
	labels[LabelSite] = site
	u.SetLabels(labels)
	ann := u.GetAnnotations()
	if ann == nil {
		ann = map[string]string{}
	}
	ann[AnnotationBundleHash] = hash
	ann[AnnotationRevision] = revision
	u.SetAnnotations(ann)
}

func compact(s []string) []string {
	out := s[:0]
	for i, v := range s {
		if i == 0 || v != s[i-1] {
			out = append(out, v)
		}
	}
	return out
}

// upToDate reports whether every object of the bundle is on the hub with
// the bundle's hash and nothing else of the site is, from the caches
// alone.
func (e *Engine) upToDate(site string, objs []*desiredObject, hash string) bool {
	want := map[string]bool{}
	for _, d := range objs {
		cur := d.kind.get(d.src.Namespace, d.src.Name)
		if cur == nil && madeBeforehand(d) {
			continue // used as it is
		}
		if cur == nil || cur.GetAnnotations()[AnnotationBundleHash] != hash || cur.GetLabels()[LabelSite] != site || cur.GetDeletionTimestamp() != nil {
			return false
		}
		want[objectKey(d.kind, d.src.Namespace, d.src.Name)] = true
	}
	for _, k := range e.ks.all() {
		for _, u := range k.bySite(site) {
			if !want[objectKey(k, u.GetNamespace(), u.GetName())] {
				return false
			}
		}
	}
	return true
}

// madeBeforehand reports whether d is a Namespace somebody else made (to
// hold the Secrets): siteops uses it as it is and never changes or
// deletes it.
func madeBeforehand(d *desiredObject) bool {
	if d.src.Kind != render.KindNamespace {
		return false
	}
	m, cached := d.kind.taken("", d.src.Name)
	return cached && m != nil && m.GetLabels()[LabelManagedBy] != ManagedByValue
}

// borrowedNamespaces are the bundle's Namespaces made beforehand.
func borrowedNamespaces(objs []*desiredObject) []borrowed {
	var out []borrowed
	for _, d := range objs {
		if madeBeforehand(d) {
			out = append(out, borrowed{d.kind, d.src.Name})
		}
	}
	return out
}

func objectKey(k *kind, namespace, name string) string {
	return k.gvk.GroupKind().String() + " " + namespace + "/" + name
}

// applyWaves sends the objects wave by wave. The next wave goes only once
// every object of the previous one was accepted and its Namespaces are
// Active; the prerequisites are checked before the first wave that is
// not only Namespaces. It returns the problem that held the site back,
// or an error when the hub could not be reached.
func (e *Engine) applyWaves(ctx context.Context, site string, objs []*desiredObject) (*problem, error) {
	// created are the namespaces this call created: nothing else can be
	// in them yet.
	created := map[string]bool{}
	checked := false
	for start := 0; start < len(objs); {
		end := start
		for end < len(objs) && objs[end].src.Wave == objs[start].src.Wave {
			end++
		}
		wave := objs[start:end]
		if !checked && !onlyNamespaces(wave) {
			checked = true
			if p, err := e.checkPrerequisites(ctx, site, objs, created); p != nil || err != nil {
				return p, err
			}
		}
		var problems []string
		var reason engine.Reason
		for _, d := range wave {
			p, err := e.applyOne(ctx, site, d, created)
			if err != nil {
				return nil, fmt.Errorf("%s: %w", d.ref(), err)
			}
			if p != nil {
				problems = append(problems, p.message)
				if reason == "" {
					reason = p.reason
				}
			}
		}
		if len(problems) > 0 {
			msg := problems[0]
			if len(problems) > 1 {
				msg += fmt.Sprintf(" (and %d more: %s)", len(problems)-1, strings.Join(problems[1:], "; "))
			}
			return &problem{reason, msg}, nil
		}
		start = end
	}
	return nil, nil
}

func onlyNamespaces(wave []*desiredObject) bool {
	for _, d := range wave {
		if d.src.Kind != render.KindNamespace {
			return false
		}
	}
	return true
}

// applyOne sends one object unless the cache shows it already carries the
// bundle's hash. An object siteops did not create is left alone.
func (e *Engine) applyOne(ctx context.Context, site string, d *desiredObject, created map[string]bool) (*problem, error) {
	hash := d.obj.GetAnnotations()[AnnotationBundleHash]
	cur := d.kind.get(d.src.Namespace, d.src.Name)
	if cur != nil && cur.GetLabels()[LabelSite] != site {
		return &problem{reasonNotOurs, fmt.Sprintf("site %s: %s belongs to site %s; two sites render the same object: rename it in one of them", site, d.ref(), cur.GetLabels()[LabelSite])}, nil
	}
	if cur != nil && cur.GetAnnotations()[AnnotationBundleHash] == hash && cur.GetDeletionTimestamp() == nil {
		return nil, nil
	}
	if cur == nil && !created[d.src.Namespace] {
		// Not in the cache of siteops's objects: there may be one
		// somebody else made.
		p, err := e.checkNotForeign(ctx, site, d)
		if p != nil || err != nil {
			if p != nil && d.src.Kind == render.KindNamespace && p.reason == reasonNotOurs {
				// A namespace made beforehand (to hold the Secrets) is
				// used as it is and never changed or deleted.
				return nil, nil
			}
			return p, err
		}
	}
	if cur != nil && cur.GetDeletionTimestamp() != nil {
		return &problem{reasonRefused, fmt.Sprintf("site %s: %s is still being deleted; siteops applies it again once it is gone", site, d.ref())}, nil
	}
	res := e.dyn.Resource(d.kind.gvr)
	var out *unstructured.Unstructured
	err := e.retry(ctx, func(ctx context.Context) error {
		var err error
		if d.kind.namespaced {
			out, err = res.Namespace(d.src.Namespace).Apply(ctx, d.src.Name, d.obj, metav1.ApplyOptions{FieldManager: FieldManager, Force: e.o.forceConflicts})
		} else {
			out, err = res.Apply(ctx, d.src.Name, d.obj, metav1.ApplyOptions{FieldManager: FieldManager, Force: e.o.forceConflicts})
		}
		return err
	})
	switch {
	case apierrors.IsConflict(err):
		return &problem{reasonApplyConflict, conflictMessage(site, d, err)}, nil
	case apierrors.IsInvalid(err), apierrors.IsBadRequest(err), apierrors.IsForbidden(err), apierrors.IsNotFound(err), apierrors.IsAlreadyExists(err):
		return &problem{reasonRefused, fmt.Sprintf("site %s: %s: the hub refused it: %v", site, d.ref(), err)}, nil
	case err != nil:
		return nil, err
	}
	if d.src.Kind == render.KindNamespace {
		if cur == nil {
			created[d.src.Name] = true
		}
		if phase, _, _ := unstructured.NestedString(out.Object, "status", "phase"); phase != "" && phase != "Active" {
			return &problem{reasonRefused, fmt.Sprintf("site %s: %s is %s; siteops applies the site once it is Active again", site, d.ref(), phase)}, nil
		}
	}
	return nil, nil
}

// checkNotForeign looks for an object siteops has not in its cache of its
// own objects, in the cache of every name of the kind (or, for a kind
// without one, on the hub): absent is fine, present without siteops's
// labels is somebody else's.
func (e *Engine) checkNotForeign(ctx context.Context, site string, d *desiredObject) (*problem, error) {
	cur, cached := d.kind.taken(d.src.Namespace, d.src.Name)
	if cached && cur == nil {
		return nil, nil
	}
	var err error
	if !cached {
		err = e.retry(ctx, func(ctx context.Context) error {
			var err error
			if d.kind.namespaced {
				cur, err = e.meta.Resource(d.kind.gvr).Namespace(d.src.Namespace).Get(ctx, d.src.Name, metav1.GetOptions{})
			} else {
				cur, err = e.meta.Resource(d.kind.gvr).Get(ctx, d.src.Name, metav1.GetOptions{})
			}
			return err
		})
	}
	switch {
	case apierrors.IsNotFound(err):
		return nil, nil
	case apierrors.IsForbidden(err):
		return &problem{reasonRefused, fmt.Sprintf("site %s: %s: siteops may not read it: %v", site, d.ref(), err)}, nil
	case err != nil:
		return nil, err
	}
	l := cur.GetLabels()
	if l[LabelManagedBy] == ManagedByValue && l[LabelInstance] != e.o.instance {
		return &problem{reasonNotOurs, fmt.Sprintf("site %s: %s belongs to the siteops instance %q (label %s), not to this one (%q); two fleets render the same object: rename it in one of them", site, d.ref(), l[LabelInstance], LabelInstance, e.o.instance)}, nil
	}
	if l[LabelManagedBy] == ManagedByValue && l[LabelSite] == site {
		return nil, nil // ours; the cache has not seen it yet
	}
	if l[LabelManagedBy] == ManagedByValue {
		return &problem{reasonNotOurs, fmt.Sprintf("site %s: %s belongs to site %s; two sites render the same object: rename it in one of them", site, d.ref(), l[LabelSite])}, nil
	}
	return &problem{reasonNotOurs, fmt.Sprintf("site %s: %s exists on the hub and was not created by siteops (no label %s=%s); siteops leaves it alone: delete it on the hub to let siteops create it, or rename it in the site definition", site, d.ref(), LabelManagedBy, ManagedByValue)}, nil
}

// conflictMessage names the field managers and the fields of a
// server-side apply conflict.
func conflictMessage(site string, d *desiredObject, err error) string {
	var byManager = map[string][]string{}
	var status apierrors.APIStatus
	if errors.As(err, &status) && status.Status().Details != nil {
		for _, c := range status.Status().Details.Causes {
			if c.Type != metav1.CauseTypeFieldManagerConflict {
				continue
			}
			m := managerOf(c.Message)
			byManager[m] = append(byManager[m], c.Field)
		}
	}
	if len(byManager) == 0 {
		return fmt.Sprintf("site %s: %s: %v; siteops does not take fields over: change them back on the hub, or run with --force-conflicts", site, d.ref(), err)
	}
	managers := make([]string, 0, len(byManager))
	for m := range byManager {
		managers = append(managers, m)
	}
	sort.Strings(managers)
	parts := make([]string, 0, len(managers))
	for _, m := range managers {
		fields := byManager[m]
		sort.Strings(fields)
		parts = append(parts, fmt.Sprintf("%s owned by field manager %q", strings.Join(fields, ", "), m))
	}
	return fmt.Sprintf("site %s: %s: %s; siteops does not take fields over that another manager set: make that manager let go of them, drop them from the site definition, or run with --force-conflicts", site, d.ref(), strings.Join(parts, "; "))
}

// managerOf reads the manager out of a conflict cause's message, which
// reads `conflict with "<manager>"` (k8s.io/apimachinery
// pkg/util/managedfields/internal/conflict.go), optionally followed by
// " using <apiVersion>".
func managerOf(msg string) string {
	const prefix = `conflict with "`
	i := strings.Index(msg, prefix)
	if i < 0 {
		return msg
	}
	rest := msg[i+len(prefix):]
	if j := strings.Index(rest, `"`); j >= 0 {
		return rest[:j]
	}
	return rest
}
