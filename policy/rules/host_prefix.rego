# METADATA
# title: hostPrefix fits the cluster network
# description: >-
#   Each node gets a subnet of the cluster (pod) network of hostPrefix bits.
#   For OVNKubernetes and OpenShiftSDN, assisted-service requires a positive
#   hostPrefix of at most the address length minus 7 (at least 128 pod
#   addresses per node) and a cluster network that holds a subnet for every
#   host, at least four (one for a single-node cluster) (network-prefix-valid).
#   The installer's install-config validation, which assisted-service runs
#   when it generates the manifests, also refuses a hostPrefix shorter than
#   the network's own prefix and, for an IPv6 cluster network, any hostPrefix
#   but 64 (pkg/types/validation/installconfig.go validateClusterNetwork).
#   Other network types do not use hostPrefix (ztp.network.type-valid).
# custom:
#   id: ztp.network.host-prefix
#   severity: deny
#   remediation: Set hostPrefix between the cluster network's prefix length and 25 for IPv4 (23 is the default, with a /14), or to 64 for IPv6, leaving room for a subnet per node.
#   reference: openshift/assisted-service internal/cluster/validator.go (network-prefix-valid); openshift/installer pkg/asset/agent/manifests/agentclusterinstall.go (hostPrefix) and openshift/installer pkg/types/validation/installconfig.go (generic install-config validation)
package siteops.rules.host_prefix

# hosts is how many node subnets the network must hold: one per node, at
# least four, or one on a single-node cluster; need_bits is how many bits
# that takes (the network holds 2^(hostPrefix - prefix length) subnets).
hosts := 1 if count(input.site.nodes) <= 1

else := max([4, count(input.site.nodes)])

need_bits := 0 if hosts == 1

else := 2 if hosts == 4

else := 3 if hosts <= 8

else := 4 if hosts <= 16

else := min({k | some k in numbers.range(5, 20); bits.lsh(1, k) >= hosts})

why := sprintf("one per node for its %d nodes", [count(input.site.nodes)]) if count(input.site.nodes) > 4

else := "at least four"

deny contains f if {
	input.site.cluster.networkType in {"OVNKubernetes", "OpenShiftSDN"}
	some i, cn in input.site.cluster.clusterNetworks
	not fits(cn)
	net.cidr_is_valid(cn.cidr) # ztp.network.cidr-valid reports the others
	msg := problem(cn)
	f := {"msg": msg, "field": sprintf("%s.hostPrefix", [trim_suffix(input.site.fields.clusterNetworks[i], ".cidr")])}
}

# fits is what every good cluster network satisfies; checking it first
# keeps the common case cheap.
fits(cn) if {
	p := cn.hostPrefix
	p >= 1
	p - length(cn.cidr) >= need_bits
	bound(cn.cidr, p)
}

bound(cidr, p) if {
	ipv6(cidr)
	p == 64
}

bound(cidr, p) if {
	not ipv6(cidr)
	p <= 25
}

problem(cn) := sprintf("cluster network %s has no hostPrefix (the size of each node's subnet)", [cn.cidr]) if {
	object.get(cn, "hostPrefix", 0) == 0
} else := sprintf("hostPrefix %v of cluster network %s is not a positive integer", [cn.hostPrefix, cn.cidr]) if {
	not positive_int(cn.hostPrefix)
} else := sprintf("hostPrefix %d is shorter than cluster network %s itself (/%d): a node's subnet must fit inside the network", [cn.hostPrefix, cn.cidr, length(cn.cidr)]) if {
	cn.hostPrefix < length(cn.cidr)
} else := sprintf("hostPrefix %d of IPv6 cluster network %s must be 64", [cn.hostPrefix, cn.cidr]) if {
	ipv6(cn.cidr)
	cn.hostPrefix != 64
} else := sprintf("hostPrefix %d of cluster network %s leaves fewer than 128 pod addresses per node: it must be at most 25", [cn.hostPrefix, cn.cidr]) if {
	not ipv6(cn.cidr)
	cn.hostPrefix > 25
} else := sprintf("cluster network %s holds %d node subnets of /%d, and the cluster needs %d (%s)", [cn.cidr, subnets(cn), cn.hostPrefix, hosts, why]) if {
	subnets(cn) < hosts
}

positive_int(n) if {
	is_number(n)
	n >= 1
	n == round(n)
}

length(cidr) := to_number(split(cidr, "/")[1])

ipv6(cidr) if contains(cidr, ":")

# subnets is how many node subnets the network holds, counted up to 2^20
# (more than any cluster needs; bits.lsh of a large shift is costly).
subnets(cn) := bits.lsh(1, min([cn.hostPrefix - length(cn.cidr), 20]))
