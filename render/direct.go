package render

import (
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime/schema"

	"github.com/siteops/siteops/internal/tomap"
)

// writesTyped reports whether enc is the YAML encoder, which reads objects
// only through AppendYAML (behind Redacting or not): RenderEncoded then
// lets objects be written from their typed form, without content maps.
func writesTyped(enc Encoder) bool {
	switch e := enc.(type) {
	case yamlEncoder:
		return true
	case redactingEncoder:
		return writesTyped(e.Encoder)
	}
	return false
}

// directObject is the object of typed written to YAML from typed itself,
// pruned by prune, with the metadata postProcess gives it: the same bytes
// as its content map would give (Object.AppendYAML). It is nil when the
// object needs its content map: a crTemplate is configured for it, it has
// a field set but empty to keep (keepEmpty), or typed is not an API
// object with its own metadata.
func (r *siteRender) directObject(kind string, node int, typed any, prune *tomap.Prune) *Object {
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
		Wave: annotatedWave(obj.GetAnnotations()), typed: typed, prune: prune,
	}
}
