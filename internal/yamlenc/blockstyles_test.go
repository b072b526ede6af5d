package yamlenc

import (
	"strings"
	"testing"
)

// A long string's style is remembered by its address and length: the
// same string is found, a string sharing its first bytes is not, and a
// string of the same content elsewhere is analyzed anew, with the same
// result. Past max strings nothing more is kept.
func TestBlockStylesRememberTheSameString(t *testing.T) {
	m := styleMemo{max: 3}
	long := strings.Repeat("key: value\n", 100)
	if _, ok := m.lookup(long); ok {
		t.Fatal("found before it was put")
	}
	m.put(long, styleLiteral)
	if st, ok := m.lookup(long); !ok || st != styleLiteral {
		t.Fatalf("lookup of the string put = %v, %v", st, ok)
	}
	if _, ok := m.lookup(long[:len(long)-1]); ok {
		t.Error("a shorter string at the same address was found")
	}
	if _, ok := m.lookup(strings.Clone(long)); ok {
		t.Error("a copy at another address was found")
	}
	for i := range 5 {
		m.put(strings.Repeat("x\n", 300+i), styleLiteral)
	}
	if n := m.kept.Load(); n != 3 {
		t.Errorf("kept %d strings, want at most 3", n)
	}
}

// Encoding a long multi-line string twice, the second time from the
// memo, writes the same bytes as the first; a control character keeps
// the double-quoted style on both.
func TestLongStringsEncodeTheSameFromTheMemo(t *testing.T) {
	for _, s := range []string{
		strings.Repeat("apiVersion: v1\nkind: ConfigMap\n", 40),
		strings.Repeat("line with a bell \a\n", 40),
	} {
		v := map[string]any{"data": map[string]any{"a.yaml": s, "b.yaml": s}}
		first, err := Marshal(v)
		if err != nil {
			t.Fatal(err)
		}
		second, err := Marshal(v)
		if err != nil {
			t.Fatal(err)
		}
		st, _ := analyzeBlock(s)
		if string(first) != string(second) {
			t.Errorf("encodings differ:\n%s\n%s", first, second)
		}
		if got, ok := blockStyles.lookup(s); !ok || got != st {
			t.Errorf("memo holds %v, %v; analyzeBlock gives %v", got, ok, st)
		}
	}
}
