package kustomize

import (
	"maps"
	"slices"
	"strings"
	"testing"

	"sigs.k8s.io/kustomize/kyaml/openapi"
	kyaml "sigs.k8s.io/kustomize/kyaml/yaml"
)

// TestBuiltinSchemaGroups holds builtinSchemaGroups to the API groups of
// the types kyaml's built-in schema holds: a kyaml upgrade that adds one
// fails here instead of merging such a type without its schema.
func TestBuiltinSchemaGroups(t *testing.T) {
	openapi.SchemaForResourceType(kyaml.TypeMeta{APIVersion: "v1", Kind: "ConfigMap"}) // loads the schema
	got := map[string]bool{}
	for _, d := range openapi.Schema().Definitions {
		exts, _ := d.VendorExtensible.Extensions["x-kubernetes-group-version-kind"].([]any)
		for _, e := range exts {
			m, _ := e.(map[string]any)
			g, _ := m["group"].(string)
			got[g] = true
		}
	}
	if len(got) == 0 {
		t.Fatal("no type in kyaml's schema")
	}
	if !maps.Equal(got, builtinSchemaGroups) {
		t.Errorf("kyaml's schema holds the groups\n%s\nbuiltinSchemaGroups has\n%s",
			strings.Join(slices.Sorted(maps.Keys(got)), "\n"), strings.Join(slices.Sorted(maps.Keys(builtinSchemaGroups)), "\n"))
	}
}

// hasSchema answers as kyaml does, for types of groups in the schema and
// out of it, and for apiVersions it does not parse.
func TestHasSchema(t *testing.T) {
	for _, tm := range []kyaml.TypeMeta{
		{APIVersion: "v1", Kind: "ConfigMap"},
		{APIVersion: "v1", Kind: "Nope"},
		{APIVersion: "apps/v1", Kind: "Deployment"},
		{APIVersion: "apps/v1", Kind: "ClusterInstance"},
		{APIVersion: "siteconfig.open-cluster-management.io/v1alpha1", Kind: "ClusterInstance"},
		{APIVersion: "metal3.io/v1alpha1", Kind: "BareMetalHost"},
		{APIVersion: "kustomize.config.k8s.io/v1beta1", Kind: "Kustomization"},
		{APIVersion: "a/b/c", Kind: "ConfigMap"},
		{APIVersion: "/v1", Kind: "ConfigMap"},
		{APIVersion: "", Kind: "ConfigMap"},
	} {
		if got, want := hasSchema(tm), openapi.SchemaForResourceType(tm) != nil; got != want {
			t.Errorf("hasSchema(%v) = %t, kyaml says %t", tm, got, want)
		}
	}
}
