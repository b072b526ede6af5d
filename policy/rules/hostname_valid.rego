# METADATA
# title: Host names are valid DNS names
# description: >-
#   A node's host name names its BareMetalHost (a Kubernetes object name, a
#   DNS-1123 subdomain) and the installed node; assisted-service refuses a host
#   whose name does not match its pattern or is a localhost name
#   (hostname-valid, which cannot be ignored).
# custom:
#   id: ztp.nodes.hostname-valid
#   severity: deny
#   remediation: Use lower-case letters, digits, '-' and '.', starting and ending each label with a letter or digit, e.g. sno-01.site.example.com.
#   reference: openshift/assisted-service internal/host/validator.go (hostname-valid); openshift-kni/cnf-features-deploy ztp/siteconfig-generator/siteConfig/clusterCRsV1.go (BareMetalHost named after hostName)
package siteops.rules.hostname_valid

import data.siteops.lib

# assisted-service's pattern (hostname-valid).
assisted := `^[a-z0-9][a-z0-9-]{0,62}(?:[.][a-z0-9-]{1,63})*$`

# A Kubernetes object name (DNS-1123 subdomain).
subdomain := `^[a-z0-9]([-a-z0-9]*[a-z0-9])?(\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*$`

forbidden := {
	"localhost", "localhost.localdomain", "localhost4", "localhost4.localdomain4",
	"localhost6", "localhost6.localdomain6",
}

# ok is the common case, checked first with one match: DNS-1123 labels of
# 1 to 63 characters, which satisfies both patterns above.
ok(h) if {
	regex.match(`^[a-z0-9]([-a-z0-9]{0,61}[a-z0-9])?(\.[a-z0-9]([-a-z0-9]{0,61}[a-z0-9])?)*$`, h)
	count(h) <= 253
	not forbidden[h]
}

deny contains f if {
	some node in input.site.nodes
	not ok(node.hostname)
	msg := problem(node.hostname)
	f := {"msg": msg, "field": lib.node_field(node, "hostName")}
}

problem(h) := "a node has no hostName" if {
	h == ""
} else := sprintf("host name %q is not allowed: it should match %s (lower case, labels of at most 63 characters)", [h, assisted]) if {
	not regex.match(assisted, h)
} else := sprintf("host name %q is forbidden", [h]) if {
	forbidden[h]
} else := sprintf("host name %q is not a valid object name: each label starts and ends with a letter or digit, at most 253 characters in all", [h]) if {
	not valid_subdomain(h)
}

valid_subdomain(h) if {
	count(h) <= 253
	regex.match(subdomain, h)
}
