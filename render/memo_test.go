package render

import (
	"testing"
)

func TestMemo(t *testing.T) {
	m := newMemo[string, string](2)
	calls := 0
	get := func(k string) string {
		return m.get(k, func() string { calls++; return "v" + k })
	}
	steps := []struct {
		key, want string
		calls     int // calls of the function so far
	}{
		{"a", "va", 1},
		{"a", "va", 1}, // remembered
		{"b", "vb", 2},
		{"c", "vc", 3}, // over max: computed, not kept
		{"c", "vc", 4},
		{"b", "vb", 4},
	}
	for i, s := range steps {
		if got := get(s.key); got != s.want || calls != s.calls {
			t.Fatalf("step %d: get(%q) = %q after %d calls, want %q after %d", i, s.key, got, calls, s.want, s.calls)
		}
	}
	if n := m.kept.Load(); n != 2 {
		t.Errorf("kept %d results, want at most 2", n)
	}
}

// Remembered install-config overrides are the ones computed afresh, for
// every mode, and errors are remembered as errors.
func TestInstallConfigMemo(t *testing.T) {
	for i, args := range []installConfigArgs{
		{"OVNKubernetes", `{"fips":true}`, "", false},
		{"OVNKubernetes", `{"networking":{"x":1}}`, "AllNodes", false},
		{"OVNKubernetes", `not json`, "AllNodes", false},
		{"OVNKubernetes", `{}`, "", true},
		{"OVNKubernetes", "", "", false},
	} {
		wantText, wantErr := args.merge()
		for pass := range 2 {
			got, err := mergeInstallConfig(args.networkType, args.overrides, args.mode, args.operator)
			if got != wantText || (err == nil) != (wantErr == nil) || err != nil && err.Error() != wantErr.Error() {
				t.Errorf("case %d, pass %d: got %q, %v; want %q, %v", i, pass, got, err, wantText, wantErr)
			}
		}
	}
	if _, ok := installConfigs.results.Load(installConfigArgs{"OVNKubernetes", `{"fips":true}`, "", false}); !ok {
		t.Error("the overrides were not remembered")
	}
}
