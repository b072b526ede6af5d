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
	p := b.newPage(1280, 900)
	shots := screenshotDir(t)

	t.Run("overview lists problems first and shows hostile text as text", func(t *testing.T) {
		p.navigate(srv.URL + "/")
		var rows []string
		p.eval(rowsJS, &rows)
		want := []string{hostileName, "ha-failed", "compact-policy", "sno-stuck", "sno-orphaned"}
		if !slices.Equal(rows, want) {
			t.Errorf("rows %q, want %q", rows, want)
		}
		var pwned any
		p.eval("window.pwned", &pwned)
		var imgs, scripts int
		p.eval("document.querySelectorAll('img').length", &imgs)
		p.eval("document.querySelectorAll('script').length", &scripts)
		if pwned != nil || imgs != 0 || scripts != 1 {
			t.Errorf("hostile content ran or became markup: pwned=%v, %d img, %d script", pwned, imgs, scripts)
		}
		// the stylesheet applied: badges are pills
		var radius string
		p.eval("getComputedStyle(document.querySelector('.badge')).borderTopLeftRadius", &radius)
		if radius == "" || radius == "0px" {
			t.Errorf("the stylesheet did not apply (badge radius %q)", radius)
		}
		save(t, shots, "overview.png", p.screenshot(1280))
	})

	t.Run("the filter form works as a plain GET form", func(t *testing.T) {
		p.navigate(srv.URL + "/")
		p.eval(`document.getElementById('q').value = 'SNO'; document.getElementById('phase').value = 'Installed'; document.querySelector('form.filter button').click()`, nil)
		p.waitFor(`location.search === '?q=SNO&phase=Installed' && document.readyState === 'complete'`)
		var rows []string
		p.eval(rowsJS, &rows)
		if want := []string{"sno-orphaned", "sno-installed"}; !slices.Equal(rows, want) {
			t.Errorf("rows %q, want %q", rows, want)
		}
		var q, phase string
		p.eval("document.getElementById('q').value", &q)
		p.eval("document.getElementById('phase').value", &phase)
		if q != "SNO" || phase != "Installed" {
			t.Errorf("the form does not keep the filter: q=%q phase=%q", q, phase)
		}
	})

	t.Run("pages follow from the pager", func(t *testing.T) {
		p.navigate(srv.URL + "/")
		p.eval(`document.querySelector('a[rel=next]').click()`, nil)
		p.waitFor(`location.search === '?page=2' && document.readyState === 'complete'`)
		var rows []string
		p.eval(rowsJS, &rows)
		if want := []string{"ha-installing", "sno-pending", "sno-installed"}; !slices.Equal(rows, want) {
			t.Errorf("rows %q, want %q", rows, want)
		}
	})

	t.Run("the page refreshes itself without reloading", func(t *testing.T) {
		p.navigate(srv.URL + "/?q=sno-")
		p.eval("window.notReloaded = true", nil)
		docs := append(sampleFleet(), docHostile())
		for i := range docs {
			if docs[i].Site == "sno-stuck" {
				docs[i] = docInstalled("sno-stuck")
			}
		}
		fl.set(docs)
		p.waitFor(`Array.from(document.querySelectorAll('table.sites tbody tr')).some(tr =>
			tr.querySelector('th').textContent === 'sno-stuck' && tr.textContent.includes('Installed'))`)
		var state struct {
			NotReloaded bool
			Live        string
			Rows        []string
		}
		p.eval(`({NotReloaded: window.notReloaded === true, Live: document.getElementById('live').textContent, Rows: `+rowsJS+`})`, &state)
		if !state.NotReloaded {
			t.Errorf("the page reloaded instead of refreshing in place")
		}
		if want := []string{"sno-orphaned", "sno-pending", "sno-installed", "sno-stuck"}; !slices.Equal(state.Rows, want) {
			t.Errorf("rows after refresh %q, want %q", state.Rows, want)
		}
		if len(state.Live) < len("Live") || state.Live[:4] != "Live" {
			t.Errorf("live indicator %q", state.Live)
		}
		fl.set(append(sampleFleet(), docHostile()))
	})

	t.Run("a site page shows hosts, findings, conditions and events", func(t *testing.T) {
		p.navigate(srv.URL + "/")
		p.eval(`Array.from(document.querySelectorAll('table.sites a')).find(a => a.textContent === 'ha-failed').click()`, nil)
		p.waitFor(`location.pathname === '/sites/ha-failed' && document.readyState === 'complete'`)
		var got struct {
			H1                    string
			Hosts, Events, Conds  int
			FirstHostState, Title string
		}
		p.eval(`({H1: document.querySelector('h1').textContent.replace(/\s+/g, ' ').trim(),
			Hosts: document.querySelectorAll('table.hosts tbody tr').length,
			Events: document.querySelectorAll('table.events tbody tr').length,
			Conds: document.querySelectorAll('table.resources tbody tr').length,
			FirstHostState: document.querySelector('table.hosts tbody td .state').textContent,
			Title: document.title})`, &got)
		want := struct {
			H1                    string
			Hosts, Events, Conds  int
			FirstHostState, Title string
		}{"ha-failed ✕ Failed", 3, 2, 2, "error", "ha-failed · siteops"}
		if got != want {
			t.Errorf("site page\n got %+v\nwant %+v", got, want)
		}
		save(t, shots, "site.png", p.screenshot(1280))
	})

	t.Run("the hostile site's page", func(t *testing.T) {
		p.navigate(srv.URL + "/")
		p.eval(`document.querySelector('table.sites a').click()`, nil)
		p.waitFor(`location.pathname.startsWith('/sites/evil') && document.readyState === 'complete'`)
		var name string
		p.eval(`document.querySelector('.crumbs [aria-current]').textContent`, &name)
		var pwned any
		p.eval("window.pwned", &pwned)
		if name != hostileName || pwned != nil {
			t.Errorf("name %q, pwned %v", name, pwned)
		}
	})

	t.Run("every site's page renders", func(t *testing.T) {
		for _, d := range sampleFleet() {
			p.navigate(srv.URL + "/sites/" + d.Site)
			var h1 string
			p.eval(`document.querySelector('h1').textContent`, &h1)
			if !strings.HasPrefix(h1, d.Site+" ") {
				t.Errorf("%s: heading %q", d.Site, h1)
			}
			save(t, shots, "site-"+d.Site+".png", p.screenshot(1280))
		}
	})

	t.Run("narrow screen", func(t *testing.T) {
		p.must("Emulation.setDeviceMetricsOverride", map[string]any{"width": 420, "height": 800, "deviceScaleFactor": 1, "mobile": true}, nil)
		p.navigate(srv.URL + "/sites/ha-installing")
		var overflow bool
		p.eval("document.documentElement.scrollWidth > window.innerWidth + 1", &overflow)
		if overflow {
			t.Errorf("the page is wider than a narrow screen; tables should scroll in their own box")
		}
		save(t, shots, "site-narrow.png", p.screenshot(420))
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
	p := b.newPage(1024, 600)
	p.navigate(srv.URL + "/")
	var text string
	p.eval(`document.querySelector('.results').textContent.replace(/\s+/g, ' ').trim()`, &text)
	if text != "No sites The fleet has no sites yet. They appear here after the first pass." {
		t.Errorf("empty fleet says %q", text)
	}
	var counts []string
	p.eval(`Array.from(document.querySelectorAll('.counts a')).map(a => a.textContent.replace(/\s+/g, ' ').trim())`, &counts)
	if len(counts) != 2+len(phaseOrder) || counts[0] != "All 0" || counts[2] != "✕ "+string(engine.PhaseFailed)+" 0" {
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
