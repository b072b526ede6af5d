package render

import (
	"fmt"

	"github.com/siteops/siteops/internal/tomap"
)

// typedZeroFields are fields the upstream Go types serialize even when they are
// zero (no omitempty), while the generator leaves every unset value out (the
// generator's getClusterCR works on untyped maps). They are removed when zero
// (zeroValue) so that output matches; a field's own fields are removed
// before it is tested.
var typedZeroFields = map[string][][]string{
	KindNamespace:         {{"spec"}},
	KindClusterDeployment: {{"spec", "installed"}, {"spec", "baseDomain"}, {"spec", "clusterName"}, {"spec", "controlPlaneConfig"}},
	KindBareMetalHost:     {{"spec", "bmc", "address"}, {"spec", "bmc", "credentialsName"}, {"spec", "bmc"}},
	KindNMStateConfig:     {{"spec", "config"}},
}

// prunes are, per kind, what a rendered object leaves out of its typed
// object: status and an empty creationTimestamp (both belong to the hub),
// and the typedZeroFields. The content map (toContent) and the YAML
// written from the typed object (Object.AppendYAML) prune the same tree.
var prunes = func() map[string]*tomap.Prune {
	base := func() *tomap.Prune {
		return &tomap.Prune{Keys: map[string]*tomap.Prune{
			"status":   {Omit: true},
			"metadata": {Keys: map[string]*tomap.Prune{"creationTimestamp": {Drop: isNull}}},
		}}
	}
	out := map[string]*tomap.Prune{"": base()}
	for kind, paths := range typedZeroFields {
		p := base()
		for _, path := range paths {
			node := p
			for _, k := range path {
				next := node.Keys[k]
				if next == nil {
					next = &tomap.Prune{Keys: map[string]*tomap.Prune{}}
					node.Keys[k] = next
				}
				node = next
			}
			node.Drop = zeroValue
		}
		out[kind] = p
	}
	return out
}()

// pruneOf is the prune tree of kind.
func pruneOf(kind string) *tomap.Prune {
	if p, ok := prunes[kind]; ok {
		return p
	}
	return prunes[""]
}

// toContent converts a typed object to JSON-compatible data, pruned as
// pruneOf(kind) says.
func toContent(kind string, obj any) (map[string]any, error) {
	m, err := tomap.Object(obj)
	if err != nil {
		return nil, fmt.Errorf("convert %s: %w", kind, err)
	}
	pruneOf(kind).Apply(m)
	return m, nil
}

func isNull(v any) bool { return v == nil }

// zeroValue reports whether a converted value is what the generator would
// not write: null, false, "", or a mapping of nothing but such mappings.
func zeroValue(v any) bool {
	switch v := v.(type) {
	case nil:
		return true
	case bool:
		return !v
	case string:
		return v == ""
	case map[string]any:
		return emptyTree(v)
	}
	return false
}

// emptyTree reports whether a map holds nothing but empty maps.
func emptyTree(m map[string]any) bool {
	for _, v := range m {
		sub, ok := v.(map[string]any)
		if !ok || !emptyTree(sub) {
			return false
		}
	}
	return true
}
