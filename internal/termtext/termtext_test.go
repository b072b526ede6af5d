package termtext

import "testing"

func TestOneLine(t *testing.T) {
	for in, want := range map[string]string{
		"plain":               "plain",
		"a\nb\tc\r":           "a b c ",
		"x\x1b[2Jy":           "x [2Jy",
		"abc\u202edcba":       "abc dcba",
		"\u2066isolate\u2069": " isolate ",
		"ünïcødé ✓":           "ünïcødé ✓",
	} {
		if got := OneLine(in); got != want {
			t.Errorf("OneLine(%q) = %q, want %q", in, got, want)
		}
	}
}
