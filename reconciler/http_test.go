package reconciler

import (
	"bytes"
	"crypto/hmac"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/prometheus/client_golang/prometheus"

	"github.com/siteops/siteops/reconciler/source"
)

// triggerCount is a source that counts the fetches asked of it.
type triggerCount struct {
	source.Source
	n int
}

func (s *triggerCount) Trigger() { s.n++ }

func sign(secret, body []byte) string {
	mac := hmac.New(sha256.New, secret)
	mac.Write(body)
	return "sha256=" + hex.EncodeToString(mac.Sum(nil))
}

// TestHTTPSurfaceAttacks builds the attacks on the HTTP surface: a host
// name rebound to the loopback address, an oversized body, a slow body,
// and replayed webhook deliveries. Each is refused with a clear answer;
// honest requests go through.
func TestHTTPSurfaceAttacks(t *testing.T) {
	secret := []byte("webhook-secret")
	src := &triggerCount{}
	l := New(src, nil, WithRegistry(prometheus.NewRegistry()), WithWebhookSecret(secret), WithAllowedHosts("siteops.example.net"))
	srv := httptest.NewUnstartedServer(l.Handler())
	srv.Start()
	defer srv.Close()
	client := &http.Client{Timeout: time.Minute}
	do := func(method, host, path string, body []byte, header map[string]string) (int, string) {
		t.Helper()
		req, _ := http.NewRequest(method, srv.URL+path, bytes.NewReader(body))
		if host != "" {
			req.Host = host
		}
		for k, v := range header {
			req.Header.Set(k, v)
		}
		resp, err := client.Do(req)
		if err != nil {
			t.Fatalf("%s %s: %v", method, path, err)
		}
		defer resp.Body.Close()
		msg, _ := io.ReadAll(resp.Body)
		return resp.StatusCode, string(msg)
	}
	t.Run("hosts", func(t *testing.T) {
		for _, tt := range []struct {
			host string
			code int
		}{
			{"attacker.example.com", http.StatusMisdirectedRequest},
			{"attacker.example.com:8080", http.StatusMisdirectedRequest},
			{"127.0.0.1:8080", http.StatusOK},
			{"[::1]:8080", http.StatusOK},
			{"localhost:8080", http.StatusOK},
			{"siteops.example.net", http.StatusOK},
		} {
			if code, msg := do("GET", tt.host, "/healthz", nil, nil); code != tt.code {
				t.Errorf("Host %s: %d %q, want %d", tt.host, code, msg, tt.code)
			}
		}
		if _, msg := do("GET", "attacker.example.com", "/api/sites", nil, nil); !strings.Contains(msg, "--allowed-host") {
			t.Errorf("the refusal does not say how to allow a name: %q", msg)
		}
	})
	t.Run("oversized body", func(t *testing.T) {
		body := bytes.Repeat([]byte("x"), 2<<20)
		code, msg := do("POST", "", "/hooks/git", body, map[string]string{SignatureHeader: sign(secret, body)})
		if code != http.StatusBadRequest || !strings.Contains(msg, "over 1048576 bytes") {
			t.Errorf("2 MiB body: %d %q, want 400 naming the limit", code, msg)
		}
	})
	t.Run("slow body", func(t *testing.T) {
		c, err := net.DialTimeout("tcp", srv.Listener.Addr().String(), 10*time.Second)
		if err != nil {
			t.Fatal(err)
		}
		defer c.Close()
		fmt.Fprintf(c, "POST /hooks/git HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Length: 1000\r\n\r\n{\"ref\":")
		c.SetReadDeadline(time.Now().Add(time.Minute)) // the test's own guard, far past the server's limit
		answer, _ := io.ReadAll(c)
		if !strings.Contains(string(answer), "400 Bad Request") || !strings.Contains(string(answer), "not sent within") {
			t.Errorf("a body that never ends: %q, want 400 once the read timeout passed", answer)
		}
	})
	t.Run("replayed deliveries", func(t *testing.T) {
		push := []byte(`{"ref":"refs/heads/main","after":"1111111111111111111111111111111111111111"}`)
		hdr := map[string]string{SignatureHeader: sign(secret, push), "X-GitHub-Delivery": "d-1"}
		if code, msg := do("POST", "", "/hooks/git", push, hdr); code != http.StatusAccepted {
			t.Fatalf("first delivery: %d %q", code, msg)
		}
		if code, msg := do("POST", "", "/hooks/git", push, hdr); code != http.StatusConflict || !strings.Contains(msg, "received before") {
			t.Errorf("the same delivery again: %d %q, want 409", code, msg)
		}
		hdr["X-GitHub-Delivery"] = "d-2" // a fresh id on a captured body
		if code, _ := do("POST", "", "/hooks/git", push, hdr); code != http.StatusConflict {
			t.Errorf("a captured body with a new delivery id: %d, want 409", code)
		}
		other := []byte(`{"ref":"refs/heads/main","after":"2222222222222222222222222222222222222222"}`)
		if code, _ := do("POST", "", "/hooks/git", other, map[string]string{SignatureHeader: sign(secret, other), "X-GitHub-Delivery": "d-1"}); code != http.StatusConflict {
			t.Errorf("a new body under a delivery id seen before: %d, want 409", code)
		}
		if src.n != 1 {
			t.Errorf("%d fetches triggered, want 1", src.n)
		}
	})
}
