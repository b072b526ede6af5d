package sites

import (
	"fmt"
	"net/netip"
)

// A network whose address has bits set past its prefix is refused when
// the site is loaded, in both formats, rather than when the installation
// validates its install-config ("invalid network address. got
// 10.0.0.1/16, expecting 10.0.0.0/16": openshift/installer
// pkg/validate/validate.go SubnetCIDR, checked on every machine, cluster
// and service network): render and the loop then name the file, line and
// field. A value that is not address/prefix at all is left to the check
// rule ztp.network.cidr-valid.

// checkHostBits refuses a network written with host bits set.
func (v *validator) checkHostBits(field, value string) {
	if value == "" || v.broken[field] {
		return
	}
	p, err := netip.ParsePrefix(value)
	if err != nil || p == p.Masked() {
		return
	}
	v.fail(field, "%q has host bits set: the network's address is %s", clip(value), p.Masked()).
		Hint = "write " + p.Masked().String()
}

// checkSiteConfigNetworks checks a SiteConfig cluster's networks.
func (v *validator) checkSiteConfigNetworks(cp string, c *Clusters) {
	for i, n := range c.MachineNetwork {
		v.checkHostBits(fmt.Sprintf("%s.machineNetwork[%d].cidr", cp, i), n.Cidr)
	}
	for i, n := range c.ClusterNetwork {
		v.checkHostBits(fmt.Sprintf("%s.clusterNetwork[%d].cidr", cp, i), n.Cidr)
	}
	for i, n := range c.ServiceNetwork {
		v.checkHostBits(fmt.Sprintf("%s.serviceNetwork[%d]", cp, i), n)
	}
}

// checkClusterInstanceNetworks checks a ClusterInstance's networks.
func (v *validator) checkClusterInstanceNetworks(s *ClusterInstanceSpec) {
	for i, n := range s.MachineNetwork {
		v.checkHostBits(fmt.Sprintf("spec.machineNetwork[%d].cidr", i), n.CIDR)
	}
	for i, n := range s.ClusterNetwork {
		v.checkHostBits(fmt.Sprintf("spec.clusterNetwork[%d].cidr", i), n.CIDR)
	}
	for i, n := range s.ServiceNetwork {
		v.checkHostBits(fmt.Sprintf("spec.serviceNetwork[%d].cidr", i), n.CIDR)
	}
}
