package yamlenc

import (
	"errors"
	"strings"
	"unicode/utf8"
)

// style is the way a string scalar is written.
type style uint8

const (
	stylePlain style = iota
	styleSingle
	styleDouble
	styleLiteral
)

var errInvalidUTF8 = errors.New("string is not valid UTF-8")

// Byte classes that matter to analyze. Most bytes are cOther, which lets
// the scan skip them with one table load.
const (
	cOther uint8 = iota
	cSpace
	cColon
	cNewline
	cTab
	cControl
	cQuote
	cHigh // first or later byte of a multi-byte UTF-8 sequence, or invalid
)

var byteClass = [256]uint8{
	' ':  cSpace,
	':':  cColon,
	'\n': cNewline,
	'\t': cTab,
	'\'': cQuote,
	0x7f: cControl,
}

func init() {
	for c := range 0x20 {
		if byteClass[c] == cOther {
			byteClass[c] = cControl
		}
	}
	for c := utf8.RuneSelf; c < 256; c++ {
		byteClass[c] = cHigh
	}
}

// analyze picks the style for s. Keys never get the literal style because
// block scalars cannot be implicit keys.
func analyze(s string, key bool) (style, error) {
	if !key && len(s) >= minBlockScan && strings.IndexByte(s, '\n') >= 0 {
		if len(s) < minRemembered {
			return analyzeBlock(s)
		}
		if st, ok := blockStyles.lookup(s); ok {
			return st, nil
		}
		st, err := analyzeBlock(s)
		if err == nil {
			blockStyles.put(s, st)
		}
		return st, err
	}
	return analyzeScan(s, key)
}

// minBlockScan is the length from which a string with a line break is
// checked by analyzeBlock: the multi-line values of a rendered fleet
// (extra manifests in a ConfigMap) are kilobytes each, and checking them
// was a third of encoding.
const minBlockScan = 64

// Masks of the eight bytes of a word, for analyzeBlock.
const (
	ones = 0x0101010101010101
	high = 0x8080808080808080
)

// analyzeBlock is analyzeScan for a value (not a key) with a line break:
// only what keeps it out of a block scalar matters then (control
// characters, non-printable runes) and invalid UTF-8. It reads eight bytes
// at a time and looks closer only at a word holding a byte below 0x20
// (tabs and line breaks included) or from 0x7f up.
func analyzeBlock(s string) (style, error) {
	noLiteral := false
	for i := 0; i < len(s); {
		if i+8 <= len(s) {
			b := s[i : i+8]
			w := uint64(b[0]) | uint64(b[1])<<8 | uint64(b[2])<<16 | uint64(b[3])<<24 |
				uint64(b[4])<<32 | uint64(b[5])<<40 | uint64(b[6])<<48 | uint64(b[7])<<56
			// No byte below 0x20, and none with its high bit set after
			// adding one (0x7f and up; a carry out of 0xff comes from a
			// byte whose own high bit is set).
			if (w-0x20*ones)&^w&high == 0 && (w+ones|w)&high == 0 {
				i += 8
				continue
			}
		}
		switch c := s[i]; {
		case c == '\n' || c == '\t' || c >= 0x20 && c < 0x7f:
			i++
		case c < utf8.RuneSelf:
			noLiteral = true // a control character
			i++
		default:
			r, size := utf8.DecodeRuneInString(s[i:])
			if r == utf8.RuneError && size == 1 {
				return 0, errInvalidUTF8
			}
			if !printable(r) {
				noLiteral = true
			}
			i += size
		}
	}
	if noLiteral {
		return styleDouble, nil
	}
	return styleLiteral, nil
}

// analyzeScan is analyze byte by byte, for any string.
func analyzeScan(s string, key bool) (style, error) {
	if s == "" {
		return styleSingle, nil
	}
	var (
		noPlain   bool // plain would change or break the value
		escape    bool // some character can only be written escaped
		noLiteral bool // some character cannot appear in a block scalar
		newline   bool
		quote     bool
	)
	n := len(s)
	for i := 0; i < n; i++ {
		cls := byteClass[s[i]]
		if cls == cOther {
			continue
		}
		switch cls {
		case cSpace:
			// Plain scalars lose leading and trailing spaces, and " #"
			// starts a comment.
			if i == 0 || i == n-1 || s[i+1] == '#' {
				noPlain = true
			}
		case cColon:
			// ": " or a final ":" makes the scalar a mapping key.
			if i == n-1 || s[i+1] == ' ' {
				noPlain = true
			}
		case cNewline:
			newline = true
		case cTab:
			escape = true
		case cControl:
			escape, noLiteral = true, true
		case cQuote:
			quote = true
		case cHigh:
			r, size := utf8.DecodeRuneInString(s[i:])
			if r == utf8.RuneError && size == 1 {
				return 0, errInvalidUTF8
			}
			if !printable(r) {
				escape, noLiteral = true, true
			}
			i += size - 1
		}
	}
	switch {
	case newline:
		if key || noLiteral {
			return styleDouble, nil
		}
		return styleLiteral, nil
	case escape:
		return styleDouble, nil
	case !noPlain && plainSafe(s):
		return stylePlain, nil
	case quote:
		// Double quotes need no escaping for ', single quotes would
		// need it doubled; "it's" reads better than 'it''s'.
		return styleDouble, nil
	}
	return styleSingle, nil
}

// printable reports whether r may appear unescaped in YAML output. It is
// the YAML printable set minus the characters that YAML 1.1 parsers treat
// as line breaks (NEL, LS, PS) and the byte order mark.
func printable(r rune) bool {
	switch {
	case r < 0x20:
		return r == '\t' || r == '\n'
	case r < 0x7f:
		return true
	case r < 0xa0:
		return false
	case r == 0x2028 || r == 0x2029:
		return false
	case r < 0xd800:
		return true
	case r < 0xe000:
		return false
	case r == 0xfeff:
		return false
	case r <= 0xfffd:
		return true
	case r < 0x10000:
		return false
	}
	return r <= utf8.MaxRune
}

// plainSafe reports whether a single-line string free of spaces at either
// end, control characters, ": " and " #" can be written plain: it must not
// start with an indicator and must not resolve to a non-string.
func plainSafe(s string) bool {
	switch s[0] {
	case '#', ',', '[', ']', '{', '}', '&', '*', '!', '|', '>', '\'', '"', '%', '@', '`':
		return false
	case '-', '?', ':':
		// These are indicators only when followed by a space (or
		// nothing), so "--flag" stays plain as kubectl writes it.
		if len(s) == 1 || s[1] == ' ' {
			return false
		}
	}
	if len(s) >= 3 && (s[0] == '-' || s[0] == '.') && s[1] == s[0] && s[2] == s[0] {
		// Document markers, when they end up at the start of a line.
		return false
	}
	return !resolvesNonString(s)
}

// resolvesNonString reports whether a plain s could be read as something
// other than a string by a YAML 1.1 or 1.2 parser (gopkg.in/yaml.v3, the
// yaml.v2 behind sigs.k8s.io/yaml, or others). It errs towards true.
func resolvesNonString(s string) bool {
	switch s[0] {
	case '0', '1', '2', '3', '4', '5', '6', '7', '8', '9', '+', '-', '.':
		return numeric(s) || specialFloat(s) || timestampLike(s) || sexagesimal(s)
	case 'y', 'Y', 'n', 'N', 't', 'T', 'f', 'F', 'o', 'O':
		return boolOrNull(s)
	case '~':
		return s == "~"
	case '<':
		return s == "<<" // the merge key
	case '=':
		return s == "=" // the YAML 1.1 value key
	}
	return false
}

// boolOrNull covers YAML 1.1 booleans and null in any letter case; the
// parsers accept only some casings, but quoting "tRUE" costs nothing.
func boolOrNull(s string) bool {
	if len(s) > 5 {
		return false
	}
	for _, w := range [...]string{"y", "n", "yes", "no", "on", "off", "true", "false", "null"} {
		if strings.EqualFold(s, w) {
			return true
		}
	}
	return false
}

// specialFloat matches .inf, +.inf, -.inf and .nan in any letter case.
func specialFloat(s string) bool {
	if s[0] == '+' || s[0] == '-' {
		s = s[1:]
	}
	return strings.EqualFold(s, ".inf") || strings.EqualFold(s, ".nan")
}

// timestampLike matches the prefix that yaml.v2 and yaml.v3 require before
// they try to parse a timestamp: four digits and a dash.
func timestampLike(s string) bool {
	if len(s) < 5 || s[4] != '-' {
		return false
	}
	for i := range 4 {
		if !isDigit(s[i]) {
			return false
		}
	}
	return true
}

// sexagesimal over-approximates YAML 1.1 base 60 numbers such as 1:30:00,
// which yaml.v3 quotes for the sake of YAML 1.1 readers.
func sexagesimal(s string) bool {
	if s[0] == '+' || s[0] == '-' {
		s = s[1:]
	}
	if s == "" || !isDigit(s[0]) || strings.IndexByte(s, ':') < 0 {
		return false
	}
	for i := range len(s) {
		if c := s[i]; !isDigit(c) && c != '_' && c != ':' && c != '.' {
			return false
		}
	}
	return true
}

// numeric reports whether s, with every underscore removed as yaml.v2 and
// yaml.v3 do, is an integer in any base strconv.ParseInt accepts with base 0,
// a 0b or 0o integer as their own fallbacks accept it, or a float they
// accept. Out-of-range values count as numbers too.
func numeric(s string) bool {
	sc := numScanner{s: s}
	if c := sc.peek(); c == '+' || c == '-' {
		sc.i++
	}
	if sc.peek() == '0' {
		mark := sc.i
		sc.i++
		var digit func(byte) bool
		switch sc.peek() {
		case 'x', 'X':
			digit = isHexDigit
		case 'o', 'O':
			digit = isOctDigit
		case 'b', 'B':
			digit = isBinDigit
		}
		if digit != nil {
			sc.i++
			// yaml.v2 and yaml.v3 parse the digits after 0b and 0o
			// with strconv.ParseInt, which takes a sign: 0b+1 is 1.
			if c := sc.peek(); c == '+' || c == '-' {
				sc.i++
			}
			return sc.digits(digit) > 0 && sc.done()
		}
		sc.i = mark
	}
	mantissa := sc.digits(isDigit)
	if sc.peek() == '.' {
		sc.i++
		mantissa += sc.digits(isDigit)
	}
	if mantissa == 0 {
		return false
	}
	if c := sc.peek(); c == 'e' || c == 'E' {
		sc.i++
		if c := sc.peek(); c == '+' || c == '-' {
			sc.i++
		}
		if sc.digits(isDigit) == 0 {
			return false
		}
	}
	return sc.done()
}

// numScanner reads a string as if it had no underscores.
type numScanner struct {
	s string
	i int
}

func (sc *numScanner) peek() byte {
	for sc.i < len(sc.s) && sc.s[sc.i] == '_' {
		sc.i++
	}
	if sc.i == len(sc.s) {
		return 0
	}
	return sc.s[sc.i]
}

func (sc *numScanner) digits(digit func(byte) bool) int {
	n := 0
	for c := sc.peek(); c != 0 && digit(c); c = sc.peek() {
		sc.i++
		n++
	}
	return n
}

func (sc *numScanner) done() bool { return sc.peek() == 0 }

func isDigit(c byte) bool    { return '0' <= c && c <= '9' }
func isOctDigit(c byte) bool { return '0' <= c && c <= '7' }
func isBinDigit(c byte) bool { return c == '0' || c == '1' }
func isHexDigit(c byte) bool {
	return isDigit(c) || 'a' <= c && c <= 'f' || 'A' <= c && c <= 'F'
}

// appendString writes s in the given style. A literal block scalar's lines
// are indented to column indent.
func appendString(dst []byte, s string, st style, indent int) []byte {
	switch st {
	case stylePlain:
		return append(dst, s...)
	case styleSingle:
		// analyze never picks single quotes for a string containing one.
		dst = append(dst, '\'')
		dst = append(dst, s...)
		return append(dst, '\'')
	case styleLiteral:
		return appendLiteral(dst, s, indent)
	}
	return appendDoubleQuoted(dst, s)
}

const hexDigits = "0123456789abcdef"

// appendDoubleQuoted writes s as a double-quoted scalar on one line, with
// JSON-style escapes, which are all valid YAML escapes. s is valid UTF-8.
func appendDoubleQuoted(dst []byte, s string) []byte {
	dst = append(dst, '"')
	start := 0
	for i := 0; i < len(s); {
		c := s[i]
		if c < utf8.RuneSelf {
			if c >= 0x20 && c != '"' && c != '\\' && c != 0x7f {
				i++
				continue
			}
			dst = append(dst, s[start:i]...)
			switch c {
			case '"', '\\':
				dst = append(dst, '\\', c)
			case '\n':
				dst = append(dst, '\\', 'n')
			case '\t':
				dst = append(dst, '\\', 't')
			case '\r':
				dst = append(dst, '\\', 'r')
			case '\b':
				dst = append(dst, '\\', 'b')
			case '\f':
				dst = append(dst, '\\', 'f')
			default:
				dst = appendUnicodeEscape(dst, rune(c))
			}
			i++
			start = i
			continue
		}
		r, size := utf8.DecodeRuneInString(s[i:])
		if printable(r) {
			i += size
			continue
		}
		dst = append(dst, s[start:i]...)
		dst = appendUnicodeEscape(dst, r)
		i += size
		start = i
	}
	dst = append(dst, s[start:]...)
	return append(dst, '"')
}

// appendUnicodeEscape writes \uXXXX; every rune that printable rejects is
// in the Basic Multilingual Plane.
func appendUnicodeEscape(dst []byte, r rune) []byte {
	return append(dst, '\\', 'u',
		hexDigits[r>>12&0xf], hexDigits[r>>8&0xf], hexDigits[r>>4&0xf], hexDigits[r&0xf])
}

// appendLiteral writes s, which contains a newline and only characters
// printable accepts, as a literal block scalar whose lines start at column
// indent, two columns right of the parent node.
func appendLiteral(dst []byte, s string, indent int) []byte {
	dst = append(dst, '|')
	if c := s[0]; c == ' ' || c == '\t' || c == '\n' {
		// Without an indicator the parser would take the indentation
		// from the first line, which would swallow leading spaces or
		// reject a tab or an over-indented blank line.
		dst = append(dst, '2')
	}
	// Chomping: strip when there is no final newline, clip for exactly
	// one, keep for more or when there are only newlines, since clipping
	// keeps a line break only after some content.
	switch trailing := len(s) - len(strings.TrimRight(s, "\n")); {
	case trailing == 0:
		dst = append(dst, '-')
	case trailing > 1 || trailing == len(s):
		dst = append(dst, '+')
	}
	dst = append(dst, '\n')
	for s != "" {
		line := s
		if j := strings.IndexByte(s, '\n'); j >= 0 {
			line, s = s[:j], s[j+1:]
		} else {
			s = ""
		}
		if line != "" {
			// Empty lines stay empty so the output has no trailing
			// white space that is not part of the value.
			dst = appendIndent(dst, indent)
			dst = append(dst, line...)
		}
		dst = append(dst, '\n')
	}
	return dst
}

const spaces = "                                                                "

func appendIndent(dst []byte, n int) []byte {
	for n > len(spaces) {
		dst = append(dst, spaces...)
		n -= len(spaces)
	}
	return append(dst, spaces[:n]...)
}
