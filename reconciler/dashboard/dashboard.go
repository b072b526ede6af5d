package dashboard

import (
	"encoding/json"
	"io"
	"log/slog"
	"net/http"
	"strconv"
	"time"

	"github.com/siteops/siteops/internal/redact"
	"github.com/siteops/siteops/reconciler/status"
)

// Summary is what the loop knows of the fleet as a whole. Every field is
// optional; the overview leaves out what is unknown.
type Summary struct {
	// Source is where the sites come from: a repository URL and branch,
	// or a directory. It is shown as given, so it must hold no
	// credentials.
	Source string `json:"source,omitempty"`
	// Revision is the revision of the source the loop reconciled last.
	Revision string `json:"revision,omitempty"`
	// LastPass is when the loop last finished a pass.
	LastPass time.Time `json:"lastPass,omitzero"`
	// Problem says why the last pass did not reconcile the newest
	// revision (a fetch or push that failed), or is empty. Like Source,
	// it must hold no credentials.
	Problem string `json:"problem,omitempty"`
}

// Option changes how the dashboard is served.
type Option func(*options)

type options struct {
	summary  func() Summary
	pageSize int
	refresh  time.Duration
	logger   *slog.Logger
}

// DefaultPageSize is how many sites one overview page lists.
const DefaultPageSize = 50

// DefaultRefresh is how often an open page reloads its data.
const DefaultRefresh = 5 * time.Second

func applyOptions(opts []Option) options {
	o := options{
		summary:  func() Summary { return Summary{} },
		pageSize: DefaultPageSize,
		refresh:  DefaultRefresh,
		logger:   slog.New(slog.DiscardHandler),
	}
	for _, opt := range opts {
		opt(&o)
	}
	return o
}

// WithSummary gives the fleet facts shown above the overview.
func WithSummary(f func() Summary) Option {
	return func(o *options) {
		if f != nil {
			o.summary = f
		}
	}
}

// WithPageSize sets how many sites an overview page lists (at least 1).
func WithPageSize(n int) Option {
	return func(o *options) { o.pageSize = max(n, 1) }
}

// WithRefresh sets how often an open page fetches fresh data; zero or
// less turns the auto-refresh off.
func WithRefresh(d time.Duration) Option {
	return func(o *options) { o.refresh = d }
}

// WithLogger receives the errors writing a response.
func WithLogger(l *slog.Logger) Option {
	return func(o *options) {
		if l != nil {
			o.logger = l
		}
	}
}

// Handler serves the dashboard. It is safe for concurrent use as long as
// the functions it was given are.
type Handler struct {
	documents func() []status.Document
	opts      options
	pages     *pages
	mux       *http.ServeMux
}

var _ http.Handler = (*Handler)(nil)

// New returns the dashboard of the fleet whose status documents
// documents returns, afresh on every request; the dashboard only reads
// the slice. A nil documents shows an empty fleet. The handler links to
// itself with absolute paths: mount it at the root of a mux (routes
// such as /metrics or /hooks/git registered beside it take precedence).
func New(documents func() []status.Document, opts ...Option) *Handler {
	if documents == nil {
		documents = func() []status.Document { return nil }
	}
	h := &Handler{documents: documents, opts: applyOptions(opts), pages: loadPages()}
	mux := http.NewServeMux()
	mux.HandleFunc("GET /{$}", h.serveOverview)
	mux.HandleFunc("GET /sites/{site}", h.serveSite)
	mux.HandleFunc("GET /api/sites", h.serveOverviewJSON)
	mux.HandleFunc("GET /api/sites/{site}", h.serveSiteJSON)
	mux.Handle("GET /assets/", h.pages.assets)
	mux.HandleFunc("GET /", h.serveNotFound)
	h.mux = mux
	return h
}

// ServeHTTP serves the dashboard's pages, its JSON and its assets.
func (h *Handler) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	hd := w.Header()
	// Site content comes from the repository and is untrusted: besides
	// escaping, the page may load nothing but its own assets.
	hd.Set("Content-Security-Policy", "default-src 'none'; script-src 'self'; style-src 'self'; "+
		"img-src 'self'; connect-src 'self'; form-action 'self'; base-uri 'none'; frame-ancestors 'none'")
	hd.Set("X-Content-Type-Options", "nosniff")
	hd.Set("Referrer-Policy", "no-referrer")
	h.mux.ServeHTTP(w, r)
}

func (h *Handler) serveOverview(w http.ResponseWriter, r *http.Request) {
	q, err := parseQuery(r.URL.Query())
	if err != nil {
		h.htmlError(w, http.StatusBadRequest, "Bad request", err.Error())
		return
	}
	o := overview(h.documents(), q, h.opts.pageSize)
	o.Summary = h.opts.summary()
	h.render(w, http.StatusOK, h.pages.overview, pageData{Title: "Fleet", Refresh: h.opts.refresh, Body: &o})
}

func (h *Handler) serveOverviewJSON(w http.ResponseWriter, r *http.Request) {
	q, err := parseQuery(r.URL.Query())
	if err != nil {
		h.jsonError(w, http.StatusBadRequest, err.Error())
		return
	}
	o := overview(h.documents(), q, h.opts.pageSize)
	o.Summary = h.opts.summary()
	h.writeJSON(w, http.StatusOK, &o)
}

func (h *Handler) serveSite(w http.ResponseWriter, r *http.Request) {
	name := r.PathValue("site")
	d, ok := find(h.documents(), name)
	if !ok {
		h.htmlError(w, http.StatusNotFound, "No such site", "No site named "+quote(name)+" is in the fleet.")
		return
	}
	v := newSiteView(d)
	h.render(w, http.StatusOK, h.pages.site, pageData{Title: d.Site, Refresh: h.opts.refresh, Body: &v})
}

func (h *Handler) serveSiteJSON(w http.ResponseWriter, r *http.Request) {
	name := r.PathValue("site")
	d, ok := find(h.documents(), name)
	if !ok {
		h.jsonError(w, http.StatusNotFound, "no site named "+quote(name)+" in the fleet")
		return
	}
	h.writeJSON(w, http.StatusOK, d)
}

func (h *Handler) serveNotFound(w http.ResponseWriter, r *http.Request) {
	h.htmlError(w, http.StatusNotFound, "Not found", "Nothing is served at "+quote(r.URL.Path)+".")
}

func (h *Handler) htmlError(w http.ResponseWriter, code int, title, msg string) {
	h.render(w, code, h.pages.errorPage, pageData{Title: title, Body: errorView{title, msg}})
}

// errorView is what the error page shows.
type errorView struct{ Title, Message string }

func (h *Handler) jsonError(w http.ResponseWriter, code int, msg string) {
	h.writeJSON(w, code, map[string]string{"error": msg})
}

func (h *Handler) writeJSON(w http.ResponseWriter, code int, v any) {
	b, err := json.MarshalIndent(v, "", "  ")
	if err != nil {
		h.opts.logger.Error("dashboard: encode JSON", "err", err)
		http.Error(w, "internal error", http.StatusInternalServerError)
		return
	}
	w.Header().Set("Content-Type", "application/json")
	w.Header().Set("Cache-Control", "no-store")
	w.WriteHeader(code)
	// Site content is shown as written: hide the credentials it may hold.
	if _, err := io.WriteString(w, redact.Text(string(b))+"\n"); err != nil {
		h.opts.logger.Debug("dashboard: write response", "err", err)
	}
}

// quote shows an untrusted name in a message: Go-quoted, so control
// characters are visible, and bounded.
func quote(s string) string {
	const limit = 100
	if len(s) > limit {
		s = s[:limit] + "…"
	}
	return strconv.Quote(s)
}
