package render_test

import (
	"context"
	"strings"
	"testing"
	"testing/fstest"

	"github.com/siteops/siteops/render"
	"github.com/siteops/siteops/sites"
)

const baseSite = `apiVersion: ran.openshift.io/v1
kind: SiteConfig
metadata:
  name: s
spec:
  baseDomain: example.com
  pullSecretRef: {name: ps}
  clusterImageSetNameRef: img-4.20
  clusters:
  - clusterName: c1
    installConfigOverrides: '{"fips":true}'
`

// renderMap loads site.yaml from files (and everything it refers to) and
// renders it; manifests, if set, is the default extra-manifest directory
// inside files.
func renderMap(t *testing.T, files map[string]string, manifests string) (*render.Bundle, sites.Problems) {
	t.Helper()
	fsys := fstest.MapFS{}
	for name, content := range files {
		fsys[name] = &fstest.MapFile{Data: []byte(content)}
	}
	fleet, err := sites.Load(context.Background(), fsys, []string{"site.yaml"})
	if err != nil {
		t.Fatal(err)
	}
	if fleet.Problems.HasErrors() || len(fleet.Sites) != 1 {
		return nil, fleet.Problems
	}
	var opts []render.Option
	if manifests != "" {
		d, err := sites.ReadManifestDir(fsys, manifests)
		if err != nil {
			t.Fatal(err)
		}
		opts = append(opts, render.WithDefaultManifests(d))
	}
	r := render.New(opts...)
	b, problems := r.Render(fleet.Sites[0])
	// Every case holds for the YAML written from the typed objects too.
	sameYAML(t, r, fleet.Sites[0])
	return b, append(fleet.Problems, problems...)
}

func object(t *testing.T, b *render.Bundle, kind, name string) map[string]any {
	t.Helper()
	for _, o := range b.Objects {
		if o.Kind == kind && o.Name == name {
			return o.Content
		}
	}
	t.Fatalf("no %s %s rendered", kind, name)
	return nil
}

// wantProblem fails unless rendering failed with a problem containing want.
func wantProblem(t *testing.T, b *render.Bundle, problems sites.Problems, want string) {
	t.Helper()
	for _, p := range problems {
		if b == nil && strings.Contains(p.Error(), want) {
			return
		}
	}
	t.Fatalf("bundle %v, problems %v; want a problem containing %q", b != nil, problems, want)
}

func get(m map[string]any, path ...string) any {
	var v any = m
	for _, p := range path {
		mm, ok := v.(map[string]any)
		if !ok {
			return nil
		}
		v = mm[p]
	}
	return v
}

func TestCRTemplates(t *testing.T) {
	node := "    nodes:\n    - hostName: n0\n      bmcAddress: redfish://192.0.2.1/x\n      bmcCredentialsName: {name: b}\n      bootMACAddress: 02:00:00:00:00:01\n      nodeLabels: {zone: east}\n"
	tests := []struct {
		name    string
		extra   string // added to the cluster, before the nodes
		nodes   string
		files   map[string]string
		check   func(t *testing.T, b *render.Bundle)
		problem string // an error problem containing this, instead of a bundle
		warning string
		v2      bool // a ran.openshift.io/v2 SiteConfig
	}{
		{
			name:  "AgentClusterInstall placeholders see the derived overrides and image set",
			extra: "    clusterImageSetNameRef: ''\n    crTemplates: {AgentClusterInstall: t/aci.yaml}\n",
			nodes: node,
			files: map[string]string{"t/aci.yaml": `apiVersion: extensions.hive.openshift.io/v1beta1
kind: AgentClusterInstall
metadata:
  name: "{{ .Cluster.ClusterName }}"
  namespace: "{{ .Cluster.ClusterName }}"
  annotations:
    agent-install.openshift.io/install-config-overrides: "{{ .Cluster.NetworkType }}"
    argocd.argoproj.io/sync-wave: "1"
spec:
  imageSetRef:
    name: "{{ .Cluster.ClusterImageSetNameRef }}"
  holdInstallation: "{{ .Cluster.HoldInstallation }}"
`},
			check: func(t *testing.T, b *render.Bundle) {
				aci := object(t, b, "AgentClusterInstall", "c1")
				if got := get(aci, "metadata", "annotations", "agent-install.openshift.io/install-config-overrides"); got != `{"networking":{"networkType":"OVNKubernetes"},"fips":true}` {
					t.Errorf("overrides annotation %v", got)
				}
				if got := get(aci, "spec", "imageSetRef", "name"); got != "img-4.20" {
					t.Errorf("imageSetRef %v, want the site's image set", got)
				}
				if _, ok := get(aci, "spec").(map[string]any)["holdInstallation"]; ok {
					t.Error("a false placeholder kept its key")
				}
			},
		},
		{
			name:  "BareMetalHost override at node level: node labels become annotations",
			nodes: node + "      crTemplates: {BareMetalHost: t/bmh.yaml}\n",
			files: map[string]string{"t/bmh.yaml": `apiVersion: metal3.io/v1alpha1
kind: BareMetalHost
metadata:
  name: "{{ .Node.HostName }}"
  namespace: "{{ .Cluster.ClusterName }}"
  annotations:
    argocd.argoproj.io/sync-wave: "3"
    bmac.agent-install.openshift.io.node-label: "{{ .Node.NodeLabels }}"
    inspect.metal3.io: enabled
spec:
  online: false
  bmc:
    address: "{{ .Node.BmcAddress }}"
    credentialsName: "{{ .Node.BmcCredentialsName.Name }}"
`},
			check: func(t *testing.T, b *render.Bundle) {
				bmh := object(t, b, "BareMetalHost", "n0")
				ann := get(bmh, "metadata", "annotations").(map[string]any)
				if ann["bmac.agent-install.openshift.io.node-label.zone"] != "east" {
					t.Errorf("annotations %v: want one node-label annotation per label", ann)
				}
				if _, ok := ann["bmac.agent-install.openshift.io.node-label"]; ok {
					t.Error("the node-label map is still there")
				}
				if _, ok := ann["inspect.metal3.io"]; ok {
					t.Error("inspect.metal3.io is kept although inspection is not disabled")
				}
				if get(bmh, "spec", "online") != false || get(bmh, "spec", "bmc", "credentialsName") != "b" {
					t.Errorf("spec %v", get(bmh, "spec"))
				}
			},
		},
		{
			name:  "HostFirmwareSettings override keeps the BIOS profile as its spec, values as written",
			extra: "    biosConfigRef: {filePath: bios.yaml}\n    crTemplates: {HostFirmwareSettings: t/hfs.yaml}\n",
			nodes: node,
			files: map[string]string{
				"bios.yaml": "ProcTurboMode: Enabled\nMemFrequency: 0x1F\nRatio: 1.50\nNumLock: true\n",
				"t/hfs.yaml": `apiVersion: metal3.io/v1alpha1
kind: HostFirmwareSettings
metadata:
  name: "{{ .Node.HostName }}"
  namespace: "{{ .Cluster.ClusterName }}"
  annotations: {argocd.argoproj.io/sync-wave: "1", example.com/x: y}
spec:
  settings: {FromTemplate: "yes"}
`},
			check: func(t *testing.T, b *render.Bundle) {
				hfs := object(t, b, "HostFirmwareSettings", "n0")
				settings := get(hfs, "spec", "settings").(map[string]any)
				want := map[string]string{"ProcTurboMode": "Enabled", "MemFrequency": "0x1F", "Ratio": "1.50", "NumLock": "true"}
				if len(settings) != len(want) {
					t.Errorf("settings %v, want %v", settings, want)
				}
				for k, v := range want {
					if settings[k] != v {
						t.Errorf("settings[%s] = %v, want %q", k, settings[k], v)
					}
				}
				if get(hfs, "metadata", "annotations", "example.com/x") != "y" {
					t.Error("the override's own metadata is lost")
				}
			},
		},
		{
			name:  "placeholders are whole values of mappings; lists and mixed text are kept as written",
			nodes: node + "      crTemplates: {BareMetalHost: t/bmh.yaml}\n",
			files: map[string]string{"t/bmh.yaml": `apiVersion: metal3.io/v1alpha1
kind: BareMetalHost
metadata:
  name: "{{.Node.HostName}}"
  namespace: "{{   .Cluster.ClusterName }}"
  annotations:
    argocd.argoproj.io/sync-wave: "3"
    example.com/list: ["{{ .Node.HostName }}", {host: "{{ .Node.HostName }}"}]
    example.com/suffix: "{{ .Node.HostName }}-data"
    example.com/two: "{{ .Cluster.ClusterName }}-{{ .Node.HostName }}"
    example.com/piped: "{{ .Node.HostName | quote }}"
    example.com/through-nodes: "{{ .Cluster.Nodes.BmcAddress }}"
    example.com/through-clusters: "{{ .Site.Clusters.ClusterName }}"
    example.com/into-a-map: "{{ .Node.NodeLabels.zone }}"
spec:
  bootMACAddress: "{{ .Node.BootMACAddress }}"
`},
			check: func(t *testing.T, b *render.Bundle) {
				bmh := object(t, b, "BareMetalHost", "n0")
				ann := get(bmh, "metadata", "annotations").(map[string]any)
				want := map[string]any{
					"example.com/list":             []any{"{{ .Node.HostName }}", map[string]any{"host": "{{ .Node.HostName }}"}},
					"example.com/suffix":           "{{ .Node.HostName }}-data",
					"example.com/through-nodes":    "redfish://192.0.2.1/x",
					"example.com/through-clusters": "c1",
				}
				for k, v := range want {
					if !sameData(ann[k], v) {
						t.Errorf("annotation %s = %#v, want %#v", k, ann[k], v)
					}
				}
				for _, k := range []string{"example.com/two", "example.com/piped", "example.com/into-a-map"} {
					if v, ok := ann[k]; ok {
						t.Errorf("annotation %s = %#v; a placeholder naming no field removes its key", k, v)
					}
				}
				if get(bmh, "metadata", "name") != "n0" || get(bmh, "metadata", "namespace") != "c1" {
					t.Errorf("metadata %v", get(bmh, "metadata"))
				}
			},
		},
		{
			name:    "a placeholder outside .Site, .Cluster and .Node is an error",
			nodes:   node + "      crTemplates: {BareMetalHost: t/bmh.yaml}\n",
			files:   map[string]string{"t/bmh.yaml": "apiVersion: metal3.io/v1alpha1\nkind: BareMetalHost\nmetadata:\n  name: n0\n  namespace: c1\n  annotations: {argocd.argoproj.io/sync-wave: \"3\"}\nspec: {online: \"{{ .Spec.Online }}\"}\n"},
			problem: "placeholder {{ .Spec.Online }} could not be translated",
		},
		{
			name:  "a ConfigMap override that renders the site ConfigMap's name applies to it alone",
			v2:    true,
			extra: "    siteConfigMap: {data: {k: v}}\n    crTemplates: {ConfigMap: t/cm.yaml}\n",
			nodes: node,
			files: map[string]string{"t/cm.yaml": `apiVersion: v1
kind: ConfigMap
metadata:
  name: "{{ .Cluster.SiteConfigMap.Name }}"
  namespace: "{{ .Cluster.SiteConfigMap.Namespace }}"
  annotations: {argocd.argoproj.io/sync-wave: "2", example.com/x: "y"}
data: {other: "1"}
`},
			check: func(t *testing.T, b *render.Bundle) {
				site := object(t, b, "ConfigMap", "ztp-site-c1")
				if get(site, "metadata", "annotations", "example.com/x") != "y" || !sameData(get(site, "data"), map[string]any{"other": "1"}) {
					t.Errorf("site ConfigMap %v, want the override", site)
				}
				if get(object(t, b, "ConfigMap", "c1"), "metadata", "annotations", "example.com/x") != nil {
					t.Error("the override reached the extra-manifest ConfigMap")
				}
			},
		},
		{
			name:  "a ConfigMap override for the extra-manifest ConfigMap leaves the site ConfigMap alone, without a warning",
			v2:    true,
			extra: "    siteConfigMap: {name: site-cm, data: {}}\n    crTemplates: {ConfigMap: t/cm.yaml}\n",
			nodes: node,
			files: map[string]string{"t/cm.yaml": "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: c1\n  namespace: c1\n  annotations: {argocd.argoproj.io/sync-wave: \"1\", example.com/x: y}\n"},
			check: func(t *testing.T, b *render.Bundle) {
				site := object(t, b, "ConfigMap", "site-cm")
				if get(site, "metadata", "namespace") != "ztp-site" || !sameData(get(site, "data"), map[string]any{}) {
					t.Errorf("site ConfigMap %v, want namespace ztp-site and data {}", site)
				}
				if get(object(t, b, "ConfigMap", "c1"), "metadata", "annotations", "example.com/x") != "y" {
					t.Error("the override did not reach the extra-manifest ConfigMap")
				}
			},
		},
		{
			name:    "a ConfigMap override that fits neither ConfigMap is ignored with a warning",
			v2:      true,
			extra:   "    siteConfigMap: {name: site-cm}\n    crTemplates: {ConfigMap: t/cm.yaml}\n",
			nodes:   node,
			files:   map[string]string{"t/cm.yaml": "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: other\n  namespace: c1\n  annotations: {argocd.argoproj.io/sync-wave: \"1\"}\n"},
			warning: "renders c1/other, not c1/c1; the override is ignored",
			check:   func(t *testing.T, b *render.Bundle) { object(t, b, "ConfigMap", "site-cm") },
		},
		{
			name:  "deprecation warnings are written on overridden objects too",
			extra: "    extraManifestPath: user\n    crTemplates: {AgentClusterInstall: t/aci.yaml, ConfigMap: t/cm.yaml}\n",
			nodes: node + "      cpuset: 0-1\n",
			files: map[string]string{
				"user/01-x.yaml": "apiVersion: v1\nkind: Namespace\nmetadata: {name: x}\n",
				"t/aci.yaml":     "apiVersion: extensions.hive.openshift.io/v1beta1\nkind: AgentClusterInstall\nmetadata:\n  name: c1\n  namespace: c1\n  annotations: {argocd.argoproj.io/sync-wave: \"1\", ran.openshift.io/ztp-warning-field-deprecation-cpuset: mine}\n",
				"t/cm.yaml":      "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: c1\n  namespace: c1\n  annotations: {argocd.argoproj.io/sync-wave: \"1\"}\n",
			},
			check: func(t *testing.T, b *render.Bundle) {
				aci := object(t, b, "AgentClusterInstall", "c1")
				if got := get(aci, "metadata", "annotations", render.AnnotationDeprecatedCpuset); got != render.DeprecatedCpusetMessage {
					t.Errorf("cpuset warning on the overridden AgentClusterInstall = %v", got)
				}
				cm := object(t, b, "ConfigMap", "c1")
				if got := get(cm, "metadata", "annotations", render.AnnotationDeprecatedExtraManifestPath); got != render.DeprecatedExtraManifestPathMessage {
					t.Errorf("extraManifestPath warning on the overridden ConfigMap = %v", got)
				}
				if get(cm, "data", "01-x.yaml") == nil {
					t.Error("the extra manifests are not merged into the overridden ConfigMap")
				}
			},
		},
		{
			name:    "an override must keep the default sync wave",
			extra:   "    crTemplates: {KlusterletAddonConfig: t/kac.yaml}\n",
			nodes:   node,
			files:   map[string]string{"t/kac.yaml": "apiVersion: agent.open-cluster-management.io/v1\nkind: KlusterletAddonConfig\nmetadata:\n  name: c1\n  namespace: c1\n  annotations: {argocd.argoproj.io/sync-wave: \"5\"}\n"},
			problem: `site.yaml:12:19: site c1: spec.clusters[0].crTemplates.KlusterletAddonConfig: crTemplates KlusterletAddonConfig: t/kac.yaml has sync-wave "5"; it must keep the default "2"`,
		},
		{
			name:    "an override's sync wave must be a string",
			extra:   "    crTemplates: {KlusterletAddonConfig: t/kac.yaml}\n",
			nodes:   node,
			files:   map[string]string{"t/kac.yaml": "apiVersion: agent.open-cluster-management.io/v1\nkind: KlusterletAddonConfig\nmetadata:\n  name: c1\n  namespace: c1\n  annotations: {argocd.argoproj.io/sync-wave: 2}\n"},
			problem: `t/kac.yaml has sync-wave 2, not a string; write it quoted, as the default "2"`,
		},
		{
			name:    "an override of another kind",
			extra:   "    crTemplates: {ManagedCluster: t/kac.yaml}\n",
			nodes:   node,
			files:   map[string]string{"t/kac.yaml": "apiVersion: agent.open-cluster-management.io/v1\nkind: KlusterletAddonConfig\nmetadata:\n  name: c1\n  annotations: {argocd.argoproj.io/sync-wave: \"2\"}\n"},
			problem: `holds kind "KlusterletAddonConfig"; it must hold a ManagedCluster`,
		},
		{
			name:    "an override with another name is ignored with a warning",
			extra:   "    crTemplates: {ManagedCluster: t/mc.yaml}\n",
			nodes:   node,
			files:   map[string]string{"t/mc.yaml": "apiVersion: cluster.open-cluster-management.io/v1\nkind: ManagedCluster\nmetadata:\n  name: other\n  annotations: {argocd.argoproj.io/sync-wave: \"2\"}\nspec: {hubAcceptsClient: false}\n"},
			warning: "renders /other, not /c1; the override is ignored",
			check: func(t *testing.T, b *render.Bundle) {
				if get(object(t, b, "ManagedCluster", "c1"), "spec", "hubAcceptsClient") != true {
					t.Error("the default ManagedCluster was not used")
				}
			},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			site := baseSite
			if tt.v2 {
				site = strings.Replace(site, "ran.openshift.io/v1", "ran.openshift.io/v2", 1)
			}
			files := map[string]string{"site.yaml": site + tt.extra + tt.nodes}
			for k, v := range tt.files {
				files[k] = v
			}
			b, problems := renderMap(t, files, "")
			if tt.problem != "" {
				wantProblem(t, b, problems, tt.problem)
				return
			}
			if b == nil {
				t.Fatalf("not rendered: %v", problems)
			}
			if tt.warning != "" {
				found := false
				for _, p := range problems {
					found = found || p.Severity == sites.SeverityWarning && strings.Contains(p.Message, tt.warning)
				}
				if !found {
					t.Errorf("problems %v, want a warning containing %q", problems, tt.warning)
				}
			}
			tt.check(t, b)
		})
	}
}

func TestExtraManifestTemplates(t *testing.T) {
	nodes := "    nodes:\n    - hostName: n0\n      role: ''\n      cpuset: 0-1\n"
	tests := []struct {
		name      string
		manifests map[string]string
		wantKeys  []string
		problem   string
	}{
		{name: "an explicit empty role keys template output as upstream does",
			manifests: map[string]string{"m/50-banner.yaml.tmpl": "kind: MachineConfig\nmetadata: {name: 'banner-{{ .Role }}'}\nspec: {net: '{{ .Data.NetworkType }}'}\n"},
			wantKeys:  []string{"-50-banner.yaml"}},
		{name: "legacy workload partitioning uses the role as written",
			manifests: map[string]string{
				"m/workload/03-workload-partitioning.yaml": "kind: MachineConfig\nmetadata: {name: 02-$mcp-workload-partitioning}\nspec: {crio: $crio, k8s: $k8s}\n",
				"m/workload/crio.conf":                     "cpuset = \"$cpuset\"\n",
				"m/workload/kubelet.conf":                  "{\"cpuset\": \"$cpuset\"}\n",
			},
			wantKeys: []string{"03--workload-partitioning.yaml"}},
		{name: "range over a number is refused",
			manifests: map[string]string{"m/x.yaml.tmpl": "{{ range 100000000 }}{{ end }}kind: X\n"},
			problem:   "range over 100000000 is not allowed"},
		{name: "range over a variable holding a number is refused",
			manifests: map[string]string{"m/x.yaml.tmpl": "{{ $n := 5 }}{{ $m := $n }}{{ $m = or 0 100000000 }}{{ range $m }}{{ end }}kind: X\n"},
			problem:   "range over $m is not allowed"},
		{name: "range over or of a number is refused",
			manifests: map[string]string{"m/x.yaml.tmpl": "{{ range or .Data.NoSuchField 100000000 }}{{ end }}kind: X\n"},
			problem:   "is not allowed: it may be a number the template writes itself"},
		{name: "with a number is refused, so that dot is always data",
			manifests: map[string]string{"m/x.yaml.tmpl": "{{ with 100000000 }}{{ range . }}{{ end }}{{ end }}kind: X\n"},
			problem:   "with 100000000 is not allowed"},
		{name: "a number passed to a template is refused",
			manifests: map[string]string{"m/x.yaml.tmpl": "{{ define \"t\" }}{{ range . }}{{ end }}{{ end }}{{ template \"t\" 100000000 }}kind: X\n"},
			problem:   "passing 100000000 to template"},
		{name: "ranges over the data, through variables, index and len, are allowed",
			manifests: map[string]string{"m/x.yaml.tmpl": "{{ $nodes := .Data.Nodes }}kind: X\nhosts:\n{{ range $nodes }}- {{ .HostName }}\n{{ end }}" +
				"{{ range (index .Data.Nodes 0).DiskPartition }}{{ end }}{{ range $i := len .Data.Nodes }}- {{ $i }}\n{{ end }}"},
			wantKeys: []string{"-x.yaml"}},
		{name: "a huge printf width is refused",
			manifests: map[string]string{"m/x.yaml.tmpl": "{{ $a := printf \"%01000000d\" 0 }}kind: X\n"},
			problem:   "printf width or precision over"},
		{name: "strings built in variables are bounded",
			manifests: map[string]string{"m/x.yaml.tmpl": "{{ $a := printf \"%09999d\" 0 }}{{ $b := print $a $a $a $a $a $a $a $a $a $a }}{{ $c := print $b $b $b $b $b $b $b $b $b $b }}{{ $d := print $c $c $c $c $c $c $c $c $c $c $c $c }}kind: X\n"},
			problem:   "a printed string is over"},
		{name: "ranging over data is allowed",
			manifests: map[string]string{"m/x.yaml.tmpl": "kind: X\nhosts:\n{{ range .Data.Nodes }}- {{ .HostName }}\n{{ end }}"},
			wantKeys:  []string{"-x.yaml"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			files := map[string]string{"site.yaml": baseSite + nodes}
			for k, v := range tt.manifests {
				files[k] = v
			}
			b, problems := renderMap(t, files, "m")
			if tt.problem != "" {
				wantProblem(t, b, problems, tt.problem)
				return
			}
			if b == nil {
				t.Fatalf("not rendered: %v", problems)
			}
			data := get(object(t, b, "ConfigMap", "c1"), "data").(map[string]any)
			for _, k := range tt.wantKeys {
				if _, ok := data[k]; !ok {
					t.Errorf("ConfigMap keys %v, want %s", sortedKeys(data), k)
				}
			}
		})
	}
}

func sortedKeys(m map[string]any) []string {
	var keys []string
	for k := range m {
		keys = append(keys, k)
	}
	return keys
}

const ciSite = `apiVersion: siteconfig.open-cluster-management.io/v1alpha1
kind: ClusterInstance
metadata: {name: c1, namespace: c1}
spec:
  clusterName: c1
  baseDomain: example.com
  clusterImageSetNameRef: img
  pullSecretRef: {name: ps}
  templateRefs: [{name: ai-cluster-templates-v1, namespace: open-cluster-management}]
`

func TestClusterInstanceRendering(t *testing.T) {
	node := func(extra string) string {
		return "  - hostName: h0\n    bmcAddress: redfish://192.0.2.1/x\n    bmcCredentialsName: {name: b}\n    bootMACAddress: \"02:00:00:00:00:01\"\n" +
			"    templateRefs: [{name: ai-node-templates-v1, namespace: open-cluster-management}]\n" + extra
	}
	tests := []struct {
		name    string
		spec    string
		check   func(t *testing.T, b *render.Bundle)
		problem string
	}{
		{name: "empty proxy and root device hints are written, as the templates test the pointer",
			spec: "  proxy: {}\n  nodes:\n" + node("    rootDeviceHints: {}\n"),
			check: func(t *testing.T, b *render.Bundle) {
				if p, ok := get(object(t, b, "AgentClusterInstall", "c1"), "spec").(map[string]any)["proxy"]; !ok || len(p.(map[string]any)) != 0 {
					t.Errorf("ACI proxy %v, want {}", p)
				}
				if h, ok := get(object(t, b, "BareMetalHost", "h0"), "spec").(map[string]any)["rootDeviceHints"]; !ok || len(h.(map[string]any)) != 0 {
					t.Errorf("rootDeviceHints %v, want {}", h)
				}
			}},
		{name: "a multi-line SSH key folds as in the template's quotes",
			spec: "  sshPublicKey: |\n    ssh-ed25519 AAAA user@host\n  nodes:\n" + node(""),
			check: func(t *testing.T, b *render.Bundle) {
				if k := get(object(t, b, "InfraEnv", "h0"), "spec", "sshAuthorizedKey"); k != "ssh-ed25519 AAAA user@host " {
					t.Errorf("sshAuthorizedKey %q", k)
				}
			}},
		{name: "hostRef names the host objects, arbiter counts, multi architecture",
			spec: "  clusterType: HighlyAvailableArbiter\n  cpuArchitecture: multi\n  nodes:\n" +
				node("    hostRef: {name: bmh-a, namespace: hosts}\n") +
				strings.ReplaceAll(node("    cpuArchitecture: aarch64\n"), "h0", "h1") +
				strings.ReplaceAll(strings.ReplaceAll(node("    role: arbiter\n"), "h0", "h2"), "00:01", "00:03"),
			check: func(t *testing.T, b *render.Bundle) {
				bmh := object(t, b, "BareMetalHost", "bmh-a")
				if get(bmh, "metadata", "namespace") != "hosts" || get(bmh, "metadata", "labels", "infraenvs.agent-install.openshift.io") != "bmh-a" {
					t.Errorf("hostRef BMH metadata %v", get(bmh, "metadata"))
				}
				if _, ok := get(bmh, "spec").(map[string]any)["architecture"]; ok {
					t.Error("architecture set although the cluster is multi and the node names none")
				}
				if a := get(object(t, b, "InfraEnv", "h1"), "spec", "cpuArchitecture"); a != "aarch64" {
					t.Errorf("node architecture %v", a)
				}
				pr := get(object(t, b, "AgentClusterInstall", "c1"), "spec", "provisionRequirements").(map[string]any)
				if pr["controlPlaneAgents"] != int64(2) || pr["arbiterAgents"] != int64(1) {
					t.Errorf("provisionRequirements %v", pr)
				}
			}},
		{name: "overrides the operator cannot merge are refused",
			spec: "  installConfigOverrides: ' {\"fips\":true}'\n  nodes:\n" + node(""), problem: "installConfigOverrides must be a non-empty JSON object"},
		{name: "a single quote in installer args is refused",
			spec: "  nodes:\n" + node("    installerArgs: '[\"--karg\", \"it''s\"]'\n"), problem: "ends the quoted value"},
		{name: "node-level pruneManifests",
			spec: "  nodes:\n" + node("    pruneManifests: [{apiVersion: metal3.io/v1alpha1, kind: BareMetalHost}]\n"),
			check: func(t *testing.T, b *render.Bundle) {
				for _, o := range b.Objects {
					if o.Kind == "BareMetalHost" {
						t.Error("a pruned BareMetalHost was rendered")
					}
				}
				if len(b.Suppressed) != 1 || b.Suppressed[0] != "BareMetalHost c1/h0" {
					t.Errorf("suppressed %v", b.Suppressed)
				}
			}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			b, problems := renderMap(t, map[string]string{"site.yaml": ciSite + tt.spec}, "")
			if tt.problem != "" {
				wantProblem(t, b, problems, tt.problem)
				return
			}
			if b == nil {
				t.Fatalf("not rendered: %v", problems)
			}
			tt.check(t, b)
		})
	}
}
