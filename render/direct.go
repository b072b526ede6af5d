package render

import (
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime/schema"
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
func (r *siteRender) directObject(kind string, node int, typed any) *Object {
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
	return &Object{
		APIVersion: tm.APIVersion, Kind: kind, Namespace: obj.GetNamespace(), Name: obj.GetName(),
		Wave: annotatedWave(obj.GetAnnotations()), typed: typed, prune: pruneOf(kind),
	}
}
