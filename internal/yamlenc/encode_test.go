package yamlenc

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"math/rand/v2"
	"slices"
	"strings"
	"sync"
	"testing"
)

type encodeCase struct {
	name string
	in   any
	want string
}

// encodeCases cover every scalar decision and structural form. Each one is
// also checked for round-tripping and seeds the fuzzer.
var encodeCases = []encodeCase{
	// Plain strings.
	{name: "plain word", in: "hello", want: "hello\n"},
	{name: "plain with inner space", in: "hello world", want: "hello world\n"},
	{name: "plain quantity", in: "10Gi", want: "10Gi\n"},
	{name: "plain millicores", in: "100m", want: "100m\n"},
	{name: "plain version", in: "4.18.0", want: "4.18.0\n"},
	{name: "plain MAC with letters", in: "00:1a:2b:3c:4d:5e", want: "00:1a:2b:3c:4d:5e\n"},
	{name: "plain URL", in: "https://example.com:8443/a?b=c#d", want: "https://example.com:8443/a?b=c#d\n"},
	{name: "plain image digest", in: "quay.io/x/y@sha256:abc", want: "quay.io/x/y@sha256:abc\n"},
	{name: "plain inner colon", in: "a:b", want: "a:b\n"},
	{name: "plain inner hash", in: "a#b", want: "a#b\n"},
	{name: "plain inner apostrophe", in: "it's", want: "it's\n"},
	{name: "plain inner flow indicators", in: "a[0],{b}", want: "a[0],{b}\n"},
	{name: "plain double dash flag", in: "--enable-foo=true", want: "--enable-foo=true\n"},
	{name: "plain dash word", in: "-x", want: "-x\n"},
	{name: "plain question word", in: "?x", want: "?x\n"},
	{name: "plain colon word", in: ":x", want: ":x\n"},
	{name: "plain hex without prefix", in: "deadbeef", want: "deadbeef\n"},
	{name: "plain bad hex", in: "0xZZ", want: "0xZZ\n"},
	{name: "plain inf word", in: "inf", want: "inf\n"},
	{name: "plain nan word", in: "nan", want: "nan\n"},
	{name: "plain non-ASCII", in: "café", want: "café\n"},
	{name: "plain CJK", in: "日本語", want: "日本語\n"},
	{name: "plain astral", in: "👍", want: "👍\n"},
	{name: "plain no-break space", in: "a\u00a0b", want: "a\u00a0b\n"},

	// Strings that would resolve to something else.
	{name: "empty", in: "", want: "''\n"},
	{name: "true", in: "true", want: "'true'\n"},
	{name: "True", in: "True", want: "'True'\n"},
	{name: "odd case bool", in: "tRuE", want: "'tRuE'\n"},
	{name: "false", in: "false", want: "'false'\n"},
	{name: "yes", in: "yes", want: "'yes'\n"},
	{name: "No", in: "No", want: "'No'\n"},
	{name: "on", in: "on", want: "'on'\n"},
	{name: "OFF", in: "OFF", want: "'OFF'\n"},
	{name: "y", in: "y", want: "'y'\n"},
	{name: "N", in: "N", want: "'N'\n"},
	{name: "null", in: "null", want: "'null'\n"},
	{name: "NULL", in: "NULL", want: "'NULL'\n"},
	{name: "tilde", in: "~", want: "'~'\n"},
	{name: "int", in: "42", want: "'42'\n"},
	{name: "negative int", in: "-1", want: "'-1'\n"},
	{name: "signed int", in: "+1", want: "'+1'\n"},
	{name: "octal 1.1", in: "0644", want: "'0644'\n"},
	{name: "octal 1.2", in: "0o644", want: "'0o644'\n"},
	{name: "hex", in: "0x1F", want: "'0x1F'\n"},
	{name: "binary", in: "0b101", want: "'0b101'\n"},
	{name: "binary with sign after prefix", in: "0b+0", want: "'0b+0'\n"},
	{name: "octal with sign after prefix", in: "-0o-7", want: "'-0o-7'\n"},
	{name: "digit separators", in: "1_000", want: "'1_000'\n"},
	{name: "trailing separator", in: "1_", want: "'1_'\n"},
	{name: "separated hex", in: "0x_1f", want: "'0x_1f'\n"},
	{name: "float", in: "1.5", want: "'1.5'\n"},
	{name: "float trailing dot", in: "1.", want: "'1.'\n"},
	{name: "float leading dot", in: ".5", want: "'.5'\n"},
	{name: "float exponent", in: "1e3", want: "'1e3'\n"},
	{name: "float signed exponent", in: "-2.5E-3", want: "'-2.5E-3'\n"},
	{name: "huge int", in: "123456789012345678901234567890", want: "'123456789012345678901234567890'\n"},
	{name: "inf", in: ".inf", want: "'.inf'\n"},
	{name: "negative inf", in: "-.Inf", want: "'-.Inf'\n"},
	{name: "nan", in: ".NaN", want: "'.NaN'\n"},
	{name: "sexagesimal", in: "12:30:00", want: "'12:30:00'\n"},
	{name: "MAC all digits", in: "00:11:22:33:44:55", want: "'00:11:22:33:44:55'\n"},
	{name: "date", in: "2024-01-31", want: "'2024-01-31'\n"},
	{name: "timestamp", in: "2001-12-14t21:59:43.10-05:00", want: "'2001-12-14t21:59:43.10-05:00'\n"},
	{name: "merge key", in: "<<", want: "'<<'\n"},
	{name: "value key", in: "=", want: "'='\n"},

	// Strings whose syntax needs quotes.
	{name: "leading space", in: " a", want: "' a'\n"},
	{name: "trailing space", in: "a ", want: "'a '\n"},
	{name: "space only", in: " ", want: "' '\n"},
	{name: "colon space", in: "a: b", want: "'a: b'\n"},
	{name: "final colon", in: "a:", want: "'a:'\n"},
	{name: "space hash", in: "a #b", want: "'a #b'\n"},
	{name: "leading hash", in: "#a", want: "'#a'\n"},
	{name: "empty braces", in: "{}", want: "'{}'\n"},
	{name: "empty brackets", in: "[]", want: "'[]'\n"},
	{name: "leading comma", in: ",a", want: "',a'\n"},
	{name: "alias", in: "*a", want: "'*a'\n"},
	{name: "anchor", in: "&a", want: "'&a'\n"},
	{name: "tag", in: "!a", want: "'!a'\n"},
	{name: "pipe", in: "|", want: "'|'\n"},
	{name: "greater", in: ">a", want: "'>a'\n"},
	{name: "percent", in: "%YAML", want: "'%YAML'\n"},
	{name: "at", in: "@a", want: "'@a'\n"},
	{name: "backtick", in: "`a`", want: "'`a`'\n"},
	{name: "leading double quote", in: `"a"`, want: `'"a"'` + "\n"},
	{name: "leading single quote", in: "'a'", want: `"'a'"` + "\n"},
	{name: "dash", in: "-", want: "'-'\n"},
	{name: "dash space", in: "- a", want: "'- a'\n"},
	{name: "question", in: "?", want: "'?'\n"},
	{name: "question space", in: "? a", want: "'? a'\n"},
	{name: "colon", in: ":", want: "':'\n"},
	{name: "document start", in: "---", want: "'---'\n"},
	{name: "document start prefix", in: "---a", want: "'---a'\n"},
	{name: "document end", in: "...", want: "'...'\n"},
	{name: "quote and colon", in: "it's: x", want: `"it's: x"` + "\n"},

	// Strings that need escapes.
	{name: "tab", in: "a\tb", want: `"a\tb"` + "\n"},
	{name: "NUL", in: "\x00", want: `"\u0000"` + "\n"},
	{name: "escape", in: "\x1b[0m", want: `"\u001b[0m"` + "\n"},
	{name: "DEL", in: "a\x7f", want: `"a\u007f"` + "\n"},
	{name: "carriage return", in: "a\rb", want: `"a\rb"` + "\n"},
	{name: "backspace form feed", in: "\b\f", want: `"\b\f"` + "\n"},
	{name: "NEL", in: "a\u0085b", want: `"a\u0085b"` + "\n"},
	{name: "line separator", in: "a\u2028b", want: `"a\u2028b"` + "\n"},
	{name: "paragraph separator", in: "a\u2029b", want: `"a\u2029b"` + "\n"},
	{name: "byte order mark", in: "\ufeffa", want: `"\ufeffa"` + "\n"},
	{name: "non-character", in: "\uffff", want: `"\uffff"` + "\n"},
	{name: "tab with quotes", in: "\t\"\\'", want: `"\t\"\\'"` + "\n"},

	// Multi-line strings.
	{name: "literal strip", in: "a\nb", want: "|-\n  a\n  b\n"},
	{name: "literal clip", in: "a\nb\n", want: "|\n  a\n  b\n"},
	{name: "literal keep", in: "a\n\n", want: "|+\n  a\n\n"},
	{name: "literal empty lines", in: "a\n\nb\n", want: "|\n  a\n\n  b\n"},
	{name: "literal leading space", in: " a\nb", want: "|2-\n   a\n  b\n"},
	{name: "literal leading newline", in: "\na", want: "|2-\n\n  a\n"},
	{name: "literal only newline", in: "\n", want: "|2+\n\n"},
	{name: "literal only newlines", in: "\n\n", want: "|2+\n\n\n"},
	{name: "literal leading tab", in: "\ta\nb", want: "|2-\n  \ta\n  b\n"},
	{name: "literal inner tab", in: "a\n\tb\n", want: "|\n  a\n  \tb\n"},
	{name: "literal trailing spaces", in: "a \nb  \n", want: "|\n  a \n  b  \n"},
	{name: "literal space line", in: "a\n \nb", want: "|-\n  a\n   \n  b\n"},
	{name: "literal final space line", in: "a\n  ", want: "|-\n  a\n    \n"},
	{name: "literal yaml syntax", in: "- a: b\n# c\n---\n", want: "|\n  - a: b\n  # c\n  ---\n"},
	{name: "literal unicode", in: "é\n👍\n", want: "|\n  é\n  👍\n"},
	{name: "crlf", in: "a\r\nb\r\n", want: `"a\r\nb\r\n"` + "\n"},
	{name: "newline and control", in: "a\n\x00", want: `"a\n\u0000"` + "\n"},

	// Other scalars.
	{name: "nil", in: nil, want: "null\n"},
	{name: "bool true", in: true, want: "true\n"},
	{name: "bool false", in: false, want: "false\n"},
	{name: "float integer", in: 3.0, want: "3\n"},
	{name: "float fraction", in: 1.5, want: "1.5\n"},
	{name: "float negative zero", in: math.Copysign(0, -1), want: "-0\n"},
	{name: "float large integer", in: 1e20, want: "100000000000000000000\n"},
	{name: "float exponent", in: 1e21, want: "1e+21\n"},
	{name: "float small", in: 1e-7, want: "1e-7\n"},
	{name: "float tiny", in: 5e-324, want: "5e-324\n"},
	{name: "float max", in: math.MaxFloat64, want: "1.7976931348623157e+308\n"},
	{name: "json.Number int", in: json.Number("42"), want: "42\n"},
	{name: "json.Number literal text", in: json.Number("1.50"), want: "1.50\n"},
	{name: "json.Number exponent", in: json.Number("-1E+2"), want: "-1E+2\n"},
	{name: "json.Number big", in: json.Number("123456789012345678901234567890"), want: "123456789012345678901234567890\n"},
	{name: "json.Number underflow", in: json.Number("1E-2000000"), want: "1E-2000000\n"},
	{name: "json.Number empty", in: json.Number(""), want: "0\n"},
	{name: "int", in: 42, want: "42\n"},
	{name: "int64", in: int64(-9007199254740993), want: "-9007199254740993\n"},
	{name: "uint64", in: uint64(math.MaxUint64), want: "18446744073709551615\n"},

	// Structure.
	{name: "empty map", in: map[string]any{}, want: "{}\n"},
	{name: "empty list", in: []any{}, want: "[]\n"},
	{name: "nil map", in: map[string]any(nil), want: "null\n"},
	{name: "nil list", in: []any(nil), want: "null\n"},
	{name: "sorted keys", in: map[string]any{"b": 1, "a": 2, "B": 3, "aa": 4}, want: "B: 3\na: 2\naa: 4\nb: 1\n"},
	{name: "nested map", in: map[string]any{"a": map[string]any{"b": "c", "d": map[string]any{"e": nil}}}, want: "a:\n  b: c\n  d:\n    e: null\n"},
	{name: "list under key", in: map[string]any{"a": []any{"x", "z"}}, want: "a:\n- x\n- z\n"},
	{name: "list of maps", in: []any{map[string]any{"k": "v", "k2": "v2"}, map[string]any{"a": 1}}, want: "- k: v\n  k2: v2\n- a: 1\n"},
	{name: "list of maps under key", in: map[string]any{"l": []any{map[string]any{"k": "v", "m": map[string]any{"x": true}}}}, want: "l:\n- k: v\n  m:\n    x: true\n"},
	{name: "list of lists", in: []any{[]any{"a", "b"}, "c", []any{[]any{"d"}}}, want: "- - a\n  - b\n- c\n- - - d\n"},
	{name: "map in list in map", in: []any{map[string]any{"a": []any{map[string]any{"b": 1}}}}, want: "- a:\n  - b: 1\n"},
	{name: "empties in list", in: []any{map[string]any{}, []any{}, nil, map[string]any(nil)}, want: "- {}\n- []\n- null\n- null\n"},
	{name: "empties in map", in: map[string]any{"a": map[string]any{}, "b": []any{}, "c": nil}, want: "a: {}\nb: []\nc: null\n"},
	{name: "literal in map", in: map[string]any{"k": "a\nb"}, want: "k: |-\n  a\n  b\n"},
	{name: "literal in nested map", in: map[string]any{"a": map[string]any{"k": " x\n"}}, want: "a:\n  k: |2\n     x\n"},
	{name: "literal in list", in: []any{"a\nb\n"}, want: "- |\n  a\n  b\n"},
	{name: "literal in list under key", in: map[string]any{"l": []any{" a\nb"}}, want: "l:\n- |2-\n   a\n  b\n"},
	{name: "literal in list of maps", in: []any{map[string]any{"k": "a\nb", "z": "\n"}}, want: "- k: |-\n    a\n    b\n  z: |2+\n\n"},
	{name: "literal in list of lists", in: []any{[]any{"a\n b\n"}}, want: "- - |\n    a\n     b\n"},
	{name: "literal keep then key", in: map[string]any{"a": "x\n\n", "b": 1}, want: "a: |+\n  x\n\nb: 1\n"},
	{name: "string list", in: []string{"a", "true", ""}, want: "- a\n- 'true'\n- ''\n"},
	{name: "string map", in: map[string]string{"b": "1", "a": "x\ny"}, want: "a: |-\n  x\n  y\nb: '1'\n"},
	{name: "convenience types nested", in: map[string]any{"args": []string{"--v=2"}, "labels": map[string]string{"app": "x"}}, want: "args:\n- --v=2\nlabels:\n  app: x\n"},
	{name: "empty convenience types", in: []any{[]string{}, map[string]string{}, []string(nil), map[string]string(nil)}, want: "- []\n- {}\n- null\n- null\n"},

	// Keys.
	{name: "quoted keys", in: map[string]any{"true": 1, "a b": 2, "a: b": 3, "": 4, "1": 5, "-": 6}, want: "'': 4\n'-': 6\n'1': 5\na b: 2\n'a: b': 3\n'true': 1\n"},
	{name: "annotation key", in: map[string]any{"example.com/a.b": "c"}, want: "example.com/a.b: c\n"},
	{name: "multi-line key", in: map[string]any{"a\nb": "c\nd"}, want: "\"a\\nb\": |-\n  c\n  d\n"},
	{name: "escaped key", in: map[string]any{"a\tb": 1}, want: "\"a\\tb\": 1\n"},
	{name: "key at implicit limit", in: map[string]any{strings.Repeat("k", 1024): 1}, want: strings.Repeat("k", 1024) + ": 1\n"},
	{name: "quoted key at implicit limit", in: map[string]any{strings.Repeat(" ", 1022): 1}, want: "'" + strings.Repeat(" ", 1022) + "': 1\n"},
	{name: "long key", in: map[string]any{strings.Repeat("k", 1025): "v"}, want: "? " + strings.Repeat("k", 1025) + "\n: v\n"},
	{name: "long key map value", in: map[string]any{strings.Repeat("k", 1025): map[string]any{"a": 1}}, want: "? " + strings.Repeat("k", 1025) + "\n:\n  a: 1\n"},
	{name: "long key list value", in: map[string]any{strings.Repeat("k", 1025): []any{"a"}}, want: "? " + strings.Repeat("k", 1025) + "\n:\n- a\n"},
	{name: "long key in list", in: []any{map[string]any{strings.Repeat("k", 1025): "a\nb", "z": 1}}, want: "- ? " + strings.Repeat("k", 1025) + "\n  : |-\n    a\n    b\n  z: 1\n"},
}

func TestMarshal(t *testing.T) {
	for _, tc := range encodeCases {
		t.Run(tc.name, func(t *testing.T) {
			got, err := Marshal(tc.in)
			if err != nil {
				t.Fatalf("Marshal: %v", err)
			}
			if string(got) != tc.want {
				t.Errorf("Marshal(%#v)\ngot:\n%s\nwant:\n%s", tc.in, got, tc.want)
			}
		})
	}
}

func TestAppendKeepsPrefix(t *testing.T) {
	dst := []byte("---\n")
	got, err := Append(dst, map[string]any{"a": 1})
	if err != nil {
		t.Fatal(err)
	}
	if want := "---\na: 1\n"; string(got) != want {
		t.Errorf("got %q, want %q", got, want)
	}
}

func TestErrors(t *testing.T) {
	cyclic := map[string]any{}
	cyclic["self"] = cyclic
	tests := []struct {
		name   string
		in     any
		path   string
		reason string
	}{
		{name: "unsupported top level", in: make(chan int), path: "", reason: "unsupported type chan int"},
		{name: "unsupported nested", in: map[string]any{"spec": map[string]any{"nodes": []any{1, 2, map[string]any{"x": struct{}{}}}}}, path: "spec.nodes[2].x", reason: "unsupported type struct {}"},
		{name: "unsupported typed map", in: []any{map[string]int{}}, path: "[0]", reason: "unsupported type map[string]int"},
		{name: "unsupported float32", in: map[string]any{"a": float32(1)}, path: "a", reason: "unsupported type float32"},
		{name: "path quotes dotted keys", in: map[string]any{"metadata": map[string]any{"annotations": map[string]any{"example.com/a.b": int32(1)}}}, path: `metadata.annotations["example.com/a.b"]`, reason: "unsupported type int32"},
		{name: "NaN", in: []any{math.NaN()}, path: "[0]", reason: "unsupported float64 value NaN"},
		{name: "Inf", in: map[string]any{"a": math.Inf(-1)}, path: "a", reason: "unsupported float64 value -Inf"},
		{name: "invalid json.Number", in: json.Number("0x10"), path: "", reason: `invalid json.Number "0x10"`},
		{name: "json.Number overflow", in: json.Number("1e400"), path: "", reason: "json.Number 1e400 overflows float64"},
		{name: "invalid UTF-8 value", in: map[string]any{"labels": map[string]string{"a": "\xff"}}, path: "labels.a", reason: "string is not valid UTF-8"},
		{name: "invalid UTF-8 key", in: map[string]any{"a\xff": 1}, path: `["a\xff"]`, reason: "key: string is not valid UTF-8"},
		{name: "invalid UTF-8 in string list", in: []string{"ok", "\xc3"}, path: "[1]", reason: "string is not valid UTF-8"},
		{name: "cycle", in: cyclic, path: strings.TrimPrefix(strings.Repeat(".self", maxDepth), "."), reason: "nesting deeper than 1000 levels (cyclic value?)"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			dst := []byte("prefix")
			out, err := Append(dst, tc.in)
			if err == nil {
				t.Fatalf("no error; output:\n%s", out)
			}
			var e *Error
			if !errors.As(err, &e) {
				t.Fatalf("error %v is a %T, not *Error", err, err)
			}
			if e.Path != tc.path || e.Reason != tc.reason {
				t.Errorf("got path %q reason %q, want path %q reason %q", e.Path, e.Reason, tc.path, tc.reason)
			}
			if string(out) != "prefix" {
				t.Errorf("Append returned %q on error, want the original buffer", out)
			}
			if msg := err.Error(); !strings.HasPrefix(msg, "yamlenc: "+tc.reason) {
				t.Errorf("message %q does not start with the reason", msg)
			}
		})
	}
}

func TestDeterministic(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	m := map[string]any{}
	for i := range 2000 {
		k := fmt.Sprintf("key-%x", rng.Uint64())
		switch i % 4 {
		case 0:
			m[k] = i
		case 1:
			m[k] = map[string]any{"b": k, "a": []any{k, i}}
		case 2:
			m[k] = map[string]string{k: k, "z" + k: "y"}
		default:
			m[k] = k + "\n" + k
		}
	}
	first, err := Marshal(m)
	if err != nil {
		t.Fatal(err)
	}
	for range 20 {
		// Go randomises map iteration, so each run sees a new order.
		again, err := Marshal(m)
		if err != nil {
			t.Fatal(err)
		}
		if !bytes.Equal(first, again) {
			t.Fatal("output differs between runs")
		}
	}
	var keys []string
	for line := range strings.Lines(string(first)) {
		if k, _, ok := strings.Cut(line, ":"); ok && !strings.HasPrefix(line, " ") && !strings.HasPrefix(line, "-") {
			keys = append(keys, k)
		}
	}
	if len(keys) != len(m) || !slices.IsSorted(keys) {
		t.Errorf("top-level keys not sorted or missing: %d of %d", len(keys), len(m))
	}
	checkRoundTrip(t, m, first)
}

func TestAppendDoesNotAllocate(t *testing.T) {
	for _, obj := range benchObjects() {
		buf := make([]byte, 0, 64<<10)
		allocs := testing.AllocsPerRun(50, func() {
			var err error
			if buf, err = Append(buf[:0], obj.v); err != nil {
				t.Fatal(err)
			}
		})
		if allocs != 0 {
			t.Errorf("%s: %v allocations per Append, want 0", obj.name, allocs)
		}
	}
}

// TestDepthLimit checks that the deepest accepted value still parses back,
// so the limit only ever turns a cycle into an error.
func TestDepthLimit(t *testing.T) {
	for _, kind := range []string{"map", "seq", "mixed"} {
		t.Run(kind, func(t *testing.T) {
			var v any = "leaf\nline"
			for i := range maxDepth {
				if kind == "map" || kind == "mixed" && i%2 == 0 {
					v = map[string]any{"k": v}
				} else {
					v = []any{v}
				}
			}
			out, err := Marshal(v)
			if err != nil {
				t.Fatal(err)
			}
			checkRoundTrip(t, v, out)
			if _, err := Marshal([]any{v}); err == nil {
				t.Error("value one level over the limit accepted")
			}
		})
	}
}

func TestConcurrent(t *testing.T) {
	objs := benchObjects()
	want := make([][]byte, len(objs))
	for i, obj := range objs {
		var err error
		if want[i], err = Marshal(obj.v); err != nil {
			t.Fatal(err)
		}
	}
	var wg sync.WaitGroup
	for range 4 {
		wg.Go(func() {
			var buf []byte
			for n := range 200 {
				i := n % len(objs)
				var err error
				if buf, err = Append(buf[:0], objs[i].v); err != nil {
					t.Error(err)
					return
				}
				if !bytes.Equal(buf, want[i]) {
					t.Errorf("%s: concurrent output differs", objs[i].name)
					return
				}
			}
		})
	}
	wg.Wait()
}

// The word-at-a-time check of multi-line values picks the style the
// byte-by-byte scan picks, on texts made of the bytes that matter to
// either, in every position of a word.
func TestAnalyzeBlockMatchesScan(t *testing.T) {
	pieces := []string{"a", " ", ":", "#", "'", "\n", "\t", "\r", "\x00", "\x1f", "\x7f", "\u0085", "\u2028", "é", "😀",
		"\ufeff", "\xff", "\xc3", "\xe2\x80", "abcdefgh", "\n\n"}
	rng := rand.New(rand.NewPCG(5, 8))
	for range 50000 {
		var b strings.Builder
		b.WriteString("\n")
		for b.Len() < minBlockScan || rng.IntN(4) > 0 {
			b.WriteString(pieces[rng.IntN(len(pieces))])
		}
		s := b.String()
		// The line break anywhere in the text.
		if k := rng.IntN(len(s)); k > 0 {
			s = s[1:k] + "\n" + s[k:]
		}
		wantStyle, wantErr := analyzeScan(s, false)
		gotStyle, gotErr := analyze(s, false)
		if gotStyle != wantStyle || (gotErr == nil) != (wantErr == nil) {
			t.Fatalf("analyze(%q) = %v, %v; the byte scan gives %v, %v", s, gotStyle, gotErr, wantStyle, wantErr)
		}
	}
}
