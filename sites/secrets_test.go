package sites

import (
	"encoding/base64"
	"fmt"
	"strings"
	"testing"

	"github.com/siteops/siteops/internal/blockyaml"
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

// A Secret written beside a site in the same file registers its values
// whichever reader parsed the file (internal/blockyaml for block style,
// yaml.v3 for flow style).
func TestSecretBesideASiteIsRegistered(t *testing.T) {
	for _, tt := range []struct {
		name, secret, value string
		fast                bool // read by internal/blockyaml
	}{
		{"block style", "apiVersion: v1\nkind: Secret\nmetadata:\n  name: bmc\nstringData:\n  password: %s\n", "Beside-block-5521", true},
		{"flow style", "apiVersion: v1\nkind: Secret\nmetadata: {name: bmc}\nstringData: {password: %s}\n", "Beside-flow-5522", false},
	} {
		t.Run(tt.name, func(t *testing.T) {
			data := []byte(fmt.Sprintf(tt.secret, tt.value) + "---\n" + v1Doc(goodCluster("c1")))
			if _, fast := blockyaml.Parse(data); fast != tt.fast {
				t.Fatalf("internal/blockyaml read the file: %v, want %v", fast, tt.fast)
			}
			sites, problems := decodeFile(testFile, data, decodeOptions{})
			if len(sites) != 1 || problems.HasErrors() {
				t.Fatalf("the site beside the Secret did not load: %v", problems)
			}
			if got := redact.Text("password " + tt.value); strings.Contains(got, tt.value) {
				t.Errorf("the password shows: %q", got)
			}
		})
	}
}
