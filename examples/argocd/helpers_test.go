// Package argocd_test runs the Argo CD and kustomize integration of
// examples/argocd with the real tools: kustomize (krusty) calling
// `siteops render --krm` as an exec KRM function, Argo CD's
// argocd-cmp-server with plugin.yaml driven as the repo-server drives it,
// and `argocd admin settings resource-overrides health` with the shipped
// health checks, each compared with `siteops render` or the expected
// health of resources captured from the embedded engine.
package argocd_test

import (
	"bytes"
	"context"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"sort"
	"strings"
	"sync"
	"testing"
	"time"

	"sigs.k8s.io/yaml"
)

var (
	siteopsOnce sync.Once
	siteopsBin  string
	siteopsErr  error
	siteopsOut  []byte
)

// buildSiteops builds the siteops of this tree once per test binary.
func buildSiteops(t *testing.T) string {
	t.Helper()
	siteopsOnce.Do(func() {
		dir, err := os.MkdirTemp("", "siteops-argocd-test-")
		if err != nil {
			siteopsErr = err
			return
		}
		siteopsBin = filepath.Join(dir, "siteops")
		ctx, cancel := context.WithTimeout(context.Background(), 10*time.Minute)
		defer cancel()
		siteopsOut, siteopsErr = exec.CommandContext(ctx, "go", "build", "-o", siteopsBin, "../../cmd/siteops").CombinedOutput()
	})
	if siteopsErr != nil {
		t.Fatalf("build siteops: %v\n%s", siteopsErr, siteopsOut)
	}
	return siteopsBin
}

func TestMain(m *testing.M) {
	code := m.Run()
	if siteopsBin != "" {
		os.RemoveAll(filepath.Dir(siteopsBin))
	}
	os.Exit(code)
}

// runCmd runs a command with a deadline and returns stdout, stderr and
// the exit code (-1 when it could not run or timed out).
func runCmd(t *testing.T, dir string, env []string, stdin []byte, name string, args ...string) (string, string, int) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, name, args...)
	cmd.Dir = dir
	cmd.Env = append(os.Environ(), env...)
	if stdin != nil {
		cmd.Stdin = bytes.NewReader(stdin)
	}
	var out, errb bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errb
	err := cmd.Run()
	code := 0
	if err != nil {
		code = -1
		if ee, ok := err.(*exec.ExitError); ok && ctx.Err() == nil {
			code = ee.ExitCode()
		}
	}
	return out.String(), errb.String(), code
}

// copyTree copies the directory src into dst.
func copyTree(t *testing.T, src, dst string) {
	t.Helper()
	err := filepath.WalkDir(src, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(src, p)
		target := filepath.Join(dst, rel)
		if d.IsDir() {
			return os.MkdirAll(target, 0o755)
		}
		data, err := os.ReadFile(p)
		if err != nil {
			return err
		}
		return os.WriteFile(target, data, 0o644)
	})
	if err != nil {
		t.Fatal(err)
	}
}

// objectSet decodes a YAML stream (or JSON lines) into objects keyed by
// apiVersion, kind, namespace and name, each as canonical YAML.
func objectSet(t *testing.T, stream string) map[string]string {
	t.Helper()
	out := map[string]string{}
	docs := strings.Split(stream, "\n---")
	if strings.HasPrefix(strings.TrimSpace(stream), "{") {
		docs = strings.Split(stream, "\n")
	}
	for _, doc := range docs {
		doc = strings.TrimPrefix(strings.TrimPrefix(doc, "---"), "\n")
		var o map[string]any
		if err := yaml.Unmarshal([]byte(doc), &o); err != nil {
			t.Fatalf("not YAML: %v\n%s", err, doc)
		}
		if o == nil {
			continue
		}
		meta, _ := o["metadata"].(map[string]any)
		key := o["apiVersion"].(string) + " " + o["kind"].(string) + " " + str(meta["namespace"]) + "/" + str(meta["name"])
		if _, dup := out[key]; dup {
			t.Errorf("%s is in the output twice", key)
		}
		canon, err := yaml.Marshal(o)
		if err != nil {
			t.Fatal(err)
		}
		out[key] = string(canon)
	}
	return out
}

func str(v any) string { s, _ := v.(string); return s }

// compareSets reports every object that differs between got and want.
func compareSets(t *testing.T, what string, got, want map[string]string) {
	t.Helper()
	if len(want) == 0 {
		t.Fatalf("%s: the reference output holds no objects", what)
	}
	var keys []string
	for k := range want {
		keys = append(keys, k)
	}
	for k := range got {
		if _, ok := want[k]; !ok {
			keys = append(keys, k)
		}
	}
	sort.Strings(keys)
	for _, k := range keys {
		switch g, w := got[k], want[k]; {
		case g == "":
			t.Errorf("%s: %s is missing", what, k)
		case w == "":
			t.Errorf("%s: %s is extra:\n%s", what, k, g)
		case g != w:
			t.Errorf("%s: %s differs:\n%s\nwant\n%s", what, k, g, w)
		}
	}
}

// siteopsRender is `siteops render` of the example fleet, the reference
// every integration is compared with.
func siteopsRender(t *testing.T, bin, fleet, manifests string) string {
	t.Helper()
	out, stderr, code := runCmd(t, "", nil, nil, bin, "render", "--root", fleet, "--extra-manifests-dir", manifests, fleet)
	if code != 0 {
		t.Fatalf("siteops render: exit %d\n%s", code, stderr)
	}
	return out
}
