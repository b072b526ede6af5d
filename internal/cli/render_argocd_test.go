package cli

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func TestArgoCDPluginFlags(t *testing.T) {
	repo := writeTree(t, map[string]string{"fleet/a.yaml": site("alpha"), "extra/ns.yaml": "apiVersion: v1\nkind: Namespace\nmetadata: {name: x}\n"})
	repo, _ = filepath.EvalSymlinks(repo)
	outside := t.TempDir()
	if err := os.Symlink(outside, filepath.Join(repo, "escape")); err != nil {
		t.Fatal(err)
	}
	app := filepath.Join(repo, "fleet")
	tests := []struct {
		name      string
		env       map[string]string
		wd        string
		manifests string
		strict    bool
		err       string
	}{
		{name: "source path and parameters", wd: app,
			env:       map[string]string{"ARGOCD_APP_SOURCE_PATH": "fleet", "PARAM_EXTRA_MANIFESTS_DIR": "extra", "PARAM_STRICT": "true"},
			manifests: filepath.Join(repo, "extra"), strict: true},
		{name: "plugin env", wd: app,
			env:       map[string]string{"ARGOCD_APP_SOURCE_PATH": "./fleet/", "ARGOCD_ENV_EXTRA_MANIFESTS_DIR": "extra", "ARGOCD_ENV_STRICT": "false"},
			manifests: filepath.Join(repo, "extra")},
		{name: "a parameter wins over the env", wd: app,
			env: map[string]string{"ARGOCD_APP_SOURCE_PATH": "fleet", "PARAM_STRICT": "false", "ARGOCD_ENV_STRICT": "true"}},
		{name: "the repository root is the application", wd: repo, env: map[string]string{"ARGOCD_APP_SOURCE_PATH": "."}},
		{name: "manifests outside the repository", wd: app, err: "leads outside the fleet root",
			env: map[string]string{"ARGOCD_APP_SOURCE_PATH": "fleet", "PARAM_EXTRA_MANIFESTS_DIR": "../x"}},
		{name: "manifests through a symlink out", wd: app, err: "not a directory inside the repository",
			env: map[string]string{"ARGOCD_APP_SOURCE_PATH": "fleet", "PARAM_EXTRA_MANIFESTS_DIR": "escape"}},
		{name: "strict that is not a boolean", wd: app, err: `strict "yes"`,
			env: map[string]string{"ARGOCD_APP_SOURCE_PATH": "fleet", "PARAM_STRICT": "yes"}},
		{name: "source path that is not the working directory", wd: repo, err: "does not end in",
			env: map[string]string{"ARGOCD_APP_SOURCE_PATH": "fleet"}},
		{name: "source path out of the repository", wd: app, err: "not a path inside the repository",
			env: map[string]string{"ARGOCD_APP_SOURCE_PATH": "../fleet"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Chdir(tt.wd)
			f := &renderFlags{root: "."}
			args, err := argocdPluginFlags(f, nil, func(k string) string { return tt.env[k] })
			if tt.err != "" {
				if err == nil || !strings.Contains(err.Error(), tt.err) {
					t.Errorf("error %v, want one with %q", err, tt.err)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if f.root != repo || f.manifestsDir != tt.manifests || f.strict != tt.strict || len(args) != 1 || args[0] != tt.wd {
				t.Errorf("root %s, manifests %q, strict %v, args %v; want %s, %q, %v, [%s]", f.root, f.manifestsDir, f.strict, args, repo, tt.manifests, tt.strict, tt.wd)
			}
		})
	}
}

func TestRenderArgoCDPlugin(t *testing.T) {
	repo := writeTree(t, map[string]string{"fleet/a.yaml": site("alpha"), "fleet/b.yaml": strings.Replace(site("bravo"), "bmcAddress:", "bmcAdress:", 1)})
	t.Chdir(filepath.Join(repo, "fleet"))
	t.Setenv("ARGOCD_APP_SOURCE_PATH", "fleet")
	t.Setenv("PARAM_STRICT", "true")
	out, stderr, code := run(t, "render", "--argocd-plugin")
	if code != ExitFailure || !strings.Contains(out, `"name":"alpha"`) || strings.Contains(out, `"name":"bravo"`) {
		t.Errorf("exit %d, stdout:\n%s", code, out)
	}
	// One JSON object a line, the same objects as the YAML output.
	yamlOut, _, _ := run(t, "render", "--root", repo, filepath.Join(repo, "fleet", "a.yaml"))
	want := objects(t, yamlOut)
	lines := strings.Split(strings.TrimSuffix(out, "\n"), "\n")
	if len(lines) != len(want) {
		t.Fatalf("%d lines, want the %d objects of the YAML output", len(lines), len(want))
	}
	for i, line := range lines {
		var o map[string]any
		if err := json.Unmarshal([]byte(line), &o); err != nil || !equalJSON(o, want[i]) {
			t.Errorf("line %d is not object %d of the YAML output (%v):\n%s", i+1, i+1, err, line)
		}
	}
	if !strings.Contains(stderr, "fleet/b.yaml:") || !strings.Contains(stderr, "site bravo: spec.clusters[0].nodes[0].bmcAdress") {
		t.Errorf("stderr does not name file, site and field: %s", stderr)
	}
	if _, stderr, code := run(t, "render", "--argocd-plugin", "x"); code != ExitUsage || !strings.Contains(stderr, "takes no paths") {
		t.Errorf("a path with --argocd-plugin: exit %d, %s", code, stderr)
	}
}
