package luahealth

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"sigs.k8s.io/yaml"
)

// examples is the directory of the health checks and their test data.
const examples = "../../../examples/argocd/health"

// healthKeyPrefix starts the argocd-cm keys that hold a health script
// (github.com/argoproj/argo-cd docs/operator-manual/health.md).
const healthKeyPrefix = "resource.customizations.health."

// Case is one row of testdata/expected.yaml.
type Case struct {
	Phase   string `json:"phase"`
	Kind    string `json:"kind"`
	Status  string `json:"status"`
	Message string `json:"message"`
}

func readYAML(t *testing.T, name string, v any) {
	t.Helper()
	data, err := os.ReadFile(name)
	if err != nil {
		t.Fatal(err)
	}
	if err := yaml.Unmarshal(data, v); err != nil {
		t.Fatalf("%s: %v", name, err)
	}
}

// TestHealthChecks runs the scripts of the shipped argocd-cm on every
// captured resource and compares with testdata/expected.yaml.
func TestHealthChecks(t *testing.T) {
	var cm struct {
		Data map[string]string `json:"data"`
	}
	readYAML(t, filepath.Join(examples, "argocd-cm.yaml"), &cm)
	scripts := map[string]string{} // by kind
	for k, v := range cm.Data {
		if gk, ok := strings.CutPrefix(k, healthKeyPrefix); ok {
			scripts[gk[strings.LastIndex(gk, "_")+1:]] = v
		}
	}
	if len(scripts) != 6 {
		t.Fatalf("argocd-cm holds %d health scripts, want 6", len(scripts))
	}
	var cases []Case
	readYAML(t, filepath.Join(examples, "testdata", "expected.yaml"), &cases)
	seen := map[string]bool{}
	for _, c := range cases {
		t.Run(c.Phase+"/"+c.Kind, func(t *testing.T) {
			var obj map[string]any
			readYAML(t, filepath.Join(examples, "testdata", c.Phase, c.Kind+".yaml"), &obj)
			script, ok := scripts[c.Kind]
			if !ok {
				t.Fatalf("no health script for %s", c.Kind)
			}
			got, err := Run(script, obj)
			if err != nil {
				t.Fatal(err)
			}
			if got.Status != c.Status || got.Message != c.Message {
				t.Errorf("health %s %q, want %s %q", got.Status, got.Message, c.Status, c.Message)
			}
		})
		seen[c.Phase+"/"+c.Kind] = true
	}
	files, _ := filepath.Glob(filepath.Join(examples, "testdata", "*", "*.yaml"))
	for _, f := range files {
		key := filepath.Base(filepath.Dir(f)) + "/" + strings.TrimSuffix(filepath.Base(f), ".yaml")
		if !seen[key] {
			t.Errorf("%s has no expected health in testdata/expected.yaml", key)
		}
	}
}

// TestHealthWithoutStatus: a resource just created, with no status yet, is
// Progressing, never Healthy (Argo CD's default for unknown kinds).
func TestHealthWithoutStatus(t *testing.T) {
	var cm struct {
		Data map[string]string `json:"data"`
	}
	readYAML(t, filepath.Join(examples, "argocd-cm.yaml"), &cm)
	for k, script := range cm.Data {
		if !strings.HasPrefix(k, healthKeyPrefix) {
			continue
		}
		got, err := Run(script, map[string]any{"apiVersion": "x/v1", "kind": "X", "metadata": map[string]any{"name": "n"}, "spec": map[string]any{}})
		if err != nil || got.Status != "Progressing" || got.Message == "" {
			t.Errorf("%s on an object without status: %+v, %v; want Progressing with a message", k, got, err)
		}
	}
}
