package render

import (
	"maps"
	"strings"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// metadata is the annotations and labels of an object, as postProcess
// edits them: those of a content map (mapMetadata) or of a typed object
// written to YAML as it is (typedMetadata).
type metadata interface {
	annotation(key string) (any, bool)
	setAnnotation(key, value string)
	deleteAnnotation(key string)
	// expandNodeLabels turns node labels written as one map under
	// AnnotationBMACNodeLabelPrefix into one annotation each.
	expandNodeLabels()
	hasLabel(key string) bool
	setLabel(key, value string)
}

// mapMetadata is the metadata of a content map. Its annotations map is
// made on first use, as postProcess always writes one.
type mapMetadata struct {
	md  map[string]any
	ann map[string]any
}

// contentMetadata is the metadata of content, which it creates if
// missing.
func contentMetadata(content map[string]any) *mapMetadata {
	md := ensureMap(content, "metadata")
	return &mapMetadata{md: md, ann: ensureMap(md, "annotations")}
}

func (m *mapMetadata) annotation(key string) (any, bool) {
	v, ok := m.ann[key]
	return v, ok
}

func (m *mapMetadata) setAnnotation(key, value string) { m.ann[key] = value }
func (m *mapMetadata) deleteAnnotation(key string)     { delete(m.ann, key) }

// expandNodeLabels: a crTemplate writes node labels as one map under the
// prefix ("{{ .Node.NodeLabels }}").
func (m *mapMetadata) expandNodeLabels() {
	prefix := strings.TrimSuffix(AnnotationBMACNodeLabelPrefix, ".")
	labels, ok := m.ann[prefix].(map[string]any)
	if !ok {
		return
	}
	delete(m.ann, prefix)
	for k, v := range labels {
		m.ann[AnnotationBMACNodeLabelPrefix+k] = v
	}
}

func (m *mapMetadata) hasLabel(key string) bool {
	labels, _ := m.md["labels"].(map[string]any)
	_, ok := labels[key]
	return ok
}

func (m *mapMetadata) setLabel(key, value string) { ensureMap(m.md, "labels")[key] = value }

// typedMetadata is the metadata of a typed object. It edits copies of
// the object's maps, which a builder may have shared with the site, and
// store puts them in the object.
type typedMetadata struct {
	obj    metav1.Object
	ann    map[string]string
	labels map[string]string
}

func newTypedMetadata(obj metav1.Object) *typedMetadata {
	ann := maps.Clone(obj.GetAnnotations())
	if ann == nil {
		ann = map[string]string{}
	}
	return &typedMetadata{obj: obj, ann: ann}
}

func (m *typedMetadata) annotation(key string) (any, bool) {
	v, ok := m.ann[key]
	return v, ok
}

func (m *typedMetadata) setAnnotation(key, value string) { m.ann[key] = value }
func (m *typedMetadata) deleteAnnotation(key string)     { delete(m.ann, key) }

// expandNodeLabels has nothing to do: a typed object's annotations are
// strings, and node labels come as one map only from a crTemplate.
func (m *typedMetadata) expandNodeLabels() {}

func (m *typedMetadata) hasLabel(key string) bool {
	if m.labels != nil {
		_, ok := m.labels[key]
		return ok
	}
	_, ok := m.obj.GetLabels()[key]
	return ok
}

func (m *typedMetadata) setLabel(key, value string) {
	if m.labels == nil {
		m.labels = maps.Clone(m.obj.GetLabels())
		if m.labels == nil {
			m.labels = map[string]string{}
		}
	}
	m.labels[key] = value
}

// store writes the edited maps into the object.
func (m *typedMetadata) store() {
	m.obj.SetAnnotations(m.ann)
	if m.labels != nil {
		m.obj.SetLabels(m.labels)
	}
}
