# METADATA
# title: Cluster name and base domain are DNS names
# description: >-
#   The cluster's API and ingress names are api.<cluster name>.<base domain>
#   and *.apps.<cluster name>.<base domain>, and the cluster name also names
#   the rendered objects and their namespace. So the cluster name must be a
#   DNS-1123 label (lower-case letters, digits and '-', at most 63
#   characters, a valid namespace name) and the base domain a DNS-1123
#   subdomain. Neither the SiteConfig generator nor the ClusterInstance
#   operator checks this; assisted-service needs the base domain set
#   (dns-domain-defined) and refuses names it cannot use.
# custom:
#   id: ztp.cluster.dns-names
#   severity: deny
#   remediation: Use a cluster name of lower-case letters, digits and '-' (at most 63, starting and ending with a letter or digit) and a base domain such as example.com.
#   reference: openshift/assisted-service internal/cluster/validator.go (dns-domain-defined); stolostron/siteconfig api/v1alpha1/clusterinstance_types.go (clusterName) and stolostron/siteconfig api/v1alpha1/clusterinstance_validation.go (names not checked); openshift-kni/cnf-features-deploy ztp/siteconfig-generator/siteConfig/siteConfig.go (names not validated)
package siteops.rules.cluster_dns_names

subdomain := `^[a-z0-9]([-a-z0-9]*[a-z0-9])?(\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*$`

deny contains f if {
	name := input.site.cluster.name
	not name_ok(name)
	f := {"msg": name_problem(name), "field": input.site.fields.name}
}

deny contains f if {
	d := input.site.cluster.baseDomain
	not domain_ok(d)
	f := {"msg": domain_problem(d), "field": input.site.fields.baseDomain}
}

# name_ok holds for a DNS label.
name_ok(n) if {
	count(n) <= 63
	regex.match(`^[a-z0-9]([-a-z0-9]*[a-z0-9])?$`, n)
}

# domain_ok holds for a DNS-1123 subdomain whose labels have at most 63
# characters: what every good base domain matches. Checking it first keeps
# the common case to one match.
domain_ok(d) if {
	count(d) <= 253
	regex.match(`^[a-z0-9]([-a-z0-9]{0,61}[a-z0-9])?(\.[a-z0-9]([-a-z0-9]{0,61}[a-z0-9])?)*$`, d)
}

name_problem(n) := "the cluster has no name" if {
	n == ""
} else := sprintf("cluster name %q has %d characters: a DNS label has at most 63", [n, count(n)]) if {
	count(n) > 63
} else := sprintf("cluster name %q is not a DNS label: lower-case letters, digits and '-', starting and ending with a letter or digit", [n])

domain_problem(d) := "the base domain is not set" if {
	d == ""
} else := sprintf("base domain %q has %d characters: a DNS name has at most 253", [d, count(d)]) if {
	count(d) > 253
} else := sprintf("base domain %q is not a DNS name: dot-separated labels of lower-case letters, digits and '-', each starting and ending with a letter or digit", [d]) if {
	not regex.match(subdomain, d)
} else := sprintf("base domain %q has a label longer than 63 characters", [d])
