// Package apis holds Go types for the custom resources siteops renders whose
// upstream Go modules cannot be used here: the assisted-service kinds
// (extensions.hive.openshift.io, agent-install.openshift.io) and the Open
// Cluster Management kinds. Field names are the JSON names of the upstream
// CRDs; tests validate rendered objects against those CRDs
// (internal/crdschema). Only the fields siteops writes or reads are
// declared.
package apis
