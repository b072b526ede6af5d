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
#   reference: openshift/installer pkg/asset/agent/agentconfig/agenthosts.go (host role); stolostron/siteconfig api/v1alpha1/clusterinstance_types.go (role enum); openshift-kni/cnf-features-deploy ztp/siteconfig-generator/siteConfig/siteConfig.go (role)
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
