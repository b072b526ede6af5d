package render

import (
	"fmt"
	"maps"

	"github.com/siteops/siteops/internal/tomap"
)

// typedZeroFields are fields the upstream Go types serialize even when they are
// zero (no omitempty), while the generator leaves every unset value out (the
// generator's getClusterCR works on untyped maps). They are removed when zero
// (tomap.Zero) so that output matches; a field's own fields are removed
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
			node.Drop = tomap.Zero
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

// pruneFor is kind's prune tree, with free's document, if it holds
// anything, put in place (a copy of it when copied is set).
func pruneFor(kind string, free *freeForm, copied bool) *tomap.Prune {
	p := pruneOf(kind)
	if free == nil || len(free.value) == 0 {
		return p
	}
	var value any = free.value
	if copied {
		value = tomap.Copy(value)
	}
	return replaced(p, free.path, value)
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

// toContent converts a typed object to JSON-compatible data, pruned by p
// (pruneOf its kind, or a copy with a value put in).
func toContent(kind string, obj any, p *tomap.Prune) (map[string]any, error) {
	m, err := tomap.Object(obj)
	if err != nil {
		return nil, fmt.Errorf("convert %s: %w", kind, err)
	}
	p.Apply(m)
	return m, nil
}

func isNull(v any) bool { return v == nil }
