package yamlenc

import (
	"bytes"
	"encoding/json"
	"math"
	"math/big"
	"reflect"
	"strconv"
	"testing"
	"unicode/utf8"

	yamlv3 "gopkg.in/yaml.v3"
	sigsyaml "sigs.k8s.io/yaml"
)

// checkRoundTrip asserts the package's guarantees for an input and its
// encoding: yaml.v3 reads it back as the input, and sigs.k8s.io/yaml turns
// it into the JSON that encoding/json makes of the input.
func checkRoundTrip(t *testing.T, in any, out []byte) {
	t.Helper()

	var got any
	if err := yamlv3.Unmarshal(out, &got); err != nil {
		t.Fatalf("yaml.v3 cannot read the output: %v\ninput: %#v\noutput:\n%s", err, in, out)
	}
	if want, got := normalize(in), normalize(got); !reflect.DeepEqual(want, got) {
		t.Fatalf("yaml.v3 reads back a different value\ninput:  %#v\ngot:    %#v\noutput:\n%s", want, got, out)
	}

	gotJSON, err := sigsyaml.YAMLToJSON(out)
	if err != nil {
		t.Fatalf("sigs.k8s.io/yaml cannot read the output: %v\ninput: %#v\noutput:\n%s", err, in, out)
	}
	wantJSON, err := json.Marshal(in)
	if err != nil {
		t.Fatalf("encoding/json cannot encode the input: %v", err)
	}
	if !equalJSON(t, wantJSON, gotJSON) {
		t.Fatalf("sigs.k8s.io/yaml gives different JSON\nwant: %s\ngot:  %s\noutput:\n%s", wantJSON, gotJSON, out)
	}
}

func equalJSON(t *testing.T, a, b []byte) bool {
	t.Helper()
	var va, vb any
	if err := json.Unmarshal(a, &va); err != nil {
		t.Fatalf("decoding %s: %v", a, err)
	}
	if err := json.Unmarshal(b, &vb); err != nil {
		t.Fatalf("decoding %s: %v", b, err)
	}
	return reflect.DeepEqual(va, vb)
}

// number is the comparable form of any numeric value: its exact rational
// value when it is an integer that fits 64 bits, otherwise the exact value
// of its nearest float64, since that is all YAML parsers keep.
type number string

func normalize(v any) any {
	switch v := v.(type) {
	case map[string]any:
		if v == nil {
			return nil
		}
		m := make(map[string]any, len(v))
		for k, x := range v {
			m[k] = normalize(x)
		}
		return m
	case map[string]string:
		if v == nil {
			return nil
		}
		m := make(map[string]any, len(v))
		for k, x := range v {
			m[k] = x
		}
		return m
	case []any:
		if v == nil {
			return nil
		}
		s := make([]any, len(v))
		for i, x := range v {
			s[i] = normalize(x)
		}
		return s
	case []string:
		if v == nil {
			return nil
		}
		s := make([]any, len(v))
		for i, x := range v {
			s[i] = x
		}
		return s
	case json.Number:
		if v == "" {
			v = "0"
		}
		// Not big.Rat.SetString: it refuses exponents such as
		// 1E-2000000 that parsers happily read as 0.
		if i, err := strconv.ParseInt(string(v), 10, 64); err == nil {
			return normalize(i)
		}
		if u, err := strconv.ParseUint(string(v), 10, 64); err == nil {
			return normalize(u)
		}
		f, err := strconv.ParseFloat(string(v), 64)
		if err != nil {
			return v
		}
		return normalize(f)
	case float64:
		if math.IsNaN(v) || math.IsInf(v, 0) {
			return v
		}
		return ratNumber(new(big.Rat).SetFloat64(v))
	case int:
		return ratNumber(new(big.Rat).SetInt64(int64(v)))
	case int64:
		return ratNumber(new(big.Rat).SetInt64(v))
	case uint64:
		return ratNumber(new(big.Rat).SetUint64(v))
	}
	return v
}

func ratNumber(r *big.Rat) number {
	if r.IsInt() && (r.Num().IsInt64() || r.Num().IsUint64()) {
		return number(r.RatString())
	}
	f, _ := r.Float64()
	return number(new(big.Rat).SetFloat64(f).RatString())
}

// fuzzShapes puts a and b in every position the encoder treats differently:
// top-level, key, value in a nested mapping, sequence item, compact
// mapping and sequence inside a sequence, and the convenience types.
func fuzzShapes(a, b string, x float64) []any {
	inner := map[string]any{a: b, "z": []any{a, map[string]any{b: a}}}
	top := map[string]any{"k": inner, "n": x}
	top[a] = []any{b, []any{a, b}}
	return []any{
		a, // the first two shapes hold one string each; see shapeValid
		b,
		map[string]any{a: b},
		[]any{a, b},
		top,
		[]any{map[string]any{a: []any{b}, b: map[string]any{a: a}}, []any{[]any{a}}},
		map[string]any{"s": []string{a, b}, "m": map[string]string{a: b}},
		[]any{map[string]string{b: a}, []string{b}},
	}
}

// shapeValid reports whether shape i of fuzzShapes holds only valid UTF-8.
func shapeValid(i int, validA, validB bool) bool {
	switch i {
	case 0:
		return validA
	case 1:
		return validB
	}
	return validA && validB
}

func FuzzRoundTrip(f *testing.F) {
	for _, tc := range encodeCases {
		if s, ok := tc.in.(string); ok {
			f.Add(s, "v", 1.5)
			f.Add("k", s, 0.0)
		}
	}
	for _, s := range fuzzSeeds {
		f.Add(s, s+"\n"+s, -1e-7)
	}
	f.Fuzz(func(t *testing.T, a, b string, x float64) {
		if math.IsNaN(x) || math.IsInf(x, 0) {
			x = 0
		}
		validA, validB := utf8.ValidString(a), utf8.ValidString(b)
		for i, v := range fuzzShapes(a, b, x) {
			out, err := Marshal(v)
			if !shapeValid(i, validA, validB) {
				// Invalid UTF-8 must be refused, not silently repaired.
				if err == nil {
					t.Fatalf("invalid UTF-8 accepted: %q %q\n%s", a, b, out)
				}
				continue
			}
			if err != nil {
				t.Fatalf("Marshal(%#v): %v", v, err)
			}
			checkRoundTrip(t, v, out)
			again, _ := Marshal(v)
			if !bytes.Equal(out, again) {
				t.Fatalf("non-deterministic output for %#v", v)
			}
		}
		if ok, _ := scanNumber(a); ok {
			n := json.Number(a)
			if checkNumber(n) == nil {
				for _, v := range []any{n, map[string]any{"n": n}} {
					out, err := Marshal(v)
					if err != nil {
						t.Fatalf("Marshal(%#v): %v", v, err)
					}
					checkRoundTrip(t, v, out)
				}
			}
		}
	})
}

// fuzzSeeds are awkward strings beyond the table's, to point the fuzzer at
// the corners: white space around newlines, indicators after newlines,
// Unicode line breaks, and YAML syntax inside values.
var fuzzSeeds = []string{
	"", " ", "\n", "\n\n", " \n", "\n ", "\t\n", "\n\t", " \n \n", "a\n ", "a\n  \n",
	"a\n\n\n", "\r", "\r\n", "a\u0085b", "a\u2028b", "\ufeff", "\uFFFE", "\U0010FFFF",
	"- a\n- b", "a: b\nc: d", "# x\ny", "---\n...", "|\n  x", "key: |\n  text\n",
	"'", "''", "\"", "\\", "\\n", "\"\\\"", "a'b\"c", "\x00", "\x1b[0m", "\xff", "a\xc3",
	"0", "-0", "0.0", "1e5", "1E+5", "0x_1", "_1", "1_", "+.5", "-.inf", "1:20",
	"12:30:45.5", "2001-12-14", "2001-12-14 21:59:43.10 -5", "<<", "=", "?", "? a", ":",
	"a :b", "a:\tb", "a\t#b", "é", "日本語", "👍", "\u00a0", "a\u00a0", "\u3000x",
	"   leading\nline", "x\n    deeper\n  less\n", "line\r\nwindows\n",
}

func TestRoundTripTable(t *testing.T) {
	for _, tc := range encodeCases {
		t.Run(tc.name, func(t *testing.T) {
			out, err := Marshal(tc.in)
			if err != nil {
				t.Fatalf("Marshal: %v", err)
			}
			checkRoundTrip(t, tc.in, out)
		})
	}
}

func TestRoundTripSeeds(t *testing.T) {
	for _, s := range fuzzSeeds {
		if !utf8.ValidString(s) {
			continue
		}
		for _, v := range fuzzShapes(s, s+"\n"+s, 0.25) {
			out, err := Marshal(v)
			if err != nil {
				t.Fatalf("Marshal(%#v): %v", v, err)
			}
			checkRoundTrip(t, v, out)
		}
	}
}

// TestRoundTripExhaustive tries every string of up to three characters from
// an alphabet of YAML-significant ones, which reaches corners (a tab after a
// newline, a dash before a space) more reliably than random mutation.
func TestRoundTripExhaustive(t *testing.T) {
	if testing.Short() {
		t.Skip("slow")
	}
	alphabet := []string{" ", "\n", "\t", ":", "#", "-", "?", "'", "\"", "0", ".", "a", "é", "\u2028"}
	var gen func(prefix string, n int)
	gen = func(prefix string, n int) {
		for _, v := range fuzzShapes(prefix, prefix+"\n", 0) {
			out, err := Marshal(v)
			if err != nil {
				t.Fatalf("Marshal(%#v): %v", v, err)
			}
			checkRoundTrip(t, v, out)
		}
		if n == 0 {
			return
		}
		for _, c := range alphabet {
			gen(prefix+c, n-1)
		}
	}
	gen("", 3)
}

// TestRoundTripNumberLike tries every short string over the characters
// that YAML resolvers use for numbers, booleans and timestamps, where a
// plain scalar most easily turns into something else.
func TestRoundTripNumberLike(t *testing.T) {
	if testing.Short() {
		t.Skip("slow")
	}
	alphabet := []byte("0179+-._:xobeEn")
	var gen func(prefix []byte, n int)
	gen = func(prefix []byte, n int) {
		s := string(prefix)
		out, err := Marshal(s)
		if err != nil {
			t.Fatalf("Marshal(%q): %v", s, err)
		}
		checkRoundTrip(t, s, out)
		if n == 0 {
			return
		}
		for _, c := range alphabet {
			gen(append(prefix, c), n-1)
		}
	}
	gen(nil, 4)
}
