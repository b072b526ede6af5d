# holdInstallation keeps a site's installation from starting after its
# hosts are discovered. That is a lab and staging tool: on a production
# site it stalls a rollout wave until someone notices. A site is production
# unless its environment cluster label says lab or staging.
package main

non_production := {"lab", "staging"}

# METADATA
# title: Production sites do not hold their installation
# custom:
#   remediation: Remove holdInstallation, or label the site environment=lab or environment=staging if it is not production.
#   reference: openshift-kni/cnf-features-deploy ztp/siteconfig-generator/siteConfig/siteConfig.go (holdInstallation); the fleet's rollout process
deny_hold_in_production contains {"msg": msg, "field": input.site.fields.holdInstallation} if {
	input.site.cluster.holdInstallation
	not non_production[object.get(input.site.cluster.labels, "environment", "production")]
	msg := sprintf("site %s is production and sets holdInstallation: its installation would wait for someone to release it", [input.site.name])
}
