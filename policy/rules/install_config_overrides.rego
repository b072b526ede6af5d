# METADATA
# title: installConfigOverrides is an object assisted-service accepts
# description: >-
#   assisted-service decodes the install-config overrides on top of its own
#   install-config and then validates the result, which checks that an
#   additionalTrustBundle is a PEM bundle of certificates; a failure is an
#   InputError on the AgentClusterInstall after the site is applied. (That the
#   overrides are a JSON object is already checked when the site loads and
#   renders, as the SiteConfig generator and the ClusterInstance operator do;
#   the rule checks it again for sites given to the engine unrendered.)
# custom:
#   id: ztp.overrides.install-config-valid
#   severity: deny
#   remediation: Write installConfigOverrides as a JSON object, with additionalTrustBundle holding PEM certificates ("-----BEGIN CERTIFICATE-----\n...").
#   reference: openshift/assisted-service internal/installcfg/builder/builder.go (ValidateInstallConfigPatch); stolostron/siteconfig api/v1alpha1/clusterinstance_validation.go (invalid JSON field(s))
package siteops.rules.install_config_overrides

deny contains f if {
	text := input.site.cluster.installConfigOverrides
	text != ""
	msg := problem(text)
	f := {"msg": msg, "field": input.site.fields.installConfigOverrides}
}

problem(text) := "installConfigOverrides is not valid JSON" if {
	not json.is_valid(text)
} else := sprintf("installConfigOverrides is JSON but not an object (it is %s)", [type_name(parsed(text))]) if {
	not is_object(parsed(text))
} else := "installConfigOverrides sets additionalTrustBundle to something that is not PEM certificates" if {
	bundle := parsed(text).additionalTrustBundle
	not pem_certificates(bundle)
}

# parsed is the text as JSON, parsed once: a function's result is kept for
# the evaluation.
parsed(text) := json.unmarshal(text)

pem_certificates(bundle) if {
	is_string(bundle)
	contains(bundle, "-----BEGIN CERTIFICATE-----")
	count(crypto.x509.parse_certificates(bundle)) > 0
}
