package sites

import (
	"testing"
)

// A network written with host bits set is refused at load, in both
// formats, naming the network's own address; a clean one, and a value
// that is no network at all (left to the check rule), are not.
func TestNetworksWithHostBits(t *testing.T) {
	tests := []struct {
		name, src, field, message string
	}{
		{"SiteConfig machine network", v1Doc(cluster("c1", "machineNetwork:\n- cidr: 192.0.2.10/24\n"+oneNode("c1-n0"))),
			"spec.clusters[0].machineNetwork[0].cidr", `"192.0.2.10/24" has host bits set: the network's address is 192.0.2.0/24`},
		{"SiteConfig service network", v1Doc(cluster("c1", "serviceNetwork:\n- fd02::1/112\n"+oneNode("c1-n0"))),
			"spec.clusters[0].serviceNetwork[0]", `"fd02::1/112" has host bits set: the network's address is fd02::/112`},
		{"ClusterInstance cluster network", ciDoc("c1", "  clusterNetwork:\n  - {cidr: 10.128.0.1/14, hostPrefix: 23}\n", ""),
			"spec.clusterNetwork[0].cidr", `"10.128.0.1/14" has host bits set: the network's address is 10.128.0.0/14`},
		{"clean", v1Doc(cluster("c1", "machineNetwork:\n- cidr: 192.0.2.0/24\n"+oneNode("c1-n0"))), "", ""},
		{"not a network: the check rule's", v1Doc(cluster("c1", "machineNetwork:\n- cidr: 192.0.2.0/33\n"+oneNode("c1-n0"))), "", ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			sites, problems := decodeText(t, tt.src)
			if tt.field == "" {
				if len(problems) != 0 || len(sites) != 1 {
					t.Errorf("problems %v, %d sites", problems, len(sites))
				}
				return
			}
			p := oneProblem(t, problems, SeverityError)
			if p.Field != tt.field || p.Message != tt.message || p.Hint == "" {
				t.Errorf("problem = %s", p.Error())
			}
		})
	}
}

// A SiteConfig boot mode the BareMetalHost CRD would refuse is refused at
// load with the values allowed, as a ClusterInstance's is.
func TestSiteConfigBootModeEnum(t *testing.T) {
	for _, tt := range []struct{ mode, problem string }{
		{"UEFI", ""}, {"UEFISecureBoot", ""}, {"legacy", ""},
		{"bios", `"bios" is not allowed`},
		{"uefi", `"uefi" is not allowed`},
	} {
		t.Run(tt.mode, func(t *testing.T) {
			src := v1Doc(cluster("c1", oneNode("c1-n0")+"  bootMode: "+tt.mode+"\n"))
			sites, problems := decodeText(t, src)
			if tt.problem == "" {
				if len(problems) != 0 || len(sites) != 1 {
					t.Errorf("problems %v, %d sites", problems, len(sites))
				}
				return
			}
			p := oneProblem(t, problems, SeverityError)
			if p.Field != "spec.clusters[0].nodes[0].bootMode" || p.Message != tt.problem || p.Hint != `use one of "UEFI", "UEFISecureBoot", "legacy"` {
				t.Errorf("problem = %s", p.Error())
			}
		})
	}
}
