package kustomize

import (
	"encoding/json"
	"strings"
	"unicode/utf8"

	yamlv2 "go.yaml.in/yaml/v2"
	yamlv3 "go.yaml.in/yaml/v3"
	"sigs.k8s.io/kustomize/api/resource"
)

// kustomize serializes each output object with Resource.AsYAML: the node
// tree is written as YAML text, read back into Go values, encoded as JSON,
// and sigs.k8s.io/yaml.JSONToYAML reads that JSON with go.yaml.in/yaml/v2
// and writes it out (keys sorted). krustyYAML gives the same bytes without
// the three text round trips: it turns the node tree straight into the
// values yaml/v2 would read from that JSON, and lets yaml/v2 write them.
// Whatever it is not sure to reproduce (anchors, merge keys, timestamps,
// binary data, keys that are not strings) goes the slow way.

// krustyYAML serializes an object as Resource.AsYAML does.
func krustyYAML(r *resource.Resource) ([]byte, error) {
	if v, ok := jsonValue(r.RNode.YNode()); ok {
		if m, isMap := v.(map[string]any); isMap {
			return marshalV2(m)
		}
	}
	return r.AsYAML()
}

// jsonValue converts a node into the value yaml/v2 reads from its JSON
// encoding; ok is false when the conversion is not certain to agree.
func jsonValue(n *yamlv3.Node) (v any, ok bool) {
	if n == nil || n.Anchor != "" {
		return nil, false
	}
	switch n.Kind {
	case yamlv3.DocumentNode:
		if len(n.Content) != 1 {
			return nil, false
		}
		return jsonValue(n.Content[0])
	case yamlv3.MappingNode:
		m := make(map[string]any, len(n.Content)/2)
		for i := 0; i+1 < len(n.Content); i += 2 {
			k := n.Content[i]
			if k.Kind != yamlv3.ScalarNode || k.ShortTag() != "!!str" || k.Anchor != "" {
				return nil, false
			}
			key := jsonString(k.Value)
			if _, dup := m[key]; dup {
				return nil, false
			}
			val, ok := jsonValue(n.Content[i+1])
			if !ok {
				return nil, false
			}
			m[key] = val
		}
		return m, true
	case yamlv3.SequenceNode:
		s := make([]any, len(n.Content))
		for i, c := range n.Content {
			if s[i], ok = jsonValue(c); !ok {
				return nil, false
			}
		}
		return s, true
	case yamlv3.ScalarNode:
		return jsonScalar(n)
	}
	return nil, false
}

// jsonString is s as it comes back from encoding/json: each byte that is
// not part of valid UTF-8 replaced by U+FFFD.
func jsonString(s string) string {
	if utf8.ValidString(s) {
		return s
	}
	var b strings.Builder
	for i := 0; i < len(s); {
		r, size := utf8.DecodeRuneInString(s[i:])
		if r == utf8.RuneError && size == 1 {
			b.WriteRune(utf8.RuneError)
		} else {
			b.WriteString(s[i : i+size])
		}
		i += size
	}
	return b.String()
}

// jsonScalar converts a scalar node. Strings become JSON strings (invalid
// UTF-8 replaced, as encoding/json does); numbers are written as
// encoding/json writes them and read as yaml/v2 reads that text. A number,
// boolean or null in a quoted or block style (kyaml's FieldSetter gives a
// value the style of the scalar it replaces) is written by yaml.v3 in
// that style and read back as a string, unless its tag is written with
// it: both are left to Resource.AsYAML.
func jsonScalar(n *yamlv3.Node) (any, bool) {
	tag := n.ShortTag()
	if tag != "!!str" && n.Style&textStyles != 0 {
		return nil, false
	}
	switch tag {
	case "!!str":
		return jsonString(n.Value), true
	case "!!null":
		return nil, true
	case "!!bool":
		var b bool
		if n.Decode(&b) != nil {
			return nil, false
		}
		return b, true
	case "!!int", "!!float":
		var v any
		if n.Decode(&v) != nil {
			return nil, false
		}
		switch v.(type) {
		case int, uint64:
			// Decimal in JSON, the same integer for yaml/v2.
			return v, true
		}
		text, err := json.Marshal(v)
		if err != nil {
			return nil, false
		}
		var out any
		if yamlv2.Unmarshal(text, &out) != nil {
			return nil, false
		}
		return out, true
	}
	return nil, false
}
