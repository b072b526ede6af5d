# METADATA
# title: BMC address has a scheme the bare-metal operator knows
# description: >-
#   The bare-metal operator picks the BMC driver from the address's scheme
#   (redfish-virtualmedia://, idrac-virtualmedia+https://, ipmi://, ...; an
#   address without one is IPMI), and has no driver for any other: the
#   BareMetalHost is refused or fails to register once applied. The
#   SiteConfig generator copies the address unchecked.
# custom:
#   id: ztp.bmc.address-scheme
#   severity: deny
#   remediation: Use a scheme of a bare-metal operator driver, such as redfish-virtualmedia+https://bmc.example.com/redfish/v1/Systems/1 or idrac-virtualmedia://bmc.example.com/redfish/v1/Systems/System.Embedded.1.
#   reference: metal3-io/baremetal-operator pkg/hardwareutils/bmc v0.5.1 (RegisterFactory); openshift-kni/cnf-features-deploy ztp/siteconfig-generator/siteConfig/siteConfig.go (bmcAddress, no scheme check)
package siteops.rules.bmc_scheme

import data.siteops.lib

# A node without a BMC address has no scheme either, so the one test of
# the scheme finds both.
deny contains f if {
	some node in input.site.nodes
	not lib.bmc_known(node.bmc.scheme)
	f := {"msg": problem(node), "field": lib.node_field(node, "bmcAddress")}
}

problem(node) := sprintf("node %s has no bmcAddress", [node.hostname]) if {
	node.bmc.address == ""
} else := sprintf("BMC address %q of node %s has scheme %q, which is no bare-metal operator driver", [node.bmc.address, node.hostname, node.bmc.scheme])
