# METADATA
# title: Network CIDRs are valid
# description: >-
#   Every machine, cluster and service network is written as address/prefix.
#   assisted-service cannot parse anything else, and the network validations
#   (overlap, VIPs in the machine network, host prefix) cannot run on it.
# custom:
#   id: ztp.network.cidr-valid
#   severity: deny
#   remediation: Write the network as address/prefix, such as 10.128.0.0/14 or fd02::/112.
#   reference: openshift/assisted-service internal/cluster/validator.go (cluster-cidr-defined, service-cidr-defined, machine-cidr-defined, network-prefix-valid); openshift/installer pkg/asset/agent/manifests/agentclusterinstall.go (clusterNetwork CIDRs)
package siteops.rules.cidr_valid

import data.siteops.lib

deny contains f if {
	count(lib.valid_cidrs) != count(lib.cidrs)
	some n in lib.networks
	not net.cidr_is_valid(n.cidr)
	f := {"msg": sprintf("%s %q is not a CIDR (address/prefix)", [n.kind, n.cidr]), "field": n.field}
}
