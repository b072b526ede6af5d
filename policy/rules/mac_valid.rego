# METADATA
# title: MAC addresses are valid
# description: >-
#   The boot MAC identifies the host to the bare-metal operator and each
#   interface MAC maps an nmstate interface name to a NIC; both must be six hex
#   pairs separated by colons. The SiteConfig generator copies them unchecked.
# custom:
#   id: ztp.nodes.mac-valid
#   severity: deny
#   remediation: Write the MAC as six hex pairs separated by ':', e.g. 0a:5e:00:01:01:00.
#   reference: openshift/installer pkg/asset/agent/agentconfig/agenthosts.go (MAC defined and valid); stolostron/siteconfig api/v1alpha1/clusterinstance_types.go (bootMACAddress pattern); openshift-kni/cnf-features-deploy ztp/siteconfig-generator/siteConfig/siteConfig.go (bootMACAddress)
package siteops.rules.mac_valid

import data.siteops.lib

# valid holds for a MAC address: six pairs of hex digits separated by
# colons.
valid(mac) if regex.match(`^([0-9A-Fa-f]{2}:){5}[0-9A-Fa-f]{2}$`, mac)

# An empty boot MAC is not valid either: one test finds both.
deny contains f if {
	some node in input.site.nodes
	not valid(node.bootMACAddress)
	f := {"msg": boot_problem(node.bootMACAddress, node.hostname), "field": lib.node_field(node, "bootMACAddress")}
}

boot_problem(mac, host) := sprintf("node %s has no bootMACAddress", [host]) if {
	mac == ""
} else := sprintf("bootMACAddress %q of node %s is not a MAC address", [mac, host])

deny contains f if {
	some node in input.site.nodes
	some i, itf in node.interfaces
	not valid(itf.macAddress)
	f := {
		"msg": sprintf("macAddress %q of interface %s of node %s is not a MAC address", [itf.macAddress, itf.name, node.hostname]),
		"field": lib.interface_field(node, i),
	}
}
