package dashboard

import (
	"bytes"
	"image/png"
	"net/http/httptest"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/siteops/siteops/engine"
	"github.com/siteops/siteops/reconciler/status"
)

// rowsJS lists the site names of the overview rows, as the browser shows
// them.
const rowsJS = `Array.from(document.querySelectorAll('table.sites tbody th[scope=row]')).map(e => e.textContent)`

// TestBrowser drives headless Chromium through a real server on
// loopback: the overview, hostile content, the filter form, paging, the
// auto-refresh and a site page. SITEOPS_SCREENSHOTS=DIR keeps the
// screenshots it takes.
func TestBrowser(t *testing.T) {
	fl := &fleet{}
	fl.set(append(sampleFleet(), docHostile()))
	h := New(fl.Documents, WithPageSize(5), WithRefresh(200*time.Millisecond),
		WithSummary(func() Summary {
			return Summary{Source: "git://127.0.0.1:9418/fleet.git (main)", Revision: rev(9),
				LastPass: time.Date(2026, 3, 4, 5, 6, 7, 0, time.UTC)}
		}))
	srv := httptest.NewServer(h)
	defer srv.Close()

	b := startBrowser(t)
	p := b.newPage(t, 1280, 900)
	shots := screenshotDir(t)

	t.Run("overview lists problems first and shows hostile text as text", func(t *testing.T) {
		p.navigate(t, srv.URL+"/")
		var rows []string
		p.eval(t, rowsJS, &rows)
		want := []string{hostileName, "ha-failed", "compact-policy", "sno-stuck", "sno-orphaned"}
		if !slices.Equal(rows, want) {
			t.Errorf("rows %q, want %q", rows, want)
		}
		var pwned any
		p.eval(t, "window.pwned", &pwned)
		var imgs, scripts int
		p.eval(t, "document.querySelectorAll('img').length", &imgs)
		p.eval(t, "document.querySelectorAll('script').length", &scripts)
		if pwned != nil || imgs != 0 || scripts != 1 {
			t.Errorf("hostile content ran or became markup: pwned=%v, %d img, %d script", pwned, imgs, scripts)
		}
		// the stylesheet applied: badges are pills
		var radius string
		p.eval(t, "getComputedStyle(document.querySelector('.badge')).borderTopLeftRadius", &radius)
		if radius == "" || radius == "0px" {
			t.Errorf("the stylesheet did not apply (badge radius %q)", radius)
		}
		save(t, shots, "overview.png", p.screenshot(t, 1280))
	})

	t.Run("the filter form works as a plain GET form", func(t *testing.T) {
		p.navigate(t, srv.URL+"/")
		p.eval(t, `document.getElementById('q').value = 'SNO'; document.getElementById('phase').value = 'Installed'`, nil)
		p.click(t, `document.querySelector('form.filter button')`)
		p.waitFor(t, `location.search === '?q=SNO&phase=Installed' && document.readyState === 'complete'`)
		var rows []string
		p.eval(t, rowsJS, &rows)
		if want := []string{"sno-orphaned", "sno-installed"}; !slices.Equal(rows, want) {
			t.Errorf("rows %q, want %q", rows, want)
		}
		var q, phase string
		p.eval(t, "document.getElementById('q').value", &q)
		p.eval(t, "document.getElementById('phase').value", &phase)
		if q != "SNO" || phase != "Installed" {
			t.Errorf("the form does not keep the filter: q=%q phase=%q", q, phase)
		}
	})

	t.Run("pages follow from the pager", func(t *testing.T) {
		p.navigate(t, srv.URL+"/")
		p.click(t, `document.querySelector('a[rel=next]')`)
		p.waitFor(t, `location.search === '?page=2' && document.readyState === 'complete'`)
		var rows []string
		p.eval(t, rowsJS, &rows)
		if want := []string{"ha-installing", "sno-pending", "sno-installed"}; !slices.Equal(rows, want) {
			t.Errorf("rows %q, want %q", rows, want)
		}
	})

	t.Run("the page refreshes itself without reloading", func(t *testing.T) {
		p.navigate(t, srv.URL+"/?q=sno-")
		p.eval(t, "window.notReloaded = true", nil)
		docs := append(sampleFleet(), docHostile())
		for i := range docs {
			if docs[i].Site == "sno-stuck" {
				docs[i] = docInstalled("sno-stuck")
			}
		}
		fl.set(docs)
		p.waitFor(t, `Array.from(document.querySelectorAll('table.sites tbody tr')).some(tr =>
			tr.querySelector('th').textContent === 'sno-stuck' && tr.textContent.includes('Installed'))`)
		var state struct {
			NotReloaded bool
			Live        string
			Rows        []string
		}
		p.eval(t, `({NotReloaded: window.notReloaded === true, Live: document.getElementById('live').textContent, Rows: `+rowsJS+`})`, &state)
		if !state.NotReloaded {
			t.Errorf("the page reloaded instead of refreshing in place")
		}
		if want := []string{"sno-orphaned", "sno-pending", "sno-installed", "sno-stuck"}; !slices.Equal(state.Rows, want) {
			t.Errorf("rows after refresh %q, want %q", state.Rows, want)
		}
		if len(state.Live) < len("Live") || state.Live[:4] != "Live" {
			t.Errorf("live indicator %q", state.Live)
		}
		save(t, shots, "overview-refreshed.png", p.screenshot(t, 1280))
		fl.set(append(sampleFleet(), docHostile()))
	})

	t.Run("the refresh waits while the keyboard focus is in the list", func(t *testing.T) {
		p.navigate(t, srv.URL+"/?q=sno-")
		p.eval(t, `document.querySelector('table.sites a').focus()`, nil)
		// the list changes while a link has the focus
		fl.set(append(sampleFleet()[:1], docHostile()))
		p.eval(t, `new Promise(r => setTimeout(r, 800))`, nil) // four refresh periods
		var focused string
		p.eval(t, `document.activeElement.textContent`, &focused)
		var rows []string
		p.eval(t, rowsJS, &rows)
		if focused != "sno-stuck" || len(rows) != 4 {
			t.Errorf("focus on %q, %d rows: the refresh replaced the list under the focus", focused, len(rows))
		}
		// once the focus leaves, the list catches up
		p.eval(t, `document.activeElement.blur()`, nil)
		p.waitFor(t, `document.querySelectorAll('table.sites tbody tr').length === 1`)
		fl.set(append(sampleFleet(), docHostile()))
	})

	t.Run("a site page shows hosts, findings, conditions and events", func(t *testing.T) {
		p.navigate(t, srv.URL+"/")
		p.click(t, `Array.from(document.querySelectorAll('table.sites a')).find(a => a.textContent === 'ha-failed')`)
		p.waitFor(t, `location.pathname === '/sites/ha-failed' && document.readyState === 'complete'`)
		var got struct {
			H1                    string
			Hosts, Events, Conds  int
			FirstHostState, Title string
		}
		p.eval(t, `({H1: document.querySelector('h1').textContent.replace(/\s+/g, ' ').trim(),
			Hosts: document.querySelectorAll('table.hosts tbody tr').length,
			Events: document.querySelectorAll('table.events tbody tr').length,
			Conds: document.querySelectorAll('table.resources tbody tr').length,
			FirstHostState: document.querySelector('table.hosts tbody td .state').textContent,
			Title: document.title})`, &got)
		want := struct {
			H1                    string
			Hosts, Events, Conds  int
			FirstHostState, Title string
		}{"ha-failed ✕ Failed ! InstallFailed", 3, 2, 2, "error", "ha-failed · siteops"}
		if got != want {
			t.Errorf("site page\n got %+v\nwant %+v", got, want)
		}
		save(t, shots, "site.png", p.screenshot(t, 1280))
	})

	t.Run("the hostile site's page", func(t *testing.T) {
		p.navigate(t, srv.URL+"/")
		p.click(t, `document.querySelector('table.sites a')`)
		p.waitFor(t, `location.pathname.startsWith('/sites/evil') && document.readyState === 'complete'`)
		var name string
		p.eval(t, `document.querySelector('.crumbs [aria-current]').textContent`, &name)
		var pwned any
		p.eval(t, "window.pwned", &pwned)
		if name != hostileName || pwned != nil {
			t.Errorf("name %q, pwned %v", name, pwned)
		}
	})

	t.Run("every site's page renders", func(t *testing.T) {
		for _, d := range sampleFleet() {
			p.navigate(t, srv.URL+"/sites/"+d.Site)
			var h1 string
			p.eval(t, `document.querySelector('h1').textContent`, &h1)
			if !strings.HasPrefix(h1, d.Site+" ") {
				t.Errorf("%s: heading %q", d.Site, h1)
			}
			save(t, shots, "site-"+d.Site+".png", p.screenshot(t, 1280))
		}
	})

	t.Run("narrow screen", func(t *testing.T) {
		p.resize(t, 420, 800)
		p.navigate(t, srv.URL+"/sites/ha-installing")
		var overflow bool
		p.eval(t, "document.documentElement.scrollWidth > window.innerWidth + 1", &overflow)
		if overflow {
			t.Errorf("the page is wider than a narrow screen; tables should scroll in their own box")
		}
		save(t, shots, "site-narrow.png", p.screenshot(t, 420))
	})

	if errs := b.errors(); len(errs) > 0 {
		t.Errorf("the pages reported errors (a CSP violation, a missing asset, a script error):\n%q", errs)
	}
}

// TestBrowserEmptyFleet checks the first thing a new user sees.
func TestBrowserEmptyFleet(t *testing.T) {
	srv := httptest.NewServer(New(func() []status.Document { return nil }))
	defer srv.Close()
	b := startBrowser(t)
	p := b.newPage(t, 1024, 600)
	p.navigate(t, srv.URL+"/")
	var text string
	p.eval(t, `document.querySelector('.results').textContent.replace(/\s+/g, ' ').trim()`, &text)
	if text != "No sites The fleet has no sites yet. They appear here after the first pass." {
		t.Errorf("empty fleet says %q", text)
	}
	var counts []string
	p.eval(t, `Array.from(document.querySelectorAll('.counts a')).map(a => a.textContent.replace(/\s+/g, ' ').trim())`, &counts)
	if len(counts) != 2+len(engine.Phases()) || counts[0] != "All 0" || counts[2] != "✕ "+string(engine.PhaseFailed)+" 0" {
		t.Errorf("counts %q", counts)
	}
}

func screenshotDir(t *testing.T) string {
	if d := os.Getenv("SITEOPS_SCREENSHOTS"); d != "" {
		if err := os.MkdirAll(d, 0o755); err != nil {
			t.Fatal(err)
		}
		return d
	}
	return t.TempDir()
}

// save checks that a screenshot is a real picture and writes it.
func save(t *testing.T, dir, name string, data []byte) {
	t.Helper()
	img, err := png.Decode(bytes.NewReader(data))
	if err != nil {
		t.Fatalf("%s: %v", name, err)
	}
	if r := img.Bounds(); r.Dx() < 400 || r.Dy() < 300 {
		t.Errorf("%s is %dx%d", name, r.Dx(), r.Dy())
	}
	if err := os.WriteFile(filepath.Join(dir, name), data, 0o644); err != nil {
		t.Fatal(err)
	}
}
