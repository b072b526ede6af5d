package hub_test

import (
	"context"
	"net/http"
	"strings"
	"sync"
	"testing"
	"time"

	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/client-go/rest"

	"github.com/siteops/siteops/engine"
	"github.com/siteops/siteops/engine/hub"
	"github.com/siteops/siteops/internal/hubtest"
	"github.com/siteops/siteops/render"
)

func TestMain(m *testing.M) { hubtest.Main(m) }

// repoRoot is the module root, two directories up.
const repoRoot = "../.."

// The example single-node site and what it names.
const (
	exampleSNO      = "marlow-sno-01"
	imageSet        = "openshift-4.20.6"
	pullSecret      = "fleet-pull-secret"
	testTimeout     = 3 * time.Minute
	shortRetryEvery = 300 * time.Millisecond
	// e2eShort bounds retries where a refusal is expected.
	e2eShort = 2 * time.Second
)

var (
	gvrCD  = schema.GroupVersionResource{Group: "hive.openshift.io", Version: "v1", Resource: "clusterdeployments"}
	gvrACI = schema.GroupVersionResource{Group: "extensions.hive.openshift.io", Version: "v1beta1", Resource: "agentclusterinstalls"}
	gvrBMH = schema.GroupVersionResource{Group: "metal3.io", Version: "v1alpha1", Resource: "baremetalhosts"}
	gvrAg  = schema.GroupVersionResource{Group: "agent-install.openshift.io", Version: "v1beta1", Resource: "agents"}
)

// exampleBundle renders a site of examples/fleet renamed to name
// (hubtest.ExampleBundle).
func exampleBundle(t testing.TB, site, name string) *render.Bundle {
	t.Helper()
	b, err := hubtest.ExampleBundle(repoRoot, site, name)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// objectOf returns the bundle's object of a kind.
func objectOf(t testing.TB, b *render.Bundle, kind string) *render.Object {
	t.Helper()
	for _, o := range b.Objects {
		if o.Kind == kind {
			return o
		}
	}
	t.Fatalf("bundle %s has no %s", b.Site, kind)
	return nil
}

// requestLog records the requests a client sends, watches left out.
type requestLog struct {
	mu   sync.Mutex
	reqs []string
	hook func(n int)
}

func (l *requestLog) wrap(cfg *rest.Config) *rest.Config {
	cfg = rest.CopyConfig(cfg)
	cfg.WrapTransport = func(rt http.RoundTripper) http.RoundTripper {
		return roundTripper(func(req *http.Request) (*http.Response, error) {
			if req.URL.Query().Get("watch") != "true" {
				l.mu.Lock()
				l.reqs = append(l.reqs, req.Method+" "+req.URL.Path)
				n := len(l.reqs)
				hook := l.hook
				l.mu.Unlock()
				if hook != nil {
					hook(n)
				}
			}
			return rt.RoundTrip(req)
		})
	}
	return cfg
}

func (l *requestLog) reset() {
	l.mu.Lock()
	l.reqs = nil
	l.mu.Unlock()
}

func (l *requestLog) list() []string {
	l.mu.Lock()
	defer l.mu.Unlock()
	return append([]string(nil), l.reqs...)
}

type roundTripper func(*http.Request) (*http.Response, error)

func (f roundTripper) RoundTrip(r *http.Request) (*http.Response, error) { return f(r) }

// newEngine starts an engine on cfg, closed when the test ends.
func newEngine(t testing.TB, cfg *rest.Config, opts ...hub.Option) *hub.Engine {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), testTimeout)
	defer cancel()
	e, err := hub.New(ctx, cfg, append([]hub.Option{hub.WithRetryInterval(shortRetryEvery)}, opts...)...)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = e.Close() })
	return e
}

func testContext(t testing.TB) context.Context {
	ctx, cancel := context.WithTimeout(context.Background(), testTimeout)
	t.Cleanup(cancel)
	return ctx
}

// waitStatus waits until the site's status satisfies cond, or fails with
// the last status seen.
func waitStatus(t testing.TB, e *hub.Engine, site string, cond func(engine.SiteStatus) bool) engine.SiteStatus {
	t.Helper()
	deadline := time.Now().Add(testTimeout)
	var last engine.SiteStatus
	var lastErr error
	for time.Now().Before(deadline) {
		last, lastErr = e.Status(context.Background(), site)
		if lastErr == nil && cond(last) {
			return last
		}
		time.Sleep(50 * time.Millisecond)
	}
	t.Fatalf("site %s: condition not met within %s; last status %+v (error %v)", site, testTimeout, last, lastErr)
	return last
}

// createPrerequisites makes the ClusterImageSet and the Secrets the
// bundle names, in namespaces that must exist.
func createPrerequisites(t testing.TB, cfg *rest.Config, b *render.Bundle) {
	t.Helper()
	if err := hubtest.CreatePrerequisites(testContext(t), cfg, b, false); err != nil {
		t.Fatal(err)
	}
}

// applyAll applies the bundle, puts the prerequisites in place
// once the engine asks for them, and waits until every object is there.
func applyAll(t testing.TB, e *hub.Engine, cfg *rest.Config, b *render.Bundle, rev string) engine.SiteStatus {
	t.Helper()
	ctx := testContext(t)
	if err := e.Apply(ctx, b, rev); err != nil {
		t.Fatal(err)
	}
	createPrerequisites(t, cfg, b)
	if err := e.Apply(ctx, b, rev); err != nil {
		t.Fatal(err)
	}
	return waitStatus(t, e, b.Site, func(st engine.SiteStatus) bool {
		for _, ev := range st.Events {
			if ev.Reason == "Applied" && strings.Contains(ev.Message, "revision "+rev) {
				return st.Reason == ""
			}
		}
		return false
	})
}
