# METADATA
# title: Network type is OVNKubernetes or OpenShiftSDN, and OpenShiftSDN only on IPv4 multi-node clusters
# description: >-
#   The network type goes into the install-config overrides and decides the
#   cluster's network plugin. The ClusterInstance CRD allows OVNKubernetes and
#   OpenShiftSDN; a SiteConfig takes any text, and anything else (a misspelt
#   name, or a third-party plugin that needs its own manifests) fails
#   network-type-valid or leaves the install waiting for custom manifests.
#   OpenShiftSDN has no IPv6: the installer and assisted-service refuse it
#   with any IPv6 machine, cluster or service network, and assisted-service
#   refuses it on a single-node cluster (network-type-valid).
# custom:
#   id: ztp.network.type-valid
#   severity: deny
#   remediation: Set networkType to OVNKubernetes (the default), which supports IPv6 and single-node clusters.
#   reference: openshift/assisted-service internal/cluster/validator.go (network-type-valid); openshift/installer pkg/asset/agent/manifests/agentclusterinstall.go (networkType) and openshift/installer pkg/asset/agent/installconfig.go (SNO needs OVNKubernetes); stolostron/siteconfig api/v1alpha1/clusterinstance_types.go (networkType); openshift-kni/cnf-features-deploy ztp/siteconfig-generator/siteConfig/siteConfig.go (networkType, no enum check)
package siteops.rules.network_type

import data.siteops.lib

# "" (a SiteConfig's networkType written out empty) leaves the choice to
# the installer, which defaults to OVNKubernetes.
deny contains f if {
	not input.site.cluster.networkType in {"OVNKubernetes", "OpenShiftSDN", ""}
	f := {
		"msg": sprintf("network type %q is not OVNKubernetes or OpenShiftSDN", [input.site.cluster.networkType]),
		"field": input.site.fields.networkType,
	}
}

ipv6_networks contains sprintf("%s %s", [n.kind, n.cidr]) if {
	some n in lib.networks
	net.cidr_is_valid(n.cidr)
	contains(n.cidr, ":")
}

deny contains f if {
	input.site.cluster.networkType == "OpenShiftSDN"
	count(ipv6_networks) > 0
	f := {
		"msg": sprintf("OpenShiftSDN does not support IPv6, and the cluster has %s", [concat(", ", sort(ipv6_networks))]),
		"field": input.site.fields.networkType,
	}
}

deny contains f if {
	input.site.cluster.networkType == "OpenShiftSDN"
	count(ipv6_networks) == 0
	count(lib.masters) == 1
	f := {
		"msg": "OpenShiftSDN is not supported on a single-node cluster",
		"field": input.site.fields.networkType,
	}
}
