# Every site carries a region cluster label from the list the platform
# team places policies by. ACM policies and the rollout waves select
# clusters by region: a site without one (or with a misspelt one) installs,
# then never gets its configuration.
package main

# Regions the hub's placements use.
regions := {"north", "south", "east", "west", "central"}

# METADATA
# title: Sites have a known region label
# custom:
#   remediation: Add a region cluster label (clusterLabels, or extraLabels.ManagedCluster of a ClusterInstance) with one of north, south, east, west or central.
#   reference: placement rules of the hub (policies select clusters by region)
deny_region contains {"msg": msg, "field": input.site.fields.labels} if {
	not input.site.cluster.labels.region
	msg := sprintf("site %s has no region cluster label, so no placement selects it", [input.site.name])
}

deny_region contains {"msg": msg, "field": input.site.fields.labels} if {
	region := input.site.cluster.labels.region
	not regions[region]
	msg := sprintf("site %s has region %q, which no placement uses (known: %s)", [input.site.name, region, concat(", ", sort(regions))])
}
