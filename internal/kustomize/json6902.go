package kustomize

import (
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"slices"
	"strconv"
	"strings"
	"unicode/utf8"

	yamlv2 "go.yaml.in/yaml/v2"
	yamlv3 "go.yaml.in/yaml/v3"
	"sigs.k8s.io/kustomize/api/filters/patchjson6902"
	"sigs.k8s.io/kustomize/api/resmap"
	"sigs.k8s.io/kustomize/api/resource"
	"sigs.k8s.io/kustomize/api/types"
	"sigs.k8s.io/kustomize/kyaml/kio/kioutil"
)

// kustomize applies a JSON 6902 patch (api/filters/patchjson6902) by
// encoding the object as JSON, applying the operations with
// gopkg.in/evanphx/json-patch.v4 and decoding the JSON back into a fresh
// node tree (every number through float64). json6902 does the same to the
// node tree directly: it converts the object into the values that JSON
// holds, applies add, remove and replace as json-patch does, and builds the
// nodes the decoding would. Anything else (other operations, negative
// indices, timestamps, an operation json-patch would refuse) is left to
// kustomize's filter, so errors are kustomize's.

// jsonOp is one operation of a JSON 6902 patch.
type jsonOp struct {
	op    string
	path  []string // decoded reference tokens, after the leading "/"
	from  []string // of move and copy
	value any      // as encoding/json decodes it
}

// errJSONFallback means the operation is left to kustomize's filter.
var errJSONFallback = errors.New("left to kustomize")

// parseJSONPatch reads patch text as kustomize's filter does (JSON text
// as JSON, anything else through sigs.k8s.io/yaml.YAMLToJSON, which reads
// YAML with go.yaml.in/yaml/v2), and returns nil when any operation is one
// json6902 leaves to kustomize. YAML is read with yaml/v2 directly and its
// values converted as YAMLToJSON and encoding/json would.
func parseJSONPatch(text string) []jsonOp {
	if ops, ok := scanJSONPatch(text); ok {
		return ops
	}
	return readJSONPatch(text)
}

// readJSONPatch is parseJSONPatch with a JSON or YAML parser.
func readJSONPatch(text string) []jsonOp {
	var raw []any
	if strings.HasPrefix(text, "[") {
		if json.Unmarshal([]byte(text), &raw) != nil {
			return nil
		}
	} else {
		var y any
		if yamlv2.Unmarshal([]byte(text), &y) != nil {
			return nil
		}
		v, ok := yamlJSON(y)
		if !ok {
			return nil
		}
		if raw, ok = v.([]any); !ok {
			return nil
		}
	}
	if len(raw) == 0 {
		return nil
	}
	ops := make([]jsonOp, 0, len(raw))
	tests := false
	for _, r := range raw {
		m, ok := r.(map[string]any)
		if !ok {
			return nil
		}
		o, ok := makeJSONOp(m)
		if !ok {
			return nil
		}
		ops = append(ops, o)
		tests = tests || o.op == "test"
	}
	if tests && strings.HasPrefix(text, "[") && !rawTestValues(text) {
		return nil
	}
	return ops
}

// rawTestValues reports whether the value of each test operation of a
// patch in JSON text is written as encoding/json writes what it holds.
// json-patch's test compares strings by their text in the patch and in
// the object's JSON (which encoding/json wrote: "<", ">", "&", U+2028 and
// U+2029 escaped, and each escape its own way), and json6902 compares
// the decoded strings: they agree when the patch's text has no escape and
// none of the characters encoding/json escapes. (YAML text is turned into
// JSON by encoding/json, as the object is.)
func rawTestValues(text string) bool {
	if !strings.ContainsAny(text, "\\<>&\u2028\u2029") && utf8.ValidString(text) {
		return true
	}
	var raw []map[string]json.RawMessage
	if json.Unmarshal([]byte(text), &raw) != nil {
		return false
	}
	for _, m := range raw {
		var op string
		if json.Unmarshal(m["op"], &op) != nil || op != "test" {
			continue
		}
		v := string(m["value"])
		if strings.ContainsAny(v, "\\<>&\u2028\u2029") || !utf8.ValidString(v) {
			return false
		}
	}
	return true
}

// makeJSONOp reads one operation of a patch; false when json6902 leaves
// it to kustomize.
func makeJSONOp(m map[string]any) (jsonOp, bool) {
	o := jsonOp{}
	var ok bool
	if o.op, ok = m["op"].(string); !ok {
		return o, false
	}
	if o.path, ok = pointer(m["path"]); !ok {
		return o, false
	}
	switch o.op {
	case "add", "replace", "test":
		if o.value, ok = m["value"]; !ok {
			return o, false
		}
	case "move", "copy":
		if o.from, ok = pointer(m["from"]); !ok {
			return o, false
		}
	case "remove":
	default:
		return o, false
	}
	return o, true
}

// pointer decodes a JSON pointer (RFC 6901) other than the whole document.
func pointer(v any) ([]string, bool) {
	p, ok := v.(string)
	if !ok || !strings.HasPrefix(p, "/") {
		return nil, false
	}
	toks := strings.Split(p[1:], "/")
	for i, tok := range toks {
		toks[i] = rfc6901.Replace(tok)
	}
	return toks, true
}

// scanJSONPatch reads the common form of a patch in YAML without a YAML
// parser: a block sequence of mappings, one "key: value" a line, each
// value a string yaml/v2 surely reads as the text itself (a plain scalar
// v2Plain accepts or a path, or a double-quoted one without escapes).
// ok is false for anything else, which the YAML reader reads.
func scanJSONPatch(text string) (ops []jsonOp, ok bool) {
	var item map[string]any
	flush := func() bool {
		if item == nil {
			return true
		}
		o, ok := makeJSONOp(item)
		ops = append(ops, o)
		return ok
	}
	for line := range strings.Lines(text) {
		line = strings.TrimSuffix(line, "\n")
		var entry string
		switch {
		case strings.HasPrefix(line, "- "):
			if !flush() {
				return nil, false
			}
			item, entry = map[string]any{}, line[2:]
		case strings.HasPrefix(line, "  ") && item != nil:
			entry = line[2:]
		default:
			return nil, false
		}
		k, v, found := strings.Cut(entry, ": ")
		if !found || !jsonOpKeys[k] {
			return nil, false
		}
		if _, dup := item[k]; dup {
			return nil, false
		}
		s, ok := scannedString(v)
		if !ok {
			return nil, false
		}
		item[k] = s
	}
	if !flush() || len(ops) == 0 {
		return nil, false
	}
	return ops, true
}

// scannedString is the string a one-line scalar reads as, when it surely
// is one.
func scannedString(v string) (string, bool) {
	if len(v) >= 2 && v[0] == '"' && v[len(v)-1] == '"' {
		inner := v[1 : len(v)-1]
		if strings.ContainsAny(inner, "\"\\") || !isASCIIPrintable(inner) {
			return "", false
		}
		return inner, true
	}
	if v2Plain(v) {
		return v, true
	}
	if strings.HasPrefix(v, "/") {
		// A path: '/' starts no YAML token, and these characters end none.
		for i := 1; i < len(v); i++ {
			if !isAlnum(v[i]) && !strings.ContainsRune("-._/~", rune(v[i])) {
				return "", false
			}
		}
		return v, true
	}
	return "", false
}

// jsonOpKeys are the keys of a JSON 6902 operation (RFC 6902).
var jsonOpKeys = setOf("op", "path", "value", "from")

func isASCIIPrintable(s string) bool {
	for i := 0; i < len(s); i++ {
		if s[i] < ' ' || s[i] > '~' {
			return false
		}
	}
	return true
}

// yamlJSON converts a value read by yaml/v2 into what encoding/json
// decodes from YAMLToJSON's encoding of it; false for what that would not
// encode the same way or at all (keys that are not strings, NaN, ...).
func yamlJSON(v any) (any, bool) {
	switch x := v.(type) {
	case map[any]any:
		m := make(map[string]any, len(x))
		for k, e := range x {
			ks, ok := k.(string)
			if !ok {
				return nil, false
			}
			if m[jsonString(ks)], ok = yamlJSON(e); !ok {
				return nil, false
			}
		}
		return m, true
	case []any:
		s := make([]any, len(x))
		for i, e := range x {
			var ok bool
			if s[i], ok = yamlJSON(e); !ok {
				return nil, false
			}
		}
		return s, true
	case string:
		return jsonString(x), true
	case bool, nil:
		return x, true
	case int:
		return float64(x), true
	case int64:
		return float64(x), true
	case uint64:
		return float64(x), true
	case float64:
		if math.IsNaN(x) || math.IsInf(x, 0) {
			return nil, false
		}
		return x, true
	}
	return nil, false
}

var rfc6901 = strings.NewReplacer("~1", "/", "~0", "~")

// json6902Transformer is a patches entry with a JSON 6902 patch.
type json6902Transformer struct {
	target types.Selector
	text   string // for kustomize's filter
	ops    []jsonOp
	// storeID records each object's name before the patch, as a patches
	// entry does (and a patchesJson6902 entry does not).
	storeID bool
}

// Transform does what kustomize's PatchTransformer does with a JSON patch
// (api/internal/builtins/PatchTransformer.go), or its
// PatchJson6902Transformer (PatchJson6902Transformer.go).
func (t *json6902Transformer) Transform(m resmap.ResMap) error {
	resources, err := m.Select(t.target)
	if err != nil {
		return err
	}
	for _, res := range resources {
		if t.storeID {
			res.StorePreviousId()
		}
		internal := kioutil.GetInternalAnnotations(&res.RNode)
		if err := applyJSON6902(res, t.ops); err != nil {
			if err := res.ApplyFilter(patchjson6902.Filter{Patch: t.text}); err != nil {
				return err
			}
		}
		anns := res.GetAnnotations()
		for k, v := range internal {
			anns[k] = v
		}
		if err := res.SetAnnotations(anns); err != nil {
			return err
		}
	}
	return nil
}

// applyJSON6902 applies ops to res, or leaves res as it was and returns
// errJSONFallback.
func applyJSON6902(res *resource.Resource, ops []jsonOp) error {
	doc, ok := nodeJSON(res.RNode.YNode())
	if !ok {
		return errJSONFallback
	}
	root := any(doc)
	for _, o := range ops {
		if !applyOp(&root, o) {
			return errJSONFallback
		}
	}
	m, ok := root.(map[string]any)
	if !ok {
		return errJSONFallback
	}
	n, ok := jsonNode(m)
	if !ok {
		return errJSONFallback
	}
	res.RNode.SetYNode(n)
	return nil
}

// applyOp applies one operation, as json-patch does
// (gopkg.in/evanphx/json-patch.v4, patch.go); false when json-patch would
// fail or do something json6902 does not reproduce.
func applyOp(root *any, o jsonOp) bool {
	switch o.op {
	case "add":
		return at(root, o.path, func(c *any, key string) bool { return addAt(c, key, cloneJSON(o.value)) })
	case "remove":
		return at(root, o.path, removeAt)
	case "replace":
		return at(root, o.path, func(c *any, key string) bool {
			if _, ok := getAt(*c, key); !ok {
				return false
			}
			return removeAt(c, key) && addAt(c, key, cloneJSON(o.value))
		})
	case "move":
		// Taken out, then added where the path points in what is left.
		var v any
		ok := at(root, o.from, func(c *any, key string) bool {
			var found bool
			v, found = getAt(*c, key)
			return found && removeAt(c, key)
		})
		return ok && at(root, o.path, func(c *any, key string) bool { return addAt(c, key, v) })
	case "copy":
		var v any
		ok := at(root, o.from, func(c *any, key string) bool {
			var found bool
			v, found = getAt(*c, key)
			return found
		})
		return ok && at(root, o.path, func(c *any, key string) bool { return addAt(c, key, cloneJSON(v)) })
	case "test":
		return at(root, o.path, func(c *any, key string) bool {
			v, found := getAt(*c, key)
			return found && sameStrings(v, o.value)
		})
	}
	return false
}

// at calls f with the container of the last token of path and that token,
// writing containers that f or a deeper call replaced back into their
// parents; false when the path does not lead there or f fails.
func at(v *any, path []string, f func(c *any, key string) bool) bool {
	if len(path) == 0 {
		return false
	}
	if len(path) == 1 {
		return f(v, path[0])
	}
	switch c := (*v).(type) {
	case map[string]any:
		child, ok := c[path[0]]
		if !ok || !at(&child, path[1:], f) {
			return false
		}
		c[path[0]] = child
		return true
	case []any:
		i, ok := arrayIndex(path[0], len(c))
		return ok && at(&c[i], path[1:], f)
	}
	return false
}

// getAt returns the value under key in a container, if it has one.
func getAt(c any, key string) (any, bool) {
	switch x := c.(type) {
	case map[string]any:
		v, ok := x[key]
		return v, ok
	case []any:
		if i, ok := arrayIndex(key, len(x)); ok {
			return x[i], true
		}
	}
	return nil, false
}

// addAt sets a key of an object, or inserts into an array at an index up
// to its length or at its end ("-").
func addAt(c *any, key string, v any) bool {
	switch x := (*c).(type) {
	case map[string]any:
		x[key] = v
		return true
	case []any:
		if key == "-" {
			*c = append(x, v)
			return true
		}
		i, err := strconv.Atoi(key)
		if err != nil || i < 0 || i > len(x) {
			return false
		}
		*c = slices.Insert(slices.Clone(x), i, v)
		return true
	}
	return false
}

// removeAt removes an existing key or array item.
func removeAt(c *any, key string) bool {
	switch x := (*c).(type) {
	case map[string]any:
		if _, ok := x[key]; !ok {
			return false
		}
		delete(x, key)
		return true
	case []any:
		i, ok := arrayIndex(key, len(x))
		if !ok {
			return false
		}
		*c = slices.Delete(slices.Clone(x), i, i+1)
		return true
	}
	return false
}

// sameStrings reports whether two values are equal and made of strings
// and booleans only. json-patch's test compares numbers and nulls by their
// JSON text, which the decoded values do not keep: those are left to it.
func sameStrings(a, b any) bool {
	switch x := a.(type) {
	case string:
		y, ok := b.(string)
		return ok && x == y
	case bool:
		y, ok := b.(bool)
		return ok && x == y
	case map[string]any:
		y, ok := b.(map[string]any)
		if !ok || len(x) != len(y) {
			return false
		}
		for k, v := range x {
			if w, ok := y[k]; !ok || !sameStrings(v, w) {
				return false
			}
		}
		return true
	case []any:
		y, ok := b.([]any)
		if !ok || len(x) != len(y) {
			return false
		}
		for i := range x {
			if !sameStrings(x[i], y[i]) {
				return false
			}
		}
		return true
	}
	return false
}

// arrayIndex reads an existing index as json-patch does (strconv.Atoi);
// negative indices are left to kustomize.
func arrayIndex(tok string, n int) (int, bool) {
	i, err := strconv.Atoi(tok)
	if err != nil || i < 0 || i >= n {
		return 0, false
	}
	return i, true
}

// nodeJSON converts a mapping node into what encoding/json decodes from
// kustomize's JSON encoding of it: maps, slices, strings, booleans, nil and
// float64 numbers.
func nodeJSON(n *yamlv3.Node) (map[string]any, bool) {
	v, ok := jsonValue(n)
	if !ok {
		return nil, false
	}
	m, ok := v.(map[string]any)
	if !ok {
		return nil, false
	}
	return m, floatNumbers(m)
}

// floatNumbers turns the numbers of a value from jsonValue into float64 in
// place, as decoding JSON into any does.
func floatNumbers(v any) bool {
	switch x := v.(type) {
	case map[string]any:
		for k, e := range x {
			if f, ok := asFloat(e); ok {
				x[k] = f
			} else if !floatNumbers(e) {
				return false
			}
		}
	case []any:
		for i, e := range x {
			if f, ok := asFloat(e); ok {
				x[i] = f
			} else if !floatNumbers(e) {
				return false
			}
		}
	}
	return true
}

func asFloat(v any) (float64, bool) {
	switch x := v.(type) {
	case int:
		return float64(x), true
	case uint64:
		return float64(x), true
	case float64:
		return x, true
	}
	return 0, false
}

// jsonNode builds the node tree kyaml decodes from JSON (RNode.UnmarshalJSON:
// encoding/json into any, yaml.v3 Marshal, kyaml Parse): keys sorted,
// strings tagged !!str in the style yaml.v3 writes them in, numbers
// written as yaml.v3 writes a float64 and tagged as it reads them back.
// ok is false when the object holds a string kyaml fails to read back.
func jsonNode(v any) (n *yamlv3.Node, ok bool) {
	switch x := v.(type) {
	case map[string]any:
		keys := make([]string, 0, len(x))
		for k := range x {
			if unreadable(k) {
				return nil, false
			}
			keys = append(keys, k)
		}
		slices.Sort(keys)
		n := &yamlv3.Node{Kind: yamlv3.MappingNode, Tag: "!!map", Content: make([]*yamlv3.Node, 0, 2*len(keys))}
		for _, k := range keys {
			c, ok := jsonNode(x[k])
			if !ok {
				return nil, false
			}
			n.Content = append(n.Content, strScalar(k), c)
		}
		return n, true
	case []any:
		n := &yamlv3.Node{Kind: yamlv3.SequenceNode, Tag: "!!seq", Content: make([]*yamlv3.Node, len(x))}
		for i, e := range x {
			if n.Content[i], ok = jsonNode(e); !ok {
				return nil, false
			}
		}
		return n, true
	case string:
		if unreadable(x) {
			return nil, false
		}
		n := strScalar(x)
		n.Style = v3Style(x)
		return n, true
	case bool:
		return &yamlv3.Node{Kind: yamlv3.ScalarNode, Tag: "!!bool", Value: strconv.FormatBool(x)}, true
	case float64:
		s := strconv.FormatFloat(x, 'g', -1, 64)
		switch {
		case math.IsInf(x, 1):
			s = ".inf"
		case math.IsInf(x, -1):
			s = "-.inf"
		case math.IsNaN(x):
			s = ".nan"
		}
		n := &yamlv3.Node{Kind: yamlv3.ScalarNode, Value: s}
		n.Tag = n.ShortTag()
		return n, true
	}
	return &yamlv3.Node{Kind: yamlv3.ScalarNode, Tag: "!!null", Value: "null"}, true
}

// unreadable reports whether yaml.v3 may write a string, as a key or a
// value, in a way kyaml's Parse fails to read: a literal block scalar
// whose first line starts with a tab ("found a tab character where an
// indentation space is expected"), which kustomize's JSON 6902 filter
// reports as an error.
func unreadable(s string) bool {
	return len(s) > 0 && s[0] == '\t' && strings.Contains(s, "\n")
}

func strScalar(s string) *yamlv3.Node {
	return &yamlv3.Node{Kind: yamlv3.ScalarNode, Tag: "!!str", Value: s}
}

// v3Style is the style of a string value as yaml.v3 writes it in a block
// mapping or sequence and kyaml reads it back. Its quotes matter: a later
// strategic merge gives the number that replaces the string that style,
// which keeps it a string. yaml.v3 chooses the style of a value the same
// way wherever it is in block context; its text at the top of a document
// tells which.
func v3Style(s string) yamlv3.Style {
	if v3Plain(s) {
		return 0
	}
	out, err := yamlv3.Marshal(s)
	if err != nil || len(out) == 0 {
		// Not met: s comes from JSON, valid UTF-8.
		return yamlv3.DoubleQuotedStyle
	}
	switch out[0] {
	case '"':
		return yamlv3.DoubleQuotedStyle
	case '\'':
		return yamlv3.SingleQuotedStyle
	case '|':
		return yamlv3.LiteralStyle
	case '>':
		return yamlv3.FoldedStyle
	}
	return 0
}

// v3Plain reports whether yaml.v3 surely writes the string value s plain
// (encode.go, stringv; emitterc.go, yaml_emitter_analyze_scalar): what
// v2Plain or plainWord tells plain.
func v3Plain(s string) bool { return v2Plain(s) || plainWord(s) }

// plainWord reports whether s is printable ASCII text that starts with a
// letter, holds no ':' or '#', does not end in a space and is no boolean
// or null word (YAML 1.1's included): text that yaml.v3 writes plain and
// yaml/v2 reads back as the string it is, without either being asked.
func plainWord(s string) bool {
	return s != "" && isLetter(s[0]) && s[len(s)-1] != ' ' && !v2Words[s] &&
		!strings.ContainsAny(s, ":#") && isASCIIPrintable(s)
}

// String names the transformer in errors.
func (t *json6902Transformer) String() string {
	return fmt.Sprintf("JSON patch of %s", t.target.String())
}

var _ resmap.Transformer = (*json6902Transformer)(nil)

// cloneJSON copies a value of maps and slices, so that an operation's value
// put into one object is not changed through another.
func cloneJSON(v any) any {
	switch x := v.(type) {
	case map[string]any:
		c := make(map[string]any, len(x))
		for k, e := range x {
			c[k] = cloneJSON(e)
		}
		return c
	case []any:
		c := make([]any, len(x))
		for i, e := range x {
			c[i] = cloneJSON(e)
		}
		return c
	}
	return v
}
