# METADATA
# title: BMC TLS certificates are verified
# description: >-
#   The rendered BareMetalHosts set spec.bmc.disableCertificateVerification:
#   true (the upstream templates hard-code it), so the bare-metal operator
#   talks to the BMC over TLS without checking who answers, and sends it the
#   BMC credentials. Every site rendered from the standard templates has
#   it, so it is a note (severity info: reported, never failing, not even
#   with --fail-on-warn), once per site; a fleet whose BMCs have no trusted
#   certificates silences it per site with a waiver.
# custom:
#   id: ztp.bmc.certificate-verification-disabled
#   severity: info
#   remediation: Give the BMCs certificates the hub trusts and render the BareMetalHost with disableCertificateVerification false (a crTemplate); or silence the note for a site with a siteops.io/waive annotation that names ztp.bmc.certificate-verification-disabled and the reason.
#   reference: openshift-kni/cnf-features-deploy ztp/siteconfig-generator/siteConfig/clusterCRsV1.go and stolostron/siteconfig internal/templates/assisted-installer/template.go (BareMetalHost bmc.disableCertificateVerification true, fixed)
package siteops.rules.bmc_certificate

import data.siteops.lib

unverified := [node |
	some node in input.site.nodes
	node.bmc.disableCertificateVerification == true
	lib.bmc_tls(node.bmc.scheme)
]

info contains f if {
	count(unverified) > 0
	f := {
		"msg": sprintf("%d of %d BareMetalHosts do not verify the BMC's TLS certificate (%s)", [
			count(unverified), count(input.site.nodes),
			concat(", ", [n.hostname | some n in unverified]),
		]),
		"field": lib.node_field(unverified[0], "bmcAddress"),
	}
}
