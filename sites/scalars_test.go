package sites

import (
	"strings"
	"testing"
)

// Scalars are typed as each format's reader types them: yaml.v3 (the
// SiteConfig generator's parser) and kubectl with the API server's schema
// check (a ClusterInstance).
func TestScalarTypesPerReader(t *testing.T) {
	tests := []struct {
		name    string
		doc     string
		problem string // an error message containing this, or "" for none
		check   func(t *testing.T, s *Site)
	}{
		{name: "SiteConfig: yes is a boolean for a boolean field, quoted or not",
			doc: v1Doc(cluster("c1", "holdInstallation: 'yes'\nmergeDefaultMachineConfigs: on\n"+oneNode("n0"))),
			check: func(t *testing.T, s *Site) {
				if !s.Cluster.HoldInstallation || !s.Cluster.MergeDefaultMachineConfigs {
					t.Errorf("holdInstallation %v, mergeDefaultMachineConfigs %v", s.Cluster.HoldInstallation, s.Cluster.MergeDefaultMachineConfigs)
				}
			}},
		{name: "SiteConfig: a quoted true is not a boolean",
			doc:     v1Doc(cluster("c1", "holdInstallation: \"true\"\n"+oneNode("n0"))),
			problem: "holdInstallation: must be true or false, got a string (write true or false, without quotes)"},
		{name: "SiteConfig: a quoted number is not an integer",
			doc:     v1Doc(cluster("c1", "clusterNetwork: [{cidr: 10.128.0.0/14, hostPrefix: '23'}]\n"+oneNode("n0"))),
			problem: "hostPrefix: must be an integer, got a string"},
		{name: "SiteConfig: any scalar is a string for a string field",
			doc: v1Doc(cluster("c1", "networkType: 1234\nclusterLabels: {common: true, n: 5, on: yes}\n"+oneNode("n0"))),
			check: func(t *testing.T, s *Site) {
				l := s.Cluster.ClusterLabels
				if s.Cluster.NetworkType != "1234" || l["common"] != "true" || l["n"] != "5" || l["on"] != "yes" {
					t.Errorf("networkType %q, labels %v", s.Cluster.NetworkType, l)
				}
			}},
		{name: "ClusterInstance: an unquoted yes is a boolean",
			doc: ciDoc("c1", "  holdInstallation: yes\n", ""),
			check: func(t *testing.T, s *Site) {
				if !s.Instance.Spec.HoldInstallation {
					t.Error("holdInstallation is false")
				}
			}},
		{name: "ClusterInstance: a quoted yes is a string",
			doc:     ciDoc("c1", "  holdInstallation: 'yes'\n", ""),
			problem: "spec.holdInstallation: must be true or false, got a string"},
		{name: "ClusterInstance: an unquoted boolean in a label map",
			doc:     ciDoc("c1", "  extraLabels: {ManagedCluster: {common: true}}\n", ""),
			problem: "spec.extraLabels.ManagedCluster.common: must be a string, got a boolean (quote the value)"},
		{name: "ClusterInstance: an unquoted yes in a label map",
			doc:     ciDoc("c1", "  extraAnnotations: {BareMetalHost: {example.com/x: yes}}\n", ""),
			problem: "must be a string, got a boolean"},
		{name: "ClusterInstance: a number for a string field",
			doc:     strings.Replace(ciDoc("c1", "", ""), "baseDomain: example.com", "baseDomain: 1.5", 1),
			problem: "spec.baseDomain: must be a string, got a number"},
		{name: "ClusterInstance: quoted values are strings",
			doc: ciDoc("c1", "  extraLabels: {ManagedCluster: {common: \"true\", n: '5'}}\n", ""),
			check: func(t *testing.T, s *Site) {
				if l := s.Instance.Spec.ExtraLabels["ManagedCluster"]; l["common"] != "true" || l["n"] != "5" {
					t.Errorf("labels %v", l)
				}
			}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			sites, problems := decodeText(t, tt.doc)
			if tt.problem != "" {
				if len(sites) != 0 {
					t.Errorf("decoded %v, want an error", siteNames(sites))
				}
				problemMatching(t, only(problems, SeverityError), tt.problem)
				return
			}
			if problems.HasErrors() || len(sites) != 1 {
				t.Fatalf("problems %s", problemList(problems))
			}
			tt.check(t, sites[0])
		})
	}
}
