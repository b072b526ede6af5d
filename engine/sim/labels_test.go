package sim

import (
	"math/rand/v2"
	"strings"
	"testing"

	"k8s.io/apimachinery/pkg/util/validation"
)

// isLabelValue must agree with apimachinery's check, which the Agent
// update would run.
func TestIsLabelValueMatchesValidation(t *testing.T) {
	for _, tc := range []struct {
		v    string
		want bool
	}{
		{"", true},
		{"a", true},
		{"x86_64", true},
		{"DellInc", true},
		{"DellInc.", false},
		{".a", false},
		{"-a", false},
		{"a_", false},
		{"a.b-c_d", true},
		{"PowerEdgeR650", true},
		{"Power Edge", false},
		{"é", false},
		{strings.Repeat("a", 63), true},
		{strings.Repeat("a", 64), false},
	} {
		if got := isLabelValue(tc.v); got != tc.want {
			t.Errorf("isLabelValue(%q) = %v, want %v", tc.v, got, tc.want)
		}
	}
	// Mostly characters a label value may hold, so that both answers
	// come up; now and then one it may not.
	valid, invalid := []rune("aZ09-_."), []rune(" /é")
	r := rand.New(rand.NewPCG(1, 2))
	var yes, no int
	for range 20000 {
		b := make([]rune, r.IntN(66))
		for i := range b {
			if r.IntN(50) == 0 {
				b[i] = invalid[r.IntN(len(invalid))]
			} else {
				b[i] = valid[r.IntN(len(valid))]
			}
		}
		v := string(b)
		if isLabelValue(v) {
			yes++
		} else {
			no++
		}
		if got, want := isLabelValue(v), len(validation.IsValidLabelValue(v)) == 0; got != want {
			t.Fatalf("isLabelValue(%q) = %v, validation.IsValidLabelValue says %v", v, got, want)
		}
	}
	if yes < 1000 || no < 1000 {
		t.Fatalf("random values: %d valid, %d not: the comparison needs many of both", yes, no)
	}
}
