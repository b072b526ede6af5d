// Package convert turns SiteConfig clusters (ran.openshift.io/v1 and /v2)
// into ClusterInstance documents (siteconfig.open-cluster-management.io/v1alpha1),
// the API that replaces SiteConfig upstream.
//
// # Use
//
//	res, err := convert.Convert(site, convert.WithTemplateNamespace("open-cluster-management"))
//	out, _ := yamlenc.Marshal(res.ClusterInstance)
//	for _, n := range res.Report {
//		fmt.Println(n)
//	}
//
// # Why a report
//
// The two APIs do not cover the same ground (docs/convert.md):
// ClusterInstance has no crTemplates, BIOS profiles, extra-manifest
// directories or site ConfigMap, renders its objects from template
// ConfigMaps instead of built-in Go templates, and spells some fields
// differently. A conversion that quietly left those out would install a
// different cluster than the SiteConfig did, so everything that does not
// carry over unchanged becomes a Note: the SiteConfig field, where it is
// written, what happened to it and what the user has to do.
//
// # Where the mapping is
//
// mapping.go holds the whole field mapping as one table (every SiteConfig
// field, its ClusterInstance counterpart and the function that carries it
// over); docs/convert.md shows the same table, and a test keeps the two in
// step and checks that every SiteConfig field has a row.
//
// # Format fields and the site model
//
// The rows read the SiteConfig types field by field: a note has to name
// the field as the user wrote it (apiVIP or apiVIPs, an empty role or
// master), which the normalized model (sites.Model) folds together. A
// normalized fact is read from the model (the image set, the cluster's or
// else the site's), and a test checks that every converted
// ClusterInstance normalizes to the same model as its SiteConfig, apart
// from what the report says changes.
//
// # What is refused
//
// A value that ClusterInstance's CRD or admission webhook would reject
// (a bootMACAddress that is not a MAC, installerArgs that are not JSON, a
// missing BMC address, ...) is not guessed at: Convert returns an *Error
// naming the SiteConfig field. As a last guard, every converted document is
// decoded again with the sites package, the same checks siteops applies to
// ClusterInstance input, before it is returned.
package convert
