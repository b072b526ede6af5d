// Package crdschema checks rendered Kubernetes objects against the upstream
// CustomResourceDefinitions of the hub that will receive them.
//
// siteops writes ClusterDeployments, AgentClusterInstalls, InfraEnvs,
// NMStateConfigs, BareMetalHosts and friends as plain YAML. Nothing in the
// renderer itself knows the schema the hub enforces, and two failure modes
// are easy to miss without a check like this one:
//
//   - The API server prunes fields its structural schema does not declare,
//     and it does so silently: a misspelt or misplaced field is accepted and
//     then lost, so the cluster is installed without the setting. Validate
//     reports every such field path instead of letting it vanish.
//   - The upstream schemas drift (fields are renamed, become required, gain
//     enums). Keeping verbatim copies of the CRDs in crds/ and validating
//     every rendered object against them in tests turns drift into a test
//     failure when the copies are refreshed, instead of an install failure
//     on a hub.
//
// For a kind with an embedded CRD, Validate runs the same checks the API
// server runs when an object is created:
//
//   - apiVersion and kind select a served version of a CRD;
//   - metadata is decoded as ObjectMeta (unknown metadata fields are
//     reported) and validated like the API server does: name present and a
//     DNS-1123 subdomain, namespace present for namespaced kinds and absent
//     for cluster-scoped ones, labels, annotations, owner references and
//     finalizers well formed; fields that only the API server may set
//     (uid, resourceVersion, creationTimestamp, ...) are reported too;
//   - status is ignored when the CRD has a status subresource, because the
//     API server discards it on create;
//   - fields the structural schema does not declare are reported, honouring
//     x-kubernetes-preserve-unknown-fields and additionalProperties;
//   - schema defaults are applied, then the object is validated with the
//     OpenAPI schema validator (types, required, enum, pattern, formats,
//     bounds), list-type set/map uniqueness, embedded resources and the
//     x-kubernetes-validations CEL rules that apply on create.
//
// Kinds the caller declares with WithoutSchema get only the metadata checks;
// any other kind without a CRD is an error, so a new kind cannot slip
// through unvalidated.
//
// The CRD copies and their provenance are listed in crds/SOURCES.md.
package crdschema
