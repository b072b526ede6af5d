package termtext

import (
	"strings"
	"unicode"
)

// OneLine is s with every control character (line breaks and tabs
// included) and every bidirectional override shown as a space.
func OneLine(s string) string {
	if !strings.ContainsFunc(s, unsafe) {
		return s
	}
	return strings.Map(func(r rune) rune {
		if unsafe(r) {
			return ' '
		}
		return r
	}, s)
}

func unsafe(r rune) bool {
	return unicode.IsControl(r) || r >= '\u202a' && r <= '\u202e' || r >= '\u2066' && r <= '\u2069'
}
