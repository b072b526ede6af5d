package yamlenc

import (
	"strings"
	"testing"
)

// A long string's style is remembered by its address and length: the
// same string is found, a string sharing its first bytes is not, and a
// string of the same content elsewhere is analyzed anew, with the same
// result. When full, by count or by size, the memo forgets what it kept
// and keeps the string met now; a string over a quarter of the room is
// not kept.
func TestBlockStylesRememberTheSameString(t *testing.T) {
	m := styleMemo{maxStrings: 3, maxBytes: 8000}
	long := strings.Repeat("key: value\n", 100) // 1,100 bytes
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
	more := []string{strings.Repeat("x\n", 300), strings.Repeat("y\n", 300)}
	for _, s := range more {
		m.put(s, styleLiteral)
	}
	if n := m.strings.Load(); n != 3 {
		t.Fatalf("kept %d strings, want 3", n)
	}
	last := strings.Repeat("z\n", 300)
	m.put(last, styleLiteral)
	if _, ok := m.lookup(long); ok || m.strings.Load() != 1 {
		t.Errorf("full by count: kept %d strings, the first still there: %v", m.strings.Load(), ok)
	}
	if _, ok := m.lookup(last); !ok {
		t.Error("the string met when full was not kept")
	}
	huge := strings.Repeat("h\n", 1001) // over a quarter of 8,000 bytes
	m.put(huge, styleLiteral)
	if _, ok := m.lookup(huge); ok {
		t.Error("a string over a quarter of the room was kept")
	}
	big := strings.Repeat("b\n", 1000) // 2,000 bytes: four fill the room
	for range 4 {
		m.put(strings.Clone(big), styleLiteral)
	}
	if b := m.bytes.Load(); b > 8000 {
		t.Errorf("kept %d bytes, over the 8,000 allowed", b)
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
