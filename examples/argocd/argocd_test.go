package argocd_test

import (
	"bufio"
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

	"sigs.k8s.io/yaml"
)

var (
	argocdOnce sync.Once
	argocdDir  string
	argocdErr  error
)

// argocdTools returns the directory holding the Argo CD binaries that
// hack/argocd/build.sh builds (cached by version; the first build takes
// minutes). Where they cannot be built the test fails under CI and is
// skipped, saying why, elsewhere.
func argocdTools(t *testing.T) string {
	t.Helper()
	argocdOnce.Do(func() {
		ctx, cancel := context.WithTimeout(context.Background(), 45*time.Minute)
		defer cancel()
		cmd := exec.CommandContext(ctx, "../../hack/argocd/build.sh")
		cmd.Stderr = os.Stderr
		out, err := cmd.Output()
		if err != nil {
			argocdErr = fmt.Errorf("hack/argocd/build.sh: %w", err)
			return
		}
		argocdDir = strings.TrimSpace(string(out))
	})
	if argocdErr != nil {
		if os.Getenv("CI") == "true" {
			t.Fatalf("Argo CD is needed: %v", argocdErr)
		}
		t.Skipf("Argo CD could not be built (%v); under CI=true this fails", argocdErr)
	}
	return argocdDir
}

// cmpServer runs the real argocd-cmp-server with plugin.yaml, siteops on
// its PATH, and returns the directory of its socket.
func cmpServer(t *testing.T, tools, siteops string) string {
	t.Helper()
	// A unix socket path must be short.
	sockDir, err := os.MkdirTemp("", "cmp")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { os.RemoveAll(sockDir) })
	config := t.TempDir()
	plugin, err := os.ReadFile("plugin.yaml")
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(config, "plugin.yaml"), plugin, 0o644); err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	cmd := exec.CommandContext(ctx, filepath.Join(tools, "argocd-cmp-server"), "--config-dir-path", config, "--loglevel", "warn")
	cmd.Env = append(os.Environ(),
		"ARGOCD_PLUGINSOCKFILEPATH="+sockDir,
		"ARGOCD_CMP_WORKDIR="+t.TempDir(),
		"PATH="+filepath.Dir(siteops)+string(os.PathListSeparator)+os.Getenv("PATH"))
	logs, err := os.Create(filepath.Join(t.TempDir(), "cmp-server.log"))
	if err != nil {
		t.Fatal(err)
	}
	cmd.Stdout, cmd.Stderr = logs, logs
	if err := cmd.Start(); err != nil {
		cancel()
		t.Fatal(err)
	}
	done := make(chan struct{})
	go func() { cmd.Wait(); close(done) }()
	t.Cleanup(func() {
		cancel()
		<-done
		logs.Close()
		if t.Failed() {
			data, _ := os.ReadFile(logs.Name())
			t.Logf("argocd-cmp-server log:\n%s", data)
		}
	})
	sock := filepath.Join(sockDir, "siteops-v1.sock")
	deadline := time.Now().Add(time.Minute)
	for {
		if _, err := os.Stat(sock); err == nil {
			return sockDir
		}
		select {
		case <-done:
			t.Fatal("argocd-cmp-server exited before serving")
		default:
		}
		if time.Now().After(deadline) {
			t.Fatal("argocd-cmp-server did not create its socket within a minute")
		}
		time.Sleep(50 * time.Millisecond)
	}
}

// drive runs cmpclient, the repo-server's side of the plugin API, on an
// Application whose source is path in repo.
func drive(t *testing.T, tools, sockDir, repo, path string, args ...string) (string, string, int) {
	t.Helper()
	args = append([]string{"-repo", repo, "-path", path}, args...)
	return runCmd(t, "", []string{"ARGOCD_PLUGINSOCKFILEPATH=" + sockDir}, nil, filepath.Join(tools, "cmpclient"), args...)
}

// exampleRepository lays the example fleet out as a fleet repository: the
// sites in fleet/, the default extra manifests in extra-manifests/, and a
// directory with no sites.
func exampleRepository(t *testing.T) string {
	t.Helper()
	repo := t.TempDir()
	copyTree(t, "../fleet", filepath.Join(repo, "fleet"))
	copyTree(t, "../extra-manifests", filepath.Join(repo, "extra-manifests"))
	if err := os.MkdirAll(filepath.Join(repo, "docs"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(repo, "docs", "notes.yaml"), []byte("kind: ConfigMap\napiVersion: v1\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	return repo
}

// TestConfigManagementPlugin runs the real argocd-cmp-server with
// plugin.yaml and drives it as the repo-server does: discovery picks the
// fleet directory and not the others, the parameters are announced, the
// manifests equal siteops render's, and a broken site gives Argo CD an
// error naming file, line, site and field.
func TestConfigManagementPlugin(t *testing.T) {
	tools := argocdTools(t)
	siteops := buildSiteops(t)
	sockDir := cmpServer(t, tools, siteops)
	repo := exampleRepository(t)
	want := objectSet(t, siteopsRender(t, siteops, filepath.Join(repo, "fleet"), filepath.Join(repo, "extra-manifests")))

	t.Run("discovery", func(t *testing.T) {
		if out, stderr, code := drive(t, tools, sockDir, repo, "fleet", "-announce"); code != 0 {
			t.Errorf("the fleet directory is not discovered: exit %d\n%s%s", code, out, stderr)
		}
		_, stderr, code := drive(t, tools, sockDir, repo, "docs", "-announce")
		if code == 0 || !strings.Contains(stderr, "could not find plugin supporting the given repository") {
			t.Errorf("a directory without sites: exit %d, %s; want no plugin found", code, stderr)
		}
	})

	t.Run("parameters", func(t *testing.T) {
		out, stderr, code := drive(t, tools, sockDir, repo, "fleet", "-plugin", "siteops-v1", "-announce")
		if code != 0 {
			t.Fatalf("exit %d: %s", code, stderr)
		}
		var params []struct {
			Name   string `json:"name"`
			String string `json:"string"`
		}
		if err := json.Unmarshal([]byte(out), &params); err != nil {
			t.Fatalf("announcement %q: %v", out, err)
		}
		got := map[string]string{}
		for _, p := range params {
			got[p.Name] = p.String
		}
		if v, ok := got["extra-manifests-dir"]; !ok || v != "" || got["strict"] != "false" || len(got) != 2 {
			t.Errorf("announced %v, want extra-manifests-dir (empty) and strict (false)", got)
		}
	})

	sources := []struct{ name, source string }{
		{"parameters", `{"parameters":[{"name":"extra-manifests-dir","string":"extra-manifests"},{"name":"strict","string":"true"}]}`},
		{"env", `{"env":[{"name":"EXTRA_MANIFESTS_DIR","value":"extra-manifests"},{"name":"STRICT","value":"true"}]}`},
	}
	for _, src := range sources {
		t.Run("manifests from "+src.name, func(t *testing.T) {
			out, stderr, code := drive(t, tools, sockDir, repo, "fleet", "-source", src.source)
			if code != 0 {
				t.Fatalf("exit %d:\n%s", code, stderr)
			}
			compareSets(t, "argocd-cmp-server with plugin.yaml", objectSet(t, out), want)
		})
	}

	t.Run("refused parameters", func(t *testing.T) {
		for _, src := range []string{
			`{"parameters":[{"name":"extra-manifests-dir","string":"../outside"}]}`,
			`{"parameters":[{"name":"strict","string":"yes"}]}`,
		} {
			_, stderr, code := drive(t, tools, sockDir, repo, "fleet", "-source", src)
			if code == 0 || !strings.Contains(stderr, "error generating manifests in cmp") {
				t.Errorf("%s: exit %d, %s; want a generation error", src, code, stderr)
			}
		}
	})

	t.Run("a broken site", func(t *testing.T) {
		broken := exampleRepository(t)
		file := filepath.Join(broken, "fleet", "kestrel-compact.yaml")
		data, err := os.ReadFile(file)
		if err != nil {
			t.Fatal(err)
		}
		text := strings.Replace(string(data), "  clusters:\n    - clusterName: kestrel-3n-01\n", "  clusters:\n    - clusterName: kestrel-3n-01\n      holdInstallation: maybe\n", 1)
		if text == string(data) {
			t.Fatal("the edit changed nothing")
		}
		if err := os.WriteFile(file, []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
		line := strings.Count(text[:strings.Index(text, "holdInstallation: maybe")], "\n") + 1
		_, stderr, code := drive(t, tools, sockDir, broken, "fleet", "-source", sources[0].source)
		want := fmt.Sprintf("fleet/kestrel-compact.yaml:%d:25: site kestrel-3n-01: spec.clusters[0].holdInstallation: must be true or false", line)
		if code == 0 || !strings.Contains(stderr, want) {
			t.Errorf("exit %d, error:\n%s\nwant one with %q", code, stderr, want)
		}
	})
}

// TestHealthChecksInArgoCD runs `argocd admin settings resource-overrides
// health` with the shipped argocd-cm on every captured resource.
func TestHealthChecksInArgoCD(t *testing.T) {
	tools := argocdTools(t)
	var cases []struct {
		Phase, Kind, Status, Message string
	}
	data, err := os.ReadFile("health/testdata/expected.yaml")
	if err != nil {
		t.Fatal(err)
	}
	if err := yaml.Unmarshal(data, &cases); err != nil {
		t.Fatal(err)
	}
	if len(cases) < 40 {
		t.Fatalf("%d cases in expected.yaml", len(cases))
	}
	for _, c := range cases {
		t.Run(c.Phase+"/"+c.Kind, func(t *testing.T) {
			out, stderr, code := runCmd(t, "", nil, nil, filepath.Join(tools, "argocd"), "admin", "settings", "resource-overrides", "health",
				filepath.Join("health/testdata", c.Phase, c.Kind+".yaml"), "--argocd-cm-path", healthConfigMap)
			if code != 0 {
				t.Fatalf("exit %d: %s", code, stderr)
			}
			got := map[string]string{}
			sc := bufio.NewScanner(strings.NewReader(out))
			for sc.Scan() {
				if k, v, ok := strings.Cut(sc.Text(), ": "); ok {
					got[k] = v
				}
			}
			if got["STATUS"] != c.Status || got["MESSAGE"] != c.Message {
				t.Errorf("Argo CD says %s %q, want %s %q", got["STATUS"], got["MESSAGE"], c.Status, c.Message)
			}
		})
	}
}
