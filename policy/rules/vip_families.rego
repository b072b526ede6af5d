# METADATA
# title: At most one API and one ingress VIP per IP family, in the machine networks' order
# description: >-
#   keepalived serves one API and one ingress address per IP family: a
#   single-stack cluster has one of each, a dual-stack cluster one IPv4 and
#   one IPv6 address of each. The installer refuses more than two VIPs of a
#   kind and two of one family, and on a dual-stack cluster a single VIP that
#   is not of the first (primary) machine network's family. assisted-service
#   pairs the lists with the machine networks: as many API as ingress VIPs,
#   the i-th of each inside the i-th machine network. So on a dual-stack
#   cluster the first VIP of each kind is of the primary family, and an IP
#   family with an API VIP has an ingress VIP too, and the other way round.
#   Single-node clusters have no VIPs (ztp.network.sno-no-vips); a cluster
#   without one of the lists is ztp.network.vips-required's.
# custom:
#   id: ztp.network.vip-families
#   severity: deny
#   remediation: Give at most one IPv4 and one IPv6 address for the API and for the ingress, listed in the machine networks' order (IPv4 first when the first machine network is IPv4).
#   reference: openshift/installer pkg/types/validation/installconfig.go (VIP count and families); openshift/assisted-service internal/cluster/validator.go (api-vips-valid, ingress-vips-valid); stolostron/siteconfig api/v1alpha1/clusterinstance_types.go (apiVIPs, ingressVIPs)
package siteops.rules.vip_families

import data.siteops.lib

kinds := {
	"API": {"vips": input.site.cluster.apiVIPs, "fields": input.site.fields.apiVIPs, "other": "ingress"},
	"ingress": {"vips": input.site.cluster.ingressVIPs, "fields": input.site.fields.ingressVIPs, "other": "API"},
}

family(ip) := "IPv4" if lib.ipv4(ip)

family(ip) := "IPv6" if lib.ipv6(ip)

# machine are the valid machine networks (ztp.network.cidr-valid reports
# the others), machine_families their families, in order.
machine := [cidr | some cidr in input.site.cluster.machineNetworks; net.cidr_is_valid(cidr)]

machine_families := [family(split(cidr, "/")[0]) | some cidr in machine]

dual_stack if {
	"IPv4" in machine_families
	"IPv6" in machine_families
}

# Each check starts with what is cheapest and rarest, so that the common
# clusters (single-node, or one VIP of each kind and one machine network)
# cost little.

# several holds when a kind has more than one VIP, as the first two checks
# need.
several if count(input.site.cluster.apiVIPs) > 1

several if count(input.site.cluster.ingressVIPs) > 1

# Every check below is for a multi-node cluster: a single-node cluster's
# check is this one body.
deny contains f if {
	lib.multi_node
	some f in problems
}

# More than two VIPs of a kind (the ClusterInstance CRD refuses them; a
# SiteConfig does not).
problems contains f if {
	several
	some kind, k in kinds
	count(k.vips) > 2
	some i, ip in k.vips
	i >= 2
	f := {
		"msg": sprintf("%s VIP %s is one too many: the cluster lists %d %s VIPs, and at most two are allowed, one IPv4 and one IPv6", [kind, ip, count(k.vips), kind]),
		"field": k.fields[i],
	}
}

# Two VIPs of one family.
problems contains f if {
	several
	some kind, k in kinds
	count(k.vips) >= 2
	a := k.vips[0]
	b := k.vips[1]
	family(a) == family(b)
	f := {
		"msg": sprintf("%s VIPs %s and %s are both %s: give one %s VIP per IP family", [kind, a, b, family(a), kind]),
		"field": k.fields[1],
	}
}

# On a dual-stack cluster the first VIP is of the primary family.
problems contains f if {
	count(input.site.cluster.machineNetworks) > 1
	dual_stack
	some kind, k in kinds
	first := k.vips[0]
	fam := family(first)
	fam != machine_families[0]
	f := {
		"msg": sprintf(
			"%s VIP %s is %s, but the first machine network %s is %s: on a dual-stack cluster the first %s VIP must be of the machine networks' primary family",
			[kind, first, fam, machine[0], machine_families[0], kind],
		),
		"field": k.fields[0],
	}
}

# An IP family with a VIP of one kind has one of the other kind.
problems contains f if {
	not paired_singles
	count(input.site.cluster.apiVIPs) > 0
	count(input.site.cluster.ingressVIPs) > 0
	some kind, k in kinds
	some i, ip in k.vips
	fam := family(ip)
	not fam in {family(x) | some x in kinds[k.other].vips}
	f := {
		"msg": sprintf("%s VIP %s is %s, and no %s VIP is: give an API and an ingress VIP for each IP family", [kind, ip, fam, k.other]),
		"field": k.fields[i],
	}
}

# paired_singles is the common case: one API and one ingress VIP of one
# family.
paired_singles if {
	count(input.site.cluster.apiVIPs) == 1
	count(input.site.cluster.ingressVIPs) == 1
	family(input.site.cluster.apiVIPs[0]) == family(input.site.cluster.ingressVIPs[0])
}
