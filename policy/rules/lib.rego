# Helpers shared by the built-in rules. This package is not a rule (it has
# no METADATA block): rules import it as data.siteops.lib.
package siteops.lib

# masters are the control-plane nodes, arbiters the arbiter nodes.
masters := [n | some n in input.site.nodes; n.role == "master"]

arbiters := [n | some n in input.site.nodes; n.role == "arbiter"]

# multi_node holds for a cluster with more than one control-plane node. A
# single control-plane node with workers is upstream's SNO expansion and
# counts as single-node.
multi_node if count(masters) > 1

# bare_metal holds when the cluster's VIPs are run by the platform
# (keepalived): platform BareMetal, or none set, which assisted-service
# takes as bare metal for a multi-node cluster. None and External use
# user-managed networking and have no VIPs.
bare_metal if input.site.cluster.platformType in {"", "BareMetal"}

# node_field returns the document path of a field of a node, e.g.
# node_field(n, "bmcAddress") == "spec.nodes[0].bmcAddress". Node keys are
# the same in both formats.
node_field(node, name) := sprintf("%s.%s", [node.path, name])

# interface_field is the path of the MAC of a node's interface i.
interface_field(node, i) := sprintf("%s.nodeNetwork.interfaces[%d].macAddress", [node.path, i])

# vips are the cluster's VIPs with their kind and field path.
vips contains {"kind": "API", "ip": ip, "field": input.site.fields.apiVIPs[i]} if some i, ip in input.site.cluster.apiVIPs

vips contains {"kind": "ingress", "ip": ip, "field": input.site.fields.ingressVIPs[i]} if some i, ip in input.site.cluster.ingressVIPs

# networks are every machine, cluster and service network entry.
networks := array.concat(
	array.concat(
		[{"kind": "machine network", "cidr": c, "field": input.site.fields.machineNetworks[i]} |
			some i, c in input.site.cluster.machineNetworks],
		[{"kind": "cluster network", "cidr": n.cidr, "field": input.site.fields.clusterNetworks[i]} |
			some i, n in input.site.cluster.clusterNetworks],
	),
	[{"kind": "service network", "cidr": c, "field": input.site.fields.serviceNetworks[i]} |
		some i, c in input.site.cluster.serviceNetworks],
)

# cidrs are the networks' CIDRs, in the same order, and valid_cidrs those
# that are valid: the network rules check the common case (every CIDR
# valid, none overlapping) on them, and build networks only when it fails.
cidrs := array.concat(
	array.concat(input.site.cluster.machineNetworks, [n.cidr | some n in input.site.cluster.clusterNetworks]),
	input.site.cluster.serviceNetworks,
)

valid_cidrs := [c | some c in cidrs; net.cidr_is_valid(c)]

# ip_valid holds for an IPv4 or IPv6 address without a prefix.
ip_valid(ip) if ipv4(ip)

ip_valid(ip) if ipv6(ip)

ipv4(ip) if {
	not contains(ip, "/")
	net.cidr_contains("0.0.0.0/0", ip)
}

ipv6(ip) if {
	not contains(ip, "/")
	contains(ip, ":")
	net.cidr_contains("::/0", ip)
}

# ipv4_int is an IPv4 address as a number.
ipv4_int(ip) := n if {
	p := [to_number(x) | some x in split(ip, ".")]
	n := ((p[0] * 256 + p[1]) * 256 + p[2]) * 256 + p[3]
}

# is_broadcast holds when ip is the broadcast address of an IPv4 CIDR that
# has one (prefix up to /30): inside it, with every host bit set. The
# host bits of the last octet are tested first, on that octet alone:
# arithmetic on the whole address is costly, and that test rules out
# almost every address that is not a broadcast.
is_broadcast(ip, cidr) if {
	[addr, len] := split(cidr, "/")
	host := 32 - to_number(len)
	host >= 2
	ipv4(addr)
	net.cidr_contains(cidr, ip)
	(to_number(split(ip, ".")[3]) + 1) % bits.lsh(1, min([host, 8])) == 0
	(ipv4_int(ip) + 1) % bits.lsh(1, host) == 0
}

# others returns the places of the fleet, other than the node at path, that
# use the same fact: data.siteops.fleet[kind][key] lists every use. Check
# data.siteops.fleet.shared.<kind>[key] first, with the kind written out:
# most facts are not shared, and that lookup is much cheaper than a call.
others(kind, key, path) := [o |
	some o in data.siteops.fleet[kind][key]
	not same_node(o, path)
]

same_node(o, path) if {
	o.site == input.site.name
	o.node == path
}

# where says where a fleet fact is used, for messages.
where(o) := sprintf("%s at %s", [o.field, o.pos]) if o.site == input.site.name

else := sprintf("site %s at %s", [o.site, o.pos])

# places joins where() of a list of uses, naming each node (or site, for
# cluster facts) once: a node's boot MAC and interface entry are one use.
places(list) := concat(", ", [where(o) |
	some i, o in list
	not used_before(list, i, o)
])

used_before(list, i, o) if {
	some j, p in list
	j < i
	p.site == o.site
	p.node == o.node
}

# bmc_drivers maps each BMC driver of the bare-metal operator to the
# transports it accepts as "<driver>+<transport>"
# (pkg/hardwareutils/bmc v0.5.1, the RegisterFactory calls).
bmc_drivers := {
	"ipmi": set(),
	"libvirt": set(),
	"irmc": set(),
	"ibmc": {"http", "https"},
	"idrac": {"http", "https"},
	"idrac-redfish": {"http", "https"},
	"idrac-virtualmedia": {"http", "https"},
	"ilo4": {"https"},
	"ilo4-virtualmedia": {"https"},
	"ilo5": {"https"},
	"ilo5-redfish": {"http", "https"},
	"ilo5-virtualmedia": {"http", "https"},
	"redfish": {"http", "https"},
	"redfish-virtualmedia": {"http", "https"},
}

# bmc_known holds for a scheme the bare-metal operator has a driver for.
bmc_known(scheme) if bmc_drivers[scheme]

bmc_known(scheme) if {
	[driver, transport] := split(scheme, "+")
	bmc_drivers[driver][transport]
}

# bmc_tls holds for a known scheme that talks TLS to the BMC: IPMI and
# libvirt do not, nor a driver forced onto plain HTTP.
bmc_tls(scheme) if {
	bmc_known(scheme)
	not scheme in {"ipmi", "libvirt"}
	not endswith(scheme, "+http")
}

# discovery_field is where a finding about the discovery Ignition points:
# the cluster's ignitionConfigOverride when it has one (it is merged into
# the config), else the nodes, whose static network fills it.
discovery_field := input.site.fields.ignitionConfigOverride if input.site.cluster.ignitionConfigOverride != ""

else := input.site.fields.nodes

# discovery_contents says what fills an InfraEnv's discovery Ignition, for
# messages: its NMStateConfigs and the cluster's override.
discovery_contents(d) := sprintf("%s and an ignitionConfigOverride of %s", [nmstate_configs(d), kib(count(input.site.cluster.ignitionConfigOverride))]) if input.site.cluster.ignitionConfigOverride != ""

else := nmstate_configs(d)

nmstate_configs(d) := "the static network of 1 NMStateConfig" if d.nmStateConfigs == 1

else := sprintf("the static network of %d NMStateConfigs", [d.nmStateConfigs])

# kib writes a byte count in KiB, with one decimal when it has one.
kib(n) := sprintf("%v KiB", [round((n * 10) / 1024) / 10])
