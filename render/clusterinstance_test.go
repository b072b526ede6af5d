package render

import "testing"

func TestFoldQuoted(t *testing.T) {
	tests := []struct{ in, want string }{
		{"plain", "plain"},
		{"ssh-ed25519 AAAA user@host\n", "ssh-ed25519 AAAA user@host "},
		{"{\n  \"a\": 1,\n  \"b\": 2\n}\n", `{ "a": 1, "b": 2 } `},
		{"one\n\ntwo", "one\ntwo"},
		{"trailing  \n  leading", "trailing leading"},
	}
	for _, tt := range tests {
		if got := foldQuoted(tt.in); got != tt.want {
			t.Errorf("foldQuoted(%q) = %q, want %q", tt.in, got, tt.want)
		}
	}
	if _, err := quoted(`["--karg", "it's"]`, '\''); err == nil {
		t.Error("a single quote inside a single-quoted template value was accepted")
	}
}
