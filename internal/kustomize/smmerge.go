package kustomize

import (
	"strings"

	yamlv3 "go.yaml.in/yaml/v3"
	"sigs.k8s.io/kustomize/api/resource"
	"sigs.k8s.io/kustomize/kyaml/openapi"
	kyaml "sigs.k8s.io/kustomize/kyaml/yaml"
)

// kustomize applies a strategic-merge patch with kyaml's merge2
// (kyaml/yaml/merge2 and kyaml/yaml/walk), which walks the object and the
// patch field by field through RNodes and visitors. For a kind kustomize
// has no schema for (the custom resources of a fleet: ClusterInstance,
// SiteConfig, BareMetalHost, NMStateConfig, ...) and no schema in
// comments, that walk comes down to a few rules, which smMerge applies to
// the nodes directly:
//
//   - a field the patch sets to null is removed;
//   - a field the object lacks or holds null takes the patch's value, with
//     the null fields of its mappings removed (at any depth through
//     mappings);
//   - mappings on both sides merge field by field; a scalar or a sequence
//     (no list is associative without a schema) replaces the object's;
//   - a field only the object has is kept, except an empty null ("key:")
//     in a mapping the walk reaches, which is removed ("key: null" and
//     "key: ~" are kept).
//
// Anything else (a schema for the kind, a mapping that names an apiVersion
// and kind of its own below the top, which kyaml looks a schema up for, a
// comment that could hold one, a $patch or other directive, a mapping on
// one side and something else on the other, keys that are not strings or
// repeat) is left to kustomize, with the object untouched. Field order and
// styles may differ from kyaml's result; kustomize's output does not
// depend on them, as it is written from the object's JSON values.

// smMergeable reports whether smMerge gives kustomize's result for patch
// over dest, both top-level mappings of objects.
func smMergeable(dest, patch *resource.Resource) bool {
	for _, r := range []*resource.Resource{dest, patch} {
		if openapi.SchemaForResourceType(kyaml.TypeMeta{APIVersion: r.GetApiVersion(), Kind: r.GetKind()}) != nil {
			return false
		}
	}
	d, p := dest.RNode.YNode(), patch.RNode.YNode()
	return d.Kind == yamlv3.MappingNode && p.Kind == yamlv3.MappingNode &&
		plainTree(d, true, false) && plainTree(p, true, true) && mergeShapes(d, p)
}

// plainTree reports whether a tree has none of what smMerge leaves to
// kustomize: comments that could be schemas, anchors, keys that are not
// unique strings, mappings with their own apiVersion and kind below the
// top, and in a patch, directives ($patch, $setElementOrder/..., ...).
func plainTree(n *yamlv3.Node, top, patch bool) bool {
	if n.Anchor != "" || n.Kind == yamlv3.AliasNode ||
		strings.Contains(n.HeadComment, "{") || strings.Contains(n.LineComment, "{") {
		return false
	}
	if n.Kind == yamlv3.MappingNode {
		if repeatsKey(n.Content) {
			return false
		}
		hasVersion, hasKind := false, false
		for i := 0; i+1 < len(n.Content); i += 2 {
			k := n.Content[i]
			// kyaml makes key nodes without a tag.
			if k.Kind != yamlv3.ScalarNode || k.Tag != "!!str" && k.Tag != "" ||
				strings.Contains(k.HeadComment, "{") || strings.Contains(k.LineComment, "{") ||
				patch && strings.HasPrefix(k.Value, "$") {
				return false
			}
			hasVersion = hasVersion || k.Value == "apiVersion"
			hasKind = hasKind || k.Value == "kind"
		}
		if !top && hasVersion && hasKind {
			return false
		}
	}
	for i, c := range n.Content {
		if n.Kind == yamlv3.MappingNode && i%2 == 0 {
			continue
		}
		if !plainTree(c, false, patch) {
			return false
		}
	}
	return true
}

// mergeShapes reports whether every field both mappings hold, neither
// null, is of the same kind on both sides (kyaml fails otherwise).
func mergeShapes(d, p *yamlv3.Node) bool {
	for i := 0; i+1 < len(p.Content); i += 2 {
		pv := p.Content[i+1]
		dv := fieldValue(d, p.Content[i].Value)
		if dv == nil || isNullNode(dv) || isNullNode(pv) {
			continue
		}
		if dv.Kind != pv.Kind || dv.Kind == yamlv3.MappingNode && !mergeShapes(dv, pv) {
			return false
		}
	}
	return true
}

func isNullNode(n *yamlv3.Node) bool { return n.Tag == kyaml.NodeTagNull }

// fieldValue is the value of a mapping's field, or nil.
func fieldValue(m *yamlv3.Node, key string) *yamlv3.Node {
	for i := 0; i+1 < len(m.Content); i += 2 {
		if m.Content[i].Value == key {
			return m.Content[i+1]
		}
	}
	return nil
}

// smMerge merges the mapping p into the mapping d by the rules above;
// skip names top-level fields of p to leave out.
func smMerge(d, p *yamlv3.Node, skip string) {
	// Fields only d has.
	kept := d.Content[:0]
	for i := 0; i+1 < len(d.Content); i += 2 {
		k, v := d.Content[i], d.Content[i+1]
		if pv := fieldValue(p, k.Value); pv == nil || k.Value == skip {
			if isNullNode(v) && v.Value == "" {
				continue
			}
			if v.Kind == yamlv3.MappingNode {
				dropEmptyNulls(v)
			}
		}
		kept = append(kept, k, v)
	}
	d.Content = kept
	for i := 0; i+1 < len(p.Content); i += 2 {
		k, pv := p.Content[i], p.Content[i+1]
		if k.Value == skip {
			continue
		}
		j := fieldIndex(d, k.Value)
		switch {
		case isNullNode(pv):
			if j >= 0 {
				d.Content = append(d.Content[:j], d.Content[j+2:]...)
			}
		case j < 0:
			d.Content = append(d.Content, kyaml.CopyYNode(k), addedValue(pv))
		case isNullNode(d.Content[j+1]):
			d.Content[j+1] = addedValue(pv)
		case pv.Kind == yamlv3.MappingNode:
			smMerge(d.Content[j+1], pv, "")
		default:
			d.Content[j+1] = kyaml.CopyYNode(pv)
		}
	}
}

// fieldIndex is the index of a mapping's key node, or -1.
func fieldIndex(m *yamlv3.Node, key string) int {
	for i := 0; i+1 < len(m.Content); i += 2 {
		if m.Content[i].Value == key {
			return i
		}
	}
	return -1
}

// addedValue is a copy of a patch value put where the object has none:
// the null fields of its mappings removed, through mappings.
func addedValue(v *yamlv3.Node) *yamlv3.Node {
	c := kyaml.CopyYNode(v)
	if c.Kind == yamlv3.MappingNode {
		dropNulls(c)
	}
	return c
}

func dropNulls(m *yamlv3.Node) {
	kept := m.Content[:0]
	for i := 0; i+1 < len(m.Content); i += 2 {
		v := m.Content[i+1]
		if isNullNode(v) {
			continue
		}
		if v.Kind == yamlv3.MappingNode {
			dropNulls(v)
		}
		kept = append(kept, m.Content[i], v)
	}
	m.Content = kept
}

// dropEmptyNulls removes the empty null fields of a mapping only the
// object has, through mappings.
func dropEmptyNulls(m *yamlv3.Node) {
	kept := m.Content[:0]
	for i := 0; i+1 < len(m.Content); i += 2 {
		v := m.Content[i+1]
		if isNullNode(v) && v.Value == "" {
			continue
		}
		if v.Kind == yamlv3.MappingNode {
			dropEmptyNulls(v)
		}
		kept = append(kept, m.Content[i], v)
	}
	m.Content = kept
}

// plainPatchMetadata reports whether a patch selected by a target keeps
// its metadata through resmap's ApplySmPatch, which first copies the
// patch's labels and annotations through string maps and sets its name
// and namespace again (Resource.CopyMergeMetaDataFieldsFrom): labels and
// annotations, if any, are non-empty mappings of strings, and name and
// namespace, if any, non-empty strings.
func plainPatchMetadata(patch *resource.Resource) bool {
	meta := fieldValue(patch.RNode.YNode(), "metadata")
	if meta == nil {
		return true
	}
	if meta.Kind != yamlv3.MappingNode {
		return false
	}
	for _, f := range []string{"labels", "annotations"} {
		v := fieldValue(meta, f)
		if v == nil {
			continue
		}
		if v.Kind != yamlv3.MappingNode || len(v.Content) == 0 {
			return false
		}
		for i := 1; i < len(v.Content); i += 2 {
			if !isStringNode(v.Content[i]) {
				return false
			}
		}
	}
	for _, f := range []string{"name", "namespace"} {
		if v := fieldValue(meta, f); v != nil && (!isStringNode(v) || v.Value == "") {
			return false
		}
	}
	return true
}

// isStringNode reports whether a scalar is a string (kyaml makes string
// nodes without a tag).
func isStringNode(n *yamlv3.Node) bool {
	return n.Kind == yamlv3.ScalarNode && (n.Tag == "!!str" || n.Tag == "" && n.Style != 0 || n.Tag == "" && n.ShortTag() == "!!str")
}

// applySmPatch does what kustomize's Resource.ApplySmPatch does
// (api/resource/resource.go) with smMerge in place of merge2; target is
// true when the patch was selected by a target, whose apiVersion kustomize
// then sets to the object's (resmap's ApplySmPatch). The caller has
// checked smMergeable.
func applySmPatch(r, patch *resource.Resource, target bool) {
	n, ns, k := r.GetName(), r.GetNamespace(), r.GetKind()
	if patch.NameChangeAllowed() || patch.KindChangeAllowed() {
		r.StorePreviousId()
	}
	skip := ""
	if target {
		skip = "apiVersion"
	}
	smMerge(r.RNode.YNode(), patch.RNode.YNode(), skip)
	// kustomize ignores these errors too: they cannot happen on a mapping.
	if !patch.KindChangeAllowed() {
		r.SetKind(k)
	}
	if !patch.NameChangeAllowed() {
		_ = r.SetName(n)
	}
	_ = r.SetNamespace(ns)
}
