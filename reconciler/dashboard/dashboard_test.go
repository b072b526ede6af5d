package dashboard

import (
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"regexp"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/siteops/siteops/engine"
	"github.com/siteops/siteops/reconciler/status"
)

// get serves one request and returns the status and body.
func get(t *testing.T, h http.Handler, target string) (int, http.Header, string) {
	t.Helper()
	rec := httptest.NewRecorder()
	h.ServeHTTP(rec, httptest.NewRequest(http.MethodGet, target, nil))
	b, err := io.ReadAll(rec.Result().Body)
	if err != nil {
		t.Fatal(err)
	}
	return rec.Code, rec.Result().Header, string(b)
}

// siteLinks lists the sites of an overview page in the order shown.
var siteLink = regexp.MustCompile(`<th scope="row"><a href="/sites/([^"]+)">`)

func siteLinks(body string) []string {
	var names []string
	for _, m := range siteLink.FindAllStringSubmatch(body, -1) {
		names = append(names, m[1])
	}
	return names
}

func TestOverviewFilters(t *testing.T) {
	h := New(func() []status.Document { return sampleFleet() })
	tests := []struct {
		name   string
		target string
		want   []string
	}{
		{"no filter lists problems first then progress then installed", "/",
			[]string{"ha-failed", "compact-policy", "sno-stuck", "sno-orphaned", "ha-installing", "sno-pending", "sno-installed"}},
		{"phase filter, orphaned first", "/?phase=Installed", []string{"sno-orphaned", "sno-installed"}},
		{"phase filter with no site", "/?phase=Deleting", nil},
		{"search ignores case", "/?q=SNO", []string{"sno-stuck", "sno-orphaned", "sno-pending", "sno-installed"}},
		{"search and phase", "/?q=ha&phase=Failed", []string{"ha-failed"}},
		{"attention only", "/?attention=1", []string{"ha-failed", "compact-policy", "sno-stuck", "sno-orphaned"}},
		{"search with spaces around", "/?q=+stuck+", []string{"sno-stuck"}},
		{"no match", "/?q=nothing-like-this", nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			code, _, body := get(t, h, tt.target)
			if code != http.StatusOK {
				t.Fatalf("status %d:\n%s", code, body)
			}
			if got := siteLinks(body); !slices.Equal(got, tt.want) {
				t.Errorf("sites %v, want %v", got, tt.want)
			}
			if tt.want == nil && !strings.Contains(body, "No site matches this filter") {
				t.Errorf("an empty result does not say so:\n%s", body)
			}
		})
	}
}

func TestOverviewBadQuery(t *testing.T) {
	h := New(func() []status.Document { return sampleFleet() })
	tests := []struct {
		name, target, want string
	}{
		{"unknown phase names the phases", "/?phase=Done", `phase: unknown phase &#34;Done&#34;; use one of Failed, Invalid, PolicyFailed, Deleting`},
		{"page not a number", "/?page=two", `page: &#34;two&#34; is not a page number`},
		{"page zero", "/?page=0", `page: &#34;0&#34; is not a page number`},
		{"attention not a flag", "/?attention=maybe", `attention: &#34;maybe&#34; is not 1 or 0`},
		{"search too long", "/?q=" + strings.Repeat("a", 300), `q: the search is longer than 253 characters`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			code, _, body := get(t, h, tt.target)
			if code != http.StatusBadRequest {
				t.Errorf("status %d, want 400", code)
			}
			if !strings.Contains(body, tt.want) {
				t.Errorf("body does not say %q:\n%s", tt.want, body)
			}
			code, _, body = get(t, h, "/api/sites"+strings.TrimPrefix(tt.target, "/"))
			if code != http.StatusBadRequest {
				t.Errorf("API status %d, want 400", code)
			}
			var e struct{ Error string }
			if err := json.Unmarshal([]byte(body), &e); err != nil || e.Error == "" {
				t.Errorf("API error is not {\"error\": …}: %v\n%s", err, body)
			}
		})
	}
}

func TestOverviewPagination(t *testing.T) {
	docs := bigFleet(125)
	h := New(func() []status.Document { return docs }, WithPageSize(50))
	tests := []struct {
		name        string
		target      string
		first, last string
		rows        int
		showing     string
		prev, next  string // links expected, "" when the page has none
	}{
		// 3 failed, 32 installing, 30 pending, 60 installed (see bigFleet)
		{"first page: failed, installing, then pending", "/", "site-00007", "site-00061", 50, "Sites 1–50 of 125",
			"", "/?page=2"},
		{"middle page", "/?page=2", "site-00065", "site-00071", 50, "Sites 51–100 of 125", "/", "/?page=3"},
		{"last page", "/?page=3", "site-00074", "site-00123", 25, "Sites 101–125 of 125", "/?page=2", ""},
		{"past the end shows the last page", "/?page=99", "site-00074", "site-00123", 25, "Sites 101–125 of 125", "/?page=2", ""},
		{"filter keeps its parameters in page links", "/?phase=Installed&page=2", "site-00103", "site-00123", 10, "Sites 51–60 of 60 matching",
			"/?phase=Installed", ""},
		{"attention filter", "/?attention=1", "site-00007", "site-00107", 3, "Sites 1–3 of 3 matching", "", ""},
		{"search across pages", "/?q=site-0001", "site-00012", "site-00019", 10, "Sites 1–10 of 10 matching", "", ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			code, _, body := get(t, h, tt.target)
			if code != http.StatusOK {
				t.Fatalf("status %d", code)
			}
			got := siteLinks(body)
			if len(got) != tt.rows || got[0] != tt.first || got[len(got)-1] != tt.last {
				t.Errorf("%d rows %s … %s, want %d rows %s … %s", len(got), got[0], got[len(got)-1], tt.rows, tt.first, tt.last)
			}
			if !strings.Contains(body, tt.showing) {
				t.Errorf("does not say %q", tt.showing)
			}
			checkLink(t, body, "prev", tt.prev)
			checkLink(t, body, "next", tt.next)
		})
	}
}

func checkLink(t *testing.T, body, rel, want string) {
	t.Helper()
	m := regexp.MustCompile(`<a href="([^"]*)" rel="` + rel + `">`).FindStringSubmatch(body)
	switch {
	case want == "" && m != nil:
		t.Errorf("rel=%s link %q, want none", rel, m[1])
	case want != "" && m == nil:
		t.Errorf("no rel=%s link, want %q", rel, want)
	case want != "" && strings.ReplaceAll(m[1], "&amp;", "&") != want:
		t.Errorf("rel=%s link %q, want %q", rel, m[1], want)
	}
}

func TestOverviewCounts(t *testing.T) {
	h := New(func() []status.Document { return sampleFleet() })
	_, _, body := get(t, h, "/?phase=Installed")
	for _, want := range []string{
		`All <strong>7</strong>`,
		`Needs attention</span> <strong>4</strong>`,
		`Failed</span> <strong>1</strong>`,
		`Installed</span> <strong>2</strong>`,
		`Deleting</span> <strong>0</strong>`,
	} {
		if !strings.Contains(body, want) {
			t.Errorf("counts do not show %q", want)
		}
	}
	if !regexp.MustCompile(`class="count current" href="/\?phase=Installed" aria-current="page"`).MatchString(body) {
		t.Errorf("the Installed filter is not marked current")
	}
}

func TestOverviewJSON(t *testing.T) {
	lastPass := time.Date(2026, 3, 4, 5, 6, 7, 0, time.UTC)
	h := New(func() []status.Document { return bigFleet(125) }, WithPageSize(50),
		WithSummary(func() Summary {
			return Summary{Source: "git://127.0.0.1/fleet.git main", Revision: rev(9), LastPass: lastPass}
		}))
	code, hdr, body := get(t, h, "/api/sites?phase=Failed")
	if code != http.StatusOK || hdr.Get("Content-Type") != "application/json" {
		t.Fatalf("status %d, %s", code, hdr.Get("Content-Type"))
	}
	var o Overview
	if err := json.Unmarshal([]byte(body), &o); err != nil {
		t.Fatal(err)
	}
	if o.Sites != 125 || o.Matching != 3 || o.Page != 1 || o.Pages != 1 || len(o.Rows) != 3 || o.Attention != 3 {
		t.Errorf("sites %d matching %d page %d/%d rows %d attention %d", o.Sites, o.Matching, o.Page, o.Pages, len(o.Rows), o.Attention)
	}
	if r := o.Rows[0]; r.Site != "site-00007" || r.Phase != engine.PhaseFailed || r.Hosts != 3 || r.HostsDone != 1 || r.ClusterPercent != 44 || r.Attention != "InstallFailed: the installation failed" {
		t.Errorf("first row %+v", r)
	}
	if o.Summary.Revision != rev(9) || !o.Summary.LastPass.Equal(lastPass) {
		t.Errorf("summary %+v", o.Summary)
	}
	if len(o.Counts) != len(engine.Phases()) || o.Counts[0] != (PhaseCount{engine.PhaseFailed, 3}) {
		t.Errorf("counts %+v", o.Counts)
	}
}

func TestSite(t *testing.T) {
	h := New(func() []status.Document { return sampleFleet() })
	tests := []struct {
		name   string
		target string
		code   int
		want   []string
	}{
		{"host table and conditions", "/sites/ha-installing", http.StatusOK, []string{
			`<h1>ha-installing <span class="badge phase-progress">`,
			`<td>Writing image to disk</td>`,
			`<progress max="100" value="62"`,
			`InstallationInProgress`,
			// events newest first, in virtual time
			"2026-01-01 00:12:00Z</time></td><td>AgentClusterInstall/ha-installing",
		}},
		{"findings with file:line and remediation", "/sites/compact-policy", http.StatusOK, []string{
			`<code>sites/compact-policy.yaml:14:7</code>`,
			`Pick an apiVIP inside a machineNetwork CIDR.`,
			`1 deny, 1 warn`,
		}},
		{"stuck site says why", "/sites/sno-stuck", http.StatusOK, []string{
			`<strong>Needs attention:</strong> ValidationsFailing: validations fail, so the installation cannot start (host sno-stuck-node1: Require at least 32.00 GiB RAM for role master, found only 16.00 GiB)`,
			`<code>sufficient-masters-count</code>`,
		}},
		{"orphaned site", "/sites/sno-orphaned", http.StatusOK, []string{`no longer defined in the repository`}},
		{"unknown site", "/sites/nope", http.StatusNotFound, []string{`No site named &#34;nope&#34; is in the fleet.`}},
		{"unknown path", "/nope", http.StatusNotFound, []string{`Nothing is served at &#34;/nope&#34;.`}},
		{"a slash in a site name does not route elsewhere", "/sites/a%2Fb", http.StatusNotFound, []string{`No site named &#34;a/b&#34;`}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			code, _, body := get(t, h, tt.target)
			if code != tt.code {
				t.Errorf("status %d, want %d", code, tt.code)
			}
			for _, w := range tt.want {
				if !strings.Contains(body, w) {
					t.Errorf("page does not contain %q:\n%s", w, body)
				}
			}
		})
	}
	// the pending validation is not shown as failing
	_, _, body := get(t, h, "/sites/sno-stuck")
	if strings.Contains(body, "Host NTP is pending") {
		t.Errorf("a pending validation is listed as failing")
	}
}

func TestSiteJSON(t *testing.T) {
	h := New(func() []status.Document { return sampleFleet() })
	code, _, body := get(t, h, "/api/sites/compact-policy")
	if code != http.StatusOK {
		t.Fatalf("status %d", code)
	}
	var d status.Document
	if err := json.Unmarshal([]byte(body), &d); err != nil {
		t.Fatal(err)
	}
	if d.Site != "compact-policy" || d.Phase != engine.PhasePolicyFailed || len(d.Findings) != 2 || d.Findings[0].Pos.Line != 14 {
		t.Errorf("document %+v", d)
	}
	code, _, body = get(t, h, "/api/sites/nope")
	if code != http.StatusNotFound || !strings.Contains(body, `"error": "no site named \"nope\" in the fleet"`) {
		t.Errorf("unknown site: %d %s", code, body)
	}
}

// TestEscaping puts markup in every place a repository controls and
// checks that it comes out as text, on every page.
func TestEscaping(t *testing.T) {
	docs := append(sampleFleet(), docHostile())
	h := New(func() []status.Document { return docs },
		WithSummary(func() Summary { return Summary{Source: hostileMessage, Problem: hostileMessage} }))
	for _, target := range []string{"/", "/?q=evil", "/sites/" + escapePath(hostileName), "/sites/" + escapePath(hostileName) + "x"} {
		t.Run(target, func(t *testing.T) {
			code, _, body := get(t, h, target)
			for _, bad := range []string{"<script>window", "<img src=x", "<b>bold</b>", "<b>rule</b>", "</td><script>"} {
				if strings.Contains(body, bad) {
					t.Errorf("unescaped %q in page", bad)
				}
			}
			if code == http.StatusOK && !strings.Contains(body, "evil&lt;img src=x onerror=&#34;window.pwned=1&#34;&gt;") {
				t.Errorf("the hostile name is not shown as text")
			}
		})
	}
	_, _, body := get(t, h, "/?q=evil")
	if !strings.Contains(body, `href="/sites/evil%3Cimg%20src=x%20onerror=%22window.pwned=1%22%3E"`) {
		t.Errorf("the site link is not path-escaped:\n%s", body)
	}
}

func escapePath(s string) string {
	return strings.NewReplacer("<", "%3C", ">", "%3E", `"`, "%22", " ", "%20").Replace(s)
}

func TestHeadersAndAssets(t *testing.T) {
	h := New(nil)
	code, hdr, body := get(t, h, "/")
	if code != http.StatusOK || !strings.Contains(body, "The fleet has no sites yet") {
		t.Errorf("empty fleet: %d\n%s", code, body)
	}
	if csp := hdr.Get("Content-Security-Policy"); !strings.Contains(csp, "default-src 'none'") || !strings.Contains(csp, "script-src 'self'") {
		t.Errorf("CSP %q", csp)
	}
	if strings.Contains(body, "http://") || strings.Contains(body, "https://") {
		t.Errorf("the page refers to an external URL")
	}
	css := regexp.MustCompile(`href="(/assets/dashboard.css\?v=[0-9a-f]{12})"`).FindStringSubmatch(body)
	js := regexp.MustCompile(`src="(/assets/dashboard.js\?v=[0-9a-f]{12})"`).FindStringSubmatch(body)
	if css == nil || js == nil {
		t.Fatalf("assets not linked with a content hash")
	}
	for _, a := range []struct{ path, typ string }{{css[1], "text/css"}, {js[1], "text/javascript"}} {
		code, hdr, body := get(t, h, a.path)
		if code != http.StatusOK || !strings.HasPrefix(hdr.Get("Content-Type"), a.typ) || len(body) < 100 {
			t.Errorf("%s: %d %s", a.path, code, hdr.Get("Content-Type"))
		}
		if strings.Contains(body, "http://") || strings.Contains(body, "https://") {
			t.Errorf("%s refers to an external URL", a.path)
		}
	}
	for _, p := range []string{"/assets/layout.html", "/assets/", "/assets/x/dashboard.css"} {
		if code, _, _ := get(t, h, p); code != http.StatusNotFound {
			t.Errorf("%s: %d, want 404", p, code)
		}
	}
	rec := httptest.NewRecorder()
	h.ServeHTTP(rec, httptest.NewRequest(http.MethodPost, "/", nil))
	if rec.Code != http.StatusMethodNotAllowed || rec.Result().Header.Get("Allow") == "" {
		t.Errorf("POST /: %d, want 405 with Allow", rec.Code)
	}
}

func TestRefreshSetting(t *testing.T) {
	tests := []struct {
		name string
		opts []Option
		want string
	}{
		{"default", nil, `data-refresh-ms="5000"`},
		{"set", []Option{WithRefresh(250 * time.Millisecond)}, `data-refresh-ms="250"`},
		{"off", []Option{WithRefresh(0)}, `data-refresh-ms="0"`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, _, body := get(t, New(nil, tt.opts...), "/")
			if !strings.Contains(body, tt.want) {
				t.Errorf("page lacks %s", tt.want)
			}
		})
	}
}
