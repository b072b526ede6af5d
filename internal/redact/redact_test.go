package redact

import (
	"bytes"
	"errors"
	"log/slog"
	"math/rand/v2"
	"regexp"
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

// A value hidden whole leaves a document that still parses: the mask is a
// plain word, not a YAML alias or tag.
func TestMaskIsAPlainScalar(t *testing.T) {
	for _, r := range Mask {
		if !(r >= 'A' && r <= 'Z' || r >= 'a' && r <= 'z') {
			t.Fatalf("mask %q holds %q: a YAML document whose value it replaces would not parse", Mask, r)
		}
	}
}

// The URL scanner hides exactly what the pattern of a URL's user
// information matches, on texts made of the characters that matter.
func TestHideUserinfoMatchesThePattern(t *testing.T) {
	pattern := regexp.MustCompile(`([A-Za-z][A-Za-z0-9+.\-]*)://([^\s/?#"'<>\x60]*)@`)
	alphabet := []string{"a", "Z", "1", "+", ".", "-", ":", "/", "://", "@", " ", "\n", "?", "#", `"`, "'", "<", ">", "`", "ssh", "x:y", "é"}
	rng := rand.New(rand.NewPCG(7, 9))
	for range 20000 {
		var b strings.Builder
		for range 1 + rng.IntN(24) {
			b.WriteString(alphabet[rng.IntN(len(alphabet))])
		}
		s := b.String()
		if got, want := hideUserinfo(s), pattern.ReplaceAllStringFunc(s, userinfo); got != want {
			t.Fatalf("hideUserinfo(%q) = %q, the pattern gives %q", s, got, want)
		}
	}
}

func BenchmarkTextRenderedObject(b *testing.B) {
	obj := strings.Repeat(`{"apiVersion":"metal3.io/v1alpha1","kind":"BareMetalHost","spec":{"bmc":{"address":"redfish-virtualmedia+https://198.51.100.10/redfish/v1/Systems/1"}},"sshPublicKey":"ssh-ed25519 AAAAC3Nza user@example.net"}`, 40)
	b.SetBytes(int64(len(obj)))
	for b.Loop() {
		Text(obj)
	}
}

// Bytes hides what Text hides, and hands back the caller's slice itself,
// not a copy, when there is nothing to hide.
func TestBytes(t *testing.T) {
	Register("BytesSecret-23")
	tests := []struct {
		name, in, want string
		same           bool
	}{
		{"nothing to hide", "kind: BareMetalHost\naddress: redfish+https://10.0.0.1/x\nkey: ssh-ed25519 AAAA user@example.net\n", "", true},
		{"userinfo", "address: redfish://root:calvin@h/x\n", "address: redfish://REDACTED@h/x\n", false},
		{"registered value", "token: BytesSecret-23\n", "token: REDACTED\n", false},
		{"pem key", "k: -----BEGIN PRIVATE KEY-----\nMIIE\n-----END PRIVATE KEY-----\n", "k: -----BEGIN PRIVATE KEY----- REDACTED -----END PRIVATE KEY-----\n", false},
		{"empty", "", "", true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			in := []byte(tt.in)
			got := Bytes(in)
			if tt.same {
				if string(got) != tt.in || len(in) > 0 && &got[0] != &in[0] {
					t.Fatalf("Bytes(%q) = %q, a copy or a change; want the input slice itself", tt.in, got)
				}
				return
			}
			if string(got) != tt.want {
				t.Errorf("Bytes(%q) = %q, want %q", tt.in, got, tt.want)
			}
			if string(in) != tt.in {
				t.Errorf("Bytes changed its input to %q", in)
			}
		})
	}
}

// The check that spares the copy of a text without registered values
// agrees with the replacement itself, on texts made of pieces of the
// registered values.
func TestReplacesAgreesWithReplace(t *testing.T) {
	r := strings.NewReplacer("abcd", Mask, "abcdef", Mask, "cdxy", Mask, "xyxyxy", Mask)
	alphabet := []string{"a", "b", "c", "d", "e", "f", "x", "y", "ab", "cd", "xy", "abcd", " ", "\n"}
	rng := rand.New(rand.NewPCG(3, 5))
	for range 20000 {
		var b strings.Builder
		for range rng.IntN(16) {
			b.WriteString(alphabet[rng.IntN(len(alphabet))])
		}
		s := b.String()
		if got, want := replaces(r, s), r.Replace(s) != s; got != want {
			t.Fatalf("replaces(%q) = %v, but Replace gives %q", s, got, r.Replace(s))
		}
	}
}

func BenchmarkBytesRenderedBundle(b *testing.B) {
	Register("BenchmarkSecret-5")
	chunk := []byte(strings.Repeat("---\napiVersion: metal3.io/v1alpha1\nkind: BareMetalHost\nspec:\n  bmc:\n    address: redfish-virtualmedia+https://198.51.100.10/redfish/v1/Systems/1\n  sshPublicKey: ssh-ed25519 AAAAC3Nza user@example.net\n", 150))
	b.SetBytes(int64(len(chunk)))
	b.ReportAllocs()
	for b.Loop() {
		Bytes(chunk)
	}
}
