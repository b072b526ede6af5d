package kustomize

import (
	"testing"

	"sigs.k8s.io/kustomize/api/provider"
)

// TestKrustyYAML holds krustyYAML to Resource.AsYAML on objects whose
// scalars and structure take every branch of the conversion.
func TestKrustyYAML(t *testing.T) {
	rf := provider.NewDepProvider().GetResourceFactory()
	tests := []struct {
		name, body string
		fast       bool // converted without AsYAML
	}{
		{"strings that look like other things", `s1: "true"
s2: "0123"
s3: "1e3"
s4: "null"
s5: ""
s6: " padded "
s7: "a: b"
s8: "- x"
s9: yes
s10: "multi\nline\n"
s11: "trailing\n\n"
s12: "  leading"
s13: "üñí €"
s14: "tab\there"
s15: '#not a comment'
s16: "0x1F"
s17: "~"
`, true},
		{"integers", `i1: 0
i2: -17
i3: 9223372036854775807
i4: 12345678901234567890
i5: 0x1F
i6: 0o17
i7: 1_000
i8: +5
`, true},
		{"floats", `f1: 1.0
f2: 1.5
f3: 1e21
f4: 0.000001
f5: -0.0
f6: 123456789.123456789
f7: 1e-7
f8: 3.0e+2
`, true},
		{"bools and nulls", `b1: true
b2: False
n1: null
n2: ~
n3:
`, true},
		{"nesting", `m: {}
l: []
ll: [[], [1, [2]], {a: [b]}]
deep: {a: {b: {c: [{d: e}, {f: null}]}}}
"key with spaces": 1
"a.b/c": x
"123": numeric key
`, true},
		{"timestamps and binary", `t1: 2024-01-02
t2: 2024-01-02T03:04:05Z
bin: !!binary aGVsbG8=
`, false},
		{"anchors, expanded when read", `a: &x {k: v}
b: *x
`, true},
		{"merge keys, expanded when read", `base: &b {k: v}
m:
  <<: *b
  o: p
`, true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			text := "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: x\nspec:\n" + indent(tt.body, "  ")
			rs, err := rf.SliceFromBytes([]byte(text))
			if err != nil {
				t.Fatal(err)
			}
			for _, r := range rs {
				want, wantErr := r.AsYAML()
				got, err := krustyYAML(r)
				if _, fast := jsonValue(r.RNode.YNode()); fast != tt.fast {
					t.Errorf("converted directly: %t, want %t", fast, tt.fast)
				}
				if (err != nil) != (wantErr != nil) || string(got) != string(want) {
					t.Errorf("krustyYAML:\n%s(err %v)\nAsYAML:\n%s(err %v)", got, err, want, wantErr)
				}
			}
		})
	}
}
