package kustomize

import (
	"errors"
	"fmt"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"sync/atomic"
	"testing"
)

// fakeGit puts a git program first on PATH that leaves a marker file when
// run, and returns the marker's path. For a checkout it writes a
// kustomization into the clone, so that allowed remote bases can be built
// without a network.
func fakeGit(t *testing.T) string {
	t.Helper()
	bin := t.TempDir()
	mark := filepath.Join(t.TempDir(), "git-ran")
	script := fmt.Sprintf(`#!/bin/sh
echo "$@" >> %s
if [ "$1" = checkout ]; then
	mkdir -p base
	printf 'resources:\n- cm.yaml\n' > base/kustomization.yaml
	printf 'apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: remote\n' > base/cm.yaml
fi
exit 0
`, mark)
	if err := os.WriteFile(filepath.Join(bin, "git"), []byte(script), 0o755); err != nil {
		t.Fatal(err)
	}
	t.Setenv("PATH", bin+string(os.PathListSeparator)+os.Getenv("PATH"))
	return mark
}

// execPluginHome installs an exec plugin for someteam.example.com/v1
// ChartInflator in a plugin home that kustomize would search, and returns
// the marker file it would create.
func execPluginHome(t *testing.T) string {
	t.Helper()
	home := t.TempDir()
	mark := filepath.Join(t.TempDir(), "plugin-ran")
	dir := filepath.Join(home, "kustomize", "plugin", "someteam.example.com", "v1", "chartinflator")
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "ChartInflator"), []byte(marker(mark)), 0o755); err != nil {
		t.Fatal(err)
	}
	t.Setenv("XDG_CONFIG_HOME", home)
	t.Setenv("KUSTOMIZE_PLUGIN_HOME", filepath.Join(home, "kustomize", "plugin"))
	return mark
}

func TestRefusals(t *testing.T) {
	gitMark := fakeGit(t)
	pluginMark := execPluginHome(t)
	var hits atomic.Int64
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		hits.Add(1)
		fmt.Fprint(w, "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: fetched\n")
	}))
	defer srv.Close()
	outside := writeTree(t, map[string]string{"secret.yaml": secretDoc, "kustomization.yaml": kust("resources:\n- secret.yaml\n")})
	fnMark := filepath.Join(t.TempDir(), "fn-ran")

	tests := []struct {
		name    string
		files   map[string]string
		opts    []Option
		field   string // of the RefusedError; "" for another error
		line    int
		want    string // in the message
		refused bool
	}{
		{
			name: "exec plugin generator",
			files: map[string]string{
				"k/kustomization.yaml": kust("generators:\n- chart.yaml\n"),
				"k/chart.yaml":         "apiVersion: someteam.example.com/v1\nkind: ChartInflator\nmetadata:\n  name: c\n",
			},
			field: "generators", line: 4, want: "not one of kustomize's built-in plugins", refused: true,
		},
		{
			name: "exec plugin transformer",
			files: map[string]string{
				"k/kustomization.yaml": kust("resources:\n- s.yaml\ntransformers:\n- chart.yaml\n"),
				"k/s.yaml":             secretDoc,
				"k/chart.yaml":         "apiVersion: someteam.example.com/v1\nkind: ChartInflator\nmetadata:\n  name: c\n",
			},
			field: "transformers", line: 6, want: "exec or Go plugin", refused: true,
		},
		{
			name: "inline plugin validator",
			files: map[string]string{
				"k/kustomization.yaml": kust("resources:\n- s.yaml\nvalidators:\n- |\n  apiVersion: someteam.example.com/v1\n  kind: ChartInflator\n  metadata:\n    name: c\n"),
				"k/s.yaml":             secretDoc,
			},
			field: "validators", line: 6, want: "ChartInflator", refused: true,
		},
		{
			name: "KRM exec function",
			files: map[string]string{
				"k/kustomization.yaml": kust("transformers:\n- fn.yaml\nresources:\n- s.yaml\n"),
				"k/s.yaml":             secretDoc,
				"k/fn.yaml": `apiVersion: builtin
kind: LabelTransformer
metadata:
  name: fn
  annotations:
    config.kubernetes.io/function: |
      exec:
        path: ./fn.sh
`,
				"k/fn.sh": marker(fnMark),
			},
			field: "transformers", want: "KRM function", refused: true,
		},
		{
			name: "KRM container function",
			files: map[string]string{
				"k/kustomization.yaml": kust("generators:\n- fn.yaml\n"),
				"k/fn.yaml":            "apiVersion: example.com/v1\nkind: Gen\nmetadata:\n  name: fn\n  annotations:\n    config.kubernetes.io/function: |\n      container:\n        image: example.com/gen:v1\n",
			},
			field: "generators", want: "container", refused: true,
		},
		{
			name: "plugin directory",
			files: map[string]string{
				"k/kustomization.yaml":      kust("generators:\n- gens\n"),
				"k/gens/kustomization.yaml": kust("resources:\n- chart.yaml\n"),
				"k/gens/chart.yaml":         "apiVersion: someteam.example.com/v1\nkind: ChartInflator\nmetadata:\n  name: c\n",
			},
			field: "generators", want: "ChartInflator", refused: true,
		},
		{
			name:  "helm chart",
			files: map[string]string{"k/kustomization.yaml": kust("helmCharts:\n- name: x\n  repo: https://charts.example.com\n")},
			field: "helmCharts", line: 3, want: "helm program", refused: true,
		},
		{
			name:  "openapi schema",
			files: map[string]string{"k/kustomization.yaml": kust("resources:\n- s.yaml\nopenapi:\n  path: schema.json\n"), "k/s.yaml": secretDoc},
			field: "openapi", want: "OpenAPI", refused: true,
		},
		{
			name:  "github shorthand",
			files: map[string]string{"k/kustomization.yaml": kust("resources:\n- github.com/org/repo//base?ref=v1\n")},
			field: "resources", line: 4, want: "remote location", refused: true,
		},
		{
			name:  "scp git",
			files: map[string]string{"k/kustomization.yaml": kust("resources:\n- s.yaml\n- git@gitlab.example.com:org/repo.git//base\n"), "k/s.yaml": secretDoc},
			field: "resources", line: 5, want: "remote location", refused: true,
		},
		{
			name:  "ssh base",
			files: map[string]string{"k/kustomization.yaml": kust("bases:\n- ssh://git@example.com/org/repo.git\n")},
			field: "bases", want: "remote location", refused: true,
		},
		{
			name:  "https component",
			files: map[string]string{"k/kustomization.yaml": kust("components:\n- https://example.com/org/repo.git//c?ref=main\n")},
			field: "components", want: "remote location", refused: true,
		},
		{
			name:  "http resource file",
			files: map[string]string{"k/kustomization.yaml": kust("resources:\n- " + srv.URL + "/cm.yaml\n")},
			field: "resources", want: "remote location", refused: true,
		},
		{
			name:  "http patch",
			files: map[string]string{"k/kustomization.yaml": kust("resources:\n- s.yaml\npatches:\n- path: " + srv.URL + "/p.yaml\n"), "k/s.yaml": secretDoc},
			field: "patches", line: 6, want: "URL", refused: true,
		},
		{
			name:  "http strategic merge patch",
			files: map[string]string{"k/kustomization.yaml": kust("resources:\n- s.yaml\npatchesStrategicMerge:\n- " + srv.URL + "/p.yaml\n"), "k/s.yaml": secretDoc},
			field: "patchesStrategicMerge", want: "URL", refused: true,
		},
		{
			name:  "http config map source",
			files: map[string]string{"k/kustomization.yaml": kust("configMapGenerator:\n- name: x\n  files:\n  - key=" + srv.URL + "/f\n")},
			field: "configMapGenerator", want: "URL", refused: true,
		},
		{
			name: "http path in a builtin transformer",
			files: map[string]string{
				"k/kustomization.yaml": kust("resources:\n- s.yaml\ntransformers:\n- t.yaml\n"),
				"k/s.yaml":             secretDoc,
				"k/t.yaml":             "apiVersion: builtin\nkind: PatchTransformer\nmetadata:\n  name: t\npath: " + srv.URL + "/p.yaml\n",
			},
			field: "transformers", want: "URL", refused: true,
		},
		{
			name:  "unsafe ref even when remote is allowed",
			files: map[string]string{"k/kustomization.yaml": kust("resources:\n- https://github.com/org/repo//base?ref=--upload-pack=touch\n")},
			opts:  []Option{WithAllowRemote(true)},
			field: "resources", want: "not a plain branch", refused: true,
		},
		{
			name:  "plain http even when remote is allowed",
			files: map[string]string{"k/kustomization.yaml": kust("resources:\n- " + srv.URL + "/cm.yaml\n")},
			opts:  []Option{WithAllowRemote(true)},
			field: "resources", want: "plain http", refused: true,
		},
		{
			name:  "absolute path",
			files: map[string]string{"k/kustomization.yaml": kust("resources:\n- /etc/passwd\n")},
			field: "resources", line: 4, want: "absolute", refused: true,
		},
		{
			name:  "leaves the root",
			files: map[string]string{"k/kustomization.yaml": kust("resources:\n- ../../outside\n")},
			field: "resources", want: "outside the fleet root", refused: true,
		},
		{
			name:  "patch leaves the root",
			files: map[string]string{"k/kustomization.yaml": kust("patches:\n- path: ../../p.yaml\n")},
			field: "patches", want: "outside the fleet root", refused: true,
		},
		{
			name: "symlinked file leaves the root",
			files: map[string]string{
				"k/kustomization.yaml": kust("resources:\n- s.yaml\n"),
				"k/s.yaml":             linkPrefix + filepath.Join(outside, "secret.yaml"),
			},
			field: "resources", want: "outside the fleet root", refused: true,
		},
		{
			name: "symlinked directory leaves the root",
			files: map[string]string{
				"k/kustomization.yaml": kust("resources:\n- base\n"),
				"k/base":               linkPrefix + "../../" + filepath.Base(outside),
			},
			field: "resources", want: "outside the fleet root", refused: true,
		},
		{
			name: "file outside the kustomization directory",
			files: map[string]string{
				"k/kustomization.yaml": kust("resources:\n- ../other/s.yaml\n"),
				"other/s.yaml":         secretDoc,
			},
			field: "resources", want: "root-only", refused: true,
		},
		{
			name:  "includes itself",
			files: map[string]string{"k/kustomization.yaml": kust("resources:\n- .\n")},
			want:  "leads back to k",
		},
		{
			name: "cycle through two directories",
			files: map[string]string{
				"a/kustomization.yaml": kust("resources:\n- ../b\n"),
				"b/kustomization.yaml": kust("resources:\n- ../a\n"),
			},
			want: "leads back to a",
		},
		{
			name: "cycle through a symlink",
			files: map[string]string{
				"k/kustomization.yaml": kust("resources:\n- loop\n"),
				"k/loop":               linkPrefix + ".",
			},
			want: "leads back to k",
		},
		{
			name: "includes its parent",
			files: map[string]string{
				"k/kustomization.yaml":     kust("resources:\n- sub\n"),
				"k/sub/kustomization.yaml": kust("resources:\n- ..\n"),
			},
			want: "leads back to k",
		},
		{
			name: "alias bomb in a resource",
			files: map[string]string{
				"k/kustomization.yaml": kust("resources:\n- bomb.yaml\n"),
				"k/bomb.yaml":          bomb(),
			},
			want: "YAML aliases expand",
		},
		{
			name:  "alias bomb in an inline patch",
			files: map[string]string{"k/kustomization.yaml": kust("patches:\n- patch: |\n" + indent(bomb(), "    "))},
			want:  "YAML aliases expand",
		},
		{
			name: "file over the size limit",
			files: map[string]string{
				"k/kustomization.yaml": kust("resources:\n- big.yaml\n"),
				"k/big.yaml":           secretDoc + "  padding: " + strings.Repeat("A", 400) + "\n",
			},
			opts: []Option{WithMaxFileSize(300)},
			want: "over the 300-byte limit",
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := build(t, tt.files, "k", tt.opts...)
			if tt.name == "cycle through two directories" {
				_, err = build(t, tt.files, "a", tt.opts...)
			}
			if err == nil {
				t.Fatal("Build succeeded, want an error")
			}
			if !strings.Contains(err.Error(), tt.want) {
				t.Errorf("error %q does not mention %q", err, tt.want)
			}
			var re *RefusedError
			if got := errors.As(err, &re); got != tt.refused {
				t.Fatalf("refused = %t, want %t (%v)", got, tt.refused, err)
			}
			if re != nil {
				if re.Field != tt.field || (tt.line != 0 && re.Line != tt.line) || !strings.HasSuffix(re.File, "kustomization.yaml") {
					t.Errorf("refusal at %s:%d field %s, want field %s line %d (%v)", re.File, re.Line, re.Field, tt.field, tt.line, err)
				}
			}
			if !strings.HasPrefix(err.Error(), "build kustomization ") {
				t.Errorf("error %q does not name the step", err)
			}
		})
	}
	for _, m := range []string{gitMark, pluginMark, fnMark} {
		if _, err := os.Stat(m); err == nil {
			data, _ := os.ReadFile(m)
			t.Errorf("%s exists: something was run (%s)", m, data)
		}
	}
	if n := hits.Load(); n != 0 {
		t.Errorf("the HTTP server was asked %d times; nothing may be fetched", n)
	}
}

func TestBuiltinPluginAllowed(t *testing.T) {
	files := map[string]string{
		"k/kustomization.yaml": kust("resources:\n- s.yaml\ntransformers:\n- t.yaml\n- |\n  apiVersion: builtin\n  kind: AnnotationsTransformer\n  metadata:\n    name: a\n  annotations:\n    inline: \"yes\"\n  fieldSpecs:\n  - path: metadata/annotations\n    create: true\n"),
		"k/s.yaml":             secretDoc,
		"k/t.yaml":             "apiVersion: builtin\nkind: PrefixTransformer\nmetadata:\n  name: t\nprefix: b-\nfieldSpecs:\n- path: metadata/name\n",
	}
	r := mustBuild(t, files, "k")
	d := find(t, r, "Secret", "b-bmc-secret")
	if got := get(t, d.Data, "metadata.annotations.inline"); got != "yes" {
		t.Errorf("annotation = %v, want the inline transformer's", got)
	}
}

func TestAllowRemote(t *testing.T) {
	mark := fakeGit(t)
	files := map[string]string{
		"k/kustomization.yaml": kust("resources:\n- ssh://git@example.com/org/repo.git//base?ref=v1\n"),
	}
	r, err := build(t, files, "k", WithAllowRemote(true))
	if err != nil {
		t.Fatal(err)
	}
	d := find(t, r, "ConfigMap", "remote")
	if d.Origin.Repo == "" || d.Origin.File != "base/cm.yaml" {
		t.Errorf("origin = %+v, want the repository's base/cm.yaml", d.Origin)
	}
	data, err := os.ReadFile(mark)
	if err != nil || !strings.Contains(string(data), "fetch --depth=1") {
		t.Errorf("git was not run as expected: %q %v", data, err)
	}
	// The clone is removed afterwards.
	left, _ := filepath.Glob(filepath.Join(tempDir(), "kustomize-*"))
	for _, l := range left {
		if _, err := os.Stat(filepath.Join(l, "base", "cm.yaml")); err == nil {
			t.Errorf("clone %s left behind", l)
		}
	}
}

// bomb is a ConfigMap whose aliases expand to 10^9 nodes.
func bomb() string {
	var b strings.Builder
	b.WriteString("apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: lol\ndata:\n  a: &a [\"lol\",\"lol\",\"lol\",\"lol\",\"lol\",\"lol\",\"lol\",\"lol\",\"lol\",\"lol\"]\n")
	prev := "a"
	for _, n := range []string{"b", "c", "d", "e", "f", "g", "h", "i"} {
		fmt.Fprintf(&b, "  %s: &%s [*%s,*%s,*%s,*%s,*%s,*%s,*%s,*%s,*%s,*%s]\n", n, n, prev, prev, prev, prev, prev, prev, prev, prev, prev, prev)
		prev = n
	}
	return b.String()
}

func indent(s, prefix string) string {
	return prefix + strings.ReplaceAll(strings.TrimSuffix(s, "\n"), "\n", "\n"+prefix) + "\n"
}
