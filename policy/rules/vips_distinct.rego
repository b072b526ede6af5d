# METADATA
# title: API and ingress VIPs differ
# description: >-
#   keepalived runs the API VIP on the control plane and the ingress VIP where
#   the routers run; the installer rejects an API VIP that is also an ingress
#   VIP.
# custom:
#   id: ztp.network.vips-distinct
#   severity: deny
#   remediation: Give the API and the ingress different addresses.
#   reference: openshift/installer pkg/types/validation/installconfig.go (VIP for API must not be one of the Ingress VIPs)
package siteops.rules.vips_distinct

import data.siteops.lib

deny contains f if {
	lib.multi_node
	some i, ingress in input.site.cluster.ingressVIPs
	some api in input.site.cluster.apiVIPs
	trim_space(api) == trim_space(ingress)
	f := {
		"msg": sprintf("ingress VIP %s is also the API VIP", [ingress]),
		"field": input.site.fields.ingressVIPs[i],
	}
}
