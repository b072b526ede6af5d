package hubsim_test

import (
	"context"
	"encoding/json"
	"fmt"
	"log/slog"
	"os"
	"strconv"
	"strings"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/labels"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/client-go/discovery"
	"k8s.io/client-go/discovery/cached/memory"
	"k8s.io/client-go/dynamic"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/rest"
	"k8s.io/client-go/restmapper"
	"k8s.io/client-go/tools/clientcmd"

	"github.com/siteops/siteops/engine/hubsim"
	"github.com/siteops/siteops/engine/hubsim/hubsimtest"
	"github.com/siteops/siteops/internal/hubtest"
	"github.com/siteops/siteops/render"
)

// envChild makes the test binary run a simulator itself (kubeconfig,
// test name, speed, separated by newlines) until it is killed: the process the
// crash test kills.
const envChild = "HUBSIM_TEST_CHILD"

func TestMain(m *testing.M) {
	if args := os.Getenv(envChild); args != "" {
		os.Exit(runChild(strings.Split(args, "\n")))
	}
	hubtest.Main(m)
}

// runChild runs a simulator of a test's namespaces until killed, or for
// the test timeout at most.
func runChild(args []string) int {
	ctx, cancel := context.WithTimeout(context.Background(), testTimeout)
	defer cancel()
	cfg, err := clientcmd.BuildConfigFromFlags("", args[0])
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 2
	}
	speed, err := strconv.ParseFloat(args[2], 64)
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 2
	}
	s, err := hubsim.New(ctx, cfg, hubsim.WithSpeed(speed),
		hubsim.WithNamespaceSelector(labels.SelectorFromSet(labels.Set{labelTest: args[1]})),
		hubsim.WithStateNamespace("hubsim-state-"+args[1]),
		hubsim.WithLogger(slog.New(slog.NewTextHandler(os.Stderr, &slog.HandlerOptions{Level: slog.LevelWarn}))))
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 1
	}
	if err := s.Run(ctx); err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 1
	}
	return 0
}

// repoRoot is the module root, two directories up.
const repoRoot = "../.."

const (
	exampleSNO  = "marlow-sno-01"
	testTimeout = 4 * time.Minute
	// labelTest marks the namespaces of one test: each test's simulator
	// selects its own, so tests sharing a hub do not meet.
	labelTest = "hubsim-test"
)

var (
	gvrCD    = schema.GroupVersionResource{Group: "hive.openshift.io", Version: "v1", Resource: "clusterdeployments"}
	gvrACI   = schema.GroupVersionResource{Group: "extensions.hive.openshift.io", Version: "v1beta1", Resource: "agentclusterinstalls"}
	gvrAgent = schema.GroupVersionResource{Group: "agent-install.openshift.io", Version: "v1beta1", Resource: "agents"}
)

func testContext(t testing.TB) context.Context {
	ctx, cancel := context.WithTimeout(context.Background(), testTimeout)
	t.Cleanup(cancel)
	return ctx
}

// startSim runs a simulator of the namespaces labelled for the test until
// the test ends.
func startSim(t testing.TB, cfg *rest.Config, test string, opts ...hubsim.Option) *hubsim.Simulator {
	t.Helper()
	return startSimOf(t, cfg, test, labels.SelectorFromSet(labels.Set{labelTest: test}), opts...)
}

// startSimOf runs a simulator of the namespaces sel selects, its state in
// a namespace of the test's.
func startSimOf(t testing.TB, cfg *rest.Config, test string, sel labels.Selector, opts ...hubsim.Option) *hubsim.Simulator {
	t.Helper()
	return hubsimtest.Start(t, cfg, test, sel, slog.LevelInfo, testTimeout, opts...)
}

// applyWithClient creates a bundle's objects with the Kubernetes client
// alone, as kubectl apply of `siteops render` output would: its
// namespaces labelled for the test, then every object whose kind the hub
// serves, in the bundle's order.
func applyWithClient(t testing.TB, cfg *rest.Config, b *render.Bundle, test string) {
	t.Helper()
	ctx := testContext(t)
	cs := kubernetes.NewForConfigOrDie(cfg)
	dyn := dynamic.NewForConfigOrDie(cfg)
	mapper := restmapper.NewDeferredDiscoveryRESTMapper(memory.NewMemCacheClient(discovery.NewDiscoveryClientForConfigOrDie(cfg)))
	for _, o := range b.Objects {
		if o.Kind == render.KindNamespace {
			ns := &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: o.Name, Labels: map[string]string{labelTest: test}}}
			if _, err := cs.CoreV1().Namespaces().Create(ctx, ns, metav1.CreateOptions{}); err != nil && !apierrors.IsAlreadyExists(err) {
				t.Fatal(err)
			}
		}
	}
	if err := hubtest.CreatePrerequisites(ctx, cfg, b, false); err != nil {
		t.Fatal(err)
	}
	for _, o := range b.Objects {
		if o.Kind == render.KindNamespace {
			continue
		}
		gv, _ := schema.ParseGroupVersion(o.APIVersion)
		m, err := mapper.RESTMapping(gv.WithKind(o.Kind).GroupKind(), gv.Version)
		if meta.IsNoMatchError(err) {
			continue // ACM's kinds, not on a bare hub
		}
		if err != nil {
			t.Fatal(err)
		}
		u := &unstructured.Unstructured{Object: o.Content}
		var ri dynamic.ResourceInterface = dyn.Resource(m.Resource)
		if m.Scope.Name() == meta.RESTScopeNameNamespace {
			ri = dyn.Resource(m.Resource).Namespace(o.Namespace)
		}
		if _, err := ri.Create(ctx, u.DeepCopy(), metav1.CreateOptions{}); err != nil && !apierrors.IsAlreadyExists(err) {
			t.Fatalf("create %s: %v", o.Ref(), err)
		}
	}
}

// waitFor polls until cond holds, failing with what it last said.
func waitFor(t testing.TB, what string, cond func() (bool, string)) {
	t.Helper()
	deadline := time.Now().Add(testTimeout)
	last := ""
	for time.Now().Before(deadline) {
		ok, msg := cond()
		if ok {
			return
		}
		last = msg
		time.Sleep(100 * time.Millisecond)
	}
	t.Fatalf("%s: not within %s; last: %s", what, testTimeout, last)
}

func get(t testing.TB, dyn dynamic.Interface, gvr schema.GroupVersionResource, ns, name string) (*unstructured.Unstructured, error) {
	t.Helper()
	return dyn.Resource(gvr).Namespace(ns).Get(context.Background(), name, metav1.GetOptions{})
}

func condTypes(u *unstructured.Unstructured) (map[string]string, string) {
	list, _, _ := unstructured.NestedSlice(u.Object, "status", "conditions")
	out := map[string]string{}
	for _, c := range list {
		m, _ := c.(map[string]any)
		typ, _ := m["type"].(string)
		st, _ := m["status"].(string)
		out[typ] = st
	}
	return out, fmt.Sprint(out)
}

func mustJSON(v any) []byte {
	b, _ := json.Marshal(v)
	return b
}
