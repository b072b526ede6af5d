package kustomize

import (
	"slices"
	"strings"
	"unicode/utf8"

	yamlv3 "go.yaml.in/yaml/v3"
	"sigs.k8s.io/kustomize/api/resource"
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
// Each field is set with kyaml's FieldSetter (kyaml/yaml/fns.go), which
// decides the style of the value, and the style decides what a scalar is:
// written out and read back, a number in quotes is a string. smMerge
// gives the styles FieldSetter gives:
//
//   - a value that replaces another (a null too) takes its style;
//   - any other plain string scalar of a mapping the walk reaches (the
//     object's, or the patch's where the object has no value) that YAML
//     1.1 reads as something else ("yes", "off", "1:20") is
//     double-quoted, so that yaml/v2 readers keep it a string.
//
// Anything else (a schema for the kind, a mapping that names an apiVersion
// and kind of its own below the top, which kyaml looks a schema up for, a
// comment that could hold one, a $patch or other directive, a mapping on
// one side and something else on the other, a scalar that is not a string
// over a quoted or block one, which its style would make a string, keys
// that are not strings or repeat) is left to kustomize, with the object
// untouched. Field order may differ from kyaml's result; kustomize's
// output does not depend on it, as it is written from the object's JSON
// values.

// smMergeable reports whether smMerge gives kustomize's result for patch
// over dest, both top-level mappings of objects; target is true when the
// patch was selected by a target.
func smMergeable(dest, patch *resource.Resource, target bool) bool {
	types := []kyaml.TypeMeta{
		{APIVersion: dest.GetApiVersion(), Kind: dest.GetKind()},
		{APIVersion: patch.GetApiVersion(), Kind: patch.GetKind()},
	}
	if target {
		// resmap's ApplySmPatch merges a copy of the patch with the
		// object's apiVersion and its own kind, and kyaml looks a schema
		// up for that pair too. Both are set as nodes without a tag,
		// which must read as the strings they are.
		if !plainString(dest.GetApiVersion()) || patch.KindChangeAllowed() && !plainString(patch.GetKind()) {
			return false
		}
		types = append(types, kyaml.TypeMeta{APIVersion: dest.GetApiVersion(), Kind: patch.GetKind()})
	}
	for _, tm := range types {
		if hasSchema(tm) {
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
// null, is of the same kind on both sides (kyaml fails otherwise), and no
// scalar that is not a string replaces a quoted or block scalar: kyaml
// would give it that style, and the number or boolean would be written in
// quotes, a string.
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
		if dv.Kind == yamlv3.ScalarNode && dv.Style&textStyles != 0 && pv.ShortTag() != kyaml.NodeTagString {
			return false
		}
	}
	return true
}

// textStyles are the styles that make a scalar a string when it is
// written out and read back, whatever its tag.
const textStyles = yamlv3.SingleQuotedStyle | yamlv3.DoubleQuotedStyle | yamlv3.LiteralStyle | yamlv3.FoldedStyle

func isNullNode(n *yamlv3.Node) bool { return n.Tag == kyaml.NodeTagNull }

// fieldValue is the value of a mapping's field, or nil.
func fieldValue(m *yamlv3.Node, key string) *yamlv3.Node {
	if i := fieldIndex(m, key); i >= 0 {
		return m.Content[i+1]
	}
	return nil
}

// smMerge merges the mapping p into the mapping d by the rules above;
// skip names top-level fields of p to leave out.
func smMerge(d, p *yamlv3.Node, skip string) {
	// Fields only d has. A skipped field is one kyaml sets to a value
	// equal to d's, which takes the style of d's.
	kept := d.Content[:0]
	for i := 0; i+1 < len(d.Content); i += 2 {
		k, v := d.Content[i], d.Content[i+1]
		if pv := fieldValue(p, k.Value); pv == nil || k.Value == skip {
			if isNullNode(v) && v.Value == "" {
				continue
			}
			if k.Value != skip {
				walkKept(v)
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
			// FieldSetter's new key: the patch key's style, no tag.
			d.Content = append(d.Content, &yamlv3.Node{Kind: yamlv3.ScalarNode, Value: k.Value, Style: k.Style}, addedValue(pv))
		case isNullNode(d.Content[j+1]):
			c := addedValue(pv)
			c.Style = d.Content[j+1].Style
			d.Content[j+1] = c
		case pv.Kind == yamlv3.MappingNode:
			smMerge(d.Content[j+1], pv, "")
		default:
			c := kyaml.CopyYNode(pv)
			c.Style = d.Content[j+1].Style
			d.Content[j+1] = c
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
// the null fields of its mappings removed and its strings quoted as
// kyaml quotes them, through mappings.
func addedValue(v *yamlv3.Node) *yamlv3.Node {
	c := kyaml.CopyYNode(v)
	switch c.Kind {
	case yamlv3.MappingNode:
		dropNulls(c)
	case yamlv3.ScalarNode:
		quoteYAML11(c)
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
		switch v.Kind {
		case yamlv3.MappingNode:
			dropNulls(v)
		case yamlv3.ScalarNode:
			quoteYAML11(v)
		}
		kept = append(kept, m.Content[i], v)
	}
	m.Content = kept
}

// walkKept does to the value of a field only the object has what kyaml's
// walk does: a scalar quoted as FieldSetter quotes it, and in a mapping,
// through mappings, the empty null fields removed and the scalars quoted.
func walkKept(v *yamlv3.Node) {
	switch v.Kind {
	case yamlv3.ScalarNode:
		quoteYAML11(v)
	case yamlv3.MappingNode:
		kept := v.Content[:0]
		for i := 0; i+1 < len(v.Content); i += 2 {
			c := v.Content[i+1]
			if isNullNode(c) && c.Value == "" {
				continue
			}
			walkKept(c)
			kept = append(kept, v.Content[i], c)
		}
		v.Content = kept
	}
}

// quoteYAML11 double-quotes a plain string scalar that a YAML 1.1 reader
// reads as something else, as FieldSetter does with the value it sets
// where it keeps the value's own style.
func quoteYAML11(n *yamlv3.Node) {
	if n.Style == 0 && kyaml.IsYNodeString(n) && yaml11NonString(n.Value) {
		n.Style = yamlv3.DoubleQuotedStyle
	}
}

// yaml11NonString is kyaml's IsValueNonString: whether yaml/v2 reads s,
// as a document of its own, as something other than a string. The
// common strings are told without reading them: those v3Plain knows,
// which yaml/v2 reads as the plain strings they are.
func yaml11NonString(s string) bool {
	return !v3Plain(s) && kyaml.IsValueNonString(s)
}

// plainPatchMetadata reports whether a patch selected by a target keeps
// its metadata through resmap's ApplySmPatch, which first copies the
// patch's labels and annotations through string maps and sets its name
// and namespace again (Resource.CopyMergeMetaDataFieldsFrom), as nodes
// without a tag: labels and annotations, if any, are non-empty mappings
// of strings in UTF-8 whose keys read as strings without quotes, and name
// and namespace, if any, non-empty strings that do too. targetPatch gives
// the new nodes the styles they get.
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
		for i := 0; i+1 < len(v.Content); i += 2 {
			if val := v.Content[i+1]; !isStringNode(val) || !utf8.ValidString(val.Value) || !plainString(v.Content[i].Value) {
				return false
			}
		}
	}
	for _, f := range []string{"name", "namespace"} {
		if v := fieldValue(meta, f); v != nil && (!isStringNode(v) || v.Value == "" || !plainString(v.Value)) {
			return false
		}
	}
	return true
}

// plainString reports whether s, written plain, reads as a string, so that
// a node without a tag that holds it is a string whatever its style.
func plainString(s string) bool {
	return (&yamlv3.Node{Kind: yamlv3.ScalarNode, Value: s}).ShortTag() == kyaml.NodeTagString
}

// targetPatch is the mapping kyaml merges for a patch selected by a
// target: the patch with its labels and annotations made again from
// string maps (Resource.CopyMergeMetaDataFieldsFrom, RNode.SetLabels),
// keys without a tag or style and values in the style Node.SetString
// gives them (literal on several lines, else plain), double-quoted where
// FieldSetter quotes them. The patch is left as it is.
func targetPatch(p *yamlv3.Node) *yamlv3.Node {
	mi := fieldIndex(p, "metadata")
	if mi < 0 {
		return p
	}
	meta := p.Content[mi+1]
	var copied *yamlv3.Node
	for _, f := range []string{"labels", "annotations"} {
		j := fieldIndex(meta, f)
		if j < 0 {
			continue
		}
		if copied == nil {
			copied = shallowCopy(meta)
		}
		old := meta.Content[j+1]
		m := &yamlv3.Node{Kind: yamlv3.MappingNode, Tag: "!!map", Content: make([]*yamlv3.Node, len(old.Content))}
		for i := 0; i+1 < len(old.Content); i += 2 {
			v := &yamlv3.Node{Kind: yamlv3.ScalarNode, Tag: kyaml.NodeTagString, Value: old.Content[i+1].Value}
			if strings.Contains(v.Value, "\n") {
				v.Style = yamlv3.LiteralStyle
			}
			quoteYAML11(v)
			m.Content[i] = &yamlv3.Node{Kind: yamlv3.ScalarNode, Value: old.Content[i].Value}
			m.Content[i+1] = v
		}
		copied.Content[j+1] = m
	}
	if copied == nil {
		return p
	}
	root := shallowCopy(p)
	root.Content[mi+1] = copied
	return root
}

// shallowCopy is a copy of a node with its own list of children.
func shallowCopy(n *yamlv3.Node) *yamlv3.Node {
	c := *n
	c.Content = slices.Clone(n.Content)
	return &c
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
	p, skip := patch.RNode.YNode(), ""
	if target {
		p, skip = targetPatch(p), "apiVersion"
	}
	smMerge(r.RNode.YNode(), p, skip)
	// kustomize ignores these errors too: they cannot happen on a mapping.
	if !patch.KindChangeAllowed() {
		r.SetKind(k)
	}
	if !patch.NameChangeAllowed() {
		_ = r.SetName(n)
	}
	_ = r.SetNamespace(ns)
}
