package reconciler

import (
	"context"
	"crypto/hmac"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"maps"
	"net"
	"net/http"
	"net/netip"
	"slices"
	"strconv"
	"strings"
	"time"

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
//
// Every request must name an allowed host (hostAllowed), and a body is
// read within maxRequestBody bytes and bodyReadTimeout; signed requests
// are accepted once (replays are refused).
func (l *Loop) Handler() http.Handler {
	h := &surface{l: l, deliveries: newReplayCache(deliveryMemory, maxRemembered),
		approvals: newReplayCache(2*approvalWindow, maxRemembered), now: time.Now}
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
	mux.HandleFunc("POST /hooks/git", h.serveWebhook)
	mux.HandleFunc("POST /api/sites/{site}/approve", h.serveApprove)
	mux.Handle("/", l.dashboard())
	return h.guard(mux)
}

// Bounds of the HTTP surface.
const (
	// maxRequestBody bounds the body of any request.
	maxRequestBody = 1 << 20
	// bodyReadTimeout bounds the time a client may take to send a body:
	// a slow client must not hold a connection and a goroutine for ever.
	bodyReadTimeout = 10 * time.Second
	// deliveryMemory is how long a webhook delivery is remembered.
	deliveryMemory = 24 * time.Hour
	// approvalWindow is how far an approval's time may be from the
	// server's; an approval is remembered for twice as long.
	approvalWindow = 5 * time.Minute
	// maxRemembered bounds the requests remembered against replays.
	maxRemembered = 10000
)

// deliveryHeaders carry a webhook delivery's id, as GitHub sends it
// (Gitea and GitLab send theirs under their own names, also accepted).
var deliveryHeaders = []string{"X-GitHub-Delivery", "X-Gitea-Delivery", "X-Gitlab-Event-UUID"}

// surface is the state of the HTTP surface: the signed requests already
// accepted.
type surface struct {
	l          *Loop
	deliveries *replayCache
	approvals  *replayCache
	now        func() time.Time
}

// guard refuses requests that name a host the surface does not answer to,
// and bounds every body.
func (h *surface) guard(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if !hostAllowed(r.Host, h.l.o.allowedHosts) {
			h.l.o.logger.Warn("request refused: unknown host", "host", r.Host, "path", r.URL.Path, "remote", r.RemoteAddr)
			http.Error(w, "this server does not answer to host "+strconv.Quote(r.Host)+
				": use its IP address or localhost, or start siteops run with --allowed-host for a name", http.StatusMisdirectedRequest)
			return
		}
		r.Body = http.MaxBytesReader(w, r.Body, maxRequestBody)
		next.ServeHTTP(w, r)
	})
}

// hostAllowed reports whether a request's Host may be served: an IP
// address (a page cannot make a browser send one that is not its own
// origin's), localhost, or a configured name. Any other name may be one an
// attacker points at this address (DNS rebinding).
func hostAllowed(hostport string, allowed []string) bool {
	host := hostport
	if h, _, err := net.SplitHostPort(hostport); err == nil {
		host = h
	}
	host = strings.TrimSuffix(strings.ToLower(strings.Trim(host, "[]")), ".")
	if host == "" {
		return false
	}
	if _, err := netip.ParseAddr(host); err == nil || host == "localhost" {
		return true
	}
	for _, a := range allowed {
		if strings.EqualFold(strings.TrimSuffix(a, "."), host) {
			return true
		}
	}
	return false
}

// SignatureHeader carries the webhook's signature, as GitHub sends it:
// "sha256=" and the hex HMAC-SHA256 of the body keyed with the secret.
const SignatureHeader = "X-Hub-Signature-256"

// signedBody reads a request's body and checks its signature; it answers
// the request itself and returns false when the body cannot be used.
// Without a configured secret every request is refused: an
// unauthenticated trigger would let anyone make the loop fetch in a tight
// loop, or approve hosts.
func (h *surface) signedBody(w http.ResponseWriter, r *http.Request) ([]byte, bool) {
	l := h.l
	// Not every connection can have a deadline set (a test recorder): the
	// size limit still holds.
	_ = http.NewResponseController(w).SetReadDeadline(h.now().Add(bodyReadTimeout))
	body, err := io.ReadAll(r.Body)
	if err != nil {
		http.Error(w, fmt.Sprintf("unreadable body, over %d bytes or not sent within %s", maxRequestBody, bodyReadTimeout), http.StatusBadRequest)
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

// serveWebhook triggers a fetch for a correctly signed request that was
// not received before: by its delivery id, and by its body (a push's body
// names its commits), within deliveryMemory.
func (h *surface) serveWebhook(w http.ResponseWriter, r *http.Request) {
	body, ok := h.signedBody(w, r)
	if !ok {
		return
	}
	keys := []string{"body:" + digest(body)}
	for _, name := range deliveryHeaders {
		if id := r.Header.Get(name); id != "" {
			keys = append(keys, "id:"+id)
		}
	}
	if !h.deliveries.first(h.now(), keys...) {
		h.l.m.webhookRefused.Inc()
		h.l.o.logger.Warn("request refused: a webhook delivery received before", "remote", r.RemoteAddr)
		http.Error(w, "this delivery was received before: a replay is not acted on", http.StatusConflict)
		return
	}
	h.l.src.Trigger()
	w.WriteHeader(http.StatusAccepted)
	io.WriteString(w, "fetch triggered\n")
}

func digest(b []byte) string {
	sum := sha256.Sum256(b)
	return hex.EncodeToString(sum[:])
}

// approver is an engine whose agents a person can approve (--approve
// manual).
type approver interface {
	Approve(ctx context.Context, site, agentOrHost string) error
}

// ApproveRequest is the body of POST /api/sites/{site}/approve. The
// signature covers all of it: the site it names (which must be the one of
// the path) and its time, within approvalWindow of the server's; the same
// request is accepted once.
type ApproveRequest struct {
	// Site is the site, as in the path.
	Site string `json:"site"`
	// Host names the agent: its Agent name (the host id), its
	// BareMetalHost's name or its host name.
	Host string `json:"host"`
	// Time is when the request was made, RFC 3339.
	Time string `json:"time"`
}

// serveApprove approves an agent of a site, for a signed request.
func (h *surface) serveApprove(w http.ResponseWriter, r *http.Request) {
	l := h.l
	body, ok := h.signedBody(w, r)
	if !ok {
		return
	}
	a, ok := l.eng.(approver)
	if !ok {
		http.Error(w, "this engine approves agents itself", http.StatusNotImplemented)
		return
	}
	const form = `give {"site": "<site>", "host": "<agent, BareMetalHost or host name>", "time": "<RFC 3339 time>"}, signed`
	var req ApproveRequest
	if err := json.Unmarshal(body, &req); err != nil || req.Host == "" {
		http.Error(w, form, http.StatusBadRequest)
		return
	}
	site := r.PathValue("site")
	if req.Site != site {
		http.Error(w, fmt.Sprintf("the signed body names site %q, the path %q: the signature must cover the site it approves; %s", req.Site, site, form), http.StatusBadRequest)
		return
	}
	at, err := time.Parse(time.RFC3339, req.Time)
	if now := h.now(); err != nil || at.Before(now.Add(-approvalWindow)) || at.After(now.Add(approvalWindow)) {
		http.Error(w, fmt.Sprintf("the request's time %q is not within %s of the server's (%s): %s", req.Time, approvalWindow, now.UTC().Format(time.RFC3339), form), http.StatusBadRequest)
		return
	}
	if !h.approvals.first(h.now(), digest(body)) {
		l.m.webhookRefused.Inc()
		http.Error(w, "this approval was received before: a replay is not acted on", http.StatusConflict)
		return
	}
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
