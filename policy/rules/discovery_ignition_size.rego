# METADATA
# title: The discovery Ignition of an InfraEnv fits in 256 KiB
# description: >-
#   The discovery ISO boots with an Ignition config that assisted-service
#   builds for each InfraEnv: the agent service, the SSH key, the static
#   network of every NMStateConfig the InfraEnv's nmStateConfigLabelSelector
#   matches, and the InfraEnv's ignitionConfigOverride merged in. Packed the
#   way the ISO embeds it (a gzipped cpio archive), it must fit in 256 KiB:
#   assisted-service refuses an InfraEnv whose override makes it larger, and
#   the ISO cannot embed a larger one whatever the cause. siteops builds the
#   config of each InfraEnv the site renders, with the site's own
#   NMStateConfigs, and measures it as assisted-service does. Compression
#   makes a few thousand NMStateConfigs fit (upstream documents about 3,960
#   per InfraEnv); a large override (files embedded as data URLs) is the
#   usual cause.
# custom:
#   id: ztp.infraenv.discovery-ignition-size
#   severity: deny
#   remediation: Make the discovery config smaller - move large files out of the ignitionConfigOverride (serve them, or put them in the installed system's overrides or extra manifests), or spread the nodes over more InfraEnvs so that each matches fewer NMStateConfigs.
#   reference: openshift/assisted-service internal/cluster/validations/validations.go (ValidateIgnitionImageSize, IgnitionImageSizePadding = 256 KiB) and internal/ignition/templates/discovery.ign (discovery Ignition contents); assisted-service documentation (about 3,960 NMStateConfigs per InfraEnv)
package siteops.rules.discovery_ignition_size

import data.siteops.lib

deny contains f if {
	some d in input.site.discovery
	d.archiveBytes > d.limit
	f := {
		"msg": sprintf(
			"the discovery Ignition of InfraEnv %s packs to %s (%d bytes), over assisted-service's limit of %s (%d bytes), so the hub refuses the InfraEnv; it holds %s: give the InfraEnv fewer NMStateConfigs or a smaller ignitionConfigOverride",
			[d.infraEnv, lib.kib(d.archiveBytes), d.archiveBytes, lib.kib(d.limit), d.limit, lib.discovery_contents(d)],
		),
		"field": lib.discovery_field,
	}
}
