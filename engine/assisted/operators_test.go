package assisted

import "testing"

// Disabled operators report success with the manager's operator name,
// which for numaresources differs from its validation id
// (internal/operators/manager.go ValidateHost).
func TestOperatorResults(t *testing.T) {
	want := map[string]string{
		"lso-requirements-satisfied":               "lso is disabled",
		"numa-resources-requirements-satisfied":    "numaresources is disabled",
		"openshift-logging-requirements-satisfied": "openshift-logging is disabled",
	}
	got := map[string]Result{}
	for _, r := range OperatorResults() {
		got[r.ID] = r
	}
	if len(got) != 28 {
		t.Errorf("%d operator validations, want 28", len(got))
	}
	for id, msg := range want {
		if r := got[id]; r.Status != ValidationSuccess || r.Message != msg {
			t.Errorf("%s = %s %q, want success %q", id, r.Status, r.Message, msg)
		}
	}
}
