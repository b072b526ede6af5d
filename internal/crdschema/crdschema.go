package crdschema

import (
	"bufio"
	"bytes"
	"embed"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"slices"
	"strings"

	"k8s.io/apiextensions-apiserver/pkg/apis/apiextensions"
	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	structuralschema "k8s.io/apiextensions-apiserver/pkg/apiserver/schema"
	"k8s.io/apiextensions-apiserver/pkg/apiserver/schema/cel"
	"k8s.io/apiextensions-apiserver/pkg/apiserver/validation"
	"k8s.io/apimachinery/pkg/runtime/schema"
	utilyaml "k8s.io/apimachinery/pkg/util/yaml"
	celconfig "k8s.io/apiserver/pkg/apis/cel"
	"sigs.k8s.io/yaml"
)

//go:embed crds/*.yaml
var crdFiles embed.FS

// scope says whether objects of a kind live in a namespace. The zero value
// means unknown: only kinds declared with WithoutSchema can have it.
type scope int

const (
	scopeUnknown scope = iota
	scopeNamespaced
	scopeCluster
)

// kindInfo is everything Validate needs for one group/version/kind.
type kindInfo struct {
	scope scope
	// crd is the CRD's name; empty for kinds known without a schema.
	crd string
	// statusSubresource is set when the API server discards status on
	// create, so status in rendered output is not validated.
	statusSubresource bool
	structural        *structuralschema.Structural
	schema            validation.SchemaValidator
	// cel is nil when the schema has no x-kubernetes-validations rules.
	cel *cel.Validator
}

// A Validator validates rendered objects against the embedded CRDs.
// It is safe for concurrent use.
type Validator struct {
	kinds map[schema.GroupVersionKind]*kindInfo
}

// An Option configures Load.
type Option func(*options)

type options struct {
	withoutSchema map[string]scope
}

// WithoutSchema declares kinds, written as "apiVersion/Kind" (for example
// "v1/ConfigMap" or "cluster.open-cluster-management.io/v1/ManagedCluster"),
// that have no embedded CRD but are expected in rendered output. Objects of
// these kinds get only the metadata checks; their namespace is validated if
// set but not required, because their scope is unknown. Use
// WithoutSchemaScope when the scope is known.
func WithoutSchema(kinds ...string) Option {
	return func(o *options) {
		for _, k := range kinds {
			o.withoutSchema[k] = scopeUnknown
		}
	}
}

// WithoutSchemaScope is like WithoutSchema but also enforces the scope:
// namespaced kinds must set metadata.namespace, cluster-scoped kinds must not.
func WithoutSchemaScope(s apiextensionsv1.ResourceScope, kinds ...string) Option {
	sc := scopeCluster
	if s == apiextensionsv1.NamespaceScoped {
		sc = scopeNamespaced
	}
	return func(o *options) {
		for _, k := range kinds {
			o.withoutSchema[k] = sc
		}
	}
}

// Load parses every embedded CRD and prepares a validator for each served
// version. It fails if a CRD cannot be read, has a non-structural schema, or
// clashes with another CRD or with a kind passed to WithoutSchema.
func Load(opts ...Option) (*Validator, error) {
	o := options{withoutSchema: map[string]scope{}}
	for _, opt := range opts {
		opt(&o)
	}

	v := &Validator{kinds: map[schema.GroupVersionKind]*kindInfo{}}
	paths, err := fs.Glob(crdFiles, "crds/*.yaml")
	if err != nil {
		return nil, err
	}
	if len(paths) == 0 {
		return nil, errors.New("crdschema: no CRDs embedded")
	}
	for _, p := range paths {
		data, err := crdFiles.ReadFile(p)
		if err != nil {
			return nil, err
		}
		if err := v.addFile(data); err != nil {
			return nil, fmt.Errorf("crdschema: %s: %w", p, err)
		}
	}

	for k, sc := range o.withoutSchema {
		gvk, err := parseKind(k)
		if err != nil {
			return nil, fmt.Errorf("crdschema: WithoutSchema: %w", err)
		}
		if ki, ok := v.kinds[gvk]; ok {
			// Silently preferring one over the other would hide a mistake
			// in the caller's list.
			return nil, fmt.Errorf("crdschema: WithoutSchema: %s has a CRD (%s)", k, ki.crd)
		}
		v.kinds[gvk] = &kindInfo{scope: sc}
	}
	return v, nil
}

// addFile registers every CRD in a (possibly multi-document) YAML file.
func (v *Validator) addFile(data []byte) error {
	r := utilyaml.NewYAMLReader(bufio.NewReader(bytes.NewReader(data)))
	for {
		doc, err := r.Read()
		if err == io.EOF {
			return nil
		}
		if err != nil {
			return err
		}
		if len(bytes.TrimSpace(doc)) == 0 || isComment(doc) {
			continue
		}
		var crd apiextensionsv1.CustomResourceDefinition
		// Strict, so that a CRD using schema features this version of the
		// apiextensions library does not know fails loudly instead of being
		// validated with those constraints quietly left out.
		if err := yaml.UnmarshalStrict(doc, &crd); err != nil {
			return err
		}
		if crd.APIVersion != apiextensionsv1.SchemeGroupVersion.String() || crd.Kind != "CustomResourceDefinition" {
			return fmt.Errorf("not a CustomResourceDefinition: %s %s", crd.APIVersion, crd.Kind)
		}
		if err := v.addCRD(&crd); err != nil {
			return fmt.Errorf("%s: %w", crd.Name, err)
		}
	}
}

func isComment(doc []byte) bool {
	for line := range strings.Lines(string(doc)) {
		line = strings.TrimSpace(line)
		if line != "" && line != "---" && !strings.HasPrefix(line, "#") {
			return false
		}
	}
	return true
}

func (v *Validator) addCRD(crd *apiextensionsv1.CustomResourceDefinition) error {
	sc := scopeCluster
	if crd.Spec.Scope == apiextensionsv1.NamespaceScoped {
		sc = scopeNamespaced
	}
	served := 0
	for _, ver := range crd.Spec.Versions {
		if !ver.Served {
			// The API server rejects objects of a version it does not
			// serve, so such a version must not validate anything.
			continue
		}
		served++
		if ver.Schema == nil || ver.Schema.OpenAPIV3Schema == nil {
			return fmt.Errorf("version %s has no openAPIV3Schema", ver.Name)
		}
		var internal apiextensions.JSONSchemaProps
		if err := apiextensionsv1.Convert_v1_JSONSchemaProps_To_apiextensions_JSONSchemaProps(ver.Schema.OpenAPIV3Schema, &internal, nil); err != nil {
			return fmt.Errorf("version %s: converting schema: %w", ver.Name, err)
		}
		structural, err := structuralschema.NewStructural(&internal)
		if err != nil {
			return fmt.Errorf("version %s: %w", ver.Name, err)
		}
		// Pruning is only defined for structural schemas; the API server
		// refuses CRDs whose schema is not one.
		if errs := structuralschema.ValidateStructural(nil, structural); len(errs) > 0 {
			return fmt.Errorf("version %s: schema is not structural: %w", ver.Name, errs.ToAggregate())
		}
		sv, _, err := validation.NewSchemaValidator(&internal)
		if err != nil {
			return fmt.Errorf("version %s: %w", ver.Name, err)
		}
		gvk := schema.GroupVersionKind{Group: crd.Spec.Group, Version: ver.Name, Kind: crd.Spec.Names.Kind}
		if other, ok := v.kinds[gvk]; ok {
			return fmt.Errorf("%s is also defined by %s", gvk, other.crd)
		}
		v.kinds[gvk] = &kindInfo{
			scope:             sc,
			crd:               crd.Name,
			statusSubresource: ver.Subresources != nil && ver.Subresources.Status != nil,
			structural:        structural,
			schema:            sv,
			// Same per-call limit as the API server, so that a rule too
			// expensive for the hub is too expensive here.
			cel: cel.NewValidator(structural, true, celconfig.PerCallLimit),
		}
	}
	if served == 0 {
		return errors.New("no served version")
	}
	return nil
}

// parseKind parses "apiVersion/Kind", where apiVersion is "version" for the
// core group or "group/version" otherwise.
func parseKind(s string) (schema.GroupVersionKind, error) {
	i := strings.LastIndex(s, "/")
	if i <= 0 || i == len(s)-1 {
		return schema.GroupVersionKind{}, fmt.Errorf("%q is not of the form apiVersion/Kind", s)
	}
	gv, err := schema.ParseGroupVersion(s[:i])
	if err != nil || gv.Version == "" {
		return schema.GroupVersionKind{}, fmt.Errorf("%q is not of the form apiVersion/Kind", s)
	}
	return gv.WithKind(s[i+1:]), nil
}

// formatKind is the inverse of parseKind.
func formatKind(gvk schema.GroupVersionKind) string {
	apiVersion, kind := gvk.ToAPIVersionAndKind()
	return apiVersion + "/" + kind
}

// Kinds returns the kinds the validator knows, as sorted "apiVersion/Kind"
// strings: one per served version of each embedded CRD, plus the kinds
// declared with WithoutSchema.
func (v *Validator) Kinds() []string {
	out := make([]string, 0, len(v.kinds))
	for gvk := range v.kinds {
		out = append(out, formatKind(gvk))
	}
	slices.Sort(out)
	return out
}
