package render

import (
	"math"
	"strings"
	"testing"
)

// A value the bundle's encoding cannot hold fails the hash with the object
// and the field that holds it, and a bundle without one hashes the same
// every time.
func TestBundleHashNamesTheObjectAndField(t *testing.T) {
	good := &Object{Kind: KindInfraEnv, Namespace: "s1", Name: "s1", Content: map[string]any{
		"spec": map[string]any{"weight": 1.5, "a": "x", "z": []any{"y"}, "m": map[string]any{"k1": 1, "k2": 2, "k3": 3}}}}
	b := &Bundle{Objects: []*Object{good}}
	h1, err := b.Hash()
	if err != nil {
		t.Fatal(err)
	}
	if h2, _ := b.Hash(); h2 != h1 || !strings.HasPrefix(h1, "sha256:") {
		t.Fatalf("hashes %q and %q", h1, h2)
	}
	bad := &Object{Kind: KindNMStateConfig, Namespace: "s1", Name: "n0", Content: map[string]any{"spec": map[string]any{"weight": math.NaN()}}}
	_, err = (&Bundle{Objects: []*Object{good, bad}}).Hash()
	if err == nil || !strings.Contains(err.Error(), "NMStateConfig s1/n0") || !strings.Contains(err.Error(), "spec.weight") {
		t.Errorf("error %v, want the object and the field", err)
	}
	// The YAML output names them the same way.
	if _, err := (yamlEncoder{}).Encode(nil, &Bundle{Objects: []*Object{good, bad}}); err == nil ||
		!strings.Contains(err.Error(), "NMStateConfig s1/n0") || !strings.Contains(err.Error(), "spec.weight") {
		t.Errorf("yaml output: error %v, want the object and the field", err)
	}
}
