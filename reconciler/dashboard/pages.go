package dashboard

import (
	"bytes"
	"crypto/sha256"
	"embed"
	"encoding/hex"
	"html/template"
	"io"
	"io/fs"
	"net/http"
	"net/url"
	"path"
	"strconv"
	"strings"
	"time"

	"github.com/siteops/siteops/engine"
	"github.com/siteops/siteops/engine/assisted"
	"github.com/siteops/siteops/internal/redact"
	"github.com/siteops/siteops/policy/report"
	"github.com/siteops/siteops/reconciler/source"
)

//go:embed assets/*.html assets/*.css assets/*.js assets/*.svg
var assetFS embed.FS

// pages holds the parsed templates and the static assets.
type pages struct {
	overview, site, errorPage *template.Template
	assets                    http.Handler
	// assetURL maps an asset's name to its URL, which carries a hash of
	// its content so that browsers may cache it for good.
	assetURL map[string]string
}

// loadPages parses the embedded templates. They are part of the binary,
// so a failure is a bug caught by every test.
func loadPages() *pages {
	p := &pages{assetURL: map[string]string{}}
	static, err := fs.Sub(assetFS, "assets")
	if err != nil {
		panic(err)
	}
	for _, name := range []string{"dashboard.css", "dashboard.js", "favicon.svg"} {
		b, err := fs.ReadFile(static, name)
		if err != nil {
			panic(err)
		}
		sum := sha256.Sum256(b)
		p.assetURL[name] = "/assets/" + name + "?v=" + hex.EncodeToString(sum[:6])
	}
	files := http.StripPrefix("/assets/", http.FileServerFS(static))
	p.assets = http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if _, ok := p.assetURL[path.Base(r.URL.Path)]; !ok || strings.Count(r.URL.Path, "/") != 2 {
			http.NotFound(w, r)
			return
		}
		w.Header().Set("Cache-Control", "public, max-age=31536000, immutable")
		files.ServeHTTP(w, r)
	})
	funcs := template.FuncMap{
		"asset":       func(name string) string { return p.assetURL[name] },
		"phaseClass":  phaseClass,
		"phaseSymbol": phaseSymbol,
		"siteURL":     siteURL,
		"vtime":       virtualTime,
		"wallTime":    wallTime,
		"isoTime":     func(t time.Time) string { return t.UTC().Format(time.RFC3339) },
		"failing":     assisted.ValidationFailing,
		"severityClass": func(s report.Severity) string {
			return "sev-" + classWord(string(s))
		},
		"classWord":      classWord,
		"hostStateClass": hostStateClass,
		"num":            thousands,
		"shortRevision":  source.ShortRevision,
		"add":            func(a, b int) int { return a + b },
	}
	parse := func(page string) *template.Template {
		return template.Must(template.New("layout.html").Funcs(funcs).
			ParseFS(assetFS, "assets/layout.html", "assets/parts.html", "assets/"+page))
	}
	p.overview = parse("overview.html")
	p.site = parse("site.html")
	p.errorPage = parse("error.html")
	return p
}

// pageData is what the layout receives.
type pageData struct {
	Title   string
	Refresh time.Duration
	Body    any
}

// RefreshMillis is the auto-refresh period for the page's script, 0 when
// off.
func (d pageData) RefreshMillis() int64 { return max(d.Refresh.Milliseconds(), 0) }

// render executes a page into a buffer first, so that a template error
// gives a clean 500 rather than half a page.
func (h *Handler) render(w http.ResponseWriter, code int, t *template.Template, data pageData) {
	var buf bytes.Buffer
	if err := t.Execute(&buf, data); err != nil {
		h.opts.logger.Error("dashboard: render page", "page", t.Name(), "err", err)
		http.Error(w, "internal error", http.StatusInternalServerError)
		return
	}
	w.Header().Set("Content-Type", "text/html; charset=utf-8")
	w.Header().Set("Cache-Control", "no-store")
	w.WriteHeader(code)
	// Site content is shown as written: hide the credentials it may hold.
	if _, err := io.WriteString(w, redact.Text(buf.String())); err != nil {
		h.opts.logger.Debug("dashboard: write response", "err", err)
	}
}

// phaseStyle gives each phase a CSS class and a symbol, so a phase reads
// without colour too.
var phaseStyle = map[engine.Phase]struct{ class, symbol string }{
	engine.PhaseFailed:       {"failed", "✕"},
	engine.PhaseInvalid:      {"policy", "⚠"},
	engine.PhasePolicyFailed: {"policy", "⚠"},
	engine.PhasePending:      {"pending", "…"},
	engine.PhaseProvisioning: {"progress", "↻"},
	engine.PhaseInstalling:   {"progress", "↻"},
	engine.PhaseInstalled:    {"installed", "✓"},
	engine.PhaseDeleting:     {"deleting", "⌫"},
}

func phaseClass(p engine.Phase) string {
	if s, ok := phaseStyle[p]; ok {
		return "phase-" + s.class
	}
	return "phase-other"
}

func phaseSymbol(p engine.Phase) string {
	if s, ok := phaseStyle[p]; ok {
		return s.symbol
	}
	return "?"
}

// classWord keeps a value usable inside a class attribute.
func classWord(s string) string {
	return strings.Map(func(r rune) rune {
		if r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9' || r == '-' {
			return r
		}
		return -1
	}, strings.ToLower(s))
}

func siteURL(site string) string { return "/sites/" + url.PathEscape(site) }

// virtualTime prints an engine time: virtual, so shown in UTC to the
// second and never compared with the wall clock.
func virtualTime(t time.Time) string {
	if t.IsZero() {
		return "—"
	}
	return t.UTC().Format("2006-01-02 15:04:05Z")
}

func wallTime(t time.Time) string {
	if t.IsZero() {
		return ""
	}
	return t.UTC().Format("2006-01-02 15:04:05 UTC")
}

// thousands prints a count with thousands separators: 10,000 sites.
func thousands(n int) string {
	s := strconv.Itoa(n)
	if n < 0 {
		return "-" + thousands(-n)
	}
	var b strings.Builder
	for i, c := range s {
		if i > 0 && (len(s)-i)%3 == 0 {
			b.WriteByte(',')
		}
		b.WriteRune(c)
	}
	return b.String()
}

// hostStateClass marks the host states that wait on a person and those
// that are done.
func hostStateClass(state string) string {
	switch st := assisted.HostStatus(state); {
	case st.In(assisted.HostNeedsActionStatuses...) || st.In(assisted.HostFailedStatuses...):
		return "state state-waiting"
	case st.In(assisted.HostDoneStatuses...):
		return "state state-done"
	}
	return "state"
}
