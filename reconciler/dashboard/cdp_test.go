package dashboard

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/coder/websocket"
)

// A small client of the Chrome DevTools Protocol, enough to drive a
// headless Chromium through the dashboard: open a page, evaluate
// JavaScript in it, take a screenshot, and collect what the page logs.

// chromiumPath finds the browser. A missing browser fails the test: the
// dashboard's end-to-end test must not pass without running.
func chromiumPath(t *testing.T) string {
	t.Helper()
	if p := os.Getenv("SITEOPS_CHROMIUM"); p != "" {
		return p
	}
	for _, name := range []string{"chromium", "chromium-browser", "google-chrome"} {
		if p, err := exec.LookPath(name); err == nil {
			return p
		}
	}
	t.Fatal("headless Chromium is needed for this test and was not found: install it with " +
		"`apt-get install -y chromium` (.ci/run does) or set SITEOPS_CHROMIUM to its path")
	return ""
}

type browser struct {
	t      *testing.T
	cmd    *exec.Cmd
	stderr *bytes.Buffer
	conn   *websocket.Conn
	ctx    context.Context
	cancel context.CancelFunc

	mu      sync.Mutex
	nextID  int64
	pending map[int64]chan cdpMessage
	logs    []string // errors the pages logged or threw
}

type cdpMessage struct {
	ID        int64           `json:"id,omitempty"`
	SessionID string          `json:"sessionId,omitempty"`
	Method    string          `json:"method,omitempty"`
	Params    json.RawMessage `json:"params,omitempty"`
	Result    json.RawMessage `json:"result,omitempty"`
	Error     *struct {
		Code    int    `json:"code"`
		Message string `json:"message"`
	} `json:"error,omitempty"`
}

// startBrowser starts Chromium on loopback and connects to it. The
// browser is stopped when the test ends.
func startBrowser(t *testing.T) *browser {
	t.Helper()
	path := chromiumPath(t)
	profile := t.TempDir()
	b := &browser{t: t, stderr: &bytes.Buffer{}, pending: map[int64]chan cdpMessage{}}
	b.cmd = exec.Command(path, "--headless", "--no-sandbox", "--disable-gpu", "--disable-quic",
		"--no-first-run", "--disable-background-networking", "--disable-component-update",
		"--disable-sync", "--disable-extensions", "--mute-audio", "--hide-scrollbars",
		"--user-data-dir="+profile, "--remote-debugging-address=127.0.0.1",
		"--remote-debugging-port=0", "--window-size=1280,900", "about:blank")
	b.cmd.Stderr = b.stderr
	if err := b.cmd.Start(); err != nil {
		t.Fatalf("start %s: %v", path, err)
	}
	b.ctx, b.cancel = context.WithCancel(context.Background())
	t.Cleanup(b.close)

	// Chromium writes the port it chose and the browser's endpoint to
	// DevToolsActivePort in its profile once it listens.
	var endpoint string
	deadline := time.Now().Add(30 * time.Second)
	for endpoint == "" {
		raw, err := os.ReadFile(filepath.Join(profile, "DevToolsActivePort"))
		if lines := strings.Split(strings.TrimSpace(string(raw)), "\n"); err == nil && len(lines) == 2 {
			endpoint = "ws://127.0.0.1:" + lines[0] + lines[1]
			break
		}
		if time.Now().After(deadline) || b.cmd.ProcessState != nil {
			t.Fatalf("Chromium did not open its DevTools port within 30s; its output:\n%s", b.stderr)
		}
		time.Sleep(50 * time.Millisecond)
	}
	conn, _, err := websocket.Dial(b.ctx, endpoint, nil)
	if err != nil {
		t.Fatalf("connect to Chromium at %s: %v", endpoint, err)
	}
	conn.SetReadLimit(256 << 20) // screenshots
	b.conn = conn
	go b.read()
	return b
}

func (b *browser) read() {
	for {
		_, data, err := b.conn.Read(b.ctx)
		if err != nil {
			b.mu.Lock()
			for id, ch := range b.pending {
				close(ch)
				delete(b.pending, id)
			}
			b.mu.Unlock()
			return
		}
		var m cdpMessage
		if json.Unmarshal(data, &m) != nil {
			continue
		}
		b.mu.Lock()
		if m.ID != 0 {
			if ch, ok := b.pending[m.ID]; ok {
				ch <- m
				delete(b.pending, m.ID)
			}
		} else if s := pageError(m); s != "" {
			b.logs = append(b.logs, s)
		}
		b.mu.Unlock()
	}
}

// pageError turns an event into the error a page reported, or "".
func pageError(m cdpMessage) string {
	switch m.Method {
	case "Runtime.exceptionThrown":
		var p struct {
			ExceptionDetails struct {
				Text      string `json:"text"`
				Exception struct {
					Description string `json:"description"`
				} `json:"exception"`
			} `json:"exceptionDetails"`
		}
		_ = json.Unmarshal(m.Params, &p)
		return "exception: " + p.ExceptionDetails.Text + " " + p.ExceptionDetails.Exception.Description
	case "Log.entryAdded":
		var p struct {
			Entry struct {
				Level, Source, Text, URL string
			} `json:"entry"`
		}
		_ = json.Unmarshal(m.Params, &p)
		if p.Entry.Level == "error" {
			return fmt.Sprintf("log (%s): %s %s", p.Entry.Source, p.Entry.Text, p.Entry.URL)
		}
	case "Runtime.consoleAPICalled":
		var p struct {
			Type string            `json:"type"`
			Args []json.RawMessage `json:"args"`
		}
		_ = json.Unmarshal(m.Params, &p)
		if p.Type == "error" {
			return "console.error: " + fmt.Sprint(p.Args)
		}
	}
	return ""
}

// call sends one command and waits for its answer.
func (b *browser) call(session, method string, params any, result any) error {
	b.mu.Lock()
	b.nextID++
	id := b.nextID
	ch := make(chan cdpMessage, 1)
	b.pending[id] = ch
	b.mu.Unlock()
	if params == nil {
		params = struct{}{}
	}
	p, err := json.Marshal(params)
	if err != nil {
		return err
	}
	msg, err := json.Marshal(cdpMessage{ID: id, SessionID: session, Method: method, Params: p})
	if err != nil {
		return err
	}
	ctx, cancel := context.WithTimeout(b.ctx, 30*time.Second)
	defer cancel()
	if err := b.conn.Write(ctx, websocket.MessageText, msg); err != nil {
		return fmt.Errorf("%s: %w", method, err)
	}
	select {
	case m, ok := <-ch:
		switch {
		case !ok:
			return fmt.Errorf("%s: the connection to Chromium closed", method)
		case m.Error != nil:
			return fmt.Errorf("%s: %s", method, m.Error.Message)
		case result != nil:
			return json.Unmarshal(m.Result, result)
		}
		return nil
	case <-ctx.Done():
		return fmt.Errorf("%s: no answer from Chromium: %w", method, ctx.Err())
	}
}

// errors returns what the pages reported as errors so far.
func (b *browser) errors() []string {
	b.mu.Lock()
	defer b.mu.Unlock()
	return append([]string(nil), b.logs...)
}

func (b *browser) close() {
	if b.conn != nil {
		_ = b.call("", "Browser.close", nil, nil)
	}
	b.cancel()
	done := make(chan struct{})
	go func() { _ = b.cmd.Wait(); close(done) }()
	select {
	case <-done:
	case <-time.After(10 * time.Second):
		_ = b.cmd.Process.Kill()
		<-done
	}
}

// page is one tab. Its methods take the running (sub)test, which they
// fail.
type page struct {
	b       *browser
	session string
}

// newPage opens a tab of the given size in CSS pixels.
func (b *browser) newPage(t *testing.T, width, height int) *page {
	t.Helper()
	var target struct{ TargetID string }
	if err := b.call("", "Target.createTarget", map[string]any{"url": "about:blank"}, &target); err != nil {
		t.Fatal(err)
	}
	var attached struct{ SessionID string }
	if err := b.call("", "Target.attachToTarget", map[string]any{"targetId": target.TargetID, "flatten": true}, &attached); err != nil {
		t.Fatal(err)
	}
	p := &page{b: b, session: attached.SessionID}
	for _, m := range []string{"Page.enable", "Runtime.enable", "Log.enable"} {
		p.must(t, m, nil, nil)
	}
	p.resize(t, width, height)
	return p
}

func (p *page) must(t *testing.T, method string, params, result any) {
	t.Helper()
	if err := p.b.call(p.session, method, params, result); err != nil {
		t.Fatal(err)
	}
}

// resize sets the viewport in CSS pixels.
func (p *page) resize(t *testing.T, width, height int) {
	t.Helper()
	p.must(t, "Emulation.setDeviceMetricsOverride", map[string]any{"width": width, "height": height, "deviceScaleFactor": 1, "mobile": width < 600}, nil)
}

// navigate opens url and waits until the page has loaded.
func (p *page) navigate(t *testing.T, url string) {
	t.Helper()
	var r struct{ ErrorText string }
	p.must(t, "Page.navigate", map[string]any{"url": url}, &r)
	if r.ErrorText != "" {
		t.Fatalf("navigate to %s: %s", url, r.ErrorText)
	}
	p.waitFor(t, fmt.Sprintf("document.readyState === 'complete' && location.href === %q", url))
}

// click clicks the element an expression finds, after the evaluation
// returns: a click that navigates must not cut the evaluation short.
func (p *page) click(t *testing.T, element string) {
	t.Helper()
	p.eval(t, "{ const e = "+element+"; if (!e) throw new Error('nothing to click'); setTimeout(() => e.click(), 0); }", nil)
}

// eval evaluates a JavaScript expression and decodes its value into out.
func (p *page) eval(t *testing.T, expr string, out any) {
	t.Helper()
	if err := p.evalErr(expr, out); err != nil {
		t.Fatal(err)
	}
}

func (p *page) evalErr(expr string, out any) error {
	var r struct {
		Result struct {
			Value json.RawMessage `json:"value"`
		} `json:"result"`
		ExceptionDetails *struct {
			Text      string `json:"text"`
			Exception struct {
				Description string `json:"description"`
			} `json:"exception"`
		} `json:"exceptionDetails"`
	}
	if err := p.b.call(p.session, "Runtime.evaluate", map[string]any{"expression": expr, "returnByValue": true, "awaitPromise": true}, &r); err != nil {
		return err
	}
	if e := r.ExceptionDetails; e != nil {
		return fmt.Errorf("evaluate %s: %s %s", expr, e.Text, e.Exception.Description)
	}
	if out != nil && len(r.Result.Value) > 0 {
		if err := json.Unmarshal(r.Result.Value, out); err != nil {
			return fmt.Errorf("evaluate %s: %v (value %s)", expr, err, r.Result.Value)
		}
	}
	return nil
}

// waitFor polls a JavaScript condition until it holds, for at most 15s.
// An evaluation cut short by a navigation is tried again.
func (p *page) waitFor(t *testing.T, cond string) {
	t.Helper()
	deadline := time.Now().Add(15 * time.Second)
	for {
		var ok bool
		err := p.evalErr("!!("+cond+")", &ok)
		if err == nil && ok {
			return
		}
		if time.Now().After(deadline) {
			var state struct{ URL, Body string }
			_ = p.evalErr(`({URL: location.href, Body: document.body ? document.body.innerText.slice(0, 2000) : ""})`, &state)
			t.Fatalf("timed out waiting for %s (last error: %v)\nat %s:\n%s", cond, err, state.URL, state.Body)
		}
		time.Sleep(50 * time.Millisecond)
	}
}

// screenshot captures the whole page, width wide, as PNG.
func (p *page) screenshot(t *testing.T, width int) []byte {
	t.Helper()
	var height int
	p.eval(t, "document.documentElement.scrollHeight", &height)
	p.resize(t, width, height)
	var r struct{ Data []byte }
	p.must(t, "Page.captureScreenshot", map[string]any{"format": "png"}, &r)
	return r.Data
}
