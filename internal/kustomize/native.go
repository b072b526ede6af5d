package kustomize

import (
	"context"
	"errors"
	"fmt"
	"path"
	"slices"
	"strings"
	"sync/atomic"

	"sigs.k8s.io/kustomize/api/builtins"
	"sigs.k8s.io/kustomize/api/filters/namespace"
	"sigs.k8s.io/kustomize/api/ifc"
	"sigs.k8s.io/kustomize/api/resmap"
	"sigs.k8s.io/kustomize/api/resource"
	"sigs.k8s.io/kustomize/api/types"
	"sigs.k8s.io/kustomize/kyaml/resid"
	sigsyaml "sigs.k8s.io/yaml"
)

// The native path builds the common overlay shapes (a namespace, a name
// prefix or suffix, labels, annotations, strategic-merge and JSON 6902
// patches over resource files and directories) without krusty's target
// machinery: the objects of the bases come parsed from the build's memo
// and the results of other directories, and the overlay's transformations
// run as kustomize's own built-in plugins, configured the way krusty
// configures them (api/internal/target/kusttarget_configplugin.go), in
// krusty's order. What krusty would do beyond that (rewriting references
// to renamed objects, the fields it sets on workload kinds) is guarded:
// when the objects of a tree could be affected, or when anything fails,
// the directory is built by krusty instead, which also gives kustomize's
// own error messages.

// nativeFields are the kustomization fields the native path builds.
var nativeFields = map[string]bool{
	"apiVersion": true, "kind": true, "metadata": true,
	"resources": true, "bases": true,
	"namespace": true, "namePrefix": true, "nameSuffix": true,
	"commonLabels": true, "labels": true, "commonAnnotations": true,
	"patches": true, "patchesStrategicMerge": true, "patchesJson6902": true,
}

// Field specifications of kustomize's default transformer configuration
// (api/internal/konfig/builtinpluginconsts: namespace.go, nameprefix.go,
// namesuffix.go, metadatalabels.go, commonannotations.go), as far as the
// native path uses them.
var (
	namespaceFieldSpecs = []types.FieldSpec{
		{Gvk: gvk("", "", "Namespace"), Path: "metadata/name", CreateIfNotPresent: true},
		{Gvk: gvk("apiregistration.k8s.io", "", "APIService"), Path: "spec/service/namespace", CreateIfNotPresent: true},
		{Gvk: gvk("apiextensions.k8s.io", "", "CustomResourceDefinition"), Path: "spec/conversion/webhook/clientConfig/service/namespace"},
	}
	nameFieldSpecs        = []types.FieldSpec{{Path: "metadata/name"}}
	metadataLabelsSpec    = types.FieldSpec{Path: "metadata/labels", CreateIfNotPresent: true}
	metadataAnnotationsFS = []types.FieldSpec{{Path: "metadata/annotations", CreateIfNotPresent: true}}
)

// templateKinds are the kinds kustomize's default commonLabels,
// commonAnnotations and template-label configurations reach beyond
// metadata (selectors, pod templates; commonlabels.go, metadatalabels.go,
// templatelabels.go and commonannotations.go in
// api/internal/konfig/builtinpluginconsts), matched by kind in any group.
// Labels or annotations over objects of these kinds are built by krusty.
var templateKinds = setOf("Service", "ReplicationController", "Deployment", "ReplicaSet",
	"DaemonSet", "StatefulSet", "Job", "CronJob", "PodDisruptionBudget", "NetworkPolicy")

func gvk(group, version, kind string) resid.Gvk {
	return resid.Gvk{Group: group, Version: version, Kind: kind}
}

// errNotNative reports that a tree is outside what the native path
// builds; the caller builds it with krusty.
var errNotNative = errors.New("not built natively")

// nativeShape reports whether the native path may build kd: a
// Kustomization of native fields whose resources are files, flat
// directories or directories of that shape.
func (kd *kdir) nativeShape() bool {
	if kd.isComponent || kd.whole || kd.remote || len(kd.plugins) > 0 || len(kd.components) > 0 || len(kd.siteConfig) > 0 {
		return false
	}
	for f := range kd.fields {
		if !nativeFields[f] {
			return false
		}
	}
	for _, l := range kd.k.Labels {
		// Selectors and templates take fields of kustomize's default
		// configuration the native path does not carry.
		if l.IncludeSelectors || l.IncludeTemplates || len(l.FieldSpecs) > 0 {
			return false
		}
	}
	for _, e := range kd.resources {
		if e.isDir() && e.sub.class != classFlat && !e.sub.native {
			return false
		}
	}
	return true
}

// nativeRuns counts the directories built by the native path, for tests.
var nativeRuns atomic.Int64

// nativeObject is an object on its way through the native path: the
// kustomize resource, with build annotations, and what is known of where
// it came from.
type nativeObject struct {
	res *resource.Resource
	in  *doc // the document it was read as
}

// native builds kd without krusty, or returns errNotNative (wrapped) when
// krusty must. The results of other directories are gathered first, then
// the objects are copied and transformed under the build's semaphore, so
// that only as many overlays as there are workers hold objects at once.
func (b *builder) native(ctx context.Context, kd *kdir) (r *dirResult, err error) {
	in, err := b.nativeInputs(ctx, kd, "")
	if err != nil {
		return nil, err
	}
	b.sem <- struct{}{}
	defer func() {
		<-b.sem
		// kustomize panics on some malformed input; krusty, run on the
		// same tree, reports it.
		if p := recover(); p != nil {
			r, err = nil, fmt.Errorf("%w: %v", errNotNative, p)
		}
	}()
	objs, err := b.nativeObjects(in)
	if err != nil {
		return nil, err
	}
	nativeRuns.Add(1)
	r = &dirResult{cacheable: in.cacheable(), docs: make([]*doc, len(objs))}
	for i, o := range objs {
		// Objects no parent reads are serialized in place, and only
		// their text is kept.
		if r.docs[i], err = nativeDoc(o, kd.feedsNative); err != nil {
			return nil, fmt.Errorf("%w: %v", errNotNative, err)
		}
	}
	return r, nil
}

// nativeInput is a directory to build natively, with what its resources
// entries built to.
type nativeInput struct {
	kd    *kdir // with the namespace it inherits
	parts []nativeInputPart
}

// nativeInputPart is one resources entry: the documents of a file or of
// a directory built on its own, or a directory built in place (one that
// inherits a namespace, so that its cached result does not apply).
type nativeInputPart struct {
	docs      []*doc
	cacheable bool
	sub       *nativeInput
}

func (in *nativeInput) cacheable() bool {
	for _, p := range in.parts {
		if (p.sub != nil && !p.sub.cacheable()) || (p.sub == nil && !p.cacheable) {
			return false
		}
	}
	return true
}

// nativeInputs gathers what kd's resources build to. ns is the namespace
// kd inherits from a parent that sets one.
func (b *builder) nativeInputs(ctx context.Context, kd *kdir, ns string) (*nativeInput, error) {
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	if len(kd.siteConfig) > 0 {
		return nil, fmt.Errorf("%w: %s lists SiteConfig generators", errNotNative, kd.file)
	}
	if kd.k.Namespace == "" && ns != "" {
		// kustomize hands the namespace down to a kustomization that sets
		// none, whose namespace transformer then sets it.
		inherit := *kd
		inherit.k.Namespace = ns
		kd = &inherit
	}
	ns = kd.k.Namespace
	in := &nativeInput{kd: kd, parts: make([]nativeInputPart, len(kd.resources))}
	for i, e := range kd.resources {
		p := &in.parts[i]
		switch {
		case !e.isDir():
			docs, err := b.fileDocs(e.path)
			if err != nil {
				return nil, fmt.Errorf("%w: %v", errNotNative, err)
			}
			p.docs, p.cacheable = docs, true
		case e.sub.k.Namespace == "" && ns != "":
			sub, err := b.nativeInputs(ctx, e.sub, ns)
			if err != nil {
				return nil, err
			}
			p.sub = sub
		default:
			r, err := b.run(ctx, e.sub, modeChild)
			if err != nil {
				return nil, fmt.Errorf("build kustomization %s: %w", e.sub.dir, err)
			}
			if len(r.gens) > 0 || len(r.warnings) > 0 {
				return nil, fmt.Errorf("%w: %s has SiteConfig generators", errNotNative, e.raw)
			}
			p.docs, p.cacheable = r.docs, r.cacheable
		}
	}
	return in, nil
}

// nativeObjects copies the objects of in's resources and runs its
// transformations on them.
func (b *builder) nativeObjects(in *nativeInput) ([]nativeObject, error) {
	var objs []nativeObject
	for _, p := range in.parts {
		if p.sub != nil {
			sub, err := b.nativeObjects(p.sub)
			if err != nil {
				return nil, err
			}
			objs = append(objs, sub...)
			continue
		}
		for _, d := range p.docs {
			src := d.res
			if src == nil && d.src != nil {
				src = d.src.res
			}
			if src == nil {
				return nil, fmt.Errorf("%w: %s was built by krusty", errNotNative, d.Origin)
			}
			objs = append(objs, nativeObject{res: src.DeepCopy(), in: d})
		}
	}
	kd := in.kd
	ts, err := b.nativeTransformers(kd)
	if err != nil {
		return nil, fmt.Errorf("%w: %v", errNotNative, err)
	}
	if len(ts) == 0 {
		return objs, nil
	}
	if err := guardNative(kd, objs); err != nil {
		return nil, err
	}
	m := resmap.New()
	byRes := make(map[*resource.Resource]*doc, len(objs))
	for _, o := range objs {
		if err := m.Append(o.res); err != nil {
			return nil, fmt.Errorf("%w: %v", errNotNative, err)
		}
		byRes[o.res] = o.in
	}
	for _, st := range ts {
		if err := st.Transform(m); err != nil {
			if st.entry != "" {
				// kustomize's own code failed on the objects krusty
				// would have: its error, with the entry that caused it.
				return nil, &PatchError{File: kd.file, Line: kd.line(st.field, st.index), Entry: st.entry, Err: err}
			}
			return nil, fmt.Errorf("%w: %v", errNotNative, err)
		}
		m.DropEmpties()
	}
	out := make([]nativeObject, 0, m.Size())
	for _, res := range m.Resources() {
		in, ok := byRes[res]
		if !ok {
			return nil, fmt.Errorf("%w: a transformation made an object", errNotNative)
		}
		out = append(out, nativeObject{res: res, in: in})
	}
	return out, nil
}

// guardNative refuses the native path for objects kustomize would treat
// in ways it does not reproduce.
func guardNative(kd *kdir, objs []nativeObject) error {
	labels := len(kd.k.CommonLabels) > 0 || len(kd.k.Labels) > 0 || len(kd.k.CommonAnnotations) > 0
	for _, o := range objs {
		kind := o.res.GetKind()
		switch {
		case referrerKinds[kind]:
			// kustomize rewrites the references of these kinds to objects
			// a transformation renames.
			return fmt.Errorf("%w: %s can refer to renamed objects", errNotNative, kind)
		case labels && templateKinds[kind]:
			return fmt.Errorf("%w: labels of %s reach past its metadata", errNotNative, kind)
		}
	}
	return nil
}

// nativeStep is one transformation of a kustomization. A patch applied
// without kustomize's plugin names its entry (field[index], shown as
// entry), so that a failure is reported against it.
type nativeStep struct {
	resmap.Transformer
	field string
	index int
	entry string
}

// patchStep is the step of a patches or patchesJson6902 entry.
func patchStep(t resmap.Transformer, field string, i int, p types.Patch) nativeStep {
	entry := fmt.Sprintf("%s[%d]", field, i)
	if p.Path != "" {
		entry += " (" + p.Path + ")"
	}
	return nativeStep{Transformer: t, field: field, index: i, entry: entry}
}

// nativeTransformers configures kd's built-in transformations, in the
// order and with the configuration krusty gives them.
func (b *builder) nativeTransformers(kd *kdir) ([]nativeStep, error) {
	k := &kd.k
	l := &nativeLoader{b: b, kd: kd}
	h := resmap.NewPluginHelpers(l, nil, resmap.NewFactory(b.rf), types.DisabledPluginConfig())
	var out []nativeStep
	add := func(p resmap.TransformerPlugin, c any) error {
		y, err := sigsyaml.Marshal(c)
		if err != nil {
			return err
		}
		if err := p.Config(h, y); err != nil {
			return err
		}
		out = append(out, nativeStep{Transformer: p})
		return nil
	}
	if len(k.PatchesStrategicMerge) > 0 {
		c := struct {
			Paths []types.PatchStrategicMerge `json:"paths,omitempty"`
		}{k.PatchesStrategicMerge}
		if err := add(&builtins.PatchStrategicMergeTransformerPlugin{}, c); err != nil {
			return nil, err
		}
	}
	for i, p := range k.Patches {
		if t := b.jsonPatchTransformer(l, p); t != nil {
			out = append(out, patchStep(t, "patches", i, p))
			continue
		}
		if t := b.smPatchTransformer(l, p); t != nil {
			out = append(out, patchStep(t, "patches", i, p))
			continue
		}
		c := struct {
			Path    string           `json:"path,omitempty"`
			Patch   string           `json:"patch,omitempty"`
			Target  *types.Selector  `json:"target,omitempty"`
			Options *types.PatchArgs `json:"options,omitempty"`
		}{p.Path, p.Patch, p.Target, p.Options}
		if err := add(&builtins.PatchTransformerPlugin{}, c); err != nil {
			return nil, err
		}
	}
	// The plugins below take nothing from their configuration but its
	// fields, so they are built directly (their Config only decodes it).
	if ns := k.Namespace; ns != "" {
		out = append(out, nativeStep{Transformer: &builtins.NamespaceTransformerPlugin{ObjectMeta: types.ObjectMeta{Namespace: ns},
			FieldSpecs: namespaceFieldSpecs, SetRoleBindingSubjects: namespace.DefaultSubjectsOnly}})
	}
	if k.NamePrefix != "" {
		out = append(out, nativeStep{Transformer: &builtins.PrefixTransformerPlugin{Prefix: k.NamePrefix, FieldSpecs: nameFieldSpecs}})
	}
	if k.NameSuffix != "" {
		out = append(out, nativeStep{Transformer: &builtins.SuffixTransformerPlugin{Suffix: k.NameSuffix, FieldSpecs: nameFieldSpecs}})
	}
	if len(k.Labels) > 0 || len(k.CommonLabels) > 0 {
		for _, label := range k.Labels {
			out = append(out, nativeStep{Transformer: &builtins.LabelTransformerPlugin{Labels: label.Pairs, FieldSpecs: []types.FieldSpec{metadataLabelsSpec}}})
		}
		out = append(out, nativeStep{Transformer: &builtins.LabelTransformerPlugin{Labels: k.CommonLabels, FieldSpecs: []types.FieldSpec{metadataLabelsSpec}}})
	}
	if len(k.CommonAnnotations) > 0 {
		out = append(out, nativeStep{Transformer: &builtins.AnnotationsTransformerPlugin{Annotations: k.CommonAnnotations, FieldSpecs: metadataAnnotationsFS}})
	}
	for i, p := range k.PatchesJson6902 {
		if t := b.legacyJSONPatchTransformer(l, p); t != nil {
			out = append(out, patchStep(t, "patchesJson6902", i, p))
			continue
		}
		c := struct {
			Target *types.Selector `json:"target,omitempty"`
			Path   string          `json:"path,omitempty"`
			JsonOp string          `json:"jsonOp,omitempty"`
		}{p.Target, p.Path, p.Patch}
		if err := add(&builtins.PatchJson6902TransformerPlugin{}, c); err != nil {
			return nil, err
		}
	}
	return out, nil
}

// nativeLoader serves the built-in plugins of one kustomization the files
// its plan checked, and nothing else.
type nativeLoader struct {
	b  *builder
	kd *kdir
}

var _ ifc.Loader = (*nativeLoader)(nil)

func (l *nativeLoader) Repo() string { return "" }
func (l *nativeLoader) Root() string { return toVirtual(l.kd.dir) }
func (l *nativeLoader) New(string) (ifc.Loader, error) {
	return nil, fmt.Errorf("%w: a plugin asked for another root", errNotNative)
}
func (l *nativeLoader) Cleanup() error { return nil }

func (l *nativeLoader) Load(location string) ([]byte, error) {
	if path.IsAbs(location) || strings.Contains(location, "://") {
		return nil, fmt.Errorf("%w: %s is not a checked file", errNotNative, location)
	}
	p := path.Join(l.kd.dir, location)
	if escapes(p) {
		return nil, fmt.Errorf("%w: %s is not a checked file", errNotNative, location)
	}
	real, err := l.b.res.resolve(p)
	if err != nil || !slices.Contains(l.kd.files, real) {
		// Not a file the plan checked: an inline patch, which the plugin
		// reads as such after this error, or a file krusty should report.
		return nil, fmt.Errorf("%s: not a checked file of %s", location, l.kd.file)
	}
	return l.b.readFile(real)
}

// nativeDoc turns a built object into the document of a result; keep
// keeps the object for a parent's native build.
func nativeDoc(o nativeObject, keep bool) (*doc, error) {
	id := idOf(o.res)
	local := false
	if v, ok := o.res.GetAnnotations()[localConfigAnnotation]; ok && v != "false" {
		local = true
	}
	var data []byte
	var err error
	if keep {
		data, err = outputYAML(o.res)
	} else {
		data, err = finalYAML(o.res)
		o.res = nil
	}
	if err != nil {
		return nil, err
	}
	in := o.in
	d := &doc{
		Document: Document{
			Data:       data,
			APIVersion: id.apiVersion, Kind: id.kind, Namespace: id.namespace, Name: id.name,
			Origin:   in.Origin,
			Modified: in.Modified || string(data) != string(in.Data),
		},
		id:      id,
		res:     o.res,
		local:   local,
		renamed: in.renamed || id.name != in.id.name || id.namespace != in.id.namespace || id.kind != in.id.kind,
	}
	return d, nil
}
