package kustomize

import (
	"encoding/json"
	"reflect"
	"strings"
	"testing"

	"sigs.k8s.io/kustomize/api/filters/patchjson6902"
	"sigs.k8s.io/kustomize/api/provider"
	"sigs.k8s.io/kustomize/api/resource"
	kyaml "sigs.k8s.io/kustomize/kyaml/yaml"
)

// TestJSON6902 holds json6902 to kustomize's JSON 6902 filter: on each
// object and patch, both must give the same object (compared as kustomize
// outputs it and as JSON), or json6902 must leave the patch to the filter
// and the object as it was.
func TestJSON6902(t *testing.T) {
	rf := provider.NewDepProvider().GetResourceFactory()
	const doc = `apiVersion: v1
kind: ConfigMap
metadata:
  name: x
  annotations:
    a/b: c
spec:
  s: text
  t: "true"
  n: 23
  big: 12345678901234567890
  f: 1.50
  e: 1e3
  z: null
  list:
  - name: a
    v: 1
  - name: b
    v: 2
  nested:
    deep: {k: [1, 2, {m: n}]}
`
	tests := []struct {
		name, doc, patch string
		native           bool // applied by json6902
	}{
		{"replace a string", doc, "- op: replace\n  path: /spec/s\n  value: other", true},
		{"replace a number with a string", doc, "- op: replace\n  path: /spec/n\n  value: \"24\"", true},
		{"add a key", doc, "- op: add\n  path: /spec/new\n  value: {a: [1, true, null, 2.5]}", true},
		{"add replaces a key", doc, "- op: add\n  path: /spec/s\n  value: 7", true},
		{"insert at the front, middle and end of a list", doc,
			"- op: add\n  path: /spec/list/0\n  value: {name: first}\n- op: add\n  path: /spec/list/2\n  value: mid\n- op: add\n  path: /spec/list/4\n  value: last", true},
		{"append", doc, "- op: add\n  path: /spec/list/-\n  value: {name: c}", true},
		{"remove a key and an item", doc, "- op: remove\n  path: /spec/z\n- op: remove\n  path: /spec/list/0", true},
		{"deep path through lists", doc, "- op: replace\n  path: /spec/nested/deep/k/2/m\n  value: o", true},
		{"escaped tokens", doc, "- op: replace\n  path: /metadata/annotations/a~1b\n  value: d\n- op: add\n  path: /metadata/annotations/t~0x\n  value: y", true},
		{"later operations change an added value", doc,
			"- op: add\n  path: /spec/added\n  value: {inner: [1]}\n- op: add\n  path: /spec/added/inner/-\n  value: 2\n- op: add\n  path: /spec/added/k\n  value: v", true},
		{"index with a leading zero", doc, "- op: replace\n  path: /spec/list/01/v\n  value: 9", true},
		{"YAML 1.1 scalars in values", doc, "- op: add\n  path: /spec/y\n  value: [yes, no, on, \"yes\", 0x10, 010]", true},
		{"JSON text", doc, `[{"op": "replace", "path": "/spec/f", "value": 1.0}, {"op": "add", "path": "/spec/u", "value": "\u00e9\/"}]`, true},
		{"key that is not a string in a value", doc, "- op: add\n  path: /spec/k\n  value: {1: one}", false},
		{"replace a missing key", doc, "- op: replace\n  path: /spec/missing\n  value: x", false},
		{"remove a missing item", doc, "- op: remove\n  path: /spec/list/5", false},
		{"negative index", doc, "- op: remove\n  path: /spec/list/-1", false},
		{"add under a missing parent", doc, "- op: add\n  path: /spec/no/such\n  value: x", false},
		{"add past the end", doc, "- op: add\n  path: /spec/list/3\n  value: x", false},
		{"test a string, then replace it", doc, "- op: test\n  path: /spec/s\n  value: text\n- op: replace\n  path: /spec/s\n  value: x", true},
		{"test a mapping of strings", doc, "- op: test\n  path: /metadata/annotations\n  value: {a/b: c}", true},
		{"test that fails", doc, "- op: test\n  path: /spec/s\n  value: other", false},
		{"test a number", doc, "- op: test\n  path: /spec/n\n  value: 23", false},
		{"test a null", doc, "- op: test\n  path: /spec/z\n  value: null", false},
		{"test a missing key", doc, "- op: test\n  path: /spec/missing\n  value: x", false},
		{"move a key", doc, "- op: move\n  from: /spec/s\n  path: /spec/moved", true},
		{"move a list item to the front", doc, "- op: move\n  from: /spec/list/1\n  path: /spec/list/0", true},
		{"move an item to the end of another list", doc, "- op: move\n  from: /spec/list/0\n  path: /spec/nested/deep/k/-", true},
		{"move a key into a list", doc, "- op: move\n  from: /spec/s\n  path: /spec/list/2", true},
		{"move onto itself", doc, "- op: move\n  from: /spec/s\n  path: /spec/s", true},
		{"move into its own child", doc, "- op: move\n  from: /spec/nested\n  path: /spec/nested/deep/x", false},
		{"move from a missing key", doc, "- op: move\n  from: /spec/missing\n  path: /spec/x", false},
		{"move to a missing parent", doc, "- op: move\n  from: /spec/s\n  path: /spec/no/such", false},
		{"copy a mapping, then change the copy", doc,
			"- op: copy\n  from: /spec/nested\n  path: /spec/copied\n- op: replace\n  path: /spec/copied/deep/k/0\n  value: changed", true},
		{"copy a list item into the list", doc, "- op: copy\n  from: /spec/list/0\n  path: /spec/list/1", true},
		{"copy from a missing key", doc, "- op: copy\n  from: /spec/missing\n  path: /spec/x", false},
		{"copy past the end of a list", doc, "- op: copy\n  from: /spec/s\n  path: /spec/list/7", false},
		{"move without from", doc, "- op: move\n  path: /spec/x", false},
		{"timestamp in the object", doc + "  when: 2024-01-02\n", "- op: replace\n  path: /spec/s\n  value: x", false},
		// json-patch's test compares the text of a string in JSON text
		// with encoding/json's, which escapes "&" and writes its own
		// escapes: both tests fail.
		{"test of a string with an escape, in JSON text", doc,
			`[{"op": "test", "path": "/spec/s", "value": "te\u0078t"}, {"op": "add", "path": "/spec/x", "value": "y"}]`, false},
		{"test of a string with an ampersand, in JSON text", doc + "  url: a&b\n",
			`[{"op": "test", "path": "/spec/url", "value": "a&b"}, {"op": "add", "path": "/spec/x", "value": "y"}]`, false},
		{"test of a string with an ampersand, in YAML", doc + "  url: a&b\n", "- op: test\n  path: /spec/url\n  value: a&b", true},
		{"an ampersand and an escape in JSON text, no test", doc,
			`[{"op": "add", "path": "/spec/u", "value": "a&b\u0078"}, {"op": "test", "path": "/spec/s", "value": "text"}]`, true},
		{"a string kyaml fails to read back", doc + "  tab: \"\\tx\\n\"\n", "- op: replace\n  path: /spec/s\n  value: x", false},
		{"strings yaml.v3 quotes", doc, "- op: add\n  path: /spec/q\n  value: {a: \"6443\", b: \"x: y\", c: \"- z\", d: \" pad\", e: \"\", f: \"two\\nlines\\n\", g: \"yes\", h: \"1:20\", i: \"é\"}", true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			load := func() *resource.Resource {
				rs, err := rf.SliceFromBytes([]byte(tt.doc))
				if err != nil || len(rs) != 1 {
					t.Fatalf("parse: %v", err)
				}
				return rs[0]
			}
			mine, theirs := load(), load()
			before, _ := mine.AsYAML()
			ops := parseJSONPatch(tt.patch)
			native := ops != nil && applyJSON6902(mine, ops) == nil
			if native != tt.native {
				t.Fatalf("applied by json6902: %t, want %t", native, tt.native)
			}
			if !native {
				if after, _ := mine.AsYAML(); string(after) != string(before) {
					t.Errorf("a patch left to kustomize changed the object:\n%s", after)
				}
				return
			}
			if err := theirs.ApplyFilter(patchjson6902.Filter{Patch: tt.patch}); err != nil {
				t.Fatalf("kustomize's filter: %v", err)
			}
			sameOutput(t, "json6902", mine, theirs)
			gj, _ := mine.MarshalJSON()
			wj, _ := theirs.MarshalJSON()
			if string(gj) != string(wj) {
				t.Errorf("JSON differs:\n%s\n%s", gj, wj)
			}
			// The styles of the strings show in a later merge.
			numbers := numbersOver(t, func(t *testing.T, text string) *resource.Resource {
				rs, err := rf.SliceFromBytes([]byte(text))
				if err != nil || len(rs) != 1 {
					t.Fatalf("parse %q: %d objects, %v", text, len(rs), err)
				}
				return rs[0]
			}, theirs)
			if err := mine.ApplySmPatch(numbers.DeepCopy()); err != nil {
				t.Fatal(err)
			}
			if err := theirs.ApplySmPatch(numbers); err != nil {
				t.Fatal(err)
			}
			sameOutput(t, "json6902, then numbers", mine, theirs)
		})
	}
}

// TestV3Style holds v3Style to kyaml's JSON round trip (RNode.UnmarshalJSON)
// on strings of up to two pieces of YAML-significant text, as values in a
// mapping and items in a sequence (whose text must read back as it was),
// and unreadable to the strings the round trip fails on.
func TestV3Style(t *testing.T) {
	pieces := []string{"a", "Z", "e", "x", "y", "n", "0", "1", "12", ".", ":", "-", "/", "+", "_", "=", "@", " ", "#", "'", "\"",
		"\\", ",", "[", "}", "?", "|", ">", "!", "&", "*", "%", "`", "~", "<<", "yes", "on", "null", "true", "0x", "0o", "0b", "é",
		"\t", "\n", "\r", "\u0085", "\u2028", "\ufeff", "\x01", ".inf", "2024-01-02", "1:20", "---", strings.Repeat("w ", 50)}
	strs := append([]string{""}, piecesAndPairs(pieces)...)
	fast := 0
	for _, s := range strs {
		if v3Plain(s) {
			fast++
		}
		var rn kyaml.RNode
		text, _ := json.Marshal(map[string]any{"k": s, "l": []any{s}})
		if err := rn.UnmarshalJSON(text); err != nil {
			if !unreadable(s) {
				t.Errorf("%q: kyaml fails to read it back (%v), unreadable does not tell", s, err)
			}
			continue
		}
		if unreadable(s) {
			t.Errorf("%q: kyaml reads it back, unreadable says it may not", s)
			continue
		}
		if v := rn.Field("k").Value.YNode().Value; v != s {
			t.Errorf("%q reads back as %q", s, v)
		}
		want := rn.Field("k").Value.YNode().Style
		if item := rn.Field("l").Value.YNode().Content[0].Style; item != want {
			t.Fatalf("%q: style %d in a mapping, %d in a sequence", s, want, item)
		}
		if got := v3Style(s); got != want {
			t.Errorf("v3Style(%q) = %d, kyaml's %d", s, got, want)
		}
	}
	if fast < len(strs)/10 {
		t.Errorf("%d of %d strings told plain without yaml.v3", fast, len(strs))
	}
}

// TestScanJSONPatch holds the patch scanner to the YAML reader: the same
// operations for what it reads, the reader for anything else.
func TestScanJSONPatch(t *testing.T) {
	tests := []struct {
		name, text string
		scanned    bool
	}{
		{"fleetgen's form", "- op: replace\n  path: /metadata/name\n  value: ha-000002\n- op: replace\n  path: /spec/nodes/0/bootMACAddress\n" +
			"  value: \"02:9e:00:00:01:00\"\n- op: replace\n  path: /spec/nodes/0/nodeLabels/topology.kubernetes.io~1zone\n  value: region-00001-a\n" +
			"- op: replace\n  path: /spec/apiVIPs/0\n  value: 10.0.0.18\n- op: remove\n  path: /spec/x\n", true},
		{"keys in another order, no final newline", "- path: /a\n  value: b\n  op: add", true},
		{"URL value", "- op: add\n  path: /a\n  value: redfish-virtualmedia+https://100.64.0.9/redfish/v1/Systems/1\n", true},
		{"number", "- op: add\n  path: /a\n  value: 12\n", false},
		{"boolean word", "- op: add\n  path: /a\n  value: yes\n", false},
		{"quoted word", "- op: add\n  path: /a\n  value: \"yes\"\n", true},
		{"escape in quotes", "- op: add\n  path: /a\n  value: \"a\\tb\"\n", false},
		{"single quotes", "- op: add\n  path: /a\n  value: 'x'\n", false},
		{"comment", "# c\n- op: add\n  path: /a\n  value: x\n", false},
		{"trailing comment", "- op: add\n  path: /a\n  value: x # c\n", false},
		{"nested value", "- op: add\n  path: /a\n  value:\n    k: v\n", false},
		{"flow value", "- op: add\n  path: /a\n  value: {k: v}\n", false},
		{"repeated key", "- op: add\n  path: /a\n  value: x\n  value: y\n", false},
		{"path with a colon", "- op: add\n  path: /a:b\n  value: x\n", false},
		{"test and move operations", "- op: test\n  path: /a\n  value: x\n- op: move\n  from: /a\n  path: /b\n", true},
		{"unknown operation", "- op: merge\n  path: /a\n  value: x\n", false},
		{"indented list", "  - op: add\n    path: /a\n    value: x\n", false},
		{"CRLF", "- op: add\r\n  path: /a\r\n  value: x\r\n", false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			ops, ok := scanJSONPatch(tt.text)
			if ok != tt.scanned {
				t.Fatalf("scanned: %t, want %t", ok, tt.scanned)
			}
			if !ok {
				return
			}
			if want := readJSONPatch(tt.text); !reflect.DeepEqual(ops, want) {
				t.Errorf("scanned %#v\nread %#v", ops, want)
			}
		})
	}
}
