package sites

import (
	"slices"
	"sync"
	"testing"
)

func TestModel(t *testing.T) {
	node := func(host, role string) string {
		n := "- hostName: " + host + "\n  bmcAddress: ipmi://192.0.2.1\n"
		if role != "" {
			n += "  role: " + role + "\n"
		}
		return n
	}
	tests := []struct {
		name string
		src  string
		// the value the model has and the line that sets it, as text
		// to locate in src
		imageSet, imageSetAt       string
		apiVIPs                    []string
		apiVIPsAt                  string
		clusterType, clusterTypeAt string
		roles                      []string
		labels                     map[string]string
	}{
		{
			name: "SiteConfig: legacy apiVIP, site image set, node without a role",
			src: v1Doc(cluster("c1", "apiVIP: 192.0.2.10\nclusterLabels:\n  region: east\nnodes:\n"+
				node("c1-a", ""))),
			imageSet: "img-4.20", imageSetAt: "clusterImageSetNameRef: img-4.20",
			apiVIPs: []string{"192.0.2.10"}, apiVIPsAt: "apiVIP: 192.0.2.10",
			clusterType: ClusterTypeCISNO, clusterTypeAt: "nodes:\n",
			roles: []string{RoleMaster}, labels: map[string]string{"region": "east"},
		},
		{
			name: "SiteConfig: the VIP list wins, the cluster's image set wins, an arbiter",
			src: v1Doc(cluster("c2", "apiVIP: 192.0.2.9\napiVIPs: [192.0.2.20, \"2001:db8::20\"]\n"+
				"clusterImageSetNameRef: img-own\nnodes:\n"+node("c2-a", "master")+node("c2-b", "master")+node("c2-c", "arbiter"))),
			imageSet: "img-own", imageSetAt: "clusterImageSetNameRef: img-own",
			apiVIPs: []string{"192.0.2.20", "2001:db8::20"}, apiVIPsAt: "192.0.2.20",
			clusterType: ClusterTypeCIHAArbiter, clusterTypeAt: "nodes:\n",
			roles: []string{RoleMaster, RoleMaster, RoleArbiter},
		},
		{
			name: "ClusterInstance: cluster type derived when not set, ManagedCluster labels",
			src: ciDoc("c3", "  apiVIPs: [192.0.2.30]\n  extraLabels:\n    ManagedCluster: {region: west}\n"+
				"    AgentClusterInstall: {other: x}\n", ""),
			imageSet: "img", imageSetAt: "clusterImageSetNameRef: img",
			apiVIPs: []string{"192.0.2.30"}, apiVIPsAt: "192.0.2.30",
			clusterType: ClusterTypeCISNO, clusterTypeAt: "spec:",
			roles: []string{RoleMaster}, labels: map[string]string{"region": "west"},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			sites := mustDecode(t, tt.src)
			if len(sites) != 1 {
				t.Fatalf("%d sites, want 1", len(sites))
			}
			s := sites[0]
			m := s.Model()
			c, p := &m.Cluster, &m.Paths
			at := func(field, path, text string) {
				t.Helper()
				if got, want := s.Pos(path).Line, locate(t, tt.src, "", text).Line; got != want {
					t.Errorf("%s: its path %s is at line %d, want %d (%q)", field, path, got, want, text)
				}
			}
			if c.ImageSet != tt.imageSet {
				t.Errorf("ImageSet = %q, want %q", c.ImageSet, tt.imageSet)
			}
			at("ImageSet", p.ImageSet, tt.imageSetAt)
			if !slices.Equal(c.APIVIPs, tt.apiVIPs) || len(p.APIVIPs) != len(tt.apiVIPs) {
				t.Fatalf("APIVIPs = %v at %v, want %v", c.APIVIPs, p.APIVIPs, tt.apiVIPs)
			}
			at("APIVIPs", p.APIVIPs[0], tt.apiVIPsAt)
			if c.ClusterType != tt.clusterType {
				t.Errorf("ClusterType = %q, want %q", c.ClusterType, tt.clusterType)
			}
			at("ClusterType", p.ClusterType, tt.clusterTypeAt)
			var roles []string
			for _, n := range m.Nodes {
				roles = append(roles, n.Role)
				if s.Pos(n.Path) == s.Source {
					t.Errorf("node %s: path %s has no position of its own", n.HostName, n.Path)
				}
			}
			if !slices.Equal(roles, tt.roles) {
				t.Errorf("roles = %v, want %v", roles, tt.roles)
			}
			if len(c.Labels) != len(tt.labels) || c.Labels["region"] != tt.labels["region"] {
				t.Errorf("Labels = %v, want %v", c.Labels, tt.labels)
			}
		})
	}
}

// TestModelBuiltOnce: concurrent callers share one model.
func TestModelBuiltOnce(t *testing.T) {
	s := mustDecode(t, v1Doc(goodCluster("c1")))[0]
	got := make([]*Model, 8)
	var wg sync.WaitGroup
	for i := range got {
		wg.Go(func() { got[i] = s.Model() })
	}
	wg.Wait()
	for i, m := range got {
		if m != got[0] {
			t.Fatalf("caller %d got another model", i)
		}
	}
}
