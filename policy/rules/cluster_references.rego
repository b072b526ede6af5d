# METADATA
# title: Image set and pull secret are referenced
# description: >-
#   The cluster's ClusterImageSet gives the release to install and its pull
#   secret lets the nodes pull it: without an image set the AgentClusterInstall
#   is never synced, and without a pull secret the ClusterDeployment is refused
#   and the cluster stays pending (pull-secret-set, which cannot be ignored).
#   A SiteConfig renders an empty pullSecretRef when none is given. Both are
#   object names (DNS-1123 subdomains); a name that cannot exist is as bad as
#   none. Whether the objects exist on the hub is not checked here.
# custom:
#   id: ztp.cluster.references
#   severity: deny
#   remediation: Set pullSecretRef.name to the hub Secret with the pull secret and clusterImageSetNameRef to a ClusterImageSet, such as openshift-4.20.6 (lower-case letters, digits, '-' and '.').
#   reference: openshift/assisted-service internal/cluster/validator.go (pull-secret-set); openshift/assisted-service internal/controller/controllers/clusterdeployments_controller.go (SpecSynced InputError for a missing pull secret or image set); openshift/installer pkg/asset/agent/manifests/agentpullsecret.go; openshift-kni/cnf-features-deploy ztp/siteconfig-generator/siteConfig/siteConfig.go (pullSecretRef, clusterImageSetNameRef)
package siteops.rules.cluster_references

deny contains f if {
	not valid(input.site.cluster.imageSet)
	f := {"msg": problem("image set", "ClusterImageSet", input.site.cluster.imageSet), "field": input.site.fields.imageSet}
}

deny contains f if {
	not valid(input.site.cluster.pullSecret)
	f := {"msg": problem("pull secret", "Secret", input.site.cluster.pullSecret), "field": input.site.fields.pullSecret}
}

# valid holds for an object name (a DNS-1123 subdomain); checking it first
# keeps the common case to one match.
valid(name) if {
	regex.match(`^[a-z0-9]([-a-z0-9]*[a-z0-9])?(\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*$`, name)
	count(name) <= 253
}

problem(what, kind, value) := sprintf("the cluster names no %s", [what]) if {
	trim_space(value) == ""
} else := sprintf("%s %q cannot name a %s: an object name is lower-case letters, digits, '-' and '.', at most 253 characters", [what, value, kind])
