package cli

import (
	"bytes"
	"context"
	"encoding/json"
	"net/http"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/siteops/siteops/engine"
	"github.com/siteops/siteops/internal/gittest"
	"github.com/siteops/siteops/reconciler/status"
)

// statusFiles encodes documents as the loop writes them to status/.
func statusFiles(t *testing.T, docs ...status.Document) map[string]string {
	t.Helper()
	files := map[string]string{}
	for i := range docs {
		data, err := status.Encode(&docs[i])
		if err != nil {
			t.Fatal(err)
		}
		files["status/"+docs[i].Site+".yaml"] = string(data)
	}
	return files
}

func host(name, state, stage string, percent int, failing ...engine.Validation) engine.HostStatus {
	return engine.HostStatus{Name: name, Hostname: name, Role: "master", State: state, Stage: stage, Percent: percent, Validations: failing}
}

// fleetStatus is a fleet in every state a wait ends on.
func fleetStatus(t *testing.T) map[string]string {
	rev := strings.Repeat("ab", 20)
	files := statusFiles(t,
		status.Document{SiteStatus: engine.SiteStatus{Site: "alder-sno", Phase: engine.PhaseInstalled, Revision: rev, Message: "Cluster is installed.",
			Cluster: engine.ClusterStatus{State: "installed", Percent: 100}, Hosts: []engine.HostStatus{host("alder-0", "installed", "Done", 100)}}},
		status.Document{SiteStatus: engine.SiteStatus{Site: "beech-ha", Phase: engine.PhaseFailed, Reason: engine.ReasonInstallFailed, Revision: rev,
			Cluster: engine.ClusterStatus{State: "error", Percent: 40}, Hosts: []engine.HostStatus{host("beech-0", "error", "Writing image to disk", 40)}}},
		status.Document{SiteStatus: engine.SiteStatus{Site: "cherry-sno", Phase: engine.PhaseProvisioning, Reason: engine.ReasonValidationsFailing, Revision: rev,
			Cluster: engine.ClusterStatus{State: "insufficient"},
			Hosts: []engine.HostStatus{host("cherry-0", "insufficient", "", 0, engine.Validation{ID: "has-cpu-cores-for-role", Status: "failure",
				Message: "Require at least 8 CPU cores for master role, found only 6"})}}},
		status.Document{SiteStatus: engine.SiteStatus{Site: "damson-sno", Phase: engine.PhasePolicyFailed, Reason: engine.ReasonPolicyDenied, Revision: rev}},
	)
	files["status/elm-sno.yaml"] = "phase: [\n"
	files["status/README.md"] = "# Fleet status\n"
	return files
}

func TestStatusAndWaitReadAGitServer(t *testing.T) {
	srv := gittest.StartDaemon(t)
	url := srv.SeedFiles(t, "fleet.git", fleetStatus(t))

	out, stderr, code := run(t, "status", "--repo", url)
	if code != ExitFailure { // elm-sno.yaml does not parse
		t.Errorf("status: exit %d, want 1\n%s", code, stderr)
	}
	for _, want := range []string{"SITE", "alder-sno  Installed", "100%", "1/1", "abababababab ", "beech-ha", "InstallFailed",
		"cherry-sno  Provisioning", "elm-sno  ?", "status/elm-sno.yaml"} {
		if !strings.Contains(squeeze(out), want) {
			t.Errorf("status table lacks %q:\n%s", want, out)
		}
	}

	out, stderr, code = run(t, "status", "--repo", url, "alder-sno", "cherry-sno", "-o", "json")
	var docs []status.Document
	if err := json.Unmarshal([]byte(out), &docs); code != ExitOK || err != nil || len(docs) != 2 || docs[0].Phase != engine.PhaseInstalled || docs[1].Site != "cherry-sno" {
		t.Errorf("-o json: exit %d, %v, %+v\n%s", code, err, docs, stderr)
	}

	out, _, code = run(t, "status", "--repo", url, "cherry-sno")
	for _, want := range []string{"Phase:      Provisioning", "ValidationsFailing: validations fail", "has-cpu-cores-for-role",
		"cherry-0 has-cpu-cores-for-role: Require at least 8 CPU cores"} {
		if code != ExitOK || !strings.Contains(out, want) {
			t.Errorf("site page (exit %d) lacks %q:\n%s", code, want, out)
		}
	}

	_, stderr, code = run(t, "status", "--repo", url, "--branch", "nope")
	if code != ExitFailure || !strings.Contains(stderr, `branch "nope" not found`) {
		t.Errorf("unknown branch: exit %d\n%s", code, stderr)
	}

	tests := []struct {
		name string
		args []string
		code int
		want string
	}{
		{"installed", []string{"alder-sno"}, ExitOK, "alder-sno: installed"},
		{"failed", []string{"alder-sno", "beech-ha"}, ExitWaitFailed, "beech-ha: Failed (InstallFailed)"},
		{"blocked", []string{"damson-sno"}, ExitWaitBlocked, "damson-sno: PolicyFailed"},
		{"not found", []string{"fir-sno"}, ExitWaitNotFound, "fir-sno: no status document"},
		{"stuck host", []string{"cherry-sno", "--timeout", "1s"}, ExitWaitTimedOut, "cherry-sno: host cherry-0 validation has-cpu-cores-for-role fails: Require at least 8 CPU cores"},
		{"deleted", []string{"fir-sno", "--for", "deleted"}, ExitOK, "fir-sno: deleted"},
		{"not deleted", []string{"alder-sno", "--for", "deleted", "--timeout", "1s"}, ExitWaitTimedOut, "alder-sno: still Installed"},
		{"bad goal", []string{"alder-sno", "--for", "ready"}, ExitUsage, ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			args := append([]string{"wait", "--repo", url, "--interval", "200ms"}, tt.args...)
			out, stderr, code := run(t, args...)
			if code != tt.code || !strings.Contains(out, tt.want) {
				t.Errorf("exit %d, want %d; stdout:\n%s\nstderr:\n%s\nwant %q", code, tt.code, out, stderr, tt.want)
			}
		})
	}
}

// A wait follows the installation commit by commit, printing each host's
// stage and percent, and a second wait after an interrupted one simply
// continues: the state is in Git.
func TestWaitFollowsStatusCommits(t *testing.T) {
	srv := gittest.StartDaemon(t)
	installing := func(percent int, stage string) map[string]string {
		return statusFiles(t, status.Document{SiteStatus: engine.SiteStatus{Site: "hazel-sno", Phase: engine.PhaseInstalling,
			Cluster: engine.ClusterStatus{State: "installing", Percent: percent}, Hosts: []engine.HostStatus{host("hazel-0", "installing-in-progress", stage, percent)}}})
	}
	url := srv.SeedFiles(t, "fleet.git", installing(10, "Starting installation"))

	// Interrupted (here by its timeout), the first wait has seen 10%.
	out, _, code := run(t, "wait", "hazel-sno", "--repo", url, "--interval", "100ms", "--timeout", "500ms")
	if code != ExitWaitTimedOut || !strings.Contains(out, "hazel-sno: host hazel-0: installing-in-progress, Starting installation 10%") ||
		!strings.Contains(out, "hazel-sno: still Installing") {
		t.Fatalf("first wait: exit %d\n%s", code, out)
	}

	w := newSignalWriter("Writing image to disk 60%")
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	done := make(chan int, 1)
	go func() {
		done <- Main(ctx, []string{"wait", "hazel-sno", "--repo", url, "--interval", "100ms", "--timeout", "1m"}, w, w)
	}()
	srv.Commit(t, "fleet.git", "main", installing(60, "Writing image to disk"), "progress")
	select {
	case <-w.seen:
	case code := <-done:
		t.Fatalf("the second wait ended (exit %d) before it saw 60%%:\n%s", code, w.String())
	}
	srv.Commit(t, "fleet.git", "main", statusFiles(t, status.Document{SiteStatus: engine.SiteStatus{Site: "hazel-sno", Phase: engine.PhaseInstalled,
		Cluster: engine.ClusterStatus{State: "installed", Percent: 100}, Hosts: []engine.HostStatus{host("hazel-0", "installed", "Done", 100)}}}), "installed")
	if code := <-done; code != ExitOK {
		t.Fatalf("second wait: exit %d\n%s", code, w.String())
	}
	out = w.String()
	for _, want := range []string{"hazel-0: installing-in-progress, Writing image to disk 60%", "hazel-0: installed, Done 100%", "hazel-sno: installed"} {
		if !strings.Contains(out, want) {
			t.Errorf("second wait lacks %q:\n%s", want, out)
		}
	}
}

// signalWriter collects output and closes seen once it holds want.
type signalWriter struct {
	mu   sync.Mutex
	buf  bytes.Buffer
	want string
	seen chan struct{}
}

func newSignalWriter(want string) *signalWriter {
	return &signalWriter{want: want, seen: make(chan struct{})}
}

func (w *signalWriter) Write(p []byte) (int, error) {
	w.mu.Lock()
	defer w.mu.Unlock()
	had := strings.Contains(w.buf.String(), w.want)
	n, err := w.buf.Write(p)
	if !had && strings.Contains(w.buf.String(), w.want) {
		close(w.seen)
	}
	return n, err
}

func (w *signalWriter) String() string {
	w.mu.Lock()
	defer w.mu.Unlock()
	return w.buf.String()
}

// squeeze collapses runs of spaces, so that a table's columns compare
// whatever their widths.
func squeeze(s string) string {
	for strings.Contains(s, "   ") {
		s = strings.ReplaceAll(s, "   ", "  ")
	}
	return s
}

func TestStatusReadsADirectory(t *testing.T) {
	dir := t.TempDir()
	gittest.WriteFiles(t, dir, fleetStatus(t))
	out, _, code := run(t, "status", "--dir", dir, "alder-sno", "-o", "yaml")
	if code != ExitOK || !strings.Contains(out, "phase: Installed") || !strings.Contains(out, "site: alder-sno") {
		t.Errorf("exit %d:\n%s", code, out)
	}
	_, stderr, code := run(t, "status", "--dir", filepath.Join(dir, "none"))
	if code != ExitFailure || !strings.Contains(stderr, "no status directory at") {
		t.Errorf("missing directory: exit %d\n%s", code, stderr)
	}
	for _, args := range [][]string{{"-o", "xml"}, {"--dir", dir, "--server", "http://127.0.0.1:1"}} {
		if _, stderr, code := run(t, append([]string{"status"}, args...)...); code != ExitUsage {
			t.Errorf("%v: exit %d\n%s", args, code, stderr)
		}
	}
}

// startLoop runs siteops run over a copy of examples/sim at full speed,
// pruning, with its API on a loopback port, until the test ends. It
// returns the fleet directory and the API's URL.
func startLoop(t *testing.T) (string, string) {
	t.Helper()
	dir := t.TempDir()
	if err := os.CopyFS(dir, os.DirFS("../../examples/sim")); err != nil {
		t.Fatal(err)
	}
	addr := freeAddr(t)
	ctx, cancel := context.WithTimeout(context.Background(), 4*time.Minute)
	done := make(chan string)
	go func() {
		var stderr bytes.Buffer
		code := Main(ctx, []string{"run", "--dir", dir, "--speed", "max", "--prune", "--state-dir", t.TempDir(),
			"--listen", addr, "--log-level", "warn", "--status-interval", "100ms"}, &stderr, &stderr)
		done <- strconv.Itoa(code) + "\n" + stderr.String()
	}()
	t.Cleanup(func() {
		cancel()
		select {
		case <-done:
		case <-time.After(time.Minute):
			t.Error("siteops run did not stop within a minute of its cancellation")
		}
	})
	url := "http://" + addr
	for deadline := time.Now().Add(time.Minute); ; {
		resp, err := http.Get(url + "/healthz")
		if err == nil {
			resp.Body.Close()
			return dir, url
		}
		select {
		case out := <-done:
			t.Fatalf("siteops run stopped: exit %s", out)
		case <-time.After(50 * time.Millisecond):
		}
		if time.Now().After(deadline) {
			t.Fatalf("siteops run does not listen on %s", addr)
		}
	}
}

func TestStatusAndWaitFollowARunningLoop(t *testing.T) {
	dir, url := startLoop(t)

	out, stderr, code := run(t, "wait", "cedar-sno-01", "aster-ha-01", "--server", url, "--interval", "100ms", "--timeout", "2m")
	if code != ExitOK || !strings.Contains(out, "cedar-sno-01: installed") {
		t.Fatalf("wait: exit %d\n%s\n%s", code, out, stderr)
	}
	for _, want := range []string{"cedar-sno-01: host cedar-sno-01.cedar.example.net: installed, Done 100%", "aster-ha-01: installed",
		"aster-ha-01: needs attention: PartiallyInstalled", "host aster-w-2.aster.example.net: error"} {
		if !strings.Contains(out, want) {
			t.Errorf("wait's progress lacks %q:\n%s", want, out)
		}
	}

	out, _, code = run(t, "wait", "birch-sno-01", "--server", url, "--interval", "100ms", "--timeout", "3s")
	if code != ExitWaitTimedOut || !strings.Contains(out, "validation has-cpu-cores-for-role fails: Require at least 8 CPU cores") {
		t.Errorf("a stuck host: exit %d\n%s", code, out)
	}

	out, stderr, code = run(t, "status", "--server", url)
	for _, want := range []string{"aster-ha-01  Installed  PartiallyInstalled", "birch-sno-01  Provisioning  ValidationsFailing", "cedar-sno-01  Installed", "dune-sno-01"} {
		if code != ExitOK || !strings.Contains(squeeze(out), want) {
			t.Errorf("status --server (exit %d) lacks %q:\n%s\n%s", code, want, out, stderr)
		}
	}

	// The status files the loop writes beside the sites say the same.
	out, _, code = run(t, "status", "--dir", dir, "cedar-sno-01", "--server", "")
	if code != ExitUsage {
		t.Errorf("--dir with --server: exit %d", code)
	}
	out, stderr, code = run(t, "wait", "cedar-sno-01", "--dir", dir, "--interval", "100ms", "--timeout", "1m")
	if code != ExitOK || !strings.Contains(out, "cedar-sno-01: installed") {
		t.Errorf("wait --dir: exit %d\n%s\n%s", code, out, stderr)
	}
	out, stderr, code = run(t, "status", "--dir", dir, "cedar-sno-01")
	if code != ExitOK || !strings.Contains(out, "Phase:      Installed") {
		t.Errorf("status --dir: exit %d\n%s\n%s", code, out, stderr)
	}

	// Removed from the fleet, the site is torn down (--prune): wait
	// --for deleted follows it until its document goes.
	if err := os.Remove(filepath.Join(dir, "cedar-sno.yaml")); err != nil {
		t.Fatal(err)
	}
	out, stderr, code = run(t, "wait", "cedar-sno-01", "--for", "deleted", "--server", url, "--interval", "100ms", "--timeout", "2m")
	if code != ExitOK || !strings.Contains(out, "cedar-sno-01: deleted") {
		t.Errorf("wait --for deleted: exit %d\n%s\n%s", code, out, stderr)
	}
}
