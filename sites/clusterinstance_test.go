package sites

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// ciDoc is a valid ClusterInstance with one SNO node; body is added to the
// spec and nodes replaces the node list when not empty.
func ciDoc(name, body, nodes string) string {
	if nodes == "" {
		nodes = `  - hostName: ` + name + `-0
    bmcAddress: redfish://192.0.2.1/redfish/v1/Systems/1
    bmcCredentialsName: {name: bmc}
    bootMACAddress: "02:00:00:00:00:01"
    templateRefs: [{name: ai-node-templates-v1, namespace: open-cluster-management}]
`
	}
	return `apiVersion: siteconfig.open-cluster-management.io/v1alpha1
kind: ClusterInstance
metadata:
  name: ` + name + `
  namespace: ` + name + `
spec:
  clusterName: ` + name + `
  baseDomain: example.com
  clusterImageSetNameRef: img
  pullSecretRef: {name: ps}
  templateRefs: [{name: ai-cluster-templates-v1, namespace: open-cluster-management}]
` + body + "  nodes:\n" + nodes
}

func TestClusterInstanceDefaults(t *testing.T) {
	sites := mustDecode(t, ciDoc("c1", "  clusterType: SNO\n", ""))
	wantSites(t, sites, "c1")
	s := sites[0]
	if s.Format != FormatClusterInstance || s.Instance == nil || s.Cluster != nil {
		t.Fatalf("format %s, instance %v", s.Format, s.Instance != nil)
	}
	spec := s.Instance.Spec
	if spec.NetworkType != "OVNKubernetes" || spec.CPUArchitecture != "x86_64" || spec.CPUPartitioning != "None" {
		t.Errorf("cluster defaults: %q %q %q", spec.NetworkType, spec.CPUArchitecture, spec.CPUPartitioning)
	}
	n := spec.Nodes[0]
	if n.Role != "master" || n.BootMode != "UEFI" || n.AutomatedCleaningMode != "disabled" || n.IronicInspect != "" {
		t.Errorf("node defaults: %+v", n)
	}
	if s.FieldPath("nodes[0].role") != "spec.nodes[0].role" {
		t.Errorf("FieldPath = %s", s.FieldPath("nodes[0].role"))
	}
}

func TestClusterInstanceProblems(t *testing.T) {
	worker := `  - hostName: w0
    role: worker
    bmcAddress: redfish://192.0.2.2/x
    bmcCredentialsName: {name: bmc}
    bootMACAddress: "02:00:00:00:00:02"
    templateRefs: [{name: ai-node-templates-v1, namespace: open-cluster-management}]
`
	tests := []struct {
		name, body, nodes string
		field, msg        string
		warning           bool
	}{
		{name: "enum", body: "  networkType: Calico\n", field: "spec.networkType", msg: `"Calico" is not allowed`},
		{name: "node enum", nodes: strings.Replace(worker, "role: worker", "role: boss", 1), field: "spec.nodes[0].role", msg: `"boss" is not allowed`},
		{name: "bad MAC", nodes: strings.Replace(worker, `"02:00:00:00:00:02"`, "02-00", 1), field: "spec.nodes[0].bootMACAddress", msg: "not a MAC address"},
		{name: "missing field", body: "  baseDomain: ''\n", field: "spec.baseDomain", msg: "baseDomain is required"},
		{name: "no master", nodes: worker, field: "spec.nodes", msg: "at least 1 control-plane agent is required"},
		{name: "SNO with two masters", body: "  clusterType: SNO\n", nodes: strings.Replace(worker, "role: worker", "role: master", 1) + strings.Replace(strings.Replace(worker, "role: worker", "role: master", 1), "w0", "w1", 1),
			field: "spec.nodes", msg: "single node OpenShift cluster-type must have exactly 1 control-plane agent"},
		{name: "arbiter without the type", nodes: strings.Replace(worker, "role: worker", "role: arbiter", 1) + strings.Replace(strings.Replace(worker, "role: worker", "role: master", 1), "w0", "m0", 1),
			field: "spec.nodes", msg: "arbiter agents can only be used with HighlyAvailableArbiter"},
		{name: "bad JSON", body: "  installConfigOverrides: '{nope'\n", field: "spec.installConfigOverrides", msg: "installConfigOverrides is not a valid JSON-formatted string"},
		{name: "reinstall at creation", body: "  reinstall: {generation: g1}\n", field: "spec.reinstall", msg: "reinstall spec cannot be set during initial installation"},
		{name: "too many VIPs", body: "  apiVIPs: [192.0.2.5, 192.0.2.6, 2001:db8::5]\n", field: "spec.apiVIPs", msg: "at most 2 entries"},
		{name: "custom templates warn", body: "", field: "spec.templateRefs[0].name", msg: "custom template set", warning: true},
		{name: "unknown field", body: "  clusterNmae: x\n", field: "spec.clusterNmae", msg: `unknown field "clusterNmae"`, warning: true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			src := ciDoc("c1", tt.body, tt.nodes)
			if tt.name == "custom templates warn" {
				src = strings.Replace(src, "name: ai-cluster-templates-v1", "name: my-templates", 1)
			}
			if tt.name == "missing field" {
				src = strings.Replace(src, "  baseDomain: example.com\n", "", 1)
			}
			sites, problems := decodeText(t, src)
			p := problemMatching(t, problems, tt.msg)
			if p.Field != tt.field || p.Site != "c1" || p.Pos.Line == 0 {
				t.Errorf("%s: field %q site %q, want %q c1 with a line", p.Error(), p.Field, p.Site, tt.field)
			}
			if tt.warning {
				if p.Severity != SeverityWarning || len(sites) != 1 {
					t.Errorf("want a warning and the site, got %s and %d sites", p.Severity, len(sites))
				}
			} else if len(sites) != 0 {
				t.Errorf("the site loaded despite %s", p.Error())
			}
		})
	}
}

// TestMixedFleetDuplicate: the same cluster defined as a SiteConfig and as
// a ClusterInstance is an error that names both files.
func TestMixedFleetDuplicate(t *testing.T) {
	fsys := mapFS(map[string]string{
		"a/sc.yaml": v1Doc(goodCluster("dup")),
		"b/ci.yaml": ciDoc("dup", "", ""),
		"c/ok.yaml": ciDoc("ok", "", ""),
	})
	f := load(t, fsys, []string{"."})
	wantSites(t, f.Sites, "ok")
	p := problemMatching(t, f.Problems, `cluster "dup" is also defined at b/ci.yaml`)
	if p.Pos.File != "a/sc.yaml" {
		t.Errorf("problem at %s", p.Pos)
	}
	problemMatching(t, f.Problems, `cluster "dup" is also defined at a/sc.yaml`)
}

// TestClusterInstanceConformanceInputsLoad: every input of the conformance
// set decodes without errors.
func TestClusterInstanceConformanceInputsLoad(t *testing.T) {
	files, _ := filepath.Glob("../test/conformance/testdata/clusterinstance/inputs/*.yaml")
	if len(files) == 0 {
		t.Fatal("no inputs")
	}
	for _, f := range files {
		data, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		sites, problems := decodeFile(f, data, decodeOptions{})
		if problems.HasErrors() || len(sites) != 1 {
			t.Errorf("%s: %d sites, problems:\n%s", f, len(sites), problemList(problems))
		}
	}
}

func TestClusterInstanceSchemaDetails(t *testing.T) {
	node := "  - hostName: h0\n    bmcAddress: redfish://192.0.2.1/x\n    bmcCredentialsName: {name: bmc}\n    bootMACAddress: \"02:00:00:00:00:01\"\n    templateRefs: [{name: ai-node-templates-v1, namespace: open-cluster-management}]\n"
	tests := []struct {
		name, body, nodes, field, msg string
	}{
		{name: "hostRef without a namespace", nodes: node + "    hostRef: {name: x}\n", field: "spec.nodes[0].hostRef.namespace", msg: "namespace is required"},
		{name: "empty interfaces", nodes: node + "    nodeNetwork: {interfaces: []}\n", field: "spec.nodes[0].nodeNetwork.interfaces", msg: "at least one entry"},
		{name: "pruneManifests without apiVersion", body: "  pruneManifests: [{kind: BareMetalHost}]\n", nodes: node, field: "spec.pruneManifests[0].apiVersion", msg: "apiVersion is required"},
		{name: "network without a CIDR", body: "  machineNetwork: [{}]\n", nodes: node, field: "spec.machineNetwork[0].cidr", msg: "cidr is required"},
		{name: "another install flow's templates", body: "", nodes: strings.Replace(node, "ai-node-templates-v1", "ibi-node-templates-v1", 1), field: "spec.nodes[0].templateRefs[0].name", msg: "install flow siteops does not render"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			sites, problems := decodeText(t, ciDoc("c1", tt.body, tt.nodes))
			p := problemMatching(t, problems, tt.msg)
			if p.Field != tt.field || p.Severity != SeverityError || len(sites) != 0 {
				t.Errorf("%s: field %q severity %s, %d sites", p.Error(), p.Field, p.Severity, len(sites))
			}
		})
	}
	t.Run("free-form values resolve as YAML 1.1, as kubectl sends them", func(t *testing.T) {
		sites := mustDecode(t, ciDoc("c1", "", node+"    nodeNetwork:\n      config: {a: yes, b: off, c: 'yes'}\n      interfaces: [{name: eno1, macAddress: \"02:00:00:00:00:01\"}]\n"))
		cfg := sites[0].Instance.Spec.Nodes[0].NodeNetwork.Config
		if cfg["a"] != true || cfg["b"] != false || cfg["c"] != "yes" {
			t.Errorf("config %v", cfg)
		}
	})
	t.Run("List items and a misspelt kind", func(t *testing.T) {
		doc := strings.Replace(ciDoc("c2", "", ""), "kind: ClusterInstance", "kind: Clusterinstance", 1)
		list := "apiVersion: v1\nkind: List\nitems:\n- " + strings.ReplaceAll(strings.TrimSuffix(doc, "\n"), "\n", "\n  ") + "\n"
		sites, problems := decodeText(t, list)
		wantSites(t, sites, "c2")
		problemMatching(t, problems, "read as a ClusterInstance because of its apiVersion")
	})
}

func TestClusterInstanceMACPatterns(t *testing.T) {
	// The CRD's bootMACAddress pattern is not anchored: the API server
	// takes a value that contains a MAC. Interface MACs must be one.
	sites := mustDecode(t, strings.Replace(ciDoc("c1", "", ""), `bootMACAddress: "02:00:00:00:00:01"`, `bootMACAddress: "mac 02:00:00:00:00:01"`, 1))
	wantSites(t, sites, "c1")
	nodes := `  - hostName: h0
    bmcAddress: redfish://192.0.2.1/x
    bmcCredentialsName: {name: bmc}
    bootMACAddress: "02:00:00:00:00:01"
    templateRefs: [{name: ai-node-templates-v1, namespace: open-cluster-management}]
    nodeNetwork: {interfaces: [{name: eno1, macAddress: "mac 02:00:00:00:00:01"}]}
`
	_, problems := decodeText(t, ciDoc("c1", "", nodes))
	problemMatching(t, only(problems, SeverityError), "spec.nodes[0].nodeNetwork.interfaces[0].macAddress", "not a MAC address")
}
