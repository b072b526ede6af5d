# METADATA
# title: Node role is master, worker or arbiter
# description: >-
#   The role becomes the BareMetalHost's bmac.agent-install.openshift.io/role
#   annotation and then the Agent's role, which is one of master, worker and
#   arbiter. The SiteConfig generator counts any other role as a worker and
#   writes it through unchecked, so the agent is refused at install time.
# custom:
#   id: ztp.nodes.role
#   severity: deny
#   remediation: Set the node's role to master, worker or arbiter (leave it out for master).
#   reference: agent-installer.md §3.3 item 21; clusterinstance.md §1.2 (role enum); siteconfig-v1.md §2.4 (role)
package siteops.rules.node_role

import data.siteops.lib

deny contains f if {
	some node in input.site.nodes
	not node.role in {"master", "worker", "arbiter"}
	f := {
		"msg": sprintf("node %s has role %q; a node's role is master, worker or arbiter", [node.hostname, node.role]),
		"field": lib.node_field(node, "role"),
	}
}
