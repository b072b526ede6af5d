// Package citations finds citations a reader of siteops cannot follow:
// section signs, names of documents that are not part of the repository
// and numbered issues. Facts in siteops cite the upstream project and file
// they come from (for example "openshift/assisted-service
// internal/host/validator.go") or a page under docs/, which anyone can
// open; Scan reports every line that cites anything else, so the
// repository's own test can keep such citations out.
package citations
