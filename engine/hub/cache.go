package hub

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"sync/atomic"
	"time"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/client-go/dynamic"
	"k8s.io/client-go/dynamic/dynamicinformer"
	"k8s.io/client-go/metadata"
	"k8s.io/client-go/metadata/metadatainformer"
	"k8s.io/client-go/tools/cache"

	"github.com/siteops/siteops/engine/assisted"
	"github.com/siteops/siteops/render"
)

// Index names of the informers.
const (
	indexSite     = "site"
	indexInfraEnv = "infraenv"
)

// cacheSyncTimeout bounds the first list of a kind.
const cacheSyncTimeout = 2 * time.Minute

// errNotServed is a kind the hub has no API for.
var errNotServed = errors.New("not served by the hub")

// kind is one API kind the engine applies or reads.
type kind struct {
	gvk        schema.GroupVersionKind
	gvr        schema.GroupVersionResource
	namespaced bool
	informer   cache.SharedIndexInformer
	// names holds the metadata of every object of the kind, siteops's or
	// not (nil for kinds siteops does not apply): whether a name is taken
	// by somebody else is a cache lookup, not a request.
	names cache.SharedIndexInformer
	// listErr is the last error listing or watching the kind.
	listErr atomic.Value
}

// watchErrors keeps the last list or watch error of an informer, so that
// waitSynced can say why a cache does not fill (a role without list).
func (k *kind) watchErrors(inf cache.SharedIndexInformer) error {
	return inf.SetWatchErrorHandler(func(_ *cache.Reflector, err error) { k.listErr.Store(errBox{err}) })
}

type errBox struct{ err error }

func (k *kind) lastListError() error {
	if b, ok := k.listErr.Load().(errBox); ok {
		return b.err
	}
	return nil
}

// taken returns the metadata of the object of that name, siteops's or
// not, and whether the kind has a cache of names at all.
func (k *kind) taken(namespace, name string) (metav1.Object, bool) {
	if k.names == nil {
		return nil, false
	}
	key := name
	if namespace != "" {
		key = namespace + "/" + name
	}
	obj, ok, _ := k.names.GetIndexer().GetByKey(key)
	if !ok {
		return nil, true
	}
	m, ok := obj.(metav1.Object)
	if !ok {
		return nil, false
	}
	return m, true
}

// get returns the cached object, or nil.
func (k *kind) get(namespace, name string) *unstructured.Unstructured {
	key := name
	if namespace != "" {
		key = namespace + "/" + name
	}
	obj, ok, _ := k.informer.GetIndexer().GetByKey(key)
	if !ok {
		return nil
	}
	u, _ := obj.(*unstructured.Unstructured)
	return u
}

// bySite lists the cached objects of a site.
func (k *kind) bySite(site string) []*unstructured.Unstructured {
	objs, _ := k.informer.GetIndexer().ByIndex(indexSite, site)
	out := make([]*unstructured.Unstructured, 0, len(objs))
	for _, o := range objs {
		if u, ok := o.(*unstructured.Unstructured); ok {
			out = append(out, u)
		}
	}
	return out
}

// kinds holds the informers: one per kind siteops applied or may apply,
// filtered to the objects siteops manages; Agents filtered to those that
// belong to an InfraEnv; ClusterImageSets, unfiltered, for the
// prerequisite check.
type kinds struct {
	dyn     dynamic.Interface
	mapper  meta.ResettableRESTMapper
	managed dynamicinformer.DynamicSharedInformerFactory
	names   metadatainformer.SharedInformerFactory
	other   dynamicinformer.DynamicSharedInformerFactory
	stop    <-chan struct{}
	onEvent func(obj any)

	mu    sync.Mutex
	byGK  map[schema.GroupKind]*kind
	agent *kind // nil when the hub serves no Agents
	cis   *kind
}

func newKinds(dyn dynamic.Interface, md metadata.Interface, mapper meta.ResettableRESTMapper, instance string, stop <-chan struct{}, onEvent func(any)) *kinds {
	return &kinds{
		dyn:    dyn,
		names:  metadatainformer.NewSharedInformerFactory(md, 0),
		mapper: mapper,
		managed: dynamicinformer.NewFilteredDynamicSharedInformerFactory(dyn, 0, metav1.NamespaceAll, func(lo *metav1.ListOptions) {
			lo.LabelSelector = LabelManagedBy + "=" + ManagedByValue + "," + LabelInstance + "=" + instance
		}),
		other:   dynamicinformer.NewDynamicSharedInformerFactory(dyn, 0),
		stop:    stop,
		onEvent: onEvent,
		byGK:    map[schema.GroupKind]*kind{},
	}
}

// renderedKinds are the kinds siteops renders, watched from the start so
// that the sites of a previous run are known at once.
var renderedKinds = []schema.GroupVersionKind{
	{Version: "v1", Kind: render.KindNamespace},
	{Version: "v1", Kind: render.KindConfigMap},
	{Group: "hive.openshift.io", Version: "v1", Kind: render.KindClusterDeployment},
	{Group: "extensions.hive.openshift.io", Version: "v1beta1", Kind: render.KindAgentClusterInstall},
	{Group: "agent-install.openshift.io", Version: "v1beta1", Kind: render.KindInfraEnv},
	{Group: "agent-install.openshift.io", Version: "v1beta1", Kind: render.KindNMStateConfig},
	{Group: "metal3.io", Version: "v1alpha1", Kind: render.KindBareMetalHost},
	{Group: "metal3.io", Version: "v1alpha1", Kind: render.KindHostFirmwareSettings},
	{Group: "cluster.open-cluster-management.io", Version: "v1", Kind: render.KindManagedCluster},
	{Group: "agent.open-cluster-management.io", Version: "v1", Kind: render.KindKlusterletAddonConfig},
}

var (
	gvkAgent           = schema.GroupVersionKind{Group: "agent-install.openshift.io", Version: "v1beta1", Kind: KindAgent}
	gvkClusterImageSet = schema.GroupVersionKind{Group: "hive.openshift.io", Version: "v1", Kind: KindClusterImageSet}
	gvrSecret          = schema.GroupVersionResource{Version: "v1", Resource: "secrets"}
	gvrNamespace       = schema.GroupVersionResource{Version: "v1", Resource: "namespaces"}
)

// start watches the rendered kinds the hub serves, Agents and
// ClusterImageSets, and waits until their first lists are in.
func (ks *kinds) start(ctx context.Context) error {
	for _, gvk := range renderedKinds {
		if _, err := ks.managedKind(ctx, gvk); err != nil && !errors.Is(err, errNotServed) {
			return err
		}
	}
	var err error
	if ks.agent, err = ks.otherKind(ctx, gvkAgent, func(lo *metav1.ListOptions) { lo.LabelSelector = assisted.LabelInfraEnv }); err != nil && !errors.Is(err, errNotServed) {
		return err
	}
	if ks.cis, err = ks.otherKind(ctx, gvkClusterImageSet, nil); err != nil && !errors.Is(err, errNotServed) {
		return err
	}
	return nil
}

// mapping resolves a kind through discovery, once more after a reset when
// the first answer does not know it (a CRD installed since).
func (ks *kinds) mapping(gvk schema.GroupVersionKind) (*meta.RESTMapping, error) {
	m, err := ks.mapper.RESTMapping(gvk.GroupKind(), gvk.Version)
	if meta.IsNoMatchError(err) {
		ks.mapper.Reset()
		m, err = ks.mapper.RESTMapping(gvk.GroupKind(), gvk.Version)
	}
	if meta.IsNoMatchError(err) {
		return nil, fmt.Errorf("%s %s: %w", gvk.GroupVersion(), gvk.Kind, errNotServed)
	}
	return m, err
}

// managedKind returns the kind, starting its informer on first use.
func (ks *kinds) managedKind(ctx context.Context, gvk schema.GroupVersionKind) (*kind, error) {
	ks.mu.Lock()
	k := ks.byGK[gvk.GroupKind()]
	ks.mu.Unlock()
	if k != nil {
		return k, nil
	}
	m, err := ks.mapping(gvk)
	if err != nil {
		return nil, err
	}
	ks.mu.Lock()
	if k = ks.byGK[gvk.GroupKind()]; k != nil {
		ks.mu.Unlock()
		return k, nil
	}
	k = &kind{gvk: m.GroupVersionKind, gvr: m.Resource, namespaced: m.Scope.Name() == meta.RESTScopeNameNamespace}
	k.informer = ks.managed.ForResource(m.Resource).Informer()
	if err := prepare(k.informer, cache.Indexers{indexSite: siteIndex}, ks.onEvent); err != nil {
		ks.mu.Unlock()
		return nil, err
	}
	k.names = ks.names.ForResource(m.Resource).Informer()
	if err := errors.Join(k.watchErrors(k.informer), k.watchErrors(k.names)); err != nil {
		ks.mu.Unlock()
		return nil, err
	}
	if err := k.names.SetTransform(dropManagedFields); err != nil {
		ks.mu.Unlock()
		return nil, err
	}
	ks.byGK[gvk.GroupKind()] = k
	ks.managed.Start(ks.stop)
	ks.names.Start(ks.stop)
	ks.mu.Unlock()
	return k, waitSynced(ctx, k)
}

func (ks *kinds) otherKind(ctx context.Context, gvk schema.GroupVersionKind, tweak dynamicinformer.TweakListOptionsFunc) (*kind, error) {
	m, err := ks.mapping(gvk)
	if err != nil {
		return nil, err
	}
	k := &kind{gvk: m.GroupVersionKind, gvr: m.Resource, namespaced: m.Scope.Name() == meta.RESTScopeNameNamespace}
	k.informer = dynamicinformer.NewFilteredDynamicInformer(ks.dyn, m.Resource, metav1.NamespaceAll, 0, cache.Indexers{}, tweak).Informer()
	indexers := cache.Indexers{}
	if gvk == gvkAgent {
		indexers[indexInfraEnv] = infraEnvIndex
	}
	if err := errors.Join(prepare(k.informer, indexers, ks.onEvent), k.watchErrors(k.informer)); err != nil {
		return nil, err
	}
	go k.informer.Run(ks.stop)
	return k, waitSynced(ctx, k)
}

// prepare adds the indexes, drops managedFields from cached objects (the
// engine never reads them; they are most of an object's size) and calls
// onEvent on every change.
func prepare(inf cache.SharedIndexInformer, indexers cache.Indexers, onEvent func(any)) error {
	if len(indexers) > 0 {
		if err := inf.AddIndexers(indexers); err != nil {
			return err
		}
	}
	if err := inf.SetTransform(dropManagedFields); err != nil {
		return err
	}
	_, err := inf.AddEventHandler(cache.ResourceEventHandlerFuncs{
		AddFunc:    onEvent,
		UpdateFunc: func(_, obj any) { onEvent(obj) },
		DeleteFunc: func(obj any) {
			if d, ok := obj.(cache.DeletedFinalStateUnknown); ok {
				obj = d.Obj
			}
			onEvent(obj)
		},
	})
	return err
}

func dropManagedFields(obj any) (any, error) {
	if m, ok := obj.(metav1.Object); ok {
		m.SetManagedFields(nil)
	}
	return obj, nil
}

// waitSynced waits for the first list of the kind. A refusal (no role to
// list it) ends the wait at once with what to do.
func waitSynced(ctx context.Context, k *kind) error {
	ctx, cancel := context.WithTimeout(ctx, cacheSyncTimeout)
	defer cancel()
	for {
		if k.informer.HasSynced() && (k.names == nil || k.names.HasSynced()) {
			return nil
		}
		err := k.lastListError()
		if apierrors.IsForbidden(err) || apierrors.IsUnauthorized(err) {
			return fmt.Errorf("list and watch %s: %w; siteops needs the role in deploy/clusterrole.yaml", k.gvr.Resource, err)
		}
		select {
		case <-ctx.Done():
			if err != nil {
				return fmt.Errorf("list %s from the hub: %w", k.gvr.Resource, err)
			}
			return fmt.Errorf("list %s from the hub: no answer within %s", k.gvr.Resource, cacheSyncTimeout)
		case <-time.After(50 * time.Millisecond):
		}
	}
}

func siteIndex(obj any) ([]string, error) {
	u, ok := obj.(*unstructured.Unstructured)
	if !ok {
		return nil, nil
	}
	if s := u.GetLabels()[LabelSite]; s != "" {
		return []string{s}, nil
	}
	return nil, nil
}

// infraEnvIndex keys an Agent by the InfraEnv it registered through:
// namespace/name.
func infraEnvIndex(obj any) ([]string, error) {
	u, ok := obj.(*unstructured.Unstructured)
	if !ok {
		return nil, nil
	}
	if ie := u.GetLabels()[assisted.LabelInfraEnv]; ie != "" {
		return []string{u.GetNamespace() + "/" + ie}, nil
	}
	return nil, nil
}

// all returns the managed kinds.
func (ks *kinds) all() []*kind {
	ks.mu.Lock()
	defer ks.mu.Unlock()
	out := make([]*kind, 0, len(ks.byGK))
	for _, k := range ks.byGK {
		out = append(out, k)
	}
	return out
}

// lookup returns a managed kind already watched, or nil.
func (ks *kinds) lookup(kindName string) *kind {
	ks.mu.Lock()
	defer ks.mu.Unlock()
	for gk, k := range ks.byGK {
		if gk.Kind == kindName {
			return k
		}
	}
	return nil
}
