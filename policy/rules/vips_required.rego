# METADATA
# title: A multi-node bare-metal cluster has API and ingress VIPs
# description: >-
#   With more than one control-plane node on the bare-metal platform,
#   keepalived serves the API and the ingress on virtual IPs that the site must
#   give; without them assisted-service keeps the cluster pending for input
#   (api-vips-defined, ingress-vips-defined), which cannot be ignored.
# custom:
#   id: ztp.network.vips-required
#   severity: deny
#   remediation: Set apiVIPs and ingressVIPs (one address per IP family, inside the machine network), or use platform None with your own load balancer.
#   reference: openshift/assisted-service internal/cluster/validator.go (api-vips-defined, ingress-vips-defined); openshift/installer pkg/types/validation/installconfig.go (at least one VIP each)
package siteops.rules.vips_required

import data.siteops.lib

deny contains f if {
	lib.multi_node
	lib.bare_metal
	some kind, list in {"API": input.site.cluster.apiVIPs, "ingress": input.site.cluster.ingressVIPs}
	count(list) == 0
	f := {
		"msg": sprintf("the cluster has %d control-plane nodes on bare metal and no %s VIP", [count(lib.masters), kind]),
		"field": input.site.path,
	}
}
