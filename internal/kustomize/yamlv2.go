package kustomize

import (
	"math"
	"slices"
	"strconv"
	"strings"
	"unicode/utf8"

	yamlv2 "go.yaml.in/yaml/v2"
)

// kustomize's output text is what go.yaml.in/yaml/v2 writes for the
// object's JSON values (sigs.k8s.io/yaml.JSONToYAML). writeV2 writes the
// same bytes without yaml/v2's reflection and event machinery, for the
// values it is sure to write as yaml/v2 does (encode.go, sorter.go and
// emitterc.go of go.yaml.in/yaml/v2):
//
//   - block style, two-space indentation, a sequence under a mapping key
//     at the key's indentation, a mapping or sequence in a sequence
//     starting on the dash line, "{}" and "[]" for empty ones;
//   - mapping keys in yaml/v2's order (sorter.go: letters before other
//     characters, runs of digits compared as numbers);
//   - numbers as strconv formats them (floats with 'g' and ".inf", ".nan"),
//     booleans, null;
//   - strings as yaml/v2 writes them: plain unless they would read back as
//     something else (resolve.go, the base-60 check of encode.go) or the
//     emitter refuses plain (indicators, ": ", " #", ...). Strings of the
//     common shapes (names, addresses, URLs) are told plain here; any other
//     takes the style yaml/v2 gives it written alone (the style does not
//     depend on where a string is), and plain and single-quoted ones are
//     folded where yaml/v2 folds them.
//
// Whatever it does not reproduce (a string on several lines, a
// double-quoted one yaml/v2 could fold, a key that is not ASCII or longer
// than a simple key may be, keys in an order yaml/v2 does not always give,
// a value of another Go type) makes writeV2 return false, and the caller
// has yaml/v2 write the whole object.

// v2Width is yaml/v2's preferred line width (emitterc.go, best_width):
// plain and quoted scalars are folded at a space past it.
const v2Width = 80

// v2MaxSimpleKey is the longest key yaml/v2 writes as "key:" rather than
// "? key" (emitterc.go, yaml_emitter_check_simple_key).
const v2MaxSimpleKey = 128

// marshalV2 writes m as yaml/v2's Marshal does.
func marshalV2(m map[string]any) ([]byte, error) {
	w := v2Writer{buf: make([]byte, 0, 4096)}
	if w.mapping(m, 0, false) {
		return w.buf, nil
	}
	return yamlv2.Marshal(m)
}

// v2Writer writes block YAML into buf; lineStart is the offset of the
// current line, for the column of a scalar.
type v2Writer struct {
	buf       []byte
	lineStart int
	keys      []string
}

func (w *v2Writer) newline() {
	w.buf = append(w.buf, '\n')
	w.lineStart = len(w.buf)
}

func (w *v2Writer) indent(n int) {
	for range n {
		w.buf = append(w.buf, ' ')
	}
}

// mapping writes a non-root or root mapping at indent; inline means the
// first entry continues the current line (after "- ").
func (w *v2Writer) mapping(m map[string]any, indent int, inline bool) bool {
	if len(m) == 0 {
		w.buf = append(w.buf, "{}"...)
		w.newline()
		return true
	}
	start := len(w.keys)
	for k := range m {
		w.keys = append(w.keys, k)
	}
	keys := w.keys[start:]
	for _, k := range keys {
		if !isASCII(k) || len(k) > v2MaxSimpleKey {
			return false
		}
	}
	slices.SortFunc(keys, v2KeyCompare)
	if !v2Ordered(keys) {
		return false
	}
	for i, k := range keys {
		if i > 0 || !inline {
			w.indent(indent)
		}
		if !w.scalarString(k, indent, false) {
			return false
		}
		w.buf = append(w.buf, ':')
		if !w.value(m[k], indent, true) {
			return false
		}
	}
	w.keys = w.keys[:start]
	return true
}

// sequence writes a sequence at indent; inline as for mapping.
func (w *v2Writer) sequence(s []any, indent int, inline bool) bool {
	for i, e := range s {
		if i > 0 || !inline {
			w.indent(indent)
		}
		w.buf = append(w.buf, '-')
		if !w.value(e, indent, false) {
			return false
		}
	}
	return true
}

// value writes v after a key's colon (inMap) or an item's dash, at the
// indentation of that key or dash.
func (w *v2Writer) value(v any, indent int, inMap bool) bool {
	switch x := v.(type) {
	case map[string]any:
		if len(x) == 0 {
			w.buf = append(w.buf, " {}"...)
			w.newline()
			return true
		}
		if inMap {
			w.newline()
			return w.mapping(x, indent+2, false)
		}
		w.buf = append(w.buf, ' ')
		return w.mapping(x, indent+2, true)
	case []any:
		if len(x) == 0 {
			w.buf = append(w.buf, " []"...)
			w.newline()
			return true
		}
		if inMap {
			w.newline()
			return w.sequence(x, indent, false)
		}
		w.buf = append(w.buf, ' ')
		return w.sequence(x, indent+2, true)
	}
	w.buf = append(w.buf, ' ')
	if !w.scalar(v, indent+2) {
		return false
	}
	w.newline()
	return true
}

// scalar writes a value that is not a mapping or sequence; indent is
// that of its continuation lines.
func (w *v2Writer) scalar(v any, indent int) bool {
	switch x := v.(type) {
	case string:
		return w.scalarString(x, indent, true)
	case nil:
		w.buf = append(w.buf, "null"...)
	case bool:
		w.buf = strconv.AppendBool(w.buf, x)
	case int:
		w.buf = strconv.AppendInt(w.buf, int64(x), 10)
	case int64:
		w.buf = strconv.AppendInt(w.buf, x, 10)
	case uint64:
		w.buf = strconv.AppendUint(w.buf, x, 10)
	case float64:
		switch {
		case math.IsInf(x, 1):
			w.buf = append(w.buf, ".inf"...)
		case math.IsInf(x, -1):
			w.buf = append(w.buf, "-.inf"...)
		case math.IsNaN(x):
			w.buf = append(w.buf, ".nan"...)
		default:
			w.buf = strconv.AppendFloat(w.buf, x, 'g', -1, 64)
		}
	default:
		return false
	}
	return true
}

// scalarString writes a string as yaml/v2 writes it at this column,
// with the indentation of its continuation lines: yaml/v2 folds a plain or
// single-quoted value at a space past its line width (emitterc.go,
// yaml_emitter_write_plain_scalar and _single_quoted_scalar). Keys are
// never folded (fold is false).
func (w *v2Writer) scalarString(s string, indent int, fold bool) bool {
	if v2Plain(s) {
		w.buf = append(w.buf, s...)
		return true
	}
	if !utf8.ValidString(s) {
		// yaml/v2 writes it as !!binary.
		return false
	}
	if strings.ContainsAny(s, "\r\u0085\u2028\u2029") || !fold && strings.Contains(s, "\n") {
		// Line breaks yaml/v2 writes its own way; a key with one is
		// not a simple key.
		return false
	}
	// yaml/v2 chooses the style of a string the same way wherever it is;
	// its text at the top of a document tells which.
	out, err := yamlv2.Marshal(s)
	if err != nil || len(out) == 0 {
		return false
	}
	switch out[0] {
	case '|', '>':
		return false
	case '"':
		text, ok := strings.CutSuffix(string(out), "\n")
		if !ok || strings.Contains(text, "\n") ||
			strings.Contains(text, " ") && fold && w.column()+utf8.RuneCountInString(text) > v2Width {
			// Folded there or here.
			return false
		}
		w.buf = append(w.buf, text...)
		return true
	case '\'':
		w.buf = append(w.buf, '\'')
		w.folded(s, indent, fold, true)
		w.buf = append(w.buf, '\'')
		return true
	}
	w.folded(s, indent, fold, false)
	return true
}

// column is the column the next character is written at, in characters.
func (w *v2Writer) column() int {
	return utf8.RuneCount(w.buf[w.lineStart:])
}

// folded writes a plain or single-quoted (quoted) one-line string,
// breaking it where yaml/v2 does: at a single space past the line width,
// not at the first or last character of a quoted string.
func (w *v2Writer) folded(s string, indent int, fold, quoted bool) {
	col := w.column()
	spaces := false
	for i, r := range s {
		if r == ' ' {
			if fold && !spaces && col > v2Width && (!quoted || i > 0 && i < len(s)-1) && (i+1 >= len(s) || s[i+1] != ' ') {
				w.newline()
				w.indent(indent)
				col = indent
			} else {
				w.buf = append(w.buf, ' ')
				col++
			}
			spaces = true
			continue
		}
		if quoted && r == '\'' {
			w.buf = append(w.buf, '\'')
			col++
		}
		w.buf = utf8.AppendRune(w.buf, r)
		col++
		spaces = false
	}
}

// v2Plain reports whether yaml/v2 surely writes s plain, as it is: s
// reads back as a string (no boolean or null word of resolve.go, no
// number, timestamp or base-60 float) and holds no character the emitter
// would quote for. It knows two shapes: text that starts with a letter and
// has letters, digits and -._/+@:= in it (not ending in ':'), and
// addresses that start with a digit: dotted ones with at least two dots
// (IPv4, CIDR) and colon-separated hexadecimal ones with a letter in them
// (MAC, IPv6).
func v2Plain(s string) bool {
	if s == "" {
		return false
	}
	c := s[0]
	switch {
	case 'a' <= c && c <= 'z' || 'A' <= c && c <= 'Z':
		if v2Words[s] || s[len(s)-1] == ':' {
			return false
		}
		for i := 1; i < len(s); i++ {
			if !isAlnum(s[i]) && !strings.ContainsRune("-._/+@:=", rune(s[i])) {
				return false
			}
		}
		return true
	case '0' <= c && c <= '9':
		dots, colons, letter := 0, 0, false
		for i := 0; i < len(s); i++ {
			switch b := s[i]; {
			case '0' <= b && b <= '9':
			case b == '.':
				dots++
			case b == '/':
			case b == ':':
				colons++
			case 'a' <= b && b <= 'f' || 'A' <= b && b <= 'F':
				letter = true
			default:
				return false
			}
		}
		switch {
		case colons == 0 && !letter:
			return dots >= 2
		case dots == 0 && !strings.Contains(s, "/"):
			return colons > 0 && letter && s[len(s)-1] != ':'
		}
	}
	return false
}

// v2Words are the letter-led words yaml/v2 reads as booleans or null
// (resolve.go, resolveMapList).
var v2Words = setOf("y", "Y", "yes", "Yes", "YES", "n", "N", "no", "No", "NO",
	"true", "True", "TRUE", "false", "False", "FALSE", "on", "On", "ON", "off", "Off", "OFF",
	"null", "Null", "NULL")

func isAlnum(b byte) bool { return isDigit(b) || isLetter(b) }

func isASCII(s string) bool {
	for i := 0; i < len(s); i++ {
		if s[i] >= utf8.RuneSelf {
			return false
		}
	}
	return true
}

func isDigit(b byte) bool { return '0' <= b && b <= '9' }

func isLetter(b byte) bool { return 'a' <= b && b <= 'z' || 'A' <= b && b <= 'Z' }

// v2KeyCompare orders ASCII keys as yaml/v2 orders string keys
// (sorter.go, keyList.Less): at the first difference, letters come before
// other characters and compare by code; otherwise the runs of digits
// starting there compare as numbers (leading zeros counting only after a
// non-zero digit before them), then by length, then by code.
func v2KeyCompare(a, b string) int {
	switch {
	case v2KeyLess(a, b):
		return -1
	case v2KeyLess(b, a):
		return 1
	}
	return 0
}

// v2Ordered reports whether every pair of sorted keys is in v2KeyLess
// order. yaml/v2's order is not transitive on some keys with digits
// ("-001", "-00B", "-01"), and on those its own output depends on the
// order in which it meets them; keys without digits are compared
// character by character, which is.
func v2Ordered(keys []string) bool {
	digits := false
	for _, k := range keys {
		if strings.ContainsAny(k, "0123456789") {
			digits = true
			break
		}
	}
	if !digits {
		return true
	}
	if len(keys) > 64 {
		return false
	}
	for i := range keys {
		for j := i + 1; j < len(keys); j++ {
			if !v2KeyLess(keys[i], keys[j]) {
				return false
			}
		}
	}
	return true
}

func v2KeyLess(a, b string) bool {
	for i := 0; i < len(a) && i < len(b); i++ {
		if a[i] == b[i] {
			continue
		}
		al, bl := isLetter(a[i]), isLetter(b[i])
		if al && bl {
			return a[i] < b[i]
		}
		if al || bl {
			return bl
		}
		var an, bn int64
		if a[i] == '0' || b[i] == '0' {
			for j := i - 1; j >= 0 && isDigit(a[j]); j-- {
				if a[j] != '0' {
					an, bn = 1, 1
					break
				}
			}
		}
		ai, bi := i, i
		for ; ai < len(a) && isDigit(a[ai]); ai++ {
			an = an*10 + int64(a[ai]-'0')
		}
		for ; bi < len(b) && isDigit(b[bi]); bi++ {
			bn = bn*10 + int64(b[bi]-'0')
		}
		if an != bn {
			return an < bn
		}
		if ai != bi {
			return ai < bi
		}
		return a[i] < b[i]
	}
	return len(a) < len(b)
}
