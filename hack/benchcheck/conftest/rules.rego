# Per-document equivalents of built-in siteops rules, for conftest, on the
# rendered objects of a fleet (siteops render --out-dir): what conftest in
# CI can check of a site, one document at a time. The rules are named deny,
# conftest's fastest form (a query per rule name; deny_* rules each cost a
# query of their own).
package main

import rego.v1

# ztp.bmc.address-scheme: the bare-metal operator's drivers.
bmc_schemes := {
	"ipmi", "libvirt", "irmc", "ibmc", "ibmc+http", "ibmc+https", "idrac", "idrac+http", "idrac+https",
	"idrac-redfish", "idrac-redfish+http", "idrac-redfish+https", "idrac-virtualmedia", "idrac-virtualmedia+http",
	"idrac-virtualmedia+https", "ilo4", "ilo4+https", "ilo4-virtualmedia", "ilo4-virtualmedia+https", "ilo5",
	"ilo5+https", "ilo5-redfish", "ilo5-redfish+http", "ilo5-redfish+https", "ilo5-virtualmedia",
	"ilo5-virtualmedia+http", "ilo5-virtualmedia+https", "redfish", "redfish+http", "redfish+https",
	"redfish-virtualmedia", "redfish-virtualmedia+http", "redfish-virtualmedia+https",
}

deny contains msg if {
	input.kind == "BareMetalHost"
	scheme := split(input.spec.bmc.address, "://")[0]
	not bmc_schemes[scheme]
	msg := sprintf("BareMetalHost %s: BMC address scheme %q is not a driver of the bare-metal operator", [input.metadata.name, scheme])
}

# ztp.nodes.mac-valid.
deny contains msg if {
	input.kind == "BareMetalHost"
	not regex.match(`^([0-9A-Fa-f]{2}:){5}[0-9A-Fa-f]{2}$`, input.spec.bootMACAddress)
	msg := sprintf("BareMetalHost %s: boot MAC %q is not a MAC address", [input.metadata.name, input.spec.bootMACAddress])
}

# ztp.cluster.dns-names.
deny contains msg if {
	input.kind == "ClusterDeployment"
	not regex.match(`^[a-z0-9]([-a-z0-9]{0,61}[a-z0-9])?$`, input.spec.clusterName)
	msg := sprintf("ClusterDeployment %s: cluster name %q is not a DNS label", [input.metadata.name, input.spec.clusterName])
}

# ztp.network.vip-in-machine-network.
deny contains msg if {
	input.kind == "AgentClusterInstall"
	some vip in array.concat(object.get(input.spec, "apiVIPs", []), object.get(input.spec, "ingressVIPs", []))
	not in_machine_network(vip)
	msg := sprintf("AgentClusterInstall %s: VIP %s is outside every machine network", [input.metadata.name, vip])
}

in_machine_network(ip) if {
	some n in input.spec.networking.machineNetwork
	net.cidr_contains(n.cidr, ip)
}

# ztp.network.static-config: an NMStateConfig names its interfaces.
deny contains msg if {
	input.kind == "NMStateConfig"
	count(object.get(input.spec, "interfaces", [])) == 0
	msg := sprintf("NMStateConfig %s: no interfaces", [input.metadata.name])
}
