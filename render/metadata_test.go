package render

import (
	"maps"
	"testing"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// The metadata of a typed object is edited on copies: maps a builder
// shares with the site are left as they were, and store puts the edited
// maps in the object.
func TestTypedMetadataEditsCopies(t *testing.T) {
	shared := map[string]string{"a": "1"}
	labels := map[string]string{"l": "1"}
	ns := &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Annotations: shared, Labels: labels}}
	m := newTypedMetadata(ns)
	m.setAnnotation("b", "2")
	m.deleteAnnotation("a")
	m.setLabel("m", "2")
	if !m.hasLabel("l") || !m.hasLabel("m") || m.hasLabel("x") {
		t.Error("hasLabel does not see the labels set")
	}
	m.store()
	if !maps.Equal(shared, map[string]string{"a": "1"}) || !maps.Equal(labels, map[string]string{"l": "1"}) {
		t.Errorf("the shared maps were edited: %v %v", shared, labels)
	}
	if !maps.Equal(ns.Annotations, map[string]string{"b": "2"}) || !maps.Equal(ns.Labels, map[string]string{"l": "1", "m": "2"}) {
		t.Errorf("the object holds %v and %v", ns.Annotations, ns.Labels)
	}
}
