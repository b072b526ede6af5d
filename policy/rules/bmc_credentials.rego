# METADATA
# title: BMC credentials Secret is named
# description: >-
#   The bare-metal operator logs in to a host's BMC with the username and
#   password of the Secret named in bmcCredentialsName.name, in the cluster
#   namespace. Without a name the BareMetalHost has no credentials and never
#   registers; a name that is no valid Secret name cannot be created. The
#   SiteConfig generator copies the name unchecked (the ClusterInstance
#   webhook requires it, so a ClusterInstance without one already fails to
#   load), and neither creates the Secret.
# custom:
#   id: ztp.bmc.credentials-named
#   severity: deny
#   remediation: Set bmcCredentialsName.name to the name of the Secret (keys username and password) that holds the node's BMC credentials, a lower-case DNS name such as <hostname>-bmc, and create that Secret in the cluster namespace outside Git.
#   reference: stolostron/siteconfig api/v1alpha1/clusterinstance_types.go (bmcCredentialsName.name required); stolostron/siteconfig internal/controller/clusterinstance/validator.go (BMC Secret must exist); openshift-kni/cnf-features-deploy ztp/siteconfig-generator/siteConfig/siteConfig.go (bmcCredentialsName.name, Secret not generated)
package siteops.rules.bmc_credentials

import data.siteops.lib

# The check starts with what every good name satisfies, valid_name; only a
# name that fails it gets a message.
deny contains f if {
	some node in input.site.nodes
	name := node.bmc.credentialsName
	not valid_name(name)
	f := {"msg": problem(name, node.hostname), "field": lib.node_field(node, "bmcCredentialsName.name")}
}

problem(name, host) := sprintf("node %s names no BMC credentials Secret (bmcCredentialsName.name is empty or missing)", [host]) if {
	trim_space(name) == ""
} else := sprintf("BMC credentials Secret name %q of node %s is not a valid Secret name (lower-case DNS subdomain, at most 253 characters)", [name, host])

# valid_name holds for a Secret name: a DNS-1123 subdomain.
valid_name(name) if {
	regex.match(`^[a-z0-9]([-a-z0-9]*[a-z0-9])?(\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*$`, name)
	count(name) <= 253
}
