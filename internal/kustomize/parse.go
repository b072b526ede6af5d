package kustomize

import (
	"bytes"
	"strings"

	"go.yaml.in/yaml/v3"
	"sigs.k8s.io/kustomize/api/resource"
	"sigs.k8s.io/kustomize/kyaml/kio"
	kyaml "sigs.k8s.io/kustomize/kyaml/yaml"
)

// kustomize's resource factory (api/resource/factory.go, SliceFromBytes)
// reads objects with kyaml's kio.FromBytes, which resolves anchors,
// aliases and merge keys of every document (RNode.DeAnchor,
// kyaml/yaml/rnode.go). DeAnchor rebuilds each mapping from two deep
// copies of itself, which makes reading a document cost its size times its
// depth; on a document with none of those constructs it gives back the
// same tree. sliceFromBytes reads such documents without it, and hands
// anything else, and every error, to the factory, so that objects and
// messages are kustomize's.

// sliceFromBytes returns the objects of a YAML text as the resource
// factory's SliceFromBytes does.
func (b *builder) sliceFromBytes(data []byte) ([]*resource.Resource, error) {
	if rs, ok := plainSlice(data); ok {
		return rs, nil
	}
	return b.rf.SliceFromBytes(data)
}

// plainSlice reads data when every document is plain (see plainNode) and
// valid; ok is false otherwise.
func plainSlice(data []byte) ([]*resource.Resource, bool) {
	if bytes.Contains(data, []byte("<<")) {
		// A merge key, or text that looks like one: the factory decides.
		return nil, false
	}
	nodes, err := (&kio.ByteReader{OmitReaderAnnotations: true, Reader: bytes.NewReader(data)}).Read()
	if err != nil {
		return nil, false
	}
	out := make([]*resource.Resource, 0, len(nodes))
	for _, n := range nodes {
		if !plainNode(n.YNode()) {
			return nil, false
		}
		// What the factory's dropBadNodes and inlineAnyEmbeddedLists do
		// with a node: empty ones are dropped, invalid ones are errors
		// (left to the factory to report), lists are expanded (left to
		// the factory too).
		if n.IsNilOrEmpty() {
			continue
		}
		if _, err := n.GetValidatedMetadata(); err != nil {
			return nil, false
		}
		if nilEntry, _ := n.HasNilEntryInList(); nilEntry || strings.HasSuffix(n.GetKind(), "List") {
			return nil, false
		}
		out = append(out, &resource.Resource{RNode: *n})
	}
	return out, true
}

// plainNode reports whether DeAnchor leaves the tree under n as it is: it
// holds no anchor, alias or merge key, and no mapping repeats a key (which
// DeAnchor would collapse).
func plainNode(n *yaml.Node) bool {
	if n == nil {
		return true
	}
	if n.Anchor != "" || n.Kind == yaml.AliasNode {
		return false
	}
	switch n.Kind {
	case yaml.MappingNode:
		for i := 0; i < len(n.Content); i += 2 {
			k := n.Content[i]
			if k.Tag == kyaml.MergeTag || k.Value == "<<" {
				return false
			}
		}
		if repeatsKey(n.Content) {
			return false
		}
		fallthrough
	case yaml.DocumentNode, yaml.SequenceNode:
		for _, c := range n.Content {
			if !plainNode(c) {
				return false
			}
		}
	}
	return true
}

// repeatsKey reports whether a mapping's content repeats a key.
func repeatsKey(content []*yaml.Node) bool {
	if len(content) <= 32 {
		for i := 2; i < len(content); i += 2 {
			for j := 0; j < i; j += 2 {
				if content[j].Value == content[i].Value {
					return true
				}
			}
		}
		return false
	}
	seen := make(map[string]bool, len(content)/2)
	for i := 0; i < len(content); i += 2 {
		if seen[content[i].Value] {
			return true
		}
		seen[content[i].Value] = true
	}
	return false
}
