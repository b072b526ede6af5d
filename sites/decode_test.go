package sites

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"strings"
	"testing"

	"gopkg.in/yaml.v3"
)

func TestDecodeDefaults(t *testing.T) {
	tests := []struct {
		name  string
		src   string
		check func(t *testing.T, s *Site)
	}{
		{
			name: "absent keys get the generator's defaults",
			src:  v1Doc(goodCluster("c1")),
			check: func(t *testing.T, s *Site) {
				c, n := s.Cluster, &s.Cluster.Nodes[0]
				got := []string{c.NetworkType, n.BootMode, n.Role, n.IronicInspect, n.AutomatedCleaningMode, string(c.CPUPartitioning)}
				want := []string{"OVNKubernetes", "UEFI", "master", "enabled", "disabled", "None"}
				if !slices.Equal(got, want) {
					t.Errorf("networkType, bootMode, role, ironicInspect, automatedCleaningMode, cpuPartitioningMode = %q, want %q", got, want)
				}
				if c.DiskEncryption.Type != "" {
					t.Errorf("diskEncryption.type = %q without the key, want empty (the default applies only when the key is there)", c.DiskEncryption.Type)
				}
				if c.SiteConfigMap != nil {
					t.Errorf("siteConfigMap = %+v without the key, want nil", c.SiteConfigMap)
				}
				if c.HoldInstallation || c.MergeDefaultMachineConfigs {
					t.Errorf("holdInstallation, mergeDefaultMachineConfigs = %v, %v, want false", c.HoldInstallation, c.MergeDefaultMachineConfigs)
				}
				wantRefs := []ManifestsConfigMapReference{{Name: "c1"}}
				if !reflect.DeepEqual(c.ManifestsConfigMapRefs, wantRefs) {
					t.Errorf("ManifestsConfigMapRefs = %+v, want %+v", c.ManifestsConfigMapRefs, wantRefs)
				}
				if s.Namespace != "c1" || s.Format != FormatSiteConfigV1 || s.Index != 0 || s.Cluster != &s.Config.Spec.Clusters[0] {
					t.Errorf("site = {Namespace %q, Format %q, Index %d}, want {c1, %q, 0} with Cluster inside Config", s.Namespace, s.Format, s.Index, FormatSiteConfigV1)
				}
			},
		},
		{
			name: "explicit values win over the defaults",
			src: v1Doc(cluster("c1", `networkType: OpenShiftSDN
cpuPartitioningMode: AllNodes
installConfigOverrides: '{"fips": true}'
nodes:
- hostName: n0
  bootMode: legacy
  role: master
  ironicInspect: disabled
  automatedCleaningMode: metadata
`)),
			check: func(t *testing.T, s *Site) {
				c, n := s.Cluster, &s.Cluster.Nodes[0]
				got := []string{c.NetworkType, n.BootMode, n.Role, n.IronicInspect, n.AutomatedCleaningMode, string(c.CPUPartitioning)}
				want := []string{"OpenShiftSDN", "legacy", "master", "disabled", "metadata", "AllNodes"}
				if !slices.Equal(got, want) {
					t.Errorf("networkType, bootMode, role, ironicInspect, automatedCleaningMode, cpuPartitioningMode = %q, want %q", got, want)
				}
			},
		},
		{
			name: "an explicit empty role is kept and counts as master",
			src:  v1Doc(cluster("c1", "nodes:\n- hostName: n0\n  role: \"\"\n")),
			check: func(t *testing.T, s *Site) {
				if r := s.Cluster.Nodes[0].Role; r != "" {
					t.Errorf("role = %q, want the explicit empty string", r)
				}
				if s.Masters() != 1 || s.Cluster.ClusterType != ClusterTypeSNO {
					t.Errorf("masters, type = %d, %q, want 1, sno", s.Masters(), s.Cluster.ClusterType)
				}
				if r := s.Roles(); !slices.Equal(r, []string{""}) {
					t.Errorf("Roles() = %q, want the role as written", r)
				}
			},
		},
		{
			name: "diskEncryption present gets type none",
			src:  v1Doc(cluster("c1", "diskEncryption:\n  tang:\n  - url: http://tang.example.com\n    thumbprint: abc\n"+oneNode("n0"))),
			check: func(t *testing.T, s *Site) {
				de := s.Cluster.DiskEncryption
				if de.Type != "none" || len(de.Tang) != 1 || de.Tang[0].URL != "http://tang.example.com" {
					t.Errorf("diskEncryption = %+v, want type none and one tang server", de)
				}
			},
		},
		{
			name: "diskEncryption type given is kept",
			src:  v1Doc(cluster("c1", "diskEncryption:\n  type: tpm2\n  tpm2:\n    pcrList: \"1,7\"\n"+oneNode("n0"))),
			check: func(t *testing.T, s *Site) {
				if de := s.Cluster.DiskEncryption; de.Type != "tpm2" || de.Tpm2.PCRList != "1,7" {
					t.Errorf("diskEncryption = %+v, want tpm2 with pcrList 1,7", de)
				}
			},
		},
		{
			name: "v2 siteConfigMap key present gets namespace ztp-site",
			src:  siteConfigText("ran.openshift.io/v2", imageSetSpec, cluster("c1", "siteConfigMap:\n  data:\n    rack: R12\n"+oneNode("n0"))),
			check: func(t *testing.T, s *Site) {
				m := s.Cluster.SiteConfigMap
				if m == nil || m.Namespace != "ztp-site" || m.Name != "" || m.Data["rack"] != "R12" {
					t.Errorf("siteConfigMap = %+v, want namespace ztp-site, no name, data rack=R12", m)
				}
				if s.Format != FormatSiteConfigV2 {
					t.Errorf("format = %q, want %q", s.Format, FormatSiteConfigV2)
				}
			},
		},
		{
			name: "v2 siteConfigMap explicit namespace is kept",
			src:  siteConfigText("ran.openshift.io/v2", imageSetSpec, cluster("c1", "siteConfigMap:\n  name: cm\n  namespace: other\n"+oneNode("n0"))),
			check: func(t *testing.T, s *Site) {
				if m := s.Cluster.SiteConfigMap; m == nil || m.Namespace != "other" || m.Name != "cm" {
					t.Errorf("siteConfigMap = %+v, want name cm, namespace other", m)
				}
			},
		},
		{
			name: "v2 without the siteConfigMap key has none",
			src:  siteConfigText("ran.openshift.io/v2", imageSetSpec, goodCluster("c1")),
			check: func(t *testing.T, s *Site) {
				if s.Cluster.SiteConfigMap != nil {
					t.Errorf("siteConfigMap = %+v, want nil", s.Cluster.SiteConfigMap)
				}
			},
		},
		{
			name: "accelerated ZTP adds the aztp ConfigMap reference",
			src:  v1Doc(cluster("c1", "clusterLabels:\n  accelerated-ztp: full\n"+oneNode("n0"))),
			check: func(t *testing.T, s *Site) {
				want := []ManifestsConfigMapReference{{Name: "c1"}, {Name: "c1-aztp"}}
				if !reflect.DeepEqual(s.Cluster.ManifestsConfigMapRefs, want) {
					t.Errorf("ManifestsConfigMapRefs = %+v, want %+v", s.Cluster.ManifestsConfigMapRefs, want)
				}
			},
		},
		{
			name: "partition defaults and derived names",
			src: v1Doc(cluster("c1", `nodes:
- hostName: n0
  diskPartition:
  - device: /dev/sdb
    partitions:
    - mount_point: /var/lib/containers/
      size: 102500
      start: 25000
    - mount_point: /.data/my disk
      size: 1
      start: 200000
      file_system_format: ext4
`)),
			check: func(t *testing.T, s *Site) {
				ps := s.Cluster.Nodes[0].DiskPartition[0].Partitions
				got := []string{ps[0].MountPoint, ps[0].Label, ps[0].MountFileName, ps[0].FileSystemFormat,
					ps[1].Label, ps[1].MountFileName, ps[1].FileSystemFormat}
				want := []string{"/var/lib/containers", "var-lib-containers", "var-lib-containers.mount", "xfs",
					".data-my disk", `\x2edata-my\x20disk.mount`, "ext4"}
				if !slices.Equal(got, want) {
					t.Errorf("partitions = %q, want %q", got, want)
				}
			},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			sites := mustDecode(t, tt.src)
			if len(sites) != 1 {
				t.Fatalf("got %d sites, want 1", len(sites))
			}
			tt.check(t, sites[0])
		})
	}
}

func TestDecodeV1IgnoresSiteConfigMap(t *testing.T) {
	src := v1Doc(cluster("c1", "siteConfigMap:\n  name: cm\n"+oneNode("n0")))
	sites, problems := decodeText(t, src)
	wantSites(t, sites, "c1")
	if sites[0].Cluster.SiteConfigMap != nil {
		t.Errorf("v1 siteConfigMap = %+v, want nil", sites[0].Cluster.SiteConfigMap)
	}
	p := oneProblem(t, problems, SeverityWarning)
	if p.Field != "spec.clusters[0].siteConfigMap" || p.Site != "c1" || p.Pos != locate(t, src, "", "siteConfigMap:") {
		t.Errorf("warning = %+v, want field spec.clusters[0].siteConfigMap of site c1 at the key", p)
	}
	wantContains(t, "message", p.Message, "ignored by ran.openshift.io/v1")
}

func TestDecodeNodeCounts(t *testing.T) {
	tests := []struct {
		name        string
		roles       []string // "-" leaves the role out
		masters     uint8
		workers     uint8
		clusterType string
	}{
		{name: "one default master is SNO", roles: []string{"-"}, masters: 1, workers: 0, clusterType: ClusterTypeSNO},
		{name: "SNO with workers forces NumWorkers to 0", roles: []string{"master", "worker", "worker"}, masters: 1, workers: 0, clusterType: ClusterTypeSNO},
		{name: "three masters", roles: []string{"-", "master", `""`}, masters: 3, workers: 0, clusterType: ClusterTypeStandard},
		{name: "any other role is a worker", roles: []string{"-", "-", "-", "worker", "infra"}, masters: 3, workers: 2, clusterType: ClusterTypeStandard},
		{name: "two masters are standard", roles: []string{"master", "master", "worker"}, masters: 2, workers: 1, clusterType: ClusterTypeStandard},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var b strings.Builder
			b.WriteString("nodes:\n")
			for i, r := range tt.roles {
				fmt.Fprintf(&b, "- hostName: n%d\n", i)
				if r != "-" {
					fmt.Fprintf(&b, "  role: %s\n", r)
				}
			}
			sites := mustDecode(t, v1Doc(cluster("c1", b.String())))
			c := sites[0].Cluster
			if c.NumMasters != tt.masters || c.NumWorkers != tt.workers || c.ClusterType != tt.clusterType {
				t.Errorf("masters, workers, type = %d, %d, %q, want %d, %d, %q",
					c.NumMasters, c.NumWorkers, c.ClusterType, tt.masters, tt.workers, tt.clusterType)
			}
		})
	}
}

func TestDecodeIgnoresCountsInTheFile(t *testing.T) {
	// numMasters and clusterType in a file have no effect: upstream counts.
	src := v1Doc(cluster("c1", "numMasters: 3\nclusterType: standard\n"+oneNode("n0")))
	sites, problems := decodeText(t, src)
	wantSites(t, sites, "c1")
	if c := sites[0].Cluster; c.NumMasters != 1 || c.ClusterType != ClusterTypeSNO {
		t.Errorf("masters, type = %d, %q, want 1, sno", c.NumMasters, c.ClusterType)
	}
	if len(problems) != 2 || problems.HasErrors() {
		t.Fatalf("want two warnings, got:\n%s", problemList(problems))
	}
	p := problemMatching(t, problems, "numMasters")
	if p.Field != "spec.clusters[0].numMasters" || p.Pos != locate(t, src, "", "numMasters") || p.Site != "c1" {
		t.Errorf("numMasters warning = %+v", p)
	}
	wantContains(t, "message", p.Message, `field "numMasters" is ignored`, "counted from the nodes' roles")
	if p.Hint != "" {
		t.Errorf("hint = %q, want none: the message explains", p.Hint)
	}
	wantContains(t, "clusterType warning", problemMatching(t, problems, "clusterType").Message, "derived from the number of master nodes")
}

func TestDecodeScalars(t *testing.T) {
	src := v1Doc(cluster("c1", `clusterLabels:
  common: true
  store: 0142
  ratio: 1.50
  nothing: ""
clusterNetwork:
- cidr: 10.128.0.0/14
  hostPrefix: 23
- cidr: fd01::/48
  hostPrefix: 0x40
- cidr: 10.0.0.0/8
  hostPrefix: 1_6
holdInstallation: yes
nodes:
- hostName: n0
  rootDeviceHints:
    deviceName: /dev/sda
    minSizeGigabytes: 100
  userData:
    mode: 0644
    octal: 0o17
    quoted: "0644"
    enabled: true
    text: "true"
    ratio: 1.5
    nothing: ~
    list: [1, two, false]
    huge: 18446744073709551615
    nested: {a: {b: -3}}
`))
	s := mustDecode(t, src)[0]
	c := s.Cluster

	wantLabels := map[string]string{"common": "true", "store": "0142", "ratio": "1.50", "nothing": ""}
	if !reflect.DeepEqual(c.ClusterLabels, wantLabels) {
		t.Errorf("clusterLabels = %q, want %q", c.ClusterLabels, wantLabels)
	}
	var prefixes []int
	for _, n := range c.ClusterNetwork {
		prefixes = append(prefixes, n.HostPrefix)
	}
	if !slices.Equal(prefixes, []int{23, 64, 16}) {
		t.Errorf("hostPrefix = %v, want [23 64 16]", prefixes)
	}
	if !c.HoldInstallation {
		t.Errorf("holdInstallation: yes decoded as false")
	}

	// Free-form maps keep YAML types the way yaml.v3 resolves them.
	got := map[string]string{}
	for k, v := range c.Nodes[0].UserData {
		got[k] = fmt.Sprintf("%T %v", v, v)
	}
	want := map[string]string{
		"mode":    "int64 420",
		"octal":   "int64 15",
		"quoted":  "string 0644",
		"enabled": "bool true",
		"text":    "string true",
		"ratio":   "float64 1.5",
		"nothing": "<nil> <nil>",
		"list":    "[]interface {} [1 two false]",
		"huge":    "uint64 18446744073709551615",
		"nested":  "map[string]interface {} map[a:map[b:-3]]",
	}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("userData:\n got %q\nwant %q", got, want)
	}
	if v := c.Nodes[0].RootDeviceHints["minSizeGigabytes"]; v != int64(100) {
		t.Errorf("rootDeviceHints.minSizeGigabytes = %T %v, want int64 100", v, v)
	}
	list := c.Nodes[0].UserData["list"].([]any)
	if list[0] != int64(1) || list[2] != false {
		t.Errorf("list = %#v, want int64 1 and bool false", list)
	}
}

// TestDecodeTypeErrors checks that a value of the wrong type is reported
// at the value, with the document path and the cluster, and that the other
// cluster of the file still loads.
func TestDecodeTypeErrors(t *testing.T) {
	tests := []struct {
		name   string
		body   string // the body of cluster "bad", the second cluster
		needle string // the value the problem must point at
		field  string
		msg    string
	}{
		{name: "nodes given as a mapping", body: "nodes: {a: b}\n", needle: "{a: b}",
			field: "spec.clusters[1].nodes", msg: "must be a list, got a mapping"},
		{name: "bool that is not a bool", body: "holdInstallation: maybe\n" + oneNode("n0"), needle: "maybe",
			field: "spec.clusters[1].holdInstallation", msg: `must be true or false, got a string`},
		{name: "int that is not a number", body: "clusterNetwork:\n- cidr: 10.128.0.0/14\n  hostPrefix: abc\n" + oneNode("n0"), needle: "abc",
			field: "spec.clusters[1].clusterNetwork[0].hostPrefix", msg: `must be an integer, got a string`},
		{name: "int given a fraction", body: "clusterNetwork:\n- cidr: 10.128.0.0/14\n  hostPrefix: 23.5\n" + oneNode("n0"), needle: "23.5",
			field: "spec.clusters[1].clusterNetwork[0].hostPrefix", msg: "must be an integer, got a number"},
		{name: "string given a mapping", body: "nodes:\n- hostName: n0\n  bmcAddress: {url: x}\n", needle: "{url: x}",
			field: "spec.clusters[1].nodes[0].bmcAddress", msg: "must be a string, got a mapping"},
		{name: "string map given a list", body: "clusterLabels: [a, b]\n" + oneNode("n0"), needle: "[a, b]",
			field: "spec.clusters[1].clusterLabels", msg: "must be a mapping, got a list"},
		{name: "struct given a scalar", body: "proxy: http://proxy:3128\n" + oneNode("n0"), needle: "http://proxy",
			field: "spec.clusters[1].proxy", msg: `must be a mapping, got a string`},
		{name: "free-form map given a list", body: "nodes:\n- hostName: n0\n  nodeNetwork:\n    config: [a]\n", needle: "[a]",
			field: "spec.clusters[1].nodes[0].nodeNetwork.config", msg: "must be a mapping, got a list"},
		{name: "list of strings holding a mapping", body: "serviceNetwork:\n- 172.30.0.0/16\n- {cidr: x}\n" + oneNode("n0"), needle: "{cidr: x}",
			field: "spec.clusters[1].serviceNetwork[1]", msg: "must be a string, got a mapping"},
		{name: "nested map value of the wrong type", body: "crAnnotations:\n  add:\n    BareMetalHost: [x]\n" + oneNode("n0"), needle: "[x]",
			field: "spec.clusters[1].crAnnotations.add.BareMetalHost", msg: "must be a mapping, got a list"},
		{name: "merge key with a scalar", body: "nodes:\n- hostName: n0\n  userData:\n    nested:\n      <<: 3\n", needle: "3",
			field: "spec.clusters[1].nodes[0].userData.nested", msg: "a merge key (<<) takes a mapping or a list of mappings"},
		{name: "merge key deep in a free-form subtree", body: "nodes:\n- hostName: n0\n  nodeNetwork:\n    config:\n      interfaces:\n      - name: a\n      - name: b\n        <<: 3\n", needle: "3",
			field: "spec.clusters[1].nodes[0].nodeNetwork.config.interfaces[1]", msg: "a merge key (<<) takes a mapping or a list of mappings"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			src := v1Doc(goodCluster("good"), cluster("bad", tt.body))
			sites, problems := decodeText(t, src)
			wantSites(t, sites, "good")
			wantAllSite(t, problems, "bad")
			p := problemMatching(t, problems, tt.msg)
			if p.Severity != SeverityError {
				t.Errorf("severity = %s, want error", p.Severity)
			}
			wantPos := locate(t, src, "clusterName: bad", tt.needle)
			if p.Pos != wantPos || p.Field != tt.field || p.Site != "bad" {
				t.Errorf("problem at %s, field %q, site %q; want %s, %q, bad", p.Pos, p.Field, p.Site, wantPos, tt.field)
			}
			wantContains(t, "message", p.Message, tt.msg)
			wantContains(t, "Error()", p.Error(), fmt.Sprintf("%s: site bad: %s: ", wantPos, tt.field))
		})
	}
}

func TestDecodeTypeErrorPositionIsExact(t *testing.T) {
	// The same check as above with the position written out, so that a
	// mistake in locate cannot hide one in the decoder.
	src := v1Doc(cluster("c1", "clusterNetwork:\n- cidr: 10.128.0.0/14\n  hostPrefix: abc\n"+oneNode("n0")))
	// Line 14 is "      hostPrefix: abc"; the value starts at column 19.
	if line := strings.Split(src, "\n")[13]; line != "      hostPrefix: abc" {
		t.Fatalf("line 14 is %q; the input changed, fix the test", line)
	}
	_, problems := decodeText(t, src)
	p := oneProblem(t, problems, SeverityError)
	want := Position{File: testFile, Line: 14, Column: 19}
	if p.Pos != want {
		t.Errorf("pos = %+v, want %+v", p.Pos, want)
	}
	if got, want := p.Error(), `fleet/site.yaml:14:19: site c1: spec.clusters[0].clusterNetwork[0].hostPrefix: must be an integer, got a string (write a whole number, without quotes)`; got != want {
		t.Errorf("Error() =\n %s\nwant\n %s", got, want)
	}
}

func TestDecodeSiteLevelErrors(t *testing.T) {
	// An error outside every cluster makes the whole document unusable; it
	// is reported once, against the SiteConfig's name.
	tests := []struct {
		name   string
		src    string
		needle string
		field  string
		msg    string
	}{
		{name: "clusters given as a mapping", src: siteConfigText("ran.openshift.io/v1", imageSetSpec) + "    c1: {}\n",
			needle: "c1: {}", field: "spec.clusters", msg: "must be a list, got a mapping"},
		{name: "site crTemplates of a kind that cannot be overridden",
			src:    siteConfigText("ran.openshift.io/v1", imageSetSpec+"  crTemplates:\n    Secret: secret.yaml\n", goodCluster("c1")),
			needle: "Secret:", field: "spec.crTemplates.Secret", msg: `"Secret" is not a kind that can be overridden here`},
		{name: "unsupported apiVersion",
			src:    siteConfigText("ran.openshift.io/v3", imageSetSpec, goodCluster("c1")),
			needle: "apiVersion", field: "apiVersion", msg: `apiVersion "ran.openshift.io/v3" is not a SiteConfig version`},
		{name: "no clusters", src: siteConfigText("ran.openshift.io/v1", imageSetSpec),
			needle: "clusters:", field: "spec.clusters", msg: "no clusters are defined"},
		{name: "metadata given as a list", src: strings.Replace(v1Doc(goodCluster("c1")), "metadata:\n  name: site-a", "metadata: [x]", 1),
			needle: "[x]", field: "metadata", msg: "must be a mapping, got a list"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			sites, problems := decodeText(t, tt.src)
			wantSites(t, sites)
			p := problemMatching(t, problems, tt.msg)
			if p.Severity != SeverityError {
				t.Errorf("severity = %s, want error", p.Severity)
			}
			if want := locate(t, tt.src, "", tt.needle); p.Pos != want || p.Field != tt.field {
				t.Errorf("problem at %s field %q, want %s %q", p.Pos, p.Field, want, tt.field)
			}
			if tt.field != "metadata" && p.Site != "site-a" {
				t.Errorf("site = %q, want site-a (the SiteConfig's name)", p.Site)
			}
			wantContains(t, "message", p.Message, tt.msg)
		})
	}
}

func TestDecodeUnknownFields(t *testing.T) {
	tests := []struct {
		name    string
		src     string
		needle  string
		field   string
		site    string
		msg     string
		hint    string
		sites   []string // loaded without --strict
		strictN []string // loaded with --strict
	}{
		{name: "misspelt node field", src: v1Doc(goodCluster("good"), cluster("c1", "nodes:\n- hostName: n0\n  bmcAdress: ipmi://x\n")),
			needle: "bmcAdress", field: "spec.clusters[1].nodes[0].bmcAdress", site: "c1",
			msg: `unknown field "bmcAdress" is ignored`, hint: `did you mean "bmcAddress"?`,
			sites: []string{"good", "c1"}, strictN: []string{"good"}},
		{name: "wrong case", src: v1Doc(cluster("c1", "clusterimagesetnameref: x\n"+oneNode("n0"))),
			needle: "clusterimagesetnameref", field: "spec.clusters[0].clusterimagesetnameref", site: "c1",
			msg: `unknown field "clusterimagesetnameref"`, hint: `did you mean "clusterImageSetNameRef"?`,
			sites: []string{"c1"}, strictN: nil},
		{name: "nothing close", src: v1Doc(cluster("c1", "flavourOfTheDay: x\n"+oneNode("n0"))),
			needle: "flavourOfTheDay", field: "spec.clusters[0].flavourOfTheDay", site: "c1",
			msg: `unknown field "flavourOfTheDay"`, hint: "remove it, or check the spelling",
			sites: []string{"c1"}, strictN: nil},
		{name: "ignored key explains itself", src: v1Doc(cluster("c1", "numWorkers: 2\n"+oneNode("n0"))),
			needle: "numWorkers", field: "spec.clusters[0].numWorkers", site: "c1",
			msg: `field "numWorkers" is ignored: the number of workers is counted`, hint: "",
			sites: []string{"c1"}, strictN: nil},
		{name: "per-cluster baseDomain", src: v1Doc(cluster("c1", "baseDomain: other.example.com\n"+oneNode("n0"))),
			needle: "baseDomain: other", field: "spec.clusters[0].baseDomain", site: "c1",
			msg: "a cluster's base domain is spec.baseDomain", hint: "",
			sites: []string{"c1"}, strictN: nil},
		{name: "top-level typo fails the whole file under strict", src: v1Doc(goodCluster("c1")) + "metdata: {}\n",
			needle: "metdata", field: "metdata", site: "site-a",
			msg: `unknown field "metdata"`, hint: `did you mean "metadata"?`,
			sites: []string{"c1"}, strictN: nil},
		{name: "misspelt spec field", src: strings.Replace(v1Doc(goodCluster("c1")), "pullSecretRef:", "pullSecretREf:", 1),
			needle: "pullSecretREf", field: "spec.pullSecretREf", site: "site-a",
			msg: `unknown field "pullSecretREf"`, hint: `did you mean "pullSecretRef"?`,
			sites: []string{"c1"}, strictN: nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			wantPos := locate(t, tt.src, "", tt.needle)

			sites, problems := decodeText(t, tt.src)
			wantSites(t, sites, tt.sites...)
			p := oneProblem(t, problems, SeverityWarning)
			if p.Pos != wantPos || p.Field != tt.field || p.Site != tt.site || !strings.HasPrefix(p.Hint, tt.hint) || (tt.hint == "") != (p.Hint == "") {
				t.Errorf("warning = {%s %q site %q hint %q}, want {%s %q site %q hint %q}",
					p.Pos, p.Field, p.Site, p.Hint, wantPos, tt.field, tt.site, tt.hint)
			}
			wantContains(t, "message", p.Message, tt.msg)
			wantContains(t, "Error()", p.Error(), wantPos.String()+": warning: ")

			sites, problems = decodeFile(testFile, []byte(tt.src), decodeOptions{strict: true})
			wantSites(t, sites, tt.strictN...)
			p = oneProblem(t, problems, SeverityError)
			if p.Pos != wantPos || p.Field != tt.field {
				t.Errorf("strict: error at %s %q, want %s %q", p.Pos, p.Field, wantPos, tt.field)
			}
			wantContains(t, "strict message", p.Message, strings.Replace(tt.msg, " is ignored", " is not allowed", 1), "(--strict)")
			if strings.Contains(p.Message, "is ignored") {
				t.Errorf("strict message %q says the field is ignored", p.Message)
			}
		})
	}
}

func TestDecodeDuplicateKeys(t *testing.T) {
	tests := []struct {
		name   string
		body   string // body of cluster "bad"
		after  string // the second key comes after this
		needle string
		field  string
		msg    string
	}{
		{name: "struct field", body: "nodes:\n- hostName: n0\n  bootMode: UEFI\n  bootMode: legacy\n",
			after: "UEFI", needle: "bootMode", field: "spec.clusters[1].nodes[0].bootMode", msg: "defined twice (first at line "},
		{name: "string map key", body: "clusterLabels:\n  a: x\n  a: y\n" + oneNode("n0"),
			after: "a: x", needle: "a: y", field: "spec.clusters[1].clusterLabels.a", msg: "defined twice; keep one"},
		{name: "free-form map key", body: "nodes:\n- hostName: n0\n  nodeNetwork:\n    config:\n      dns: 1\n      dns: 2\n",
			after: "dns: 1", needle: "dns: 2", field: "spec.clusters[1].nodes[0].nodeNetwork.config.dns", msg: "defined twice; keep one"},
		{name: "deep free-form map key", body: "nodes:\n- hostName: n0\n  nodeNetwork:\n    config:\n      interfaces:\n      - name: a\n      - name: b\n" +
			"        ipv4:\n          address:\n          - ip: 1.1.1.1\n          - ip: 2.2.2.2\n            ip.v4: x\n            ip.v4: y\n",
			after: "ip.v4: x", needle: "ip.v4: y", field: `spec.clusters[1].nodes[0].nodeNetwork.config.interfaces[1].ipv4.address[1]["ip.v4"]`, msg: "defined twice; keep one"},
		{name: "free-form key after a nested mapping", body: "nodes:\n- hostName: n0\n  nodeNetwork:\n    config:\n      dns:\n        a: [1, 2]\n      routes: {}\n      routes: []\n",
			after: "routes: {}", needle: "routes: []", field: "spec.clusters[1].nodes[0].nodeNetwork.config.routes", msg: "defined twice; keep one"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			src := v1Doc(goodCluster("good"), cluster("bad", tt.body))
			sites, problems := decodeText(t, src)
			wantSites(t, sites, "good")
			p := oneProblem(t, problems, SeverityError)
			if want := locate(t, src, tt.after, tt.needle); p.Pos != want || p.Field != tt.field || p.Site != "bad" {
				t.Errorf("problem at %s %q site %q, want %s %q bad", p.Pos, p.Field, p.Site, want, tt.field)
			}
			wantContains(t, "message", p.Message, tt.msg)
		})
	}
	t.Run("first line is named", func(t *testing.T) {
		src := v1Doc(cluster("c1", "nodes:\n- hostName: n0\n  bootMode: UEFI\n  bootMode: legacy\n"))
		_, problems := decodeText(t, src)
		first := locate(t, src, "", "bootMode")
		wantContains(t, "message", oneProblem(t, problems, SeverityError).Message, fmt.Sprintf("first at line %d", first.Line))
	})
}

func TestDecodeMultiDocument(t *testing.T) {
	second := strings.Replace(v1Doc(goodCluster("b1"), goodCluster("b2")), "name: site-a", "name: site-b", 1)
	src := "# leading comment\n" + v1Doc(goodCluster("a1")) +
		"---\napiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: not-a-site\ndata:\n  nodes: {a: b}\n" +
		"---\n" +
		"---\n" + second +
		"--- []\n"
	sites := mustDecode(t, src)
	wantSites(t, sites, "a1", "b1", "b2")
	if sites[0].Config.Metadata.Name != "site-a" || sites[1].Config.Metadata.Name != "site-b" {
		t.Errorf("SiteConfig names = %q, %q, want site-a, site-b", sites[0].Config.Metadata.Name, sites[1].Config.Metadata.Name)
	}
	if sites[1].Config != sites[2].Config || sites[1].Index != 0 || sites[2].Index != 1 {
		t.Errorf("b1 and b2 should share their SiteConfig with indexes 0 and 1")
	}
	for _, s := range sites {
		if want := locate(t, src, "", "clusterName: "+s.Name); s.Source != want {
			t.Errorf("%s: Source = %s, want %s", s.Name, s.Source, want)
		}
	}
	// Field positions of the second document are positions in the file.
	if got, want := sites[2].Pos("spec.clusters[1].nodes[0].hostName"), locate(t, src, "", "hostName: b2-n0"); got != want {
		t.Errorf("b2 hostName at %s, want %s", got, want)
	}
}

func TestDecodeMultiDocumentProblemsStayInTheirDocument(t *testing.T) {
	bad := strings.Replace(v1Doc(cluster("b1", "nodes: 3\n")), "name: site-a", "name: site-b", 1)
	src := v1Doc(goodCluster("a1")) + "---\n" + bad + "---\n" + v1Doc(goodCluster("c1")) + "---\nkind: SiteConfig\nspec: [unclosed\n"
	sites, problems := decodeText(t, src)
	wantSites(t, sites, "a1", "c1")
	last := problems[len(problems)-1]
	wantAllSite(t, problems[:len(problems)-1], "b1")
	if p := problemMatching(t, problems, "must be a list, got a number"); p.Site != "b1" || p.Field != "spec.clusters[0].nodes" || p.Pos != locate(t, src, "clusterName: b1", "3") {
		t.Errorf("type problem = %s", p.Error())
	}
	p := last
	wantContains(t, "syntax problem", p.Message, "not valid YAML")
	// yaml.v3 gives the line of the construct that is left open, which for
	// a parser error is off by one (see TestDecodeSyntaxErrorLines); all
	// that is checked here is that it is in the broken document.
	lo, hi := locate(t, src, "", "kind: SiteConfig\nspec: [unclosed").Line-1, locate(t, src, "", "[unclosed").Line
	if p.Pos.File != testFile || p.Pos.Line < lo || p.Pos.Line > hi {
		t.Errorf("syntax problem at %s, want %s lines %d-%d", p.Pos, testFile, lo, hi)
	}
	if p.Err == nil {
		t.Errorf("syntax problem has no underlying error")
	}
}

// TestDecodeValidation checks the generator's own checks (the UnmarshalYAML
// methods of siteConfig.go and validateSiteConfig): each is an error on the
// right field of the right cluster, and the other cluster of the file still
// loads.
func TestDecodeValidation(t *testing.T) {
	tests := []struct {
		name    string
		spec    string // spec lines; imageSetSpec when empty
		bad     string // the second cluster, made with cluster
		after   string // the problem's position is the first needle after this
		needle  string
		field   string
		site    string
		msg     string
		hint    string
		nothing bool // the bad cluster is in fact fine
	}{
		{name: "no master", bad: cluster("bad", "nodes:\n- hostName: w0\n  role: worker\n- hostName: w1\n  role: infra\n"),
			needle: "nodes:", field: "spec.clusters[1].nodes", msg: "no master node (counted 0 masters, 2 other nodes)", hint: `role "master"`},
		{name: "no nodes at all", bad: cluster("bad", "networkType: OVNKubernetes\n"),
			after: "clusterName: bad", needle: "clusterName: bad", field: "spec.clusters[1].nodes", msg: "no master node"},
		{name: "diskPartition on a standard cluster", bad: cluster("bad", `nodes:
- hostName: m0
  diskPartition:
  - device: /dev/sdb
    partitions:
    - {mount_point: /var/data, size: 100, start: 30000}
- hostName: m1
- hostName: m2
`), needle: "diskPartition", field: "spec.clusters[1].nodes[0].diskPartition", msg: "only supported on single-node clusters"},
		{name: "partition start too small", bad: cluster("bad", "nodes:\n- hostName: n0\n  diskPartition:\n  - partitions:\n    - {mount_point: /var/data, size: 100, start: 24999}\n"),
			needle: "start", field: "spec.clusters[1].nodes[0].diskPartition[0].partitions[0].start", msg: "start 24999 is too small", hint: "at least 25000"},
		{name: "partition start at the minimum", bad: cluster("bad", "nodes:\n- hostName: n0\n  diskPartition:\n  - partitions:\n    - {mount_point: /var/data, size: 100, start: 25000}\n"),
			nothing: true},
		{name: "partition size zero", bad: cluster("bad", "nodes:\n- hostName: n0\n  diskPartition:\n  - partitions:\n    - {mount_point: /var/data, size: 0, start: 25000}\n"),
			needle: "size", field: "spec.clusters[1].nodes[0].diskPartition[0].partitions[0].size", msg: "size must be greater than 0"},
		{name: "partition without mount point", bad: cluster("bad", "nodes:\n- hostName: n0\n  diskPartition:\n  - partitions:\n    - {size: 10, start: 25000}\n"),
			needle: "{size", field: "spec.clusters[1].nodes[0].diskPartition[0].partitions[0].mount_point", msg: "mount_point is missing"},
		{name: "relative mount point", bad: cluster("bad", "nodes:\n- hostName: n0\n  diskPartition:\n  - partitions:\n    - {mount_point: var/data, size: 10, start: 25000}\n"),
			needle: "mount_point", field: "spec.clusters[1].nodes[0].diskPartition[0].partitions[0].mount_point", msg: `mount_point "var/data" is not an absolute path`},
		{name: "bad cpuPartitioningMode", bad: cluster("bad", "cpuPartitioningMode: Some\n"+oneNode("n0")),
			needle: "cpuPartitioningMode", field: "spec.clusters[1].cpuPartitioningMode", msg: `cpuPartitioningMode "Some" is not valid`, hint: "None or AllNodes"},
		{name: "installConfigOverrides not JSON", bad: cluster("bad", "installConfigOverrides: '{\"fips\": tru'\n"+oneNode("n0")),
			needle: "installConfigOverrides", field: "spec.clusters[1].installConfigOverrides", msg: "installConfigOverrides is not a JSON object"},
		{name: "installConfigOverrides a JSON list", bad: cluster("bad", "installConfigOverrides: '[1, 2]'\n"+oneNode("n0")),
			needle: "installConfigOverrides", field: "spec.clusters[1].installConfigOverrides", msg: "not a JSON object"},
		{name: "no image set at either level", spec: "  sshPublicKey: ssh-ed25519 AAAA\n",
			bad:   cluster("bad", oneNode("n0")),
			after: "clusterName: bad", needle: "clusterName: bad", field: "spec.clusters[1].clusterImageSetNameRef", msg: "no image set", hint: "spec.clusterImageSetNameRef"},
		{name: "cluster image set alone is enough", spec: "  sshPublicKey: ssh-ed25519 AAAA\n",
			bad: cluster("bad", "clusterImageSetNameRef: img\n"+oneNode("n0")), nothing: true},
		{name: "bad ironicInspect", bad: cluster("bad", "nodes:\n- hostName: n0\n  ironicInspect: sometimes\n"),
			needle: "ironicInspect", field: "spec.clusters[1].nodes[0].ironicInspect", msg: `ironicInspect "sometimes" is not valid`},
		{name: "explicit empty ironicInspect", bad: cluster("bad", "nodes:\n- hostName: n0\n  ironicInspect: \"\"\n"),
			needle: "ironicInspect", field: "spec.clusters[1].nodes[0].ironicInspect", msg: `ironicInspect "" is not valid`},
		{name: "cluster kind at node level", bad: cluster("bad", "nodes:\n- hostName: n0\n  crTemplates:\n    ClusterDeployment: cd.yaml\n"),
			needle: "ClusterDeployment", field: "spec.clusters[1].nodes[0].crTemplates.ClusterDeployment",
			msg: `"ClusterDeployment" is not a kind that can be overridden here`, hint: "allowed: BareMetalHost, NMStateConfig, HostFirmwareSettings"},
		{name: "node kind at node level", bad: cluster("bad", "nodes:\n- hostName: n0\n  crTemplates:\n    BareMetalHost: bmh.yaml\n"), nothing: true},
		{name: "unknown kind at cluster level", bad: cluster("bad", "crTemplates:\n  Secret: s.yaml\n"+oneNode("n0")),
			needle: "Secret", field: "spec.clusters[1].crTemplates.Secret", msg: `"Secret" is not a kind`},
		{name: "bad filter inclusionDefault", bad: cluster("bad", "extraManifests:\n  filter:\n    inclusionDefault: maybe\n"+oneNode("n0")),
			needle: "inclusionDefault", field: "spec.clusters[1].extraManifests.filter.inclusionDefault", msg: `inclusionDefault "maybe" is not valid`},
		{name: "filter include with inclusionDefault include", bad: cluster("bad", "extraManifests:\n  filter:\n    inclusionDefault: Include\n    include: [a.yaml]\n"+oneNode("n0")),
			needle: "include:", field: "spec.clusters[1].extraManifests.filter.include", msg: "include must be empty"},
		{name: "filter exclude with inclusionDefault exclude", bad: cluster("bad", "extraManifests:\n  filter:\n    inclusionDefault: exclude\n    exclude: [a.yaml]\n"+oneNode("n0")),
			needle: "exclude:", field: "spec.clusters[1].extraManifests.filter.exclude", msg: "exclude must be empty"},
		{name: "missing clusterName", bad: cluster("", "networkType: OVNKubernetes\n"+oneNode("nameless")),
			after: "networkType", needle: "networkType", field: "spec.clusters[1].clusterName", site: "site-a/clusters[1]",
			msg: "clusterName is missing", hint: "unique clusterName"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			spec := tt.spec
			if spec == "" {
				spec = imageSetSpec
			}
			good := cluster("good", "clusterImageSetNameRef: img\n"+oneNode("good-n0"))
			src := siteConfigText("ran.openshift.io/v1", spec, good, tt.bad)
			sites, problems := decodeText(t, src)
			if tt.nothing {
				if len(problems) > 0 {
					t.Fatalf("unexpected problems:\n%s", problemList(problems))
				}
				wantSites(t, sites, "good", "bad")
				return
			}
			wantSites(t, sites, "good")
			p := oneProblem(t, problems, SeverityError)
			after := tt.after
			if after == "" {
				after = "clusterName: bad"
			}
			site := tt.site
			if site == "" {
				site = "bad"
			}
			if want := locate(t, src, after, tt.needle); p.Pos != want || p.Field != tt.field || p.Site != site {
				t.Errorf("problem {%s %q site %q}, want {%s %q site %q}", p.Pos, p.Field, p.Site, want, tt.field, site)
			}
			wantContains(t, "message", p.Message, tt.msg)
			wantContains(t, "hint", p.Hint, tt.hint)
		})
	}
}

func TestDecodeDuplicateClusterNameInOneFile(t *testing.T) {
	src := v1Doc(goodCluster("good"), goodCluster("twin"), cluster("twin", oneNode("twin-b")))
	sites, problems := decodeText(t, src)
	// Whether the first definition is kept is not pinned here; the second
	// never is, and the other cluster of the file always loads.
	names := siteNames(sites)
	if n := len(slices.DeleteFunc(slices.Clone(names), func(n string) bool { return n != "twin" })); n > 1 {
		t.Errorf("both definitions of twin were loaded: %q", names)
	}
	if !slices.Contains(names, "good") {
		t.Errorf("the other cluster of the file did not load: %q", names)
	}
	p := oneProblem(t, problems, SeverityError)
	first := locate(t, src, "", "clusterName: twin")
	second := locate(t, src, "twin-n0", "clusterName: twin")
	if p.Pos != second || p.Field != "spec.clusters[2].clusterName" || p.Site != "twin" {
		t.Errorf("problem {%s %q %q}, want {%s spec.clusters[2].clusterName twin}", p.Pos, p.Field, p.Site, second)
	}
	wantContains(t, "message", p.Message, `clusterName "twin" is already used by spec.clusters[1]`, first.String())
}

func TestDecodeErrorsOfOneClusterStayWithIt(t *testing.T) {
	// Several problems in several clusters: each cluster's problems name it,
	// and only the clean cluster loads.
	src := v1Doc(
		cluster("a", "holdInstallation: maybe\n"+oneNode("a0")),
		goodCluster("b"),
		cluster("c", "nodes:\n- hostName: c0\n  role: worker\n  bmcAdress: x\n"),
	)
	sites, problems := decodeText(t, src)
	wantSites(t, sites, "b")
	bySite := map[string][]string{}
	for _, p := range problems {
		bySite[p.Site] = append(bySite[p.Site], string(p.Severity)+" "+p.Field)
	}
	want := map[string][]string{
		"a": {"error spec.clusters[0].holdInstallation"},
		"c": {"warning spec.clusters[2].nodes[0].bmcAdress", "error spec.clusters[2].nodes"},
	}
	if !reflect.DeepEqual(bySite, want) {
		t.Errorf("problems by site = %q, want %q", bySite, want)
	}
}

func TestDecodeSyntaxErrorLines(t *testing.T) {
	// Errors found by the YAML scanner carry the line of the offending
	// character.
	tests := []struct {
		name   string
		src    string
		needle string
		msg    string
	}{
		{name: "tab indentation", src: "kind: SiteConfig\nspec:\n\tclusters: []\n", needle: "\tclusters", msg: "found character that cannot start any token"},
		{name: "mapping value in a plain scalar", src: "kind: SiteConfig\nmetadata:\n  name: a: b\n", needle: "name: a: b", msg: "mapping values are not allowed in this context"},
		{name: "reserved indicator", src: "kind: SiteConfig\nspec: @x\n", needle: "spec: @x", msg: "found character that cannot start any token"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			sites, problems := decodeText(t, tt.src)
			wantSites(t, sites)
			p := oneProblem(t, problems, SeverityError)
			if want := locate(t, tt.src, "", tt.needle).Line; p.Pos.File != testFile || p.Pos.Line != want {
				t.Errorf("problem at %s, want line %d", p.Pos, want)
			}
			wantContains(t, "message", p.Message, "not valid YAML: "+tt.msg)
			wantContains(t, "hint", p.Hint, "fix the YAML syntax")
		})
	}
}

func TestDecodeAliases(t *testing.T) {
	// Anchors and aliases are followed like yaml.v3 follows them.
	src := v1Doc(cluster("c1", `clusterLabels: &labels
  env: prod
nodes:
- hostName: n0
  nodeLabels: *labels
  rootDeviceHints: &hints {deviceName: /dev/sda}
- hostName: n1
  role: worker
  rootDeviceHints: *hints
`))
	s := mustDecode(t, src)[0]
	if s.Cluster.Nodes[0].NodeLabels["env"] != "prod" || s.Cluster.Nodes[1].RootDeviceHints["deviceName"] != "/dev/sda" {
		t.Errorf("aliases not followed: nodeLabels %v, hints %v", s.Cluster.Nodes[0].NodeLabels, s.Cluster.Nodes[1].RootDeviceHints)
	}
}

func TestDecodeSkipsOtherDocuments(t *testing.T) {
	tests := []struct {
		name string
		src  string
	}{
		{name: "empty", src: ""},
		{name: "comments only", src: "# nothing here\n"},
		{name: "a scalar document", src: "SiteConfig\n"},
		{name: "a list document", src: "- kind: SiteConfig\n"},
		{name: "another kind", src: "apiVersion: v1\nkind: ConfigMap\nspec:\n  clusters: 3\n"},
		{name: "kind is not a string", src: "kind: [SiteConfig]\nspec: {clusters: 3}\n"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			sites, problems := decodeText(t, tt.src)
			if len(sites) != 0 || len(problems) != 0 {
				t.Errorf("got %d sites and problems:\n%s", len(sites), problemList(problems))
			}
		})
	}
}

// TestDecodeConformanceInputs decodes the public conformance inputs (copied
// into testdata/fuzz-seeds) and checks what each must give.
func TestDecodeConformanceInputs(t *testing.T) {
	tests := []struct {
		file    string
		sites   []string
		problem string // "field: message part" of the one error, if any
	}{
		{file: "annotations-suppression-nodelabels.yaml", sites: []string{"tower-e-17"}},
		{file: "compact-3node-vip-lists.yaml", sites: []string{"metro-c3"}},
		{file: "error-missing-cluster-name.yaml", sites: []string{"named-ok"}, problem: "spec.clusters[1].clusterName: clusterName is missing"},
		{file: "error-unsupported-apiversion.yaml", sites: nil, problem: `apiVersion: apiVersion "ran.openshift.io/v3" is not`},
		{file: "ha-3m3w-bonds.yaml", sites: []string{"core-ha-01"}},
		{file: "searchpaths-with-filter.yaml", sites: []string{"lab-west-std"}},
		{file: "site-two-clusters.yaml", sites: []string{"store-0142", "store-0143"}},
		{file: "sno-ipv6-only.yaml", sites: []string{"sno-v6-07"}},
		{file: "sno-required-only.yaml", sites: []string{"tiny-sno"}},
		{file: "sno-static-ipv4-nmstate.yaml", sites: []string{"north-sno-01"}},
		{file: "v2-site-configmap.yaml", sites: []string{"kiosk-sno-3"}},
	}
	entries, err := filepath.Glob(filepath.Join("testdata", "fuzz-seeds", "*.yaml"))
	if err != nil || len(entries) != len(tests) {
		t.Fatalf("testdata/fuzz-seeds holds %d inputs (%v), the table %d: keep them in step", len(entries), err, len(tests))
	}
	for _, tt := range tests {
		t.Run(tt.file, func(t *testing.T) {
			data, err := os.ReadFile(filepath.Join("testdata", "fuzz-seeds", tt.file))
			if err != nil {
				t.Fatal(err)
			}
			name := "inputs/" + tt.file
			sites, problems := decodeFile(name, data, decodeOptions{strict: true})
			wantSites(t, sites, tt.sites...)
			if tt.problem == "" {
				if len(problems) > 0 {
					t.Errorf("unexpected problems (strict):\n%s", problemList(problems))
				}
				return
			}
			p := oneProblem(t, problems, SeverityError)
			wantContains(t, "Error()", p.Error(), name+":", tt.problem)
			if p.Pos.Line == 0 || p.Pos.Column == 0 {
				t.Errorf("problem has no line and column: %s", p.Error())
			}
		})
	}
}

func TestProblemError(t *testing.T) {
	tests := []struct {
		name string
		p    Problem
		want string
	}{
		{name: "everything", p: Problem{Pos: Position{File: "a.yaml", Line: 3, Column: 7}, Severity: SeverityError, Site: "s1", Field: "spec.x", Message: "bad", Hint: "fix it"},
			want: "a.yaml:3:7: site s1: spec.x: bad (fix it)"},
		{name: "warning", p: Problem{Pos: Position{File: "a.yaml", Line: 3}, Severity: SeverityWarning, Message: "odd"},
			want: "a.yaml:3: warning: odd"},
		{name: "file only", p: Problem{Pos: Position{File: "a.yaml"}, Severity: SeverityError, Message: "unreadable"},
			want: "a.yaml: unreadable"},
		{name: "no position", p: Problem{Severity: SeverityError, Message: "m"}, want: "-: m"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := tt.p.Error(); got != tt.want {
				t.Errorf("Error() = %q, want %q", got, tt.want)
			}
		})
	}
	inner := errors.New("inner")
	if p := (Problem{Err: inner}); !errors.Is(p, inner) {
		t.Errorf("errors.Is(problem, inner) = false, want true")
	}
	if !(Problems{{Severity: SeverityWarning}, {Severity: SeverityError}}).HasErrors() || (Problems{{Severity: SeverityWarning}}).HasErrors() {
		t.Errorf("HasErrors wrong")
	}
}

// firstKeys finds the first node of a key written before, across the
// switch from comparing keys one by one to a map.
func TestFirstKeys(t *testing.T) {
	var f firstKeys
	var firsts []*yaml.Node
	for i := range 40 {
		key := fmt.Sprintf("k%d", i%25) // keys 0 to 14 come twice
		if prev := f.find(key); i < 25 && prev != nil || i >= 25 && prev != firsts[i%25] {
			t.Fatalf("key %d (%s): found %v", i, key, prev)
		}
		if i < 25 {
			n := &yaml.Node{Kind: yaml.ScalarNode, Value: key, Line: i + 1}
			firsts = append(firsts, n)
			f.add(n)
		}
	}
}

// The positions map of a document is made the smaller of the last two
// documents' sizes: one large file does not enlarge the small ones after
// it.
func TestSizeHintIsTheSmallerOfTheLastTwo(t *testing.T) {
	var h sizeHint
	for _, step := range []struct{ record, want int }{
		{300, 0}, {300, 300}, {5000, 300}, {40, 40}, {40, 40}, {5000, 40}, {5000, maxSizeHint}, {0, 0},
	} {
		h.record(step.record)
		if got := h.get(); got != step.want {
			t.Errorf("after %d: hint %d, want %d", step.record, got, step.want)
		}
	}
}
