package kustomize

import (
	"fmt"
	"math"
	"strings"
	"testing"

	yamlv2 "go.yaml.in/yaml/v2"
)

// writeV2 is marshalV2 without the fallback: ok is false when the value
// would be left to yaml/v2.
func writeV2(m map[string]any) ([]byte, bool) {
	w := v2Writer{}
	ok := w.mapping(m, 0, false)
	return w.buf, ok
}

// sameAsV2 fails unless m is written as yaml/v2 writes it, and tells
// whether writeV2 wrote it itself.
func sameAsV2(t *testing.T, m map[string]any) bool {
	t.Helper()
	want, err := yamlv2.Marshal(m)
	if err != nil {
		t.Fatal(err)
	}
	got, err := marshalV2(m)
	if err != nil {
		t.Fatal(err)
	}
	if string(got) != string(want) {
		t.Errorf("marshalV2: %s", firstDiff(string(got), string(want)))
	}
	out, ok := writeV2(m)
	if ok && string(out) != string(want) {
		t.Errorf("writeV2: %s", firstDiff(string(out), string(want)))
	}
	return ok
}

func TestMarshalV2Shapes(t *testing.T) {
	tests := []struct {
		name   string
		value  map[string]any
		direct bool // written without yaml/v2
	}{
		{"empty", map[string]any{}, true},
		{"nesting", map[string]any{
			"a": []any{map[string]any{"b": 1, "c": []any{1, 2}, "e": map[string]any{"x": "y"}},
				[]any{1, []any{3, 4}, map[string]any{"k": "v", "l": "w"}}, []any{}, map[string]any{}},
			"d": map[string]any{}, "f": []any{}, "g": nil, "h": map[string]any{"i": []any{"x"}},
		}, true},
		{"numbers and booleans", map[string]any{"i": -3, "j": int64(1 << 40), "u": uint64(math.MaxUint64), "f": 1.5, "g": 1e21,
			"h": 1e-7, "inf": math.Inf(1), "ninf": math.Inf(-1), "nan": math.NaN(), "t": true, "n": false}, true},
		{"a ClusterInstance", map[string]any{"apiVersion": "siteconfig.open-cluster-management.io/v1alpha1", "kind": "ClusterInstance",
			"metadata": map[string]any{"name": "ha-000001", "namespace": "ha-000001"},
			"spec": map[string]any{"nodes": []any{map[string]any{"bootMACAddress": "02:9e:00:00:00:00", "bmcAddress": "redfish-virtualmedia+https://100.64.0.1/redfish/v1/Systems/1",
				"nodeNetwork": map[string]any{"config": map[string]any{"interfaces": []any{map[string]any{"ipv4": map[string]any{
					"address": []any{map[string]any{"ip": "10.0.0.4", "prefix-length": 28}}}}}}}}},
				"machineNetwork": []any{map[string]any{"cidr": "10.0.0.0/28"}}, "ipv6": "fd00:1::2", "zone": map[string]any{"topology.kubernetes.io/zone": "region-00001-a"}}}, true},
		{"quoted strings", map[string]any{"a": "", "b": "yes", "c": "1.5", "d": "02:00:00:00:00:10", "e": "x: y", "f": "it's", "g": "a\tb",
			"h": "-x", "i": "2024-01-02", "j": "0x1F", "k": "~", "l": "'q'", "m": "#c", "n": "a #b", "o": "@x", "p": "%", "q": "*a", "r": "&a"}, true},
		{"long text with spaces, folded", map[string]any{"a": map[string]any{"b": strings.Repeat("word ", 20) + "end", "l": []any{strings.Repeat("w ", 60) + "x"}},
			"c": "ssh-ed25519 AAAAC3NzaC1lZDI1NTE5AAAAIFleetgenSyntheticKeyNotRealDoNotUse000000000 fleetgen@example.net"}, true},
		{"long quoted text with spaces, folded", map[string]any{"a": map[string]any{"b": "'" + strings.Repeat("word  ", 20) + " é'",
			"c": "# " + strings.Repeat("x ", 50) + " ", "d": strings.Repeat("x", 79) + " y z"}}, true},
		{"long double-quoted text with spaces", map[string]any{"a": map[string]any{"b": strings.Repeat("word\t", 20) + " x"}}, false},
		{"long key with spaces", map[string]any{strings.Repeat("k ", 60) + "k": 1}, true},
		{"carriage return", map[string]any{"a": "x\ry"}, false},
		{"text that is not UTF-8, written as !!binary", map[string]any{"a": "\xff x", "b": []any{"é\xe9"}}, false},
		{"long text without spaces", map[string]any{"a": map[string]any{"b": strings.Repeat("x", 200)}}, true},
		{"text on several lines", map[string]any{"a": "one\ntwo\n"}, false},
		{"key of 129 characters", map[string]any{strings.Repeat("k", 129): 1}, false},
		{"key that is not ASCII", map[string]any{"é": 1}, false},
		{"value of another type", map[string]any{"a": []string{"x"}}, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if direct := sameAsV2(t, tt.value); direct != tt.direct {
				t.Errorf("written without yaml/v2: %t, want %t", direct, tt.direct)
			}
		})
	}
}

// TestMarshalV2Strings writes every string of up to two pieces of an
// alphabet of YAML-significant text, and of three of its core, as a value, a sequence item and a
// key, at several indentations, and compares with yaml/v2.
func TestMarshalV2Strings(t *testing.T) {
	pieces := []string{"a", "Z", strings.Repeat("w", 78), strings.Repeat("w ", 40), "e", "x", "b", "0", "1", "9", "12", ".", ":", "-", "/", "+", "_", "=", "@", " ", "#", "'", "\"",
		"\\", ",", "[", "}", "?", "|", ">", "!", "&", "*", "%", "`", "~", "yes", "on", "null", "0x", "0o", "0b", "é", "\t", "\n", "inf", "2024-01-02"}
	// Three pieces of the ones that most change how a string is written.
	core := []string{"a", "e", "x", "0", "1", ".", ":", "-", "/", " ", "#", "'", "_", "@", ",", "\t", "yes", "0x", "é", "2024-01-02"}
	strs := piecesAndPairs(pieces)
	for _, a := range core {
		for _, b := range core {
			for _, c := range core {
				strs = append(strs, a+b+c)
			}
		}
	}
	direct := 0
	for _, s := range strs {
		m := map[string]any{"k": s, "l": []any{s, map[string]any{"deeper": map[string]any{"m": s}}}}
		if !strings.Contains(s, "\n") {
			m[s] = s
		}
		if sameAsV2(t, m) {
			direct++
		}
		if t.Failed() {
			t.Fatalf("string %q", s)
		}
	}
	if direct < len(strs)/2 {
		t.Errorf("%d of %d strings written without yaml/v2", direct, len(strs))
	}
}

// TestV2KeyOrder holds the key order to yaml/v2's: every pair of keys
// of letters, digits, zeros and other characters, sets in an order
// yaml/v2 always gives, and a set it does not (its order is not
// transitive there), which is left to it.
func TestV2KeyOrder(t *testing.T) {
	pieces := []string{"a", "b", "B", "0", "00", "1", "01", "10", "9", "-", ".", "/", "_"}
	var keys []string
	for _, a := range pieces {
		for _, b := range pieces {
			keys = append(keys, a+b, "k"+a+b)
		}
	}
	for i, a := range keys {
		for _, b := range keys[i+1:] {
			if a != b && !sameAsV2(t, map[string]any{a: 1, b: 2}) {
				t.Fatalf("keys %q and %q left to yaml/v2", a, b)
			}
		}
	}
	for _, tt := range []struct {
		keys   []string
		direct bool
	}{
		{[]string{"ipv4", "ipv6", "a10", "a9", "a-1", "a_b", "ab", "a.b", "prefix-length", "v1alpha1", "a100", "next-hop-address", "table-id"}, true},
		{[]string{"a-b", "ab", "a.b", "a_b", "aB", "Ab", "a/b", "zz", "z"}, true},
		{[]string{"a10", "a100", "a1b", "a9"}, false},
	} {
		m := map[string]any{}
		for i, k := range tt.keys {
			m[k] = i
		}
		out, ok := writeV2(m)
		if ok != tt.direct {
			t.Errorf("%q: written without yaml/v2: %t, want %t", tt.keys, ok, tt.direct)
		}
		if ok {
			want, _ := yamlv2.Marshal(m)
			if string(out) != string(want) {
				t.Errorf("%q: %s", tt.keys, firstDiff(string(out), string(want)))
			}
		}
	}
}

// TestV2Plain lists the shapes told plain without yaml/v2.
func TestV2Plain(t *testing.T) {
	for s, want := range map[string]bool{
		"ha-000001-m0.fleet.example.net": true, "redfish-virtualmedia+https://100.64.0.1/redfish/v1/Systems/1": true,
		"02:9e:00:00:00:00": true, "10.0.0.4": true, "10.0.0.0/28": true, "fd00:1::2": true, "ens1f0": true,
		"02:00:00:00:00:10": false, "1.5": false, "yes": false, "x:": false, "a b": false, "": false, "1e3": false,
	} {
		if got := v2Plain(s); got != want {
			t.Errorf("v2Plain(%q) = %t, want %t", s, got, want)
		}
	}
}

// firstDiff names the first line where got and want differ.
func firstDiff(got, want string) string {
	g, w := strings.Split(got, "\n"), strings.Split(want, "\n")
	for i := 0; i < len(g) && i < len(w); i++ {
		if g[i] != w[i] {
			return fmt.Sprintf("line %d is %q, yaml/v2 writes %q", i+1, g[i], w[i])
		}
	}
	return fmt.Sprintf("%d lines, yaml/v2 writes %d", len(g), len(w))
}

// piecesAndPairs is every piece, and every two pieces one after the other.
func piecesAndPairs(pieces []string) []string {
	out := make([]string, 0, len(pieces)*(len(pieces)+1))
	for _, a := range pieces {
		out = append(out, a)
		for _, b := range pieces {
			out = append(out, a+b)
		}
	}
	return out
}
