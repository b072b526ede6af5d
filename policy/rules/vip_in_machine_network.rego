# METADATA
# title: VIPs are addresses inside a machine network
# description: >-
#   assisted-service accepts an API or ingress VIP only when it is an IP
#   address inside one of the machine networks and not the network's broadcast
#   address (api-vips-valid, ingress-vips-valid); keepalived could not announce
#   it otherwise. A cluster that declares no machine network is left to
#   assisted-service, which derives the network from the VIPs.
# custom:
#   id: ztp.network.vip-in-machine-network
#   severity: deny
#   remediation: Pick VIPs that are free addresses inside the machine network (not its network or broadcast address), or correct the machine network.
#   reference: openshift/assisted-service internal/cluster/validator.go (api-vips-valid, ingress-vips-valid); openshift/installer pkg/types/validation/installconfig.go (VIPs in a machine network)
package siteops.rules.vip_in_machine_network

import data.siteops.lib

machine := [c | some c in input.site.cluster.machineNetworks; net.cidr_is_valid(c)]

deny contains f if {
	lib.multi_node
	count(input.site.cluster.machineNetworks) > 0
	some vip in lib.vips
	msg := problem(vip)
	f := {"msg": msg, "field": vip.field}
}

problem(vip) := sprintf("%s VIP %q is not an IP address", [vip.kind, vip.ip]) if {
	not lib.ip_valid(vip.ip)
} else := sprintf("%s VIP %s is in no machine network (%s)", [vip.kind, vip.ip, concat(", ", input.site.cluster.machineNetworks)]) if {
	not inside(vip.ip)
} else := sprintf("%s VIP %s is the broadcast address of machine network %s", [vip.kind, vip.ip, broadcast_of(vip.ip)]) if {
	lib.ipv4(vip.ip)
	maybe_broadcast(vip.ip)
	broadcast_of(vip.ip)
}

# broadcast_of is the first machine network whose broadcast address ip is.
broadcast_of(ip) := [cidr | some cidr in machine; lib.is_broadcast(ip, cidr)][0]

# maybe_broadcast holds for an IPv4 address whose two lowest bits are set,
# as in every broadcast address (prefixes up to /30): most VIPs are ruled
# out without computing the broadcasts.
maybe_broadcast(ip) if to_number(split(ip, ".")[3]) % 4 == 3

inside(ip) if {
	some cidr in machine
	net.cidr_contains(cidr, ip)
}
