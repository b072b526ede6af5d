# METADATA
# title: Control-plane node count fits the topology
# description: >-
#   assisted-service installs a cluster only with a number of control-plane
#   (master) nodes it supports: 1 (single-node OpenShift), 3, 4 or 5; 2 only
#   beside at least one arbiter node (two-node with arbiter). With any other
#   count the cluster stays in insufficient with the sufficient-masters-count
#   validation failing, after the hosts have been booted.
# custom:
#   id: ztp.nodes.control-plane-count
#   severity: deny
#   remediation: Give the cluster 1, 3, 4 or 5 nodes with role master, or 2 masters and at least one node with role arbiter.
#   reference: openshift/assisted-service internal/cluster/validator.go (sufficient-masters-count); openshift/installer pkg/asset/agent/installconfig.go (controlPlane.replicas); stolostron/siteconfig api/v1alpha1/clusterinstance_validation.go
package siteops.rules.control_plane_count

import data.siteops.lib

deny contains f if {
	input.site.cluster.clusterType != "HostedControlPlane"
	n := count(lib.masters)
	not n in {1, 3, 4, 5} # the counts assisted-service installs
	not two_with_arbiter(n)
	f := {"msg": message(n), "field": input.site.fields.nodes}
}

two_with_arbiter(2) if count(lib.arbiters) > 0

message(0) := "the cluster has no control-plane node; at least one node needs role master"

message(2) := "the cluster has 2 control-plane nodes and no arbiter node; two control-plane nodes are supported only with at least one arbiter"

message(n) := sprintf("the cluster has %d control-plane nodes; assisted-service installs 1, 3, 4 or 5 (or 2 with an arbiter)", [n]) if {
	not n in {0, 2}
}
