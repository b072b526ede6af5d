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
#   reference: openshift/installer pkg/asset/agent/agentconfig/agenthosts.go (duplicate MAC address); openshift/assisted-service pkg/staticnetworkconfig/generator.go (NMStateConfig MACs unique); stolostron/siteconfig api/v1alpha1/clusterinstance_validation.go (not checked)
package siteops.rules.mac_unique

import data.siteops.lib

# uses are the site's boot and interface MACs, node by node, from the fleet
# index: all this rule needs of the site.
uses := data.siteops.fleet.bySite[input.site.name].macs

deny contains f if {
	some u in uses
	data.siteops.fleet.shared.macs[u.key]
	others := lib.others("macs", u.key, u.node)
	count(others) > 0
	f := {"msg": sprintf("MAC %s is also used by %s", [u.value, lib.places(others)]), "field": u.field}
}

# Two interface entries of one node with one MAC (the boot MAC repeating
# an interface's is expected). Rare, so the pairs are looked at only when
# the interface MACs of the site are not distinct node by node.
itf_macs := [[u.node, u.key] | some u in uses; u.interface >= 0]

deny contains f if {
	count(itf_macs) != count({m | some m in itf_macs})
	some i, a in uses
	some j, b in uses
	i < j
	a.key == b.key
	a.node == b.node
	a.interface < b.interface
	f := {
		"msg": sprintf("MAC %s is also used by interface %s of the same node (%s)", [b.value, a.name, a.field]),
		"field": b.field,
	}
}
