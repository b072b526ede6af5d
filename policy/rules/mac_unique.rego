# METADATA
# title: MAC addresses are unique across the fleet
# description: >-
#   A MAC names one NIC. The bare-metal operator and assisted-service match
#   hosts by MAC, so a MAC used by two nodes (in one cluster or in two) binds a
#   host to the wrong site or the wrong network config. Only the boot MAC and
#   the same node's interface entry may repeat each other.
# custom:
#   id: ztp.nodes.mac-unique
#   severity: deny
#   remediation: Correct the MAC that was copied from another node; each NIC's MAC appears on one node only.
#   reference: agent-installer.md §3.3 item 18; assisted-engine.md §8.5 (NMStateConfig MACs unique); clusterinstance.md §7.3
package siteops.rules.mac_unique

import data.siteops.lib

deny contains f if {
	some node in input.site.nodes
	key := lower(trim_space(node.bootMACAddress))
	data.siteops.fleet.shared.macs[key]
	f := duplicate(node, key, node.bootMACAddress, lib.node_field(node, "bootMACAddress"))
}

deny contains f if {
	some node in input.site.nodes
	some i, itf in node.interfaces
	key := lower(trim_space(itf.macAddress))
	data.siteops.fleet.shared.macs[key]
	f := duplicate(node, key, itf.macAddress, lib.interface_field(node, i))
}

duplicate(node, key, mac, field) := {"msg": sprintf("MAC %s is also used by %s", [mac, lib.places(others)]), "field": field} if {
	others := lib.others("macs", key, node.path)
	count(others) > 0
}

# Two interface entries of one node with one MAC (the boot MAC repeating
# an interface's is expected).
deny contains f if {
	some node in input.site.nodes
	count(node.interfaces) > 1
	some i, a in node.interfaces
	some j, b in node.interfaces
	i < j
	lower(trim_space(a.macAddress)) == lower(trim_space(b.macAddress))
	f := {
		"msg": sprintf("MAC %s is also used by interface %s of the same node (%s)", [b.macAddress, a.name, lib.interface_field(node, i)]),
		"field": lib.interface_field(node, j),
	}
}
