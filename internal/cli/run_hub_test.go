package cli

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/client-go/dynamic"
	"sigs.k8s.io/yaml"

	"github.com/siteops/siteops/engine"
	"github.com/siteops/siteops/engine/hub"
	"github.com/siteops/siteops/internal/hubtest"
	"github.com/siteops/siteops/reconciler/status"
	"github.com/siteops/siteops/render"
	"github.com/siteops/siteops/sites"
)

// envMainArgs makes the test binary run siteops itself (the arguments
// separated by newlines), so that a test can kill a replica.
const envMainArgs = "SITEOPS_TEST_MAIN_ARGS"

func TestMain(m *testing.M) {
	if args := os.Getenv(envMainArgs); args != "" {
		os.Exit(Main(context.Background(), strings.Split(args, "\n"), os.Stdout, os.Stderr))
	}
	hubtest.Main(m)
}

// TestRunWithHubEngine runs the loop on the example fleet against a real
// API server, with the namespaces, Secrets and ClusterImageSet in place
// as an operator prepares them, except the namespace ztp-site that
// tidewater's site ConfigMap goes to: the other sites' objects land on
// the hub with the siteops labels and their status files say they wait
// for assisted-service (which this hub does not run); tidewater's names
// the missing namespace.
func TestRunWithHubEngine(t *testing.T) {
	h := hubtest.Shared(t)
	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
	defer cancel()
	prepareHub(t, ctx, h, "../../examples/fleet")

	dir := t.TempDir()
	if err := os.CopyFS(dir, os.DirFS("../../examples/fleet")); err != nil {
		t.Fatal(err)
	}
	code, stderr := runMain(t, "run", "--engine", "hub", "--kubeconfig", h.Kubeconfig(), "--kube-qps", "200", "--kube-burst", "400",
		"--dir", dir, "--state-dir", t.TempDir(), "--listen", "", "--extra-manifests-dir", "../../examples/extra-manifests",
		"--timeout", "30s", "--status-interval", "1s")
	if code != ExitFailure || !strings.Contains(stderr, "--timeout") {
		t.Fatalf("exit %d, want %d at the timeout\n%s", code, ExitFailure, stderr)
	}
	dyn := dynamic.NewForConfigOrDie(h.Config())
	cds, err := dyn.Resource(schema.GroupVersionResource{Group: "hive.openshift.io", Version: "v1", Resource: "clusterdeployments"}).
		List(ctx, metav1.ListOptions{LabelSelector: hub.LabelManagedBy + "=" + hub.ManagedByValue})
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, cd := range cds.Items {
		got = append(got, cd.GetLabels()[hub.LabelSite])
	}
	for _, name := range exampleClusters {
		want := "waiting for assisted-service"
		if name == "tidewater-ds-01" {
			want = "missing on the hub: Namespace ztp-site (holds ConfigMap ztp-site/tidewater-site-data"
		} else if !strings.Contains(strings.Join(got, " "), name) {
			t.Errorf("no ClusterDeployment of %s on the hub (have %v)", name, got)
		}
		data, err := os.ReadFile(filepath.Join(dir, "status", name+".yaml"))
		if err != nil {
			t.Errorf("%s: %v", name, err)
			continue
		}
		var d status.Document
		if err := yaml.Unmarshal(data, &d); err != nil {
			t.Fatal(err)
		}
		if d.Phase != engine.PhasePending || !strings.Contains(d.Message, want) {
			t.Errorf("%s: phase %s, message %q", name, d.Phase, d.Message)
		}
	}
}

func TestRunRefusesHubFlagsWithTheSimulation(t *testing.T) {
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"--kubeconfig", "k"}, "--kubeconfig goes with --engine hub"},
		{[]string{"--force-conflicts"}, "--force-conflicts goes with --engine hub"},
		{[]string{"--engine", "cloud"}, `--engine "cloud"`},
		{[]string{"--engine", "hub", "--kube-qps", "0"}, "--kube-qps"},
		{[]string{"--leader-elect"}, "--leader-elect goes with --engine hub"},
		{[]string{"--engine", "hub", "--leader-elect", "--leader-election-renew-deadline", "20s"}, "--leader-election-lease-duration >"},
		{[]string{"--engine", "hub", "--kubeconfig", filepath.Join(t.TempDir(), "none")}, "--engine hub: no hub configuration"},
	} {
		code, stderr := runMain(t, append([]string{"run", "--state-dir", t.TempDir(), "--listen", ""}, tc.args...)...)
		if code != ExitUsage || !strings.Contains(stderr, tc.want) {
			t.Errorf("%v: exit %d, want %d; stderr:\n%s\nwant it to mention %q", tc.args, code, ExitUsage, stderr, tc.want)
		}
	}
}

// prepareHub creates, for every site under dir, what an operator puts on
// the hub before siteops: the namespace with the pull secret and BMC
// Secrets, and the ClusterImageSets.
func prepareHub(t *testing.T, ctx context.Context, h *hubtest.Hub, dir string) {
	t.Helper()
	fleet, err := sites.Load(ctx, os.DirFS(filepath.Dir(dir)), []string{filepath.Base(dir)})
	if err != nil || fleet.Problems.HasErrors() {
		t.Fatalf("load %s: %v %v", dir, err, fleet.Problems)
	}
	r := render.New()
	for _, s := range fleet.Sites {
		b, ps := r.Render(s)
		if ps.HasErrors() {
			t.Fatal(ps)
		}
		if err := hubtest.CreatePrerequisites(ctx, h.Config(), b, true); err != nil {
			t.Fatal(err)
		}
	}
}

// TestCheckServerDryRun: the example fleet passes a server-side dry run
// on a real API server with the upstream CRDs.
func TestCheckServerDryRun(t *testing.T) {
	h := hubtest.Shared(t)
	stdout, stderr, code := run(t, "check", "--server-dry-run", "--kubeconfig", h.Kubeconfig(), "--root", "../../examples/fleet",
		"--extra-manifests-dir", "../../examples/extra-manifests", "../../examples/fleet")
	if code != ExitOK || strings.Contains(stdout, "dry run") {
		t.Errorf("exit %d\n%s\n%s", code, stdout, stderr)
	}
}
