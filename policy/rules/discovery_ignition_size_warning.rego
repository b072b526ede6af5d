# METADATA
# title: The discovery Ignition of an InfraEnv stays well under 256 KiB
# description: >-
#   The discovery config of an InfraEnv (see
#   ztp.infraenv.discovery-ignition-size) is over 80 % of the 256 KiB it must
#   fit in. The hub adds what the site does not show - mirror registries and
#   their CA, its CA bundle, a longer service URL - and day-2 nodes add
#   NMStateConfigs to the same InfraEnv: a config this close to the limit in
#   Git can be over it on the hub.
# custom:
#   id: ztp.infraenv.discovery-ignition-size-warning
#   severity: warn
#   remediation: Leave room under the limit - move large files out of the ignitionConfigOverride, or spread the nodes over more InfraEnvs so that each matches fewer NMStateConfigs.
#   reference: openshift/assisted-service internal/cluster/validations/validations.go (ValidateIgnitionImageSize, the 256 KiB limit) and internal/ignition/discovery.go (what the hub adds to the discovery Ignition)
package siteops.rules.discovery_ignition_size_warning

import data.siteops.lib

warn contains f if {
	some d in input.site.discovery
	d.archiveBytes > d.warnAbove
	d.archiveBytes <= d.limit
	f := {
		"msg": sprintf(
			"the discovery Ignition of InfraEnv %s packs to %s (%d bytes), %d %% of assisted-service's limit of %s; it holds %s: give the InfraEnv fewer NMStateConfigs or a smaller ignitionConfigOverride before the hub's own additions push it over",
			[d.infraEnv, lib.kib(d.archiveBytes), d.archiveBytes, round((d.archiveBytes * 100) / d.limit), lib.kib(d.limit), lib.discovery_contents(d)],
		),
		"field": lib.discovery_field,
	}
}
