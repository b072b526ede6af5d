package hub

import (
	"context"
	"errors"
	"fmt"
	"sync"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/client-go/dynamic"
	"k8s.io/client-go/metadata"
	"k8s.io/client-go/rest"

	"github.com/siteops/siteops/internal/tomap"
	"github.com/siteops/siteops/render"
)

// DefaultDryRunNamespace stands in, during a dry run, for a namespace the
// bundle renders and the hub does not have yet: a dry run creates
// nothing, so the objects of a new site would otherwise all fail with
// "namespace not found" instead of being checked.
const DefaultDryRunNamespace = "default"

// DryRunner applies rendered objects to a hub with dryRun=All: the API
// server runs its CRD schemas, defaulting and admission on them and
// stores nothing. It is safe for concurrent use.
type DryRunner struct {
	dyn       dynamic.Interface
	meta      metadata.Interface
	mapper    meta.ResettableRESTMapper
	instance  string
	standIn   string
	mu        sync.Mutex
	namespace map[string]bool
}

// ObjectProblem is an object the hub refused.
type ObjectProblem struct {
	Object string // "Kind namespace/name"
	Err    error
}

// NewDryRunner connects to the hub of cfg, limited by WithRateLimit.
func NewDryRunner(cfg *rest.Config, opts ...Option) (*DryRunner, error) {
	o, c, err := newClients(cfg, opts)
	if err != nil {
		return nil, err
	}
	return &DryRunner{dyn: c.dyn, meta: c.meta, mapper: c.mapper, instance: o.instance, standIn: DefaultDryRunNamespace, namespace: map[string]bool{}}, nil
}

// Check dry-runs every object of the bundle, as Apply would send it, and
// returns those the hub refuses. An error is returned when the hub
// cannot be asked at all.
func (d *DryRunner) Check(ctx context.Context, b *render.Bundle) ([]ObjectProblem, error) {
	hash, err := b.Hash()
	if err != nil {
		return nil, err
	}
	var out []ObjectProblem
	for _, o := range b.Objects {
		if o.Kind == KindSecret && o.APIVersion == "v1" {
			out = append(out, ObjectProblem{o.Ref(), errors.New("siteops does not create Secrets from repository content; create it on the hub and remove it from the site definition")})
			continue
		}
		gv, err := schema.ParseGroupVersion(o.APIVersion)
		if err != nil {
			out = append(out, ObjectProblem{o.Ref(), err})
			continue
		}
		m, err := d.mapper.RESTMapping(gv.WithKind(o.Kind).GroupKind(), gv.Version)
		if meta.IsNoMatchError(err) {
			d.mapper.Reset()
			m, err = d.mapper.RESTMapping(gv.WithKind(o.Kind).GroupKind(), gv.Version)
		}
		if meta.IsNoMatchError(err) {
			out = append(out, ObjectProblem{o.Ref(), fmt.Errorf("the hub does not serve %s %s; install the operator that owns it", o.APIVersion, o.Kind)})
			continue
		}
		if err != nil {
			return out, err
		}
		u := &unstructured.Unstructured{Object: tomap.Copy(o.Content).(map[string]any)}
		mark(u, d.instance, b.Site, hash, "dry-run")
		opts := metav1.ApplyOptions{FieldManager: FieldManager, DryRun: []string{metav1.DryRunAll}, Force: true}
		res := d.dyn.Resource(m.Resource)
		if m.Scope.Name() == meta.RESTScopeNameNamespace {
			var ns string
			if ns, err = d.namespaceFor(ctx, o.Namespace); err != nil {
				return out, err
			}
			u.SetNamespace(ns)
			_, err = res.Namespace(ns).Apply(ctx, o.Name, u, opts)
		} else {
			_, err = res.Apply(ctx, o.Name, u, opts)
		}
		switch {
		case err == nil:
		case apierrors.IsInvalid(err), apierrors.IsBadRequest(err), apierrors.IsForbidden(err), apierrors.IsNotFound(err):
			out = append(out, ObjectProblem{o.Ref(), err})
		default:
			return out, fmt.Errorf("%s: %w", o.Ref(), err)
		}
	}
	return out, nil
}

// namespaceFor is the namespace an object is dry-run in: its own when the
// hub has it, the stand-in otherwise.
func (d *DryRunner) namespaceFor(ctx context.Context, ns string) (string, error) {
	d.mu.Lock()
	known, ok := d.namespace[ns]
	d.mu.Unlock()
	if !ok {
		_, err := d.meta.Resource(gvrNamespace).Get(ctx, ns, metav1.GetOptions{})
		switch {
		case apierrors.IsNotFound(err):
		case err != nil:
			return "", fmt.Errorf("look for Namespace %s: %w", ns, err)
		}
		known = err == nil
		d.mu.Lock()
		d.namespace[ns] = known
		d.mu.Unlock()
	}
	if known {
		return ns, nil
	}
	return d.standIn, nil
}
