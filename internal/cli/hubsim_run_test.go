package cli

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"log/slog"
	"os"
	"path/filepath"
	"regexp"
	"sort"
	"strings"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/labels"
	"k8s.io/client-go/kubernetes"

	"github.com/siteops/siteops/engine"
	"github.com/siteops/siteops/engine/hub"
	"github.com/siteops/siteops/engine/hubsim/hubsimtest"
	"github.com/siteops/siteops/internal/hubtest"
	"github.com/siteops/siteops/reconciler/status"
)

// The sites of testdata/runeq.
const (
	runEqSNO     = "rq-sno-01"
	runEqCompact = "rq-3n-01"
	runEqInvalid = "rq-invalid-01"
	// runEqInstance names the hub engine of the test on the shared hub,
	// and so the namespaces its simulator takes.
	runEqInstance = "runeq"
	// runEqTimeout bounds each run of siteops and the whole test.
	runEqTimeout = 3 * time.Minute
	// runEqSettle bounds how long the two status directories may take to
	// agree once a step of the test is made.
	runEqSettle = 45 * time.Second
)

// runEqWorker is the worker the second revision adds to the compact site:
// a node at the end of its node list.
const runEqWorker = `        - hostName: rq-w-0.rqcompact.example.net
          role: worker
          bmcAddress: redfish-virtualmedia+https://198.51.100.133/redfish/v1/Systems/1
          bmcCredentialsName:
            name: rq-w-0-bmc
          bootMACAddress: "0a:5e:00:09:06:00"
`

// TestRunEquivalenceOfEngines runs the loop twice over one fleet
// directory at once: with the embedded engine, and with the hub engine on
// a real API server that hub-sim plays the controllers of. Through three
// revisions (the fleet, a worker added, a site pruned) both loops write
// the same status documents, times and generated ids aside.
func TestRunEquivalenceOfEngines(t *testing.T) {
	h := hubtest.Shared(t)
	ctx, cancel := context.WithTimeout(context.Background(), runEqTimeout)
	defer cancel()

	fleet := t.TempDir()
	if err := os.CopyFS(fleet, os.DirFS("testdata/runeq")); err != nil {
		t.Fatal(err)
	}
	// The operator makes the sites' namespaces for this siteops (and so
	// for its simulator), then their Secrets and image set.
	cs := kubernetes.NewForConfigOrDie(h.Config())
	for _, ns := range []string{runEqSNO, runEqCompact, runEqInvalid} {
		_, err := cs.CoreV1().Namespaces().Create(ctx, &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: ns,
			Labels: map[string]string{hub.LabelInstance: runEqInstance}}}, metav1.CreateOptions{})
		if err != nil {
			t.Fatal(err)
		}
	}
	prepareHub(t, ctx, h, fleet)
	startRunEqSimulator(t, h)

	common := []string{"run", "--dir", fleet, "--listen", "", "--prune", "--status-interval", "100ms", "--timeout", runEqTimeout.String()}
	emb := startRunLoop(t, "sim", append(common, "--engine", "sim", "--speed", "max")...)
	// The settle bound runs on the engine's clock: virtual minutes in the
	// embedded engine (its default), wall seconds on the hub.
	hb := startRunLoop(t, "hub", append(common, "--engine", "hub", "--kubeconfig", h.Kubeconfig(), "--instance", runEqInstance,
		"--kube-qps", "200", "--kube-burst", "400", "--settle-after", "2s")...)

	// The fleet: two sites install, one waits on its host's validations.
	first := settleBoth(t, emb, hb, func(docs map[string]*status.Document) string {
		return expectSites(docs, map[string]func(*status.Document) bool{
			runEqSNO:     installed,
			runEqCompact: installed,
			runEqInvalid: func(d *status.Document) bool { return d.Reason == engine.ReasonValidationsFailing },
		})
	})
	rev1 := first[runEqSNO].ObservedRevision
	if v := first[runEqInvalid].Hosts; len(v) != 1 || len(v[0].Validations) == 0 {
		t.Errorf("the host of %s fails no validation: %+v", runEqInvalid, v)
	}

	// A worker added to the installed compact site: a day-2 host.
	staged := t.TempDir()
	if err := os.CopyFS(staged, os.DirFS(fleet)); err != nil {
		t.Fatal(err)
	}
	appendFile(t, filepath.Join(staged, "compact.yaml"), runEqWorker)
	prepareHub(t, ctx, h, staged) // its BMC Secret, before siteops sees it
	appendFile(t, filepath.Join(fleet, "compact.yaml"), runEqWorker)
	second := settleBoth(t, emb, hb, func(docs map[string]*status.Document) string {
		return expectSites(docs, map[string]func(*status.Document) bool{
			runEqSNO: installed,
			runEqCompact: func(d *status.Document) bool {
				return installed(d) && d.Revision != rev1 && len(d.Hosts) == 4 && allHostsDone(d)
			},
			runEqInvalid: func(d *status.Document) bool { return d.Reason == engine.ReasonValidationsFailing },
		})
	})

	if second[runEqCompact].Cluster.Percent != 100 {
		t.Errorf("%s after its worker joined: cluster at %d%%", runEqCompact, second[runEqCompact].Cluster.Percent)
	}

	// The site with the failing host removed from the fleet: pruned.
	if err := os.Remove(filepath.Join(fleet, "invalid.yaml")); err != nil {
		t.Fatal(err)
	}
	settleBoth(t, emb, hb, func(docs map[string]*status.Document) string {
		return expectSites(docs, map[string]func(*status.Document) bool{
			runEqSNO:     installed,
			runEqCompact: func(d *status.Document) bool { return installed(d) && len(d.Hosts) == 4 },
		})
	})
	emb.stop(t)
	hb.stop(t)
}

// startRunEqSimulator runs hub-sim in-process, at maximum speed, on the
// namespaces the test's hub engine labels with its instance, until the
// test ends.
func startRunEqSimulator(t *testing.T, h *hubtest.Hub) {
	t.Helper()
	hubsimtest.Start(t, h.Config(), runEqInstance, labels.SelectorFromSet(labels.Set{hub.LabelInstance: runEqInstance}), slog.LevelWarn, runEqTimeout)
}

// loopRun is one `siteops run` in-process, its status directory its own.
type loopRun struct {
	name      string
	statusDir string
	stderr    *syncBuffer
	cancel    context.CancelFunc
	code      chan int
	stopped   bool
}

// startRunLoop starts siteops with args, a state and status directory of its
// own, until stop or the end of the test.
func startRunLoop(t *testing.T, name string, args ...string) *loopRun {
	t.Helper()
	r := &loopRun{name: name, statusDir: t.TempDir(), stderr: &syncBuffer{}, code: make(chan int, 1)}
	args = append(args, "--state-dir", t.TempDir(), "--status-dir", r.statusDir)
	ctx, cancel := context.WithTimeout(context.Background(), runEqTimeout)
	r.cancel = cancel
	go func() { r.code <- Main(ctx, args, &bytes.Buffer{}, r.stderr) }()
	t.Cleanup(func() {
		if !r.stopped {
			cancel()
			<-r.code
		}
		if t.Failed() || testing.Verbose() {
			t.Logf("siteops run --engine %s:\n%s", r.name, r.stderr)
		}
	})
	return r
}

// stop interrupts the loop, which then exits 0.
func (r *loopRun) stop(t *testing.T) {
	t.Helper()
	r.cancel()
	r.stopped = true
	if code := <-r.code; code != ExitOK {
		t.Errorf("siteops run --engine %s: exit %d, want %d when interrupted", r.name, code, ExitOK)
	}
}

// documents reads the loop's status directory.
func (r *loopRun) documents() (map[string]*status.Document, error) {
	entries, err := status.ReadDir(os.DirFS(r.statusDir), ".")
	if err != nil {
		return nil, err
	}
	docs := map[string]*status.Document{}
	for _, e := range entries {
		if e.Err != nil {
			return nil, fmt.Errorf("%s: %w", e.File, e.Err)
		}
		docs[e.Site] = e.Doc
	}
	return docs, nil
}

// settleBoth waits until each loop's documents meet want (which says
// what is missing, or "") and the two read the same once normalized, and
// so do the two fleet tables (status/README.md, which holds no time); it
// returns the embedded engine's documents, or fails with the differences.
func settleBoth(t *testing.T, emb, hb *loopRun, want func(map[string]*status.Document) string) map[string]*status.Document {
	t.Helper()
	start := time.Now()
	defer func() { t.Logf("the loops agreed after %s", time.Since(start).Round(time.Millisecond)) }()
	deadline := start.Add(runEqSettle)
	var last string
	for time.Now().Before(deadline) {
		time.Sleep(200 * time.Millisecond)
		a, errA := emb.documents()
		b, errB := hb.documents()
		readmeA, errRA := os.ReadFile(filepath.Join(emb.statusDir, status.ReadmeFile))
		readmeB, errRB := os.ReadFile(filepath.Join(hb.statusDir, status.ReadmeFile))
		switch {
		case errA != nil || errB != nil || errRA != nil || errRB != nil:
			last = fmt.Sprintf("reading the status: %v %v %v %v", errA, errB, errRA, errRB)
		case want(a) != "":
			last = "embedded engine: " + want(a)
		case want(b) != "":
			last = "hub engine: " + want(b)
		default:
			diff := docsDiff(normalizeDocs(a), normalizeDocs(b))
			if diff == "" && string(readmeA) == string(readmeB) {
				return a
			}
			last = fmt.Sprintf("the documents differ:\n%s\n--- embedded %s\n%s\n--- hub %s\n%s", diff, status.ReadmeFile, readmeA, status.ReadmeFile, readmeB)
		}
	}
	t.Fatalf("the two loops did not agree within %s; last: %s", runEqSettle, last)
	return nil
}

// expectSites says which of the sites are missing or not yet as wanted,
// and which documents are there that should not be; "" when all are as
// wanted.
func expectSites(docs map[string]*status.Document, want map[string]func(*status.Document) bool) string {
	var out []string
	for site, ok := range want {
		d, there := docs[site]
		switch {
		case !there:
			out = append(out, site+": no document")
		case !ok(d):
			out = append(out, fmt.Sprintf("%s: phase %s, reason %s, %d hosts: %s", site, d.Phase, d.Reason, len(d.Hosts), d.Message))
		}
	}
	for site := range docs {
		if want[site] == nil {
			out = append(out, site+": a document not wanted")
		}
	}
	sort.Strings(out)
	return strings.Join(out, "; ")
}

func installed(d *status.Document) bool { return d.Phase == engine.PhaseInstalled }

func allHostsDone(d *status.Document) bool {
	for _, h := range d.Hosts {
		if h.Percent != 100 {
			return false
		}
	}
	return true
}

// isoID is the generated part of an InfraEnv's image URL.
var isoID = regexp.MustCompile(`[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}`)

// normalizeDocs leaves out of the documents what differs by nature
// between two engines: times, generated ids (agent names, cluster and
// infrastructure ids, the image URL's id), and the events, each engine's
// own log on its own clock. It gives each document's fields as JSON.
func normalizeDocs(docs map[string]*status.Document) map[string]map[string]string {
	out := map[string]map[string]string{}
	for n, doc := range docs {
		d := *doc
		d.Events = nil
		d.LastProgressAt = nil
		d.Cluster.InstallStartedAt, d.Cluster.InstalledAt = nil, nil
		if m := d.Cluster.Metadata; m != nil {
			c := *m
			c.ClusterID, c.InfraID = "", ""
			d.Cluster.Metadata = &c
		}
		d.Hosts = append([]engine.HostStatus(nil), d.Hosts...)
		for i := range d.Hosts {
			d.Hosts[i].Agent = ""
		}
		d.Resources = append([]engine.ResourceStatus(nil), d.Resources...)
		for i := range d.Resources {
			r := &d.Resources[i]
			if r.Kind == "Agent" {
				r.Name = ""
			}
			r.ISODownloadURL = isoID.ReplaceAllString(r.ISODownloadURL, "ID")
			r.Conditions = append([]engine.Condition(nil), r.Conditions...)
			for j := range r.Conditions {
				r.Conditions[j].LastTransitionTime = time.Time{}
			}
		}
		data, _ := json.Marshal(d)
		var fields map[string]json.RawMessage
		_ = json.Unmarshal(data, &fields)
		out[n] = map[string]string{}
		for k, v := range fields {
			out[n][k] = string(v)
		}
		// Each resource on its own: a difference names the object.
		delete(out[n], "resources")
		for i, r := range d.Resources {
			data, _ := json.Marshal(r)
			out[n][fmt.Sprintf("resources[%d] %s %s/%s", i, r.Kind, r.Namespace, r.Name)] = string(data)
		}
	}
	return out
}

// docsDiff names each field of each site whose normalized value differs
// between the embedded engine's documents (a) and the hub's (b), with
// both values; "" when none does.
func docsDiff(a, b map[string]map[string]string) string {
	var out []string
	for site, fa := range a {
		fb, ok := b[site]
		if !ok {
			out = append(out, site+": no document from the hub engine")
			continue
		}
		for k := range union(fa, fb) {
			if fa[k] != fb[k] {
				out = append(out, fmt.Sprintf("%s %s:\n  embedded: %s\n  hub:      %s", site, k, fa[k], fb[k]))
			}
		}
	}
	for site := range b {
		if _, ok := a[site]; !ok {
			out = append(out, site+": no document from the embedded engine")
		}
	}
	sort.Strings(out)
	return strings.Join(out, "\n")
}

func union(a, b map[string]string) map[string]bool {
	out := map[string]bool{}
	for k := range a {
		out[k] = true
	}
	for k := range b {
		out[k] = true
	}
	return out
}

func appendFile(t *testing.T, path, text string) {
	t.Helper()
	f, err := os.OpenFile(path, os.O_APPEND|os.O_WRONLY, 0)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := f.WriteString(text); err != nil {
		t.Fatal(err)
	}
	if err := f.Close(); err != nil {
		t.Fatal(err)
	}
}
