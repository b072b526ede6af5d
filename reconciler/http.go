package reconciler

import (
	"context"
	"crypto/hmac"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"io"
	"maps"
	"net/http"
	"slices"
	"strings"

	"github.com/prometheus/client_golang/prometheus/promhttp"

	"github.com/siteops/siteops/engine"
	"github.com/siteops/siteops/reconciler/status"
)

// Handler serves the loop's HTTP surface:
//
//	GET  /metrics    Prometheus metrics
//	GET  /healthz    200 while the process runs
//	GET  /readyz     200 once the first pass has finished, 503 before
//	POST /hooks/git  a push webhook: fetch now (HMAC-SHA256 signed)
//	POST /api/sites/{site}/approve  approve an agent (--approve manual), signed the same way
//	GET  /           the status dashboard
func (l *Loop) Handler() http.Handler {
	mux := http.NewServeMux()
	mux.Handle("GET /metrics", promhttp.HandlerFor(l.o.gatherer, promhttp.HandlerOpts{}))
	mux.HandleFunc("GET /healthz", func(w http.ResponseWriter, _ *http.Request) {
		io.WriteString(w, "ok\n")
	})
	mux.HandleFunc("GET /readyz", func(w http.ResponseWriter, _ *http.Request) {
		if !l.Ready() {
			http.Error(w, "the first pass has not finished", http.StatusServiceUnavailable)
			return
		}
		io.WriteString(w, "ok\n")
	})
	mux.HandleFunc("POST /hooks/git", l.serveWebhook)
	mux.HandleFunc("POST /api/sites/{site}/approve", l.serveApprove)
	mux.Handle("/", l.dashboard())
	return mux
}

// SignatureHeader carries the webhook's signature, as GitHub sends it:
// "sha256=" and the hex HMAC-SHA256 of the body keyed with the secret.
const SignatureHeader = "X-Hub-Signature-256"

// maxWebhookBody bounds the body read to check a signature.
const maxWebhookBody = 1 << 20

// signedBody reads a request's body and checks its signature; it answers
// the request itself and returns false when the body cannot be used.
// Without a configured secret every request is refused: an
// unauthenticated trigger would let anyone make the loop fetch in a tight
// loop, or approve hosts.
func (l *Loop) signedBody(w http.ResponseWriter, r *http.Request) ([]byte, bool) {
	body, err := io.ReadAll(io.LimitReader(r.Body, maxWebhookBody+1))
	if err != nil || len(body) > maxWebhookBody {
		http.Error(w, "unreadable or too large body", http.StatusBadRequest)
		return nil, false
	}
	if len(l.o.webhookSecret) == 0 {
		l.m.webhookRefused.Inc()
		l.o.logger.Warn("request refused: no webhook secret is configured", "path", r.URL.Path, "remote", r.RemoteAddr,
			"hint", "start siteops run with --webhook-secret-file to accept signed requests")
		http.Error(w, "signed requests are off: siteops run was started without --webhook-secret-file", http.StatusForbidden)
		return nil, false
	}
	if !validSignature(l.o.webhookSecret, body, r.Header.Get(SignatureHeader)) {
		l.m.webhookRefused.Inc()
		l.o.logger.Warn("request refused: missing or wrong signature", "path", r.URL.Path, "remote", r.RemoteAddr)
		http.Error(w, "missing or wrong "+SignatureHeader+" signature: sign the body with HMAC-SHA256 keyed with the webhook secret, as sha256=<hex>", http.StatusUnauthorized)
		return nil, false
	}
	return body, true
}

// serveWebhook triggers a fetch for a correctly signed request.
func (l *Loop) serveWebhook(w http.ResponseWriter, r *http.Request) {
	if _, ok := l.signedBody(w, r); !ok {
		return
	}
	l.src.Trigger()
	w.WriteHeader(http.StatusAccepted)
	io.WriteString(w, "fetch triggered\n")
}

// approver is an engine whose agents a person can approve (--approve
// manual).
type approver interface {
	Approve(ctx context.Context, site, agentOrHost string) error
}

// ApproveRequest is the body of POST /api/sites/{site}/approve.
type ApproveRequest struct {
	// Host names the agent: its Agent name (the host id), its
	// BareMetalHost's name or its host name.
	Host string `json:"host"`
}

// serveApprove approves an agent of a site, for a signed request.
func (l *Loop) serveApprove(w http.ResponseWriter, r *http.Request) {
	body, ok := l.signedBody(w, r)
	if !ok {
		return
	}
	a, ok := l.eng.(approver)
	if !ok {
		http.Error(w, "this engine approves agents itself", http.StatusNotImplemented)
		return
	}
	var req ApproveRequest
	if err := json.Unmarshal(body, &req); err != nil || req.Host == "" {
		http.Error(w, `give the host as {"host": "<agent, BareMetalHost or host name>"}`, http.StatusBadRequest)
		return
	}
	site := r.PathValue("site")
	if err := a.Approve(r.Context(), site, req.Host); err != nil {
		code := http.StatusConflict
		if errors.Is(err, engine.ErrNotFound) {
			code = http.StatusNotFound
		}
		http.Error(w, err.Error(), code)
		return
	}
	l.o.logger.Info("agent approved", "site", site, "host", req.Host)
	w.WriteHeader(http.StatusAccepted)
	io.WriteString(w, "approved\n")
}

// validSignature checks "sha256=<hex>" against the body's HMAC, in
// constant time.
func validSignature(secret, body []byte, header string) bool {
	if len(secret) == 0 {
		return false
	}
	got, ok := strings.CutPrefix(header, "sha256=")
	if !ok {
		return false
	}
	sig, err := hex.DecodeString(got)
	if err != nil {
		return false
	}
	mac := hmac.New(sha256.New, secret)
	mac.Write(body)
	return hmac.Equal(sig, mac.Sum(nil))
}

// Documents returns the status document of every site, sorted by name,
// built afresh from the engine and what the loop knows.
func (l *Loop) Documents() []status.Document {
	ctx := context.Background()
	l.mu.RLock()
	names := slices.Sorted(maps.Keys(l.ix.sites))
	l.mu.RUnlock()
	docs := make([]status.Document, 0, len(names))
	for _, name := range names {
		l.mu.RLock()
		r := l.ix.sites[name]
		var cp record
		if r != nil {
			cp = *r
		}
		l.mu.RUnlock()
		if r == nil {
			continue
		}
		if doc, ok := l.document(ctx, &cp); ok {
			docs = append(docs, doc)
		}
	}
	return docs
}
