package render_test

import (
	"slices"
	"strings"
	"testing"
)

// manifestSite is a SiteConfig with one master, one worker and one infra
// node; extra is added to the cluster.
func manifestSite(extra string) string {
	return `apiVersion: ran.openshift.io/v1
kind: SiteConfig
metadata: {name: s}
spec:
  pullSecretRef: {name: ps}
  clusterImageSetNameRef: img
  clusters:
  - clusterName: c1
` + extra + `    nodes:
    - hostName: m0
    - hostName: w0
      role: worker
    - hostName: i0
      role: infra
`
}

// manifestFiles is a default extra-manifest directory d and two search
// path directories a and b.
var manifestFiles = map[string]string{
	"d/01-ns.yaml":             "apiVersion: v1\nkind: Namespace\nmetadata: {name: d}\n",
	"d/02-mc.yaml.tmpl":        "apiVersion: machineconfiguration.openshift.io/v1\nkind: MachineConfig\nmetadata: {name: 'x-{{ .Role }}', labels: {machineconfiguration.openshift.io/role: '{{ .Role }}'}}\n",
	"a/10-same.yaml":           "apiVersion: v1\nkind: ConfigMap\nmetadata: {name: from-a}\n",
	"a/20-only-a.yaml":         "apiVersion: v1\nkind: ConfigMap\nmetadata: {name: only-a}\n",
	"b/10-same.yaml":           "apiVersion: v1\nkind: ConfigMap\nmetadata: {name: from-b}\n",
	"b/30-workers.yaml.tmpl":   "{{ if ne .Role \"master\" }}apiVersion: v1\nkind: ConfigMap\nmetadata: {name: 'w-{{ .Role }}'}\n{{ end }}",
	"user/90-user.yaml":        "apiVersion: v1\nkind: ConfigMap\nmetadata: {name: user}\n",
	"user/02-mc.yaml.tmpl":     "apiVersion: v1\nkind: ConfigMap\nmetadata: {name: passed-through}\n",
	"user/.hidden.yaml":        "not: loaded\n",
	"user/sub/91-sub.yaml":     "apiVersion: v1\nkind: ConfigMap\nmetadata: {name: sub}\n",
	"user/92-blank.yaml":       "\n  \n",
	"d/.draft.yaml":            "not: loaded\n",
	"d/unused/15-in-dir.yaml":  "apiVersion: v1\nkind: ConfigMap\nmetadata: {name: in-dir}\n",
	"a/empty-template.yaml.tm": "apiVersion: v1\nkind: ConfigMap\nmetadata: {name: not-a-template}\n",
}

func TestExtraManifestSources(t *testing.T) {
	tests := []struct {
		name    string
		extra   string
		want    []string          // the ConfigMap's keys
		names   map[string]string // key -> metadata.name of the manifest
		problem string
	}{
		{name: "the default directory: static files once, templates once per role",
			want:  []string{"01-ns.yaml", "infra-02-mc.yaml", "master-02-mc.yaml", "worker-02-mc.yaml"},
			names: map[string]string{"infra-02-mc.yaml": "x-infra", "worker-02-mc.yaml": "x-worker"}},
		{name: "extraManifestPath adds its files as they are, templates included, skipping dot-files, folders and blank files",
			extra: "    extraManifestPath: user\n",
			want:  []string{"01-ns.yaml", "02-mc.yaml.tmpl", "90-user.yaml", "infra-02-mc.yaml", "master-02-mc.yaml", "worker-02-mc.yaml"},
			names: map[string]string{"02-mc.yaml.tmpl": "passed-through"}},
		{name: "searchPaths replace the default directory and extraManifestPath; a later directory wins",
			extra: "    extraManifestPath: user\n    extraManifests: {searchPaths: [a, b]}\n",
			want:  []string{"10-same.yaml", "20-only-a.yaml", "empty-template.yaml.tm", "infra-30-workers.yaml", "worker-30-workers.yaml"},
			names: map[string]string{"10-same.yaml": "from-b", "worker-30-workers.yaml": "w-worker"}},
		{name: "searchPaths in the other order",
			extra: "    extraManifests: {searchPaths: [b, a]}\n",
			want:  []string{"10-same.yaml", "20-only-a.yaml", "empty-template.yaml.tm", "infra-30-workers.yaml", "worker-30-workers.yaml"},
			names: map[string]string{"10-same.yaml": "from-a"}},
		{name: "filter, include by default: the excluded files go, template outputs included",
			extra: "    extraManifests: {filter: {exclude: [01-ns.yaml, infra-02-mc.yaml]}}\n",
			want:  []string{"master-02-mc.yaml", "worker-02-mc.yaml"}},
		{name: "filter, exclude by default (any case): only the included files stay, each may be named twice",
			extra: "    extraManifestPath: user\n    extraManifests: {filter: {inclusionDefault: EXCLUDE, include: [90-user.yaml, master-02-mc.yaml, 90-user.yaml]}}\n",
			want:  []string{"90-user.yaml", "master-02-mc.yaml"}},
		{name: "filter, exclude by default with nothing included empties the ConfigMap",
			extra: "    extraManifests: {filter: {inclusionDefault: exclude}}\n",
			want:  []string{}},
		{name: "an excluded file that is not there",
			extra:   "    extraManifests: {filter: {exclude: [nope.yaml]}}\n",
			problem: "extraManifests.filter.exclude names nope.yaml, which is not an extra manifest of this cluster"},
		{name: "an included file that is not there",
			extra:   "    extraManifests: {filter: {inclusionDefault: exclude, include: [02-mc.yaml]}}\n",
			problem: "extraManifests.filter.include names 02-mc.yaml, which is not an extra manifest of this cluster"},
		{name: "a file excluded twice",
			extra:   "    extraManifests: {filter: {exclude: [01-ns.yaml, 01-ns.yaml]}}\n",
			problem: "names 01-ns.yaml twice"},
		{name: "an extraManifestPath file may not replace a default one",
			extra:   "    extraManifestPath: d\n",
			problem: "has the name of a default extra manifest"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			files := map[string]string{"site.yaml": manifestSite(tt.extra)}
			for k, v := range manifestFiles {
				files[k] = v
			}
			b, problems := renderMap(t, files, "d")
			if tt.problem != "" {
				wantProblem(t, b, problems, tt.problem)
				return
			}
			if b == nil {
				t.Fatalf("not rendered: %v", problems)
			}
			data, _ := get(object(t, b, "ConfigMap", "c1"), "data").(map[string]any)
			keys := sortedKeys(data)
			slices.Sort(keys)
			if strings.Join(keys, " ") != strings.Join(tt.want, " ") {
				t.Errorf("keys %v, want %v", keys, tt.want)
			}
			for k, name := range tt.names {
				if text, _ := data[k].(string); !strings.Contains(text, "name: "+name+"\n") {
					t.Errorf("%s:\n%s\nwant metadata.name %s", k, text, name)
				}
			}
		})
	}
}
