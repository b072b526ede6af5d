package render_test

import (
	"context"
	"reflect"
	"strings"
	"testing"
	"testing/fstest"

	"gopkg.in/yaml.v3"

	"github.com/siteops/siteops/render"
	"github.com/siteops/siteops/sites"
)

// fieldSite sets every SiteConfig field that reaches a rendered object, each to
// a value of its own, so that each can be followed to where the generator's
// clusterCRsV1.go puts it.
const fieldSite = `apiVersion: ran.openshift.io/v1
kind: SiteConfig
metadata: {name: s}
spec:
  baseDomain: example.com
  pullSecretRef: {name: ps}
  clusterImageSetNameRef: img-site
  sshPublicKey: ssh-ed25519 AAAA key
  clusters:
  - clusterName: c1
    clusterImageSetNameRef: img-c1
    networkType: OpenShiftSDN
    holdInstallation: true
    apiVIP: 192.0.2.10
    ingressVIP: 192.0.2.11
    apiVIPs: [192.0.2.10, "2001:db8::10"]
    ingressVIPs: [192.0.2.11, "2001:db8::11"]
    clusterNetwork: [{cidr: 10.128.0.0/14, hostPrefix: 23}, {cidr: "fd01::/48", hostPrefix: 64}]
    machineNetwork: [{cidr: 192.0.2.0/24}, {cidr: "2001:db8::/64"}]
    serviceNetwork: [172.30.0.0/16, "fd02::/112"]
    additionalNTPSources: [ntp1.example.com, 192.0.2.1]
    proxy: {httpProxy: "http://p:3128", httpsProxy: "http://p:3129", noProxy: .example.com}
    ignitionConfigOverride: '{"ignition":{"version":"3.2.0"}}'
    clusterLabels: {common: true, du: "", vendor: X}
    nodes:
    - hostName: m0
      role: master
      bmcAddress: idrac-virtualmedia://192.0.2.20/redfish/v1/Systems/System.Embedded.1
      bmcCredentialsName: {name: m0-bmc}
      bootMACAddress: "AA:BB:CC:00:00:01"
      bootMode: UEFISecureBoot
      automatedCleaningMode: metadata
      rootDeviceHints: {deviceName: /dev/sda, rotational: false}
      userData: {name: ud, namespace: c1}
      installerArgs: '["--append-karg","x"]'
      ignitionConfigOverride: '{"ignition":{"version":"3.1.0"}}'
      nodeLabels: {a/b: c, empty: ""}
      ironicInspect: disabled
      nodeNetwork:
        interfaces: [{name: eno1, macAddress: "AA:BB:CC:00:00:01"}]
        config: {dns-resolver: {config: {server: [192.0.2.1]}}, interfaces: [{name: eno1, mtu: 9000}]}
    - hostName: m1
      bmcAddress: redfish://192.0.2.21/x
      bootMACAddress: "AA:BB:CC:00:00:02"
      ironicInspect: enabled
    - hostName: m2
      role: ""
      bmcAddress: redfish://192.0.2.22/x
      bootMACAddress: "AA:BB:CC:00:00:03"
    - hostName: w0
      role: worker
      bmcAddress: redfish://192.0.2.23/x
      bootMACAddress: "AA:BB:CC:00:00:04"
    - hostName: i0
      role: infra
      bmcAddress: redfish://192.0.2.24/x
      bootMACAddress: "AA:BB:CC:00:00:05"
`

func TestSiteConfigFieldsReachTheirRenderedField(t *testing.T) {
	b, problems := renderMap(t, map[string]string{"site.yaml": fieldSite}, "")
	if b == nil {
		t.Fatalf("not rendered: %v", problems)
	}
	tests := []struct {
		kind, name, path string
		want             string // YAML; "<absent>" when the key must not be there
	}{
		{"Namespace", "c1", "metadata.labels.name", "c1"},
		{"AgentClusterInstall", "c1", "metadata.annotations[agent-install.openshift.io/install-config-overrides]", `'{"networking":{"networkType":"OpenShiftSDN"}}'`},
		{"AgentClusterInstall", "c1", "spec.clusterDeploymentRef.name", "c1"},
		{"AgentClusterInstall", "c1", "spec.holdInstallation", "true"},
		{"AgentClusterInstall", "c1", "spec.imageSetRef.name", "img-c1"},
		{"AgentClusterInstall", "c1", "spec.apiVIP", "192.0.2.10"},
		{"AgentClusterInstall", "c1", "spec.ingressVIP", "192.0.2.11"},
		{"AgentClusterInstall", "c1", "spec.apiVIPs", `[192.0.2.10, "2001:db8::10"]`},
		{"AgentClusterInstall", "c1", "spec.ingressVIPs", `[192.0.2.11, "2001:db8::11"]`},
		{"AgentClusterInstall", "c1", "spec.networking.clusterNetwork", `[{cidr: 10.128.0.0/14, hostPrefix: 23}, {cidr: "fd01::/48", hostPrefix: 64}]`},
		{"AgentClusterInstall", "c1", "spec.networking.machineNetwork", `[{cidr: 192.0.2.0/24}, {cidr: "2001:db8::/64"}]`},
		{"AgentClusterInstall", "c1", "spec.networking.serviceNetwork", `[172.30.0.0/16, "fd02::/112"]`},
		{"AgentClusterInstall", "c1", "spec.provisionRequirements", "{controlPlaneAgents: 3, workerAgents: 2}"},
		{"AgentClusterInstall", "c1", "spec.proxy", `{httpProxy: "http://p:3128", httpsProxy: "http://p:3129", noProxy: .example.com}`},
		{"AgentClusterInstall", "c1", "spec.sshPublicKey", "ssh-ed25519 AAAA key"},
		{"AgentClusterInstall", "c1", "spec.manifestsConfigMapRef", "{name: c1}"},
		{"AgentClusterInstall", "c1", "spec.manifestsConfigMapRefs", "<absent>"},
		{"ClusterDeployment", "c1", "spec.baseDomain", "example.com"},
		{"ClusterDeployment", "c1", "spec.clusterName", "c1"},
		{"ClusterDeployment", "c1", "spec.pullSecretRef", "{name: ps}"},
		{"ClusterDeployment", "c1", "spec.platform.agentBareMetal.agentSelector.matchLabels", "{cluster-name: c1}"},
		{"ClusterDeployment", "c1", "spec.clusterInstallRef", "{group: extensions.hive.openshift.io, kind: AgentClusterInstall, name: c1, version: v1beta1}"},
		{"InfraEnv", "c1", "spec.clusterRef", "{name: c1, namespace: c1}"},
		{"InfraEnv", "c1", "spec.sshAuthorizedKey", "ssh-ed25519 AAAA key"},
		{"InfraEnv", "c1", "spec.proxy", `{httpProxy: "http://p:3128", httpsProxy: "http://p:3129", noProxy: .example.com}`},
		{"InfraEnv", "c1", "spec.pullSecretRef", "{name: ps}"},
		{"InfraEnv", "c1", "spec.ignitionConfigOverride", `'{"ignition":{"version":"3.2.0"}}'`},
		{"InfraEnv", "c1", "spec.nmStateConfigLabelSelector.matchLabels", "{nmstate-label: c1}"},
		{"InfraEnv", "c1", "spec.additionalNTPSources", "[ntp1.example.com, 192.0.2.1]"},
		{"NMStateConfig", "m0", "metadata.labels", "{nmstate-label: c1}"},
		{"NMStateConfig", "m0", "spec.interfaces", `[{name: eno1, macAddress: "AA:BB:CC:00:00:01"}]`},
		{"NMStateConfig", "m0", "spec.config", "{dns-resolver: {config: {server: [192.0.2.1]}}, interfaces: [{name: eno1, mtu: 9000}]}"},
		{"BareMetalHost", "m0", "metadata.annotations[inspect.metal3.io]", "disabled"},
		{"BareMetalHost", "m0", "metadata.annotations[bmac.agent-install.openshift.io.node-label.a/b]", "c"},
		{"BareMetalHost", "m0", "metadata.annotations[bmac.agent-install.openshift.io.node-label.empty]", `""`},
		{"BareMetalHost", "m0", "metadata.annotations[bmac.agent-install.openshift.io/hostname]", "m0"},
		{"BareMetalHost", "m0", "metadata.annotations[bmac.agent-install.openshift.io/installer-args]", `'["--append-karg","x"]'`},
		{"BareMetalHost", "m0", "metadata.annotations[bmac.agent-install.openshift.io/ignition-config-overrides]", `'{"ignition":{"version":"3.1.0"}}'`},
		{"BareMetalHost", "m0", "metadata.annotations[bmac.agent-install.openshift.io/role]", "master"},
		{"BareMetalHost", "m0", "metadata.labels", "{infraenvs.agent-install.openshift.io: c1}"},
		{"BareMetalHost", "m0", "spec.bootMode", "UEFISecureBoot"},
		{"BareMetalHost", "m0", "spec.bmc", "{address: idrac-virtualmedia://192.0.2.20/redfish/v1/Systems/System.Embedded.1, disableCertificateVerification: true, credentialsName: m0-bmc}"},
		{"BareMetalHost", "m0", "spec.bootMACAddress", `"AA:BB:CC:00:00:01"`},
		{"BareMetalHost", "m0", "spec.automatedCleaningMode", "metadata"},
		{"BareMetalHost", "m0", "spec.online", "true"},
		{"BareMetalHost", "m0", "spec.rootDeviceHints", "{deviceName: /dev/sda, rotational: false}"},
		{"BareMetalHost", "m0", "spec.userData", "{name: ud, namespace: c1}"},
		// Defaults, and an explicit ironicInspect: enabled, which writes nothing.
		{"BareMetalHost", "m1", "metadata.annotations[inspect.metal3.io]", "<absent>"},
		{"BareMetalHost", "m1", "metadata.annotations[bmac.agent-install.openshift.io/role]", "master"},
		{"BareMetalHost", "m1", "spec.bootMode", "UEFI"},
		{"BareMetalHost", "m1", "spec.automatedCleaningMode", "disabled"},
		{"BareMetalHost", "m1", "spec.bmc.credentialsName", "<absent>"},
		{"BareMetalHost", "m1", "spec.rootDeviceHints", "<absent>"},
		{"BareMetalHost", "m1", "spec.userData", "<absent>"},
		// An explicit empty role counts as master and drops the annotation.
		{"BareMetalHost", "m2", "metadata.annotations[bmac.agent-install.openshift.io/role]", "<absent>"},
		// Any role but master counts as a worker and is written as is.
		{"BareMetalHost", "i0", "metadata.annotations[bmac.agent-install.openshift.io/role]", "infra"},
		{"BareMetalHost", "w0", "metadata.annotations[bmac.agent-install.openshift.io/role]", "worker"},
		{"ManagedCluster", "c1", "metadata.labels", `{common: "true", du: "", vendor: X, cloud: auto-detect}`},
		{"ManagedCluster", "c1", "spec", "{hubAcceptsClient: true}"},
		{"KlusterletAddonConfig", "c1", "spec", `{clusterName: c1, clusterNamespace: c1, applicationManager: {enabled: false},
			certPolicyController: {enabled: false}, iamPolicyController: {enabled: false}, policyController: {enabled: true},
			searchCollector: {enabled: false}}`},
	}
	for _, tt := range tests {
		t.Run(tt.kind+"/"+tt.name+"/"+tt.path, func(t *testing.T) {
			got, ok := lookupPath(object(t, b, tt.kind, tt.name), tt.path)
			if tt.want == "<absent>" {
				if ok {
					t.Errorf("%s is %v, want it left out", tt.path, got)
				}
				return
			}
			var want any
			if err := yaml.Unmarshal([]byte(tt.want), &want); err != nil {
				t.Fatal(err)
			}
			if !ok || !sameData(got, want) {
				t.Errorf("%s = %#v, want %#v", tt.path, got, want)
			}
		})
	}
	for _, o := range b.Objects {
		if o.Kind == "NMStateConfig" && o.Name != "m0" {
			t.Errorf("NMStateConfig %s rendered for a host without nodeNetwork", o.Name)
		}
	}
}

// lookupPath follows a path such as a.b[key.with.dots].c through maps.
func lookupPath(m map[string]any, path string) (any, bool) {
	var v any = m
	for path != "" {
		var key string
		switch {
		case strings.HasPrefix(path, "["):
			end := strings.Index(path, "]")
			key, path = path[1:end], strings.TrimPrefix(path[end+1:], ".")
		default:
			end := strings.IndexAny(path, ".[")
			if end < 0 {
				end = len(path)
			}
			key, path = path[:end], strings.TrimPrefix(path[end:], ".")
		}
		mm, ok := v.(map[string]any)
		if !ok {
			return nil, false
		}
		if v, ok = mm[key]; !ok {
			return nil, false
		}
	}
	return v, true
}

// sameData compares rendered content with parsed YAML: numbers by value,
// whatever their Go type.
func sameData(a, b any) bool {
	switch x := a.(type) {
	case map[string]any:
		y, ok := b.(map[string]any)
		if !ok || len(x) != len(y) {
			return false
		}
		for k, v := range x {
			if !sameData(v, y[k]) {
				return false
			}
		}
		return true
	case []any:
		y, ok := b.([]any)
		if !ok || len(x) != len(y) {
			return false
		}
		for i := range x {
			if !sameData(x[i], y[i]) {
				return false
			}
		}
		return true
	}
	if fa, ok := number(a); ok {
		fb, ok := number(b)
		return ok && fa == fb
	}
	return reflect.DeepEqual(a, b)
}

func number(v any) (float64, bool) {
	switch n := v.(type) {
	case int:
		return float64(n), true
	case int64:
		return float64(n), true
	case int32:
		return float64(n), true
	case uint64:
		return float64(n), true
	case float64:
		return n, true
	}
	return 0, false
}

func TestEmptyListsAndMappingsAreRenderedAsSet(t *testing.T) {
	site := `apiVersion: ran.openshift.io/v1
kind: SiteConfig
metadata: {name: s}
spec:
  pullSecretRef: {name: ps}
  clusterImageSetNameRef: img
  clusters:
  - clusterName: c1
    apiVIPs: []
    ingressVIPs: []
    clusterNetwork: []
    machineNetwork: []
    serviceNetwork: []
    additionalNTPSources: []
    nodes:
    - hostName: n0
      rootDeviceHints: {}
      userData: {}
      nodeNetwork: {config: {}, interfaces: [{name: eno1, macAddress: "02:00:00:00:00:01"}]}
    - hostName: n1
      rootDeviceHints:
      nodeNetwork: {interfaces: []}
`
	b, problems := renderMap(t, map[string]string{"site.yaml": site}, "")
	if b == nil {
		t.Fatalf("not rendered: %v", problems)
	}
	tests := []struct {
		kind, name, path, want string
	}{
		{"AgentClusterInstall", "c1", "spec.apiVIPs", "[]"},
		{"AgentClusterInstall", "c1", "spec.ingressVIPs", "[]"},
		{"AgentClusterInstall", "c1", "spec.networking", "{clusterNetwork: [], machineNetwork: [], serviceNetwork: []}"},
		{"InfraEnv", "c1", "spec.additionalNTPSources", "[]"},
		{"NMStateConfig", "n0", "spec.config", "{}"},
		{"BareMetalHost", "n0", "spec.rootDeviceHints", "{}"},
		{"BareMetalHost", "n0", "spec.userData", "{}"},
		{"BareMetalHost", "n1", "spec.rootDeviceHints", "<absent>"}, // null is unset
		{"BareMetalHost", "n1", "spec.userData", "<absent>"},
	}
	for _, tt := range tests {
		got, ok := lookupPath(object(t, b, tt.kind, tt.name), tt.path)
		if tt.want == "<absent>" {
			if ok {
				t.Errorf("%s %s %s = %v, want it left out", tt.kind, tt.name, tt.path, got)
			}
			continue
		}
		var want any
		if err := yaml.Unmarshal([]byte(tt.want), &want); err != nil {
			t.Fatal(err)
		}
		if !ok || !sameData(got, want) {
			t.Errorf("%s %s %s = %#v, want %#v", tt.kind, tt.name, tt.path, got, want)
		}
	}
	for _, o := range b.Objects {
		if o.Kind == "NMStateConfig" && o.Name == "n1" {
			t.Error("an NMStateConfig was rendered for an empty nodeNetwork")
		}
	}
}

// everyKindSite renders every kind: a v2 site with a site ConfigMap, a
// node network and a BIOS profile.
func everyKindSite(extra, nodeExtra string) map[string]string {
	return map[string]string{
		"bios.yaml": "A: 1\n",
		"site.yaml": `apiVersion: ran.openshift.io/v2
kind: SiteConfig
metadata: {name: s}
spec:
  pullSecretRef: {name: ps}
  clusterImageSetNameRef: img
  biosConfigRef: {filePath: bios.yaml}
` + extra + `  clusters:
  - clusterName: c1
    siteConfigMap: {name: site-cm, data: {k: v}}
    nodes:
    - hostName: n0
      nodeNetwork: {interfaces: [{name: eno1, macAddress: "02:00:00:00:00:01"}]}
` + nodeExtra,
	}
}

var allKinds = []string{"Namespace", "AgentClusterInstall", "ClusterDeployment", "NMStateConfig", "InfraEnv",
	"BareMetalHost", "HostFirmwareSettings", "ConfigMap", "ManagedCluster", "KlusterletAddonConfig"}

func TestCrAnnotationsReachEveryKind(t *testing.T) {
	var add strings.Builder
	for _, k := range allKinds {
		add.WriteString("      " + k + ": {example.com/kind: " + k + "}\n")
	}
	b, problems := renderMap(t, everyKindSite("  crAnnotations:\n    add:\n"+add.String(), ""), "")
	if b == nil {
		t.Fatalf("not rendered: %v", problems)
	}
	if len(b.Objects) != 11 {
		t.Errorf("%d objects, want 11 (every kind, two ConfigMaps)", len(b.Objects))
	}
	for _, o := range b.Objects {
		if got := get(o.Content, "metadata", "annotations", "example.com/kind"); got != o.Kind {
			t.Errorf("%s: crAnnotations gave %v, want %s", o.Ref(), got, o.Kind)
		}
	}
}

func TestCrSuppression(t *testing.T) {
	clusterKinds := []string{"Namespace", "AgentClusterInstall", "ClusterDeployment", "InfraEnv", "ConfigMap", "ManagedCluster", "KlusterletAddonConfig"}
	nodeKinds := []string{"NMStateConfig", "BareMetalHost", "HostFirmwareSettings"}
	for _, kind := range allKinds {
		t.Run(kind, func(t *testing.T) {
			files := everyKindSite("", "")
			// Suppressed at the level that owns the kind, and listed at
			// the other level too, where it must have no effect.
			cluster := "    crSuppression: [" + kind + "]\n"
			node := "      crSuppression: [" + kind + "]\n"
			files["site.yaml"] = strings.Replace(files["site.yaml"], "    nodes:\n", cluster+"    nodes:\n", 1) + node
			b, problems := renderMap(t, files, "")
			if b == nil {
				t.Fatalf("not rendered: %v", problems)
			}
			want := 10
			if kind == "ConfigMap" {
				want = 9 // both ConfigMaps
			}
			if len(b.Objects) != want {
				t.Errorf("%d objects, want %d", len(b.Objects), want)
			}
			for _, o := range b.Objects {
				if o.Kind == kind {
					t.Errorf("%s was not suppressed", o.Ref())
				}
			}
		})
	}
	// A kind listed at the wrong level only is kept.
	for _, tt := range []struct {
		kinds       []string
		atNodeLevel bool
	}{{clusterKinds, true}, {nodeKinds, false}} {
		files := everyKindSite("", "")
		list := "[" + strings.Join(tt.kinds, ", ") + "]"
		if tt.atNodeLevel {
			files["site.yaml"] += "      crSuppression: " + list + "\n"
		} else {
			files["site.yaml"] = strings.Replace(files["site.yaml"], "    nodes:\n", "    crSuppression: "+list+"\n    nodes:\n", 1)
		}
		b, problems := renderMap(t, files, "")
		if b == nil || len(b.Objects) != 11 {
			t.Errorf("suppression of %v at the wrong level: bundle %v, problems %v; want all 11 objects", tt.kinds, b != nil, problems)
		}
	}
}

func TestBIOSProfilePrecedence(t *testing.T) {
	files := map[string]string{
		"site.bios":    "From: site\n",
		"cluster.bios": "From: cluster\n",
		"node.bios":    "From: node\n",
		"site.yaml": `apiVersion: ran.openshift.io/v1
kind: SiteConfig
metadata: {name: s}
spec:
  clusterImageSetNameRef: img
  biosConfigRef: {filePath: site.bios}
  clusters:
  - clusterName: c1
    biosConfigRef: {filePath: cluster.bios}
    nodes:
    - hostName: n0
      biosConfigRef: {filePath: node.bios}
    - hostName: n1
  - clusterName: c2
    nodes:
    - hostName: m0
`,
	}
	for _, tt := range []struct{ cluster, host, want string }{
		{"c1", "n0", "node"}, {"c1", "n1", "cluster"}, {"c2", "m0", "site"},
	} {
		b := renderCluster(t, files, tt.cluster)
		if got := get(object(t, b, "HostFirmwareSettings", tt.host), "spec", "settings", "From"); got != tt.want {
			t.Errorf("%s: BIOS profile from %v, want %s", tt.host, got, tt.want)
		}
	}
}

func TestClusterShapeFromNodeRoles(t *testing.T) {
	tests := []struct {
		name, roles  string
		provisioning string
	}{
		{"one master is an SNO, whatever the workers (SNO expansion)", "[master, worker, worker]", "{controlPlaneAgents: 1}"},
		{"an empty role is a master", "['', worker]", "{controlPlaneAgents: 1}"},
		{"two masters make a standard cluster", "[master, master, worker]", "{controlPlaneAgents: 2, workerAgents: 1}"},
		{"any role but master counts as a worker", "[master, master, master, arbiter, infra, Master]", "{controlPlaneAgents: 3, workerAgents: 3}"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var roles []string
			if err := yaml.Unmarshal([]byte(tt.roles), &roles); err != nil {
				t.Fatal(err)
			}
			var nodes strings.Builder
			for i, r := range roles {
				nodes.WriteString("    - {hostName: h" + string(rune('0'+i)) + ", role: '" + r + "'}\n")
			}
			site := "apiVersion: ran.openshift.io/v1\nkind: SiteConfig\nmetadata: {name: s}\nspec:\n  clusterImageSetNameRef: img\n  clusters:\n  - clusterName: c1\n    nodes:\n" + nodes.String()
			b, problems := renderMap(t, map[string]string{"site.yaml": site}, "")
			if b == nil {
				t.Fatalf("not rendered: %v", problems)
			}
			var want any
			if err := yaml.Unmarshal([]byte(tt.provisioning), &want); err != nil {
				t.Fatal(err)
			}
			if got := get(object(t, b, "AgentClusterInstall", "c1"), "spec", "provisionRequirements"); !sameData(got, want) {
				t.Errorf("provisionRequirements %v, want %v", got, want)
			}
		})
	}
}

// renderCluster loads site.yaml from files and renders one of its clusters.
func renderCluster(t *testing.T, files map[string]string, cluster string) *render.Bundle {
	t.Helper()
	fsys := fstest.MapFS{}
	for name, content := range files {
		fsys[name] = &fstest.MapFile{Data: []byte(content)}
	}
	fleet, err := sites.Load(context.Background(), fsys, []string{"site.yaml"})
	if err != nil || fleet.Problems.HasErrors() {
		t.Fatalf("load: %v %v", err, fleet.Problems)
	}
	for _, s := range fleet.Sites {
		if s.Name == cluster {
			b, problems := render.New().Render(s)
			if b == nil {
				t.Fatalf("not rendered: %v", problems)
			}
			return b
		}
	}
	t.Fatalf("no cluster %s", cluster)
	return nil
}

func TestCrTemplatesOnEveryKind(t *testing.T) {
	// The default API version, name, namespace and sync wave of each kind,
	// with placeholders where they come from the site.
	defaults := map[string][4]string{
		"Namespace":             {"v1", "{{ .Cluster.ClusterName }}", "", "0"},
		"AgentClusterInstall":   {"extensions.hive.openshift.io/v1beta1", "{{ .Cluster.ClusterName }}", "{{ .Cluster.ClusterName }}", "1"},
		"ClusterDeployment":     {"hive.openshift.io/v1", "{{ .Cluster.ClusterName }}", "{{ .Cluster.ClusterName }}", "1"},
		"NMStateConfig":         {"agent-install.openshift.io/v1beta1", "{{ .Node.HostName }}", "{{ .Cluster.ClusterName }}", "1"},
		"InfraEnv":              {"agent-install.openshift.io/v1beta1", "{{ .Cluster.ClusterName }}", "{{ .Cluster.ClusterName }}", "1"},
		"BareMetalHost":         {"metal3.io/v1alpha1", "{{ .Node.HostName }}", "{{ .Cluster.ClusterName }}", "3"},
		"HostFirmwareSettings":  {"metal3.io/v1alpha1", "{{ .Node.HostName }}", "{{ .Cluster.ClusterName }}", "1"},
		"ConfigMap":             {"v1", "{{ .Cluster.ClusterName }}", "{{ .Cluster.ClusterName }}", "1"},
		"ManagedCluster":        {"cluster.open-cluster-management.io/v1", "{{ .Cluster.ClusterName }}", "", "2"},
		"KlusterletAddonConfig": {"agent.open-cluster-management.io/v1", "{{ .Cluster.ClusterName }}", "{{ .Cluster.ClusterName }}", "2"},
	}
	for _, level := range []string{"site", "cluster", "node"} {
		for _, kind := range allKinds {
			d := defaults[kind]
			nodeKind := kind == "NMStateConfig" || kind == "BareMetalHost" || kind == "HostFirmwareSettings"
			if level == "node" && !nodeKind {
				continue
			}
			t.Run(level+"/"+kind, func(t *testing.T) {
				tmpl := "apiVersion: " + d[0] + "\nkind: " + kind + "\nmetadata:\n  name: \"" + d[1] + "\"\n"
				if d[2] != "" {
					tmpl += "  namespace: \"" + d[2] + "\"\n"
				}
				tmpl += "  annotations: {argocd.argoproj.io/sync-wave: \"" + d[3] + "\", example.com/from: " + level + "}\n"
				entry := "crTemplates: {" + kind + ": t.yaml}\n"
				var files map[string]string
				switch level {
				case "site":
					files = everyKindSite("  "+entry, "")
				case "cluster":
					files = everyKindSite("", "")
					files["site.yaml"] = strings.Replace(files["site.yaml"], "    nodes:\n", "    "+entry+"    nodes:\n", 1)
				case "node":
					files = everyKindSite("", "      "+entry)
				}
				files["t.yaml"] = tmpl
				b, problems := renderMap(t, files, "")
				if b == nil {
					t.Fatalf("not rendered: %v", problems)
				}
				overridden := 0
				for _, o := range b.Objects {
					if o.Kind == kind && get(o.Content, "metadata", "annotations", "example.com/from") == level {
						overridden++
					}
				}
				if overridden != 1 {
					t.Errorf("%d %s objects overridden, want 1 (problems %v)", overridden, kind, problems)
				}
			})
		}
	}
}
