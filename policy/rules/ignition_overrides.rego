# METADATA
# title: Ignition overrides parse and validate
# description: >-
#   The cluster's ignitionConfigOverride is merged into the discovery image and
#   each node's into its installed system. assisted-service parses them as
#   Ignition 3.2 or 3.1 and refuses anything else; a config that parses but does
#   not validate (a relative path, a bad mode) fails when the host boots. Each
#   override is checked with Ignition's own parser and validator
#   (siteops.ignition_errors).
# custom:
#   id: ztp.overrides.ignition-valid
#   severity: deny
#   remediation: Fix the errors Ignition reports and declare "ignition":{"version":"3.2.0"} (or 3.1.0).
#   reference: openshift/assisted-service internal/common/ignition/ignition.go (ParseToLatest)
package siteops.rules.ignition_overrides

import data.siteops.lib

# Versions assisted-service parses overrides as.
accepted := {"3.1.0", "3.2.0"}

overrides contains {"what": "the cluster's ignitionConfigOverride", "text": t, "field": input.site.fields.ignitionConfigOverride} if {
	t := input.site.cluster.ignitionConfigOverride
	t != ""
}

overrides contains {"what": sprintf("the ignitionConfigOverride of node %s", [node.hostname]), "text": node.ignitionConfigOverride, "field": lib.node_field(node, "ignitionConfigOverride")} if {
	some node in input.site.nodes
	node.ignitionConfigOverride != ""
}

deny contains f if {
	some o in overrides
	msg := problem(o)
	f := {"msg": msg, "field": o.field}
}

problem(o) := sprintf("%s is not a valid Ignition config: %s", [o.what, concat("; ", errs)]) if {
	errs := siteops.ignition_errors(o.text)
	count(errs) > 0
} else := sprintf("%s has Ignition version %q; assisted-service accepts 3.1.0 and 3.2.0", [o.what, version]) if {
	version := object.get(json.unmarshal(o.text), ["ignition", "version"], "")
	not accepted[version]
}
