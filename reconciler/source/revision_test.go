package source

import "testing"

func TestShortRevision(t *testing.T) {
	for _, c := range []struct{ in, want string }{
		{"4f2c9e1aa0b7c6d5e4f3a2b1c0d9e8f7a6b5c4d3", "4f2c9e1aa0b7"},
		{"sha256:9b1d2f3e4a5b6c7d8e9f0a1b2c3d4e5f6a7b8c9d0e1f2a3b4c5d6e7f8a9b0c1d", "sha256:9b1d2f3e4a5b"},
		{"v1.2.3", "v1.2.3"},
		{"main", "main"},
		{"", ""},
		{"abc123", "abc123"},
		{"not-hex-but-long-enough-to-shorten-anyway", "not-hex-but-long-enough-to-shorten-anyway"},
	} {
		if got := ShortRevision(c.in); got != c.want {
			t.Errorf("ShortRevision(%q) = %q, want %q", c.in, got, c.want)
		}
	}
}
