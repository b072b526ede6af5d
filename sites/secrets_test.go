package sites

import (
	"encoding/base64"
	"strings"
	"testing"

	"github.com/siteops/siteops/internal/redact"
)

// A Secret's password is hidden everywhere; its username, an everyday
// word, is not, or every "root" of every document would be cut out.
func TestRegisterSecretHidesPasswordsNotUsernames(t *testing.T) {
	pw := "Pw-for-secrets-test-7731"
	registerSecret([]byte("apiVersion: v1\nkind: Secret\ndata:\n  username: " + base64.StdEncoding.EncodeToString([]byte("root")) +
		"\n  password: " + base64.StdEncoding.EncodeToString([]byte(pw)) + "\n"))
	got := redact.Text("rootDeviceHints: {deviceName: /dev/sda}; password " + pw)
	if strings.Contains(got, pw) {
		t.Errorf("the password shows: %q", got)
	}
	if !strings.Contains(got, "rootDeviceHints") {
		t.Errorf("the username was hidden inside other words: %q", got)
	}
}
