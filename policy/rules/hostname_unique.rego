# METADATA
# title: Host names are unique in the cluster and across the fleet
# description: >-
#   assisted-service refuses to install a cluster with two hosts of one name
#   (hostname-unique, which cannot be ignored). Across clusters, a repeated
#   name makes the nodes indistinguishable in DNS, monitoring and inventory;
#   neither the installer nor the ClusterInstance webhook checks it.
# custom:
#   id: ztp.nodes.hostname-unique
#   severity: deny
#   remediation: Give every node of the fleet its own host name (usually node.cluster.base-domain).
#   reference: openshift/assisted-service internal/host/validator.go (hostname-unique); openshift/installer pkg/asset/agent/agentconfig/agenthosts.go (not checked); stolostron/siteconfig api/v1alpha1/clusterinstance_validation.go (not checked)
package siteops.rules.hostname_unique

import data.siteops.lib

deny contains f if {
	some u in data.siteops.fleet.bySite[input.site.name].hostnames
	data.siteops.fleet.shared.hostnames[u.key]
	others := lib.others("hostnames", u.key, u.node)
	count(others) > 0
	f := {"msg": sprintf("host name %s is also used by %s", [u.value, lib.places(others)]), "field": u.field}
}
