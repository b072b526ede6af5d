package kustomize

import (
	"strings"

	"sigs.k8s.io/kustomize/kyaml/openapi"
	kyaml "sigs.k8s.io/kustomize/kyaml/yaml"
)

// builtinSchemaGroups are the API groups of the types kyaml's built-in
// OpenAPI schema holds (the default Kubernetes version's and the
// Kustomization's own), as TestBuiltinSchemaGroups reads them off the
// schema. A build never loads another schema (a kustomization's openapi
// field is refused), so a type of any other group has none, which
// hasSchema tells without parsing the schema: parsing it costs about
// 170 ms of CPU, once a process, and a fleet of ClusterInstance overlays
// needs it for nothing else.
var builtinSchemaGroups = map[string]bool{
	"":                             true,
	"admission.k8s.io":             true,
	"admissionregistration.k8s.io": true,
	"apiextensions.k8s.io":         true,
	"apiregistration.k8s.io":       true,
	"apps":                         true,
	"authentication.k8s.io":        true,
	"authorization.k8s.io":         true,
	"autoscaling":                  true,
	"batch":                        true,
	"certificates.k8s.io":          true,
	"coordination.k8s.io":          true,
	"discovery.k8s.io":             true,
	"events.k8s.io":                true,
	"extensions":                   true,
	"flowcontrol.apiserver.k8s.io": true,
	"imagepolicy.k8s.io":           true,
	"internal.apiserver.k8s.io":    true,
	"kustomize.config.k8s.io":      true,
	"networking.k8s.io":            true,
	"node.k8s.io":                  true,
	"policy":                       true,
	"rbac.authorization.k8s.io":    true,
	"scheduling.k8s.io":            true,
	"storage.k8s.io":               true,
}

// hasSchema reports whether kyaml's schema holds the type tm, as
// openapi.SchemaForResourceType does.
func hasSchema(tm kyaml.TypeMeta) bool {
	if group, version, ok := strings.Cut(tm.APIVersion, "/"); ok && group != "" && version != "" &&
		!strings.Contains(version, "/") && !builtinSchemaGroups[group] {
		return false
	}
	return openapi.SchemaForResourceType(tm) != nil
}
