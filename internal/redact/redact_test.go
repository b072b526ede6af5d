package redact

import (
	"bytes"
	"errors"
	"log/slog"
	"strings"
	"testing"
)

func TestText(t *testing.T) {
	tests := []struct{ name, in, want string }{
		{"https user and password", "https://user:s3cret@example.com/fleet.git", "https://REDACTED@example.com/fleet.git"},
		{"token as user", "https://t0ken@example.com/fleet.git", "https://REDACTED@example.com/fleet.git"},
		{"ssh user kept", "ssh://git@example.com/fleet.git", "ssh://git@example.com/fleet.git"},
		{"ssh password hidden", "ssh://git:pw@example.com/fleet.git", "ssh://REDACTED@example.com/fleet.git"},
		{"scp-like kept", "git@example.com:org/fleet.git", "git@example.com:org/fleet.git"},
		{"no userinfo", "git://127.0.0.1:9418/fleet.git", "git://127.0.0.1:9418/fleet.git"},
		{"bmc address", "redfish-virtualmedia+https://admin:Hunter2@10.0.0.1/redfish/v1/Systems/1",
			"redfish-virtualmedia+https://REDACTED@10.0.0.1/redfish/v1/Systems/1"},
		{"password with @", "https://alice:s3cr@t@git.example.com/fleet.git", "https://REDACTED@git.example.com/fleet.git"},
		{"unparsable escape", "https://alice:s3%zzcret@git.example.com/fleet.git", "https://REDACTED@git.example.com/fleet.git"},
		{"in a sentence", `BMC address "idrac://root:calvin@h/x" of node n`, `BMC address "idrac://REDACTED@h/x" of node n`},
		{"two URLs", "a://u:p@h b://v:q@i", "a://REDACTED@h b://REDACTED@i"},
		{"mail address kept", "owner: ops@example.com", "owner: ops@example.com"},
		{"pem key", "k: -----BEGIN RSA PRIVATE KEY-----\nMIIEabc\n-----END RSA PRIVATE KEY-----\n",
			"k: -----BEGIN RSA PRIVATE KEY----- REDACTED -----END RSA PRIVATE KEY-----\n"},
		{"pem key cut short", "-----BEGIN PRIVATE KEY-----\nMIIEabc", "-----BEGIN PRIVATE KEY----- REDACTED -----END PRIVATE KEY-----"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := Text(tt.in); got != tt.want {
				t.Errorf("Text(%q) = %q, want %q", tt.in, got, tt.want)
			}
		})
	}
}

func TestRegister(t *testing.T) {
	Register("RegisteredValue-91\n", "ab", "   ")
	tests := []struct{ in, want string }{
		{"token RegisteredValue-91 in a message", "token REDACTED in a message"},
		{"RegisteredValue-91\n", "REDACTED"},
		{"ab stays", "ab stays"}, // too short to hide
	}
	for _, tt := range tests {
		if got := Text(tt.in); got != tt.want {
			t.Errorf("Text(%q) = %q, want %q", tt.in, got, tt.want)
		}
	}
}

func TestHandler(t *testing.T) {
	Register("HandlerSecret-17")
	for _, format := range []string{"text", "json"} {
		t.Run(format, func(t *testing.T) {
			var buf bytes.Buffer
			var h slog.Handler = slog.NewTextHandler(&buf, nil)
			if format == "json" {
				h = slog.NewJSONHandler(&buf, nil)
			}
			log := slog.New(NewHandler(h)).With("repo", "https://u:HandlerSecret-17@h/r")
			log.Info("push to https://x:pw1234@h failed", "err", errors.New("auth HandlerSecret-17"),
				slog.Group("g", "url", "redfish://root:calvin99@h"), "list", []string{"HandlerSecret-17"}, "n", 3)
			out := buf.String()
			for _, secret := range []string{"HandlerSecret-17", "pw1234", "calvin99"} {
				if strings.Contains(out, secret) {
					t.Errorf("log line holds %q:\n%s", secret, out)
				}
			}
			if !strings.Contains(out, "n=3") && !strings.Contains(out, `"n":3`) {
				t.Errorf("plain attributes lost:\n%s", out)
			}
		})
	}
}
