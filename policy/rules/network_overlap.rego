# METADATA
# title: Machine, cluster and service networks do not overlap
# description: >-
#   Pod, service and node addresses must not be confused: assisted-service
#   refuses to install while any two of the networks overlap
#   (no-cidrs-overlapping).
# custom:
#   id: ztp.network.no-overlap
#   severity: deny
#   remediation: Move one of the two networks to a range the other does not cover.
#   reference: openshift/assisted-service internal/cluster/validator.go (no-cidrs-overlapping)
package siteops.rules.network_overlap

import data.siteops.lib

deny contains f if {
	overlap
	nets := [n | some n in lib.networks; net.cidr_is_valid(n.cidr)]
	some i, a in nets
	some j, b in nets
	i < j
	net.cidr_intersects(a.cidr, b.cidr)
	f := {
		"msg": sprintf("%s %s overlaps %s %s (%s)", [b.kind, b.cidr, a.kind, a.cidr, a.field]),
		"field": b.field,
	}
}

# overlap holds when two valid CIDRs intersect: the rare case, in which the
# networks are looked at with their kinds and fields. Two CIDR blocks
# intersect only when one holds the other, so one call finds out: each
# CIDR contains itself, and any other pair is an overlap.
overlap if {
	count(net.cidr_contains_matches(lib.valid_cidrs, lib.valid_cidrs)) > count(lib.valid_cidrs)
}
