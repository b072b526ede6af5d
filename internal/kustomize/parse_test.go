package kustomize

import (
	"testing"

	"sigs.k8s.io/kustomize/api/provider"
)

// TestPlainSlice holds sliceFromBytes to the resource factory: the same
// objects (as kustomize outputs them and as JSON) or the same error, and
// plainSlice declines exactly the texts DeAnchor could change.
func TestPlainSlice(t *testing.T) {
	rf := provider.NewDepProvider().GetResourceFactory()
	b := &builder{rf: rf}
	tests := []struct {
		name, text string
		plain      bool // read without the factory
	}{
		{"one object", nativeCI, true},
		{"several documents and an empty one", nativeCM + "---\n---\n# only a comment\n", true},
		{"comments and styles kept", "# head\napiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: c # trailing\ndata:\n  a: 'quoted'\n  b: |\n    block\n  c: [1, 2]\n", true},
		{"CRLF line ends", "apiVersion: v1\r\nkind: ConfigMap\r\nmetadata:\r\n  name: c\r\n", true},
		{"anchor and alias", "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: &n c\n  labels:\n    name: *n\n", false},
		{"merge key", "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: c\nbase: &b {x: 1}\ndata:\n  <<: *b\n  y: \"2\"\n", false},
		{"repeated key", "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: c\ndata:\n  a: \"1\"\n  a: \"2\"\n", false},
		{"repeated key in a long mapping", "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: c\ndata:\n" + longData(40) + "  ka0: again\n", false},
		{"a List is expanded", "apiVersion: v1\nkind: ConfigMapList\nitems:\n- apiVersion: v1\n  kind: ConfigMap\n  metadata:\n    name: a\n", false},
		{"missing kind", "apiVersion: v1\nmetadata:\n  name: c\n", false},
		{"null list item", "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: c\nlist:\n- a\n-\n", true},
		{"malformed", "apiVersion: v1\nkind: [\n", false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if _, ok := plainSlice([]byte(tt.text)); ok != tt.plain {
				t.Errorf("read without the factory: %t, want %t", ok, tt.plain)
			}
			got, gotErr := b.sliceFromBytes([]byte(tt.text))
			want, wantErr := rf.SliceFromBytes([]byte(tt.text))
			if (gotErr == nil) != (wantErr == nil) || (gotErr != nil && gotErr.Error() != wantErr.Error()) {
				t.Fatalf("error %v, want %v", gotErr, wantErr)
			}
			if len(got) != len(want) {
				t.Fatalf("%d objects, want %d", len(got), len(want))
			}
			for i := range got {
				g, gErr := got[i].AsYAML()
				w, wErr := want[i].AsYAML()
				if (gErr == nil) != (wErr == nil) || (gErr != nil && gErr.Error() != wErr.Error()) {
					t.Errorf("object %d: serializing: %v, want %v", i, gErr, wErr)
				}
				gs, _ := got[i].RNode.String()
				ws, _ := want[i].RNode.String()
				if string(g) != string(w) || gs != ws {
					t.Errorf("object %d:\n%s\n%s\nwant\n%s\n%s", i, g, gs, w, ws)
				}
			}
		})
	}
}

func longData(n int) string {
	s := ""
	for i := range n {
		s += "  k" + string(rune('a'+i%26)) + string(rune('0'+i/26)) + ": v\n"
	}
	return s
}
