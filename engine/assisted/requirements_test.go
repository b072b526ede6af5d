package assisted

import "testing"

// Versions compare by their first two dot-separated fields; anything else
// that does not read as two numbers is not at least any version.
func TestVersionAtLeast(t *testing.T) {
	for _, tc := range []struct {
		version      string
		major, minor int
		want         bool
	}{
		{"4.20.6", 4, 20, true},
		{"4.20", 4, 20, true},
		{"4.19.2", 4, 20, false},
		{"5.0", 4, 20, true},
		{"4.21.0-rc.1", 4, 20, true},
		{"4", 4, 0, false},
		{"", 4, 0, false},
		{"4.x.1", 4, 0, false},
		{"x.20", 4, 0, false},
		{"4.", 4, 0, false},
		{"+4.20", 4, 20, true},
		{"4.-1", 4, 0, false},
		{"4.20.", 4, 20, true},
	} {
		if got := VersionAtLeast(tc.version, tc.major, tc.minor); got != tc.want {
			t.Errorf("VersionAtLeast(%q, %d, %d) = %v, want %v", tc.version, tc.major, tc.minor, got, tc.want)
		}
	}
}
