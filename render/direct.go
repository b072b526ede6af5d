package render

import (
	"maps"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime/schema"

	"github.com/siteops/siteops/internal/tomap"
)

// yamlOnly is implemented by encoders that read objects only through
// AppendYAML: RenderEncoded lets such an encoder write objects from their
// typed form, without building their content maps.
type yamlOnly interface{ readsYAMLOnly() }

func (yamlEncoder) readsYAMLOnly() {}

// writesTyped reports whether enc reads objects only as YAML.
func writesTyped(enc Encoder) bool {
	if r, ok := enc.(redactingEncoder); ok {
		enc = r.Encoder
	}
	_, ok := enc.(yamlOnly)
	return ok
}

// directObject is the object of typed written to YAML from typed itself,
// with the metadata postProcess gives it: the same bytes as its content
// map would give (Object.AppendYAML). It is nil when the object needs its
// content map: a crTemplate replaces it, it has a field set but empty to
// keep (keepEmpty), or typed is not an API object with its own metadata.
func (r *siteRender) directObject(kind string, node int, typed any, free *freeForm) *Object {
	obj, ok := typed.(metav1.Object)
	if !ok {
		return nil
	}
	kinded, ok := typed.(interface{ GetObjectKind() schema.ObjectKind })
	if !ok {
		return nil
	}
	tm, ok := kinded.GetObjectKind().(*metav1.TypeMeta)
	if !ok {
		return nil
	}
	if p, _ := r.crTemplatePath(kind, node); p != "" || len(r.emptyCopies(kind, node)) > 0 {
		return nil
	}
	m := newTypedMetadata(obj)
	r.postProcess(kind, node, m)
	m.store()
	prune := pruneOf(kind)
	if free != nil && len(free.value) > 0 {
		prune = replaced(prune, free.path, free.value)
	}
	return &Object{
		APIVersion: tm.APIVersion, Kind: kind, Namespace: obj.GetNamespace(), Name: obj.GetName(),
		Wave: annotatedWave(obj.GetAnnotations()), typed: typed, prune: prune,
	}
}

// replaced is p with the key at path replaced by value. p is shared by
// every object of its kind: the nodes on the path are copies.
func replaced(p *tomap.Prune, path []string, value any) *tomap.Prune {
	out := &tomap.Prune{Keys: maps.Clone(p.Keys), Omit: p.Omit, Drop: p.Drop, Replace: p.Replace, Value: p.Value}
	if out.Keys == nil {
		out.Keys = map[string]*tomap.Prune{}
	}
	if len(path) == 1 {
		out.Keys[path[0]] = &tomap.Prune{Replace: true, Value: value}
		return out
	}
	below := p.Keys[path[0]]
	if below == nil {
		below = &tomap.Prune{}
	}
	out.Keys[path[0]] = replaced(below, path[1:], value)
	return out
}
