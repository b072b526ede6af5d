# METADATA
# title: Static network config is nmstate that names only declared interfaces
# description: >-
#   nodeNetwork.config is copied verbatim into the node's NMStateConfig and
#   nodeNetwork.interfaces maps each NIC name it uses to a MAC, which is how
#   the discovery image finds the NIC. assisted-service needs at least one
#   entry in that table, with names and MACs unique, and the config must be
#   nmstate, whose interfaces are a list of objects with names. An ethernet
#   interface of the config that is not in the table names no NIC, and a bond
#   port or VLAN base interface that is neither in the table nor defined in
#   the config names nothing: nmstate fails on the host, which then boots
#   without its static network and never reports to the hub. The SiteConfig
#   generator and the ClusterInstance operator copy the config unchecked.
# custom:
#   id: ztp.network.static-config
#   severity: deny
#   remediation: Write nodeNetwork.config as nmstate (interfaces is a list of entries with a name), and list every ethernet NIC it configures in nodeNetwork.interfaces with its MAC; bond ports and VLAN base interfaces must be such NICs or interfaces defined in the config.
#   reference: openshift/assisted-service pkg/staticnetworkconfig/generator.go (NMStateConfig interfaces, unique names and MACs, nmstate validation); openshift/installer pkg/asset/agent/manifests/staticnetworkconfig/generator.go and pkg/asset/agent/manifests/nmstateconfig.go; openshift-kni/cnf-features-deploy ztp/siteconfig-generator/siteConfig/clusterCRsV1.go (nmstate not validated)
package siteops.rules.static_network

import data.siteops.lib

deny contains f if {
	some node in input.site.nodes
	node.nmstate
	not clean(node)
	some msg in problems(node)
	f := {
		"msg": sprintf("nodeNetwork.config of node %s: %s", [node.hostname, msg]),
		"field": lib.node_field(node, "nodeNetwork.config"),
	}
}

# Two entries of the interface table with one name.
deny contains f if {
	some node in input.site.nodes
	count(node.interfaces) > 1
	some i, a in node.interfaces
	some j, b in node.interfaces
	i < j
	a.name == b.name
	f := {
		"msg": sprintf("interface name %q of node %s is also used by nodeNetwork.interfaces[%d]", [b.name, node.hostname, i]),
		"field": sprintf("%s.nodeNetwork.interfaces[%d].name", [node.path, j]),
	}
}

# clean is the common case, checked first: every interface of the config
# is an ethernet NIC with a name listed in the interface table, so that
# problems has nothing to say.
clean(node) if {
	count(node.interfaces) > 0
	is_array(node.nmstate.interfaces)
	declared := {itf.name | some itf in node.interfaces}
	every itf in node.nmstate.interfaces {
		itf.type == "ethernet"
		itf.name != ""
		declared[itf.name]
	}
}

# problems are the first thing that keeps the config from being
# nmstate-shaped or, when it is, every interface it names that does not
# exist.
problems(node) := {"nodeNetwork.interfaces is empty: list each NIC the config uses with its MAC"} if {
	count(node.interfaces) == 0
} else := {"interfaces is not a list"} if {
	not is_array(object.get(node.nmstate, "interfaces", []))
} else := {entry_problem(unnamed[0], node.nmstate.interfaces[unnamed[0]])} if {
	unnamed := [i | some i, itf in node.nmstate.interfaces; not named(itf)]
	count(unnamed) > 0
} else := reference_problems(node, object.get(node.nmstate, "interfaces", []))

named(itf) if {
	is_string(itf.name)
	itf.name != ""
}

entry_problem(i, itf) := sprintf("interfaces[%d] is not an object", [i]) if {
	not is_object(itf)
} else := sprintf("interfaces[%d] has no name", [i])

reference_problems(node, itfs) := (unmapped | ports) | bases if {
	declared := {itf.name | some itf in node.interfaces}
	unmapped := {sprintf("ethernet interface %q is not in nodeNetwork.interfaces, so no NIC (MAC) is mapped to it", [itf.name]) |
		some itf in itfs
		itf.type == "ethernet"
		not declared[itf.name]
	}
	ports := {sprintf("bond %q has port %q, which is neither in nodeNetwork.interfaces nor defined in the config", [itf.name, port]) |
		some itf in itfs
		itf.type == "bond"
		some key in ["port", "ports"]
		some port in object.get(object.get(itf, "link-aggregation", {}), key, [])
		not declared[port]
		not defined(itfs, port)
	}
	bases := {sprintf("VLAN %q has base-iface %q, which is neither in nodeNetwork.interfaces nor defined in the config", [itf.name, base]) |
		some itf in itfs
		itf.type == "vlan"
		base := itf.vlan["base-iface"]
		not declared[base]
		not defined(itfs, base)
	}
}

# defined holds for the name of an interface of the config.
defined(itfs, name) if {
	some itf in itfs
	itf.name == name
}
