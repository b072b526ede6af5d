# METADATA
# title: BMC addresses are unique across the fleet
# description: >-
#   Two BareMetalHosts with one BMC power and boot the same machine: the second
#   site's install reboots the first site's node. The comparison ignores the
#   driver scheme and the case of the host name, since redfish:// and
#   idrac-redfish:// reach the same BMC.
# custom:
#   id: ztp.bmc.address-unique
#   severity: deny
#   remediation: Correct the BMC address that was copied from another node; each machine's BMC appears on one node only.
#   reference: openshift-kni/cnf-features-deploy ztp/siteconfig-generator/siteConfig/siteConfig.go (bmcAddress, no check); docs/policy.md#fleet-facts (fleet-wide rules)
package siteops.rules.bmc_unique

import data.siteops.lib

deny contains f if {
	some u in data.siteops.fleet.bySite[input.site.name].bmcAddresses
	data.siteops.fleet.shared.bmcAddresses[u.key]
	others := lib.others("bmcAddresses", u.key, u.node)
	count(others) > 0
	f := {
		"msg": sprintf("BMC %s of node %s is also used by %s", [u.value, u.hostname, lib.places(others)]),
		"field": u.field,
	}
}
