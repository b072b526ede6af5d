# METADATA
# title: A single-node cluster has no VIPs
# description: >-
#   A cluster with one control-plane node runs with user-managed networking:
#   the API and ingress are the node's own address and no keepalived VIP is
#   configured, so a VIP in the site is at best ignored and at worst an
#   address someone else expects to answer. Workers beside the one
#   control-plane node (SNO expansion) do not change this.
# custom:
#   id: ztp.network.sno-no-vips
#   severity: deny
#   remediation: Remove apiVIP(s) and ingressVIP(s) from the single-node cluster; point DNS for api and *.apps at the node's address.
#   reference: openshift/assisted-service internal/cluster/validator.go (api-vips-defined, ingress-vips-defined); openshift/assisted-service pkg/webhooks/hiveextension/v1beta1/agentclusterinstall_validation_hook.go (SNO needs userManagedNetworking)
package siteops.rules.sno_no_vips

import data.siteops.lib

deny contains f if {
	count(lib.masters) == 1
	some vip in lib.vips
	f := {
		"msg": sprintf("%s VIP %s is set on a single-node cluster, which has no VIPs", [vip.kind, vip.ip]),
		"field": vip.field,
	}
}
