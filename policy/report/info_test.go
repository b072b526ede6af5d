package report

import (
	"bytes"
	"strings"
	"testing"
)

// A finding of severity info is a note in every format: it never fails
// the check, not even with --fail-on-warn, and each format says it the
// way its readers expect a note.
func TestInfoFindingsNeverFail(t *testing.T) {
	r := &Report{Sites: 1, Findings: []Finding{{Rule: "ztp.bmc.certificate-verification-disabled", Severity: Info, Site: "s1",
		Message: "1 of 1 BareMetalHosts do not verify the BMC's TLS certificate"}}}
	if code := r.ExitCode(true); code != 0 {
		t.Errorf("exit code %d with --fail-on-warn, want 0", code)
	}
	want := map[string]string{
		"text":   "info",
		"json":   `"info": 1`,
		"github": "::notice ",
		"sarif":  `"level": "note"`,
		"tap":    "ok 1 - ",
		"junit":  "<system-out>",
	}
	for format, needle := range want {
		w, err := Get(format, WithFailOnWarn(true))
		if err != nil {
			t.Fatal(err)
		}
		var b bytes.Buffer
		if err := w.Write(&b, r); err != nil {
			t.Fatalf("%s: %v", format, err)
		}
		out := b.String()
		if !strings.Contains(out, needle) {
			t.Errorf("%s output has no %q:\n%s", format, needle, out)
		}
		for _, bad := range []string{"::error", "::warning", "not ok", "<failure", "<skipped", `"level": "warning"`, `"level": "error"`} {
			if strings.Contains(out, bad) {
				t.Errorf("%s output treats the note as failing or warning (%q):\n%s", format, bad, out)
			}
		}
	}
}
