package cli

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/siteops/siteops/internal/gittest"
)

// planted are credentials a user might put anywhere in a fleet, each a
// value no output may hold.
var planted = map[string]string{
	"bmc userinfo":          "PlantedBmcPw1",
	"bmc unknown scheme":    "PlantedBmcPw2",
	"bmc waived":            "PlantedBmcPw3",
	"secret beside sites":   "PlantedBesideSite4",
	"secretGenerator":       "PlantedGenerator5",
	"extra-manifest secret": "PlantedExtraManifest6",
	"private key":           "PlantedPemBody7",
	"git password":          "PlantedGitPw8",
	"webhook secret":        "PlantedWebhook9",
}

// plantedFleet is a kustomize fleet root with the secrets of planted in
// site fields, a Secret beside the sites, a secretGenerator and an extra
// manifest.
func plantedFleet(t *testing.T) map[string]string {
	t.Helper()
	bmc := func(name, addr string) string {
		return strings.Replace(site(name), "redfish-virtualmedia+https://192.0.2.1/redfish/v1/Systems/1", addr, 1)
	}
	mac := func(s string, i int) string {
		return strings.Replace(s, `"02:00:00:00:00:01"`, fmt.Sprintf(`"02:00:00:00:00:%02x"`, i), 1)
	}
	waive := func(s, rule string) string {
		return strings.Replace(s, "  name: good\n", "  name: good\n  annotations:\n    siteops.io/waive: \""+rule+": kept for the test\"\n", 1)
	}
	charlie := waive(mac(bmc("charlie", "redfish://root:"+planted["bmc waived"]+"@192.0.2.3/redfish/v1/Systems/1"), 3), "ztp.secrets.plain-text")
	delta := strings.Replace(mac(site("delta"), 4), "    - clusterName: delta\n", "    - clusterName: delta\n      extraManifestPath: extra\n", 1)
	echo := strings.Replace(mac(site("echo"), 5), "  clusterImageSetNameRef: img\n",
		"  clusterImageSetNameRef: img\n  sshPublicKey: |\n    -----BEGIN OPENSSH PRIVATE KEY-----\n    "+planted["private key"]+"\n    -----END OPENSSH PRIVATE KEY-----\n", 1)
	return map[string]string{
		"alpha.yaml":   mac(bmc("alpha", "redfish-virtualmedia+https://admin:"+planted["bmc userinfo"]+"@192.0.2.1/redfish/v1/Systems/1"), 1),
		"bravo.yaml":   mac(bmc("bravo", "bogus://root:"+planted["bmc unknown scheme"]+"@192.0.2.2/x"), 2),
		"charlie.yaml": charlie,
		"delta.yaml":   delta,
		"echo.yaml":    echo,
		// golf copies the Secret's password into an annotation: known to
		// be secret, it is hidden wherever it is printed.
		"golf.yaml": strings.Replace(mac(site("golf"), 7), "  name: good\n", "  name: good\n  annotations:\n    note: \"bmc password "+planted["secret beside sites"]+"\"\n", 1),
		"bmc-secret.yaml": "apiVersion: v1\nkind: Secret\nmetadata:\n  name: bmc\ntype: Opaque\nstringData:\n  username: admin\n  password: " +
			planted["secret beside sites"] + "\n",
		"extra/secret.yaml": "apiVersion: v1\nkind: Secret\nmetadata:\n  name: x\n  namespace: default\nstringData:\n  token: " +
			planted["extra-manifest secret"] + "\n",
		"kustomization.yaml": "apiVersion: kustomize.config.k8s.io/v1beta1\nkind: Kustomization\n" +
			"generators: [alpha.yaml, bravo.yaml, charlie.yaml, delta.yaml, echo.yaml, golf.yaml]\n" +
			"resources: [bmc-secret.yaml]\nsecretGenerator:\n  - name: gen\n    literals:\n      - password=" + planted["secretGenerator"] + "\n",
	}
}

// leaks names the planted secrets out holds.
func leaks(out string) []string {
	var found []string
	for what, v := range planted {
		if strings.Contains(out, v) {
			found = append(found, what)
		}
	}
	return found
}

// TestPlantedSecretsNeverLeak plants known secret values everywhere a
// user might put them and scans every output siteops makes: each check
// format, render in each format, and in `run --repo` the log lines, the
// status files and every commit pushed, the metrics, every dashboard page
// and API document, and the webhook's answers.
func TestPlantedSecretsNeverLeak(t *testing.T) {
	files := plantedFleet(t)
	dir := writeTree(t, files)
	scan := func(what, out string) {
		t.Helper()
		if l := leaks(out); len(l) > 0 {
			t.Errorf("%s holds the planted %s", what, strings.Join(l, ", "))
		}
	}
	for _, format := range []string{"text", "json", "junit", "sarif", "github", "tap"} {
		stdout, stderr, code := run(t, "check", "--root", dir, "-o", format, dir)
		if code != ExitFailure {
			t.Errorf("check -o %s: exit %d, want %d (the secrets are deny findings)\n%s", format, code, ExitFailure, stderr)
		}
		scan("check -o "+format, stdout+stderr)
	}
	text, _, _ := run(t, "check", "--root", dir, dir)
	for _, want := range []string{"bmcCredentialsName", "extra/secret.yaml: an extra manifest of kind Secret carries credentials"} {
		if !strings.Contains(text, want) {
			t.Errorf("check does not say %q:\n%s", want, text)
		}
	}
	for _, format := range []string{"yaml", "json"} {
		stdout, stderr, _ := run(t, "render", "--root", dir, "-o", format, dir)
		scan("render -o "+format, stdout+stderr)
		if !strings.Contains(stdout, "golf") {
			t.Errorf("render -o %s lost the clean site golf", format)
		}
	}

	// render --krm, the sites as the items of kustomize's ResourceList.
	var items strings.Builder
	items.WriteString("apiVersion: config.kubernetes.io/v1\nkind: ResourceList\nitems:\n")
	for _, name := range []string{"alpha.yaml", "bravo.yaml", "echo.yaml", "golf.yaml", "bmc-secret.yaml"} {
		items.WriteString(indent(files[name]))
	}
	stdout, stderr, _ := runStdin(t, items.String(), "render", "--krm", "--root", dir)
	// The Secret item is passed through whole; its value is found there
	// and nowhere else.
	kept := planted["secret beside sites"]
	if n := strings.Count(stdout, kept); n != 1 {
		t.Errorf("render --krm holds the Secret's password %d times, want once (the Secret passed through)", n)
	}
	scan("render --krm", strings.ReplaceAll(stdout, kept, "")+stderr)
	if !strings.Contains(stdout, "name: golf") {
		t.Errorf("render --krm lost the clean site golf:\n%s\n%s", stdout, stderr)
	}

	// run --repo, the repository's password in its URL.
	srv := gittest.StartHTTP(t, gittest.WithBasicAuth("fleetbot", planted["git password"]))
	url := srv.SeedFiles(t, "fleet.git", files)
	url = strings.Replace(url, "http://", "http://fleetbot:"+planted["git password"]+"@", 1)
	secretFile := filepath.Join(t.TempDir(), "webhook")
	if err := os.WriteFile(secretFile, []byte(planted["webhook secret"]+"\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	addr := freeAddr(t)
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	var logs syncBuffer
	done := make(chan int)
	go func() {
		done <- Main(ctx, []string{"run", "--repo", url, "--state-dir", t.TempDir(), "--listen", addr, "--speed", "max",
			"--webhook-secret-file", secretFile, "--log-format", "json", "--log-level", "debug"}, io.Discard, &logs)
	}()
	base := "http://" + addr
	waitFor(t, done, &logs, func() bool {
		body, _ := get(base + "/api/sites/charlie")
		return strings.Contains(body, `"phase": "Installed"`)
	})
	pages := []string{"/", "/api/sites", "/metrics", "/healthz", "/readyz", "/no-such-page"}
	for _, name := range []string{"alpha", "bravo", "charlie", "delta", "echo", "golf"} {
		pages = append(pages, "/sites/"+name, "/api/sites/"+name)
	}
	for _, p := range pages {
		body, err := get(base + p)
		if err != nil {
			t.Errorf("GET %s: %v", p, err)
		}
		scan("GET "+p, body)
	}
	resp, err := http.Post(base+"/hooks/git", "application/json", strings.NewReader(`{"ref":"refs/heads/main"}`))
	if err == nil {
		b, _ := io.ReadAll(resp.Body)
		resp.Body.Close()
		scan("the webhook's answer", string(b))
	}
	cancel()
	<-done
	scan("the log", logs.String())
	scan("the status files", fmt.Sprint(srv.Files(t, "fleet.git", srv.Head(t, "fleet.git", "main"), "status")))
	// The fleet's own commit holds the secrets as the user wrote them;
	// the status commits are siteops'.
	history := gittest.Git(t, filepath.Join(srv.Dir(), "fleet.git"), "log", "-p", "--all", "--author=siteops", "--format=%H %an %ae%n%B")
	scan("the status commits", history)
	if !strings.Contains(history, "status/golf.yaml") {
		t.Errorf("no status commit for golf: the scan looked at nothing")
	}
	if !strings.Contains(logs.String(), "http://REDACTED@127.0.0.1") {
		t.Errorf("the log does not name the repository with its credentials hidden:\n%s", logs.String())
	}
}

// syncBuffer is a bytes.Buffer the loop's goroutines may write to while
// the test reads it.
type syncBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (s *syncBuffer) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.Write(p)
}

func (s *syncBuffer) String() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.String()
}

// freeAddr is a loopback address with a port nothing listens on.
func freeAddr(t *testing.T) string {
	t.Helper()
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	return l.Addr().String()
}

// get fetches a URL with a deadline.
func get(url string) (string, error) {
	c := &http.Client{Timeout: 10 * time.Second}
	resp, err := c.Get(url)
	if err != nil {
		return "", err
	}
	defer resp.Body.Close()
	b, err := io.ReadAll(resp.Body)
	return string(b), err
}

// waitFor polls ok until it holds; the run's exit (done) or the test's
// deadline fail the test.
func waitFor(t *testing.T, done <-chan int, logs *syncBuffer, ok func() bool) {
	t.Helper()
	deadline := time.After(90 * time.Second)
	for !ok() {
		select {
		case code := <-done:
			t.Fatalf("siteops run exited with %d before the fleet was ready:\n%s", code, logs.String())
		case <-deadline:
			t.Fatal("the fleet was not ready within 90 s")
		case <-time.After(50 * time.Millisecond):
		}
	}
}

func netListen() (net.Listener, error) { return net.Listen("tcp", "127.0.0.1:0") }
