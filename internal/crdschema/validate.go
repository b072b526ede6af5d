package crdschema

import (
	"cmp"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"slices"

	structuralschema "k8s.io/apiextensions-apiserver/pkg/apiserver/schema"
	"k8s.io/apiextensions-apiserver/pkg/apiserver/schema/defaulting"
	"k8s.io/apiextensions-apiserver/pkg/apiserver/schema/listtype"
	"k8s.io/apiextensions-apiserver/pkg/apiserver/schema/objectmeta"
	"k8s.io/apiextensions-apiserver/pkg/apiserver/schema/pruning"
	"k8s.io/apiextensions-apiserver/pkg/apiserver/validation"
	apivalidation "k8s.io/apimachinery/pkg/api/validation"
	"k8s.io/apimachinery/pkg/runtime/schema"
	utiljson "k8s.io/apimachinery/pkg/util/json"
	"k8s.io/apimachinery/pkg/util/validation/field"
	celconfig "k8s.io/apiserver/pkg/apis/cel"
)

// A FieldError is one problem found in one rendered object. Validate
// returns all of them joined with errors.Join; callers that need them one by
// one can unwrap the joined error with Unwrap() []error.
type FieldError struct {
	Kind      string
	Namespace string
	Name      string
	// Field is the path of the offending field, for example
	// "spec.provisionRequirements.controlPlaneAgents".
	Field  string
	Detail string
}

func (e *FieldError) Error() string {
	obj := e.Name
	if obj == "" {
		obj = "<unnamed>"
	}
	if e.Namespace != "" {
		obj = e.Namespace + "/" + obj
	}
	field := e.Field
	if field == "" {
		field = "<root>"
	}
	return fmt.Sprintf("%s %s: %s: %s", e.Kind, obj, field, e.Detail)
}

// Validate checks one rendered object, as the API server of the hub would
// check it on create. It returns nil if the object would be accepted
// unchanged, and otherwise a single error listing every problem found, one
// per line, as "<kind> <namespace>/<name>: <field path>: <message>".
//
// obj is not modified. It may hold any values that encoding/json can
// marshal; it is checked in its JSON form, which is what the hub receives.
func (v *Validator) Validate(obj map[string]any) error {
	u, err := toJSONObject(obj)
	if err != nil {
		return err
	}
	apiVersion, _ := u["apiVersion"].(string)
	kind, _ := u["kind"].(string)
	if apiVersion == "" || kind == "" {
		return fmt.Errorf("object has no apiVersion or kind (apiVersion %q, kind %q)", apiVersion, kind)
	}
	gv, err := schema.ParseGroupVersion(apiVersion)
	if err != nil {
		return fmt.Errorf("%s: %w", kind, err)
	}
	ki, ok := v.kinds[gv.WithKind(kind)]
	if !ok {
		return fmt.Errorf("no CRD for %s %s", apiVersion, kind)
	}

	// Best effort, so that every message can name the object even when its
	// metadata is malformed.
	var name, namespace string
	if m, ok := u["metadata"].(map[string]any); ok {
		name, _ = m["name"].(string)
		namespace, _ = m["namespace"].(string)
	}

	var problems []*FieldError
	add := func(path, detail string) {
		problems = append(problems, &FieldError{Kind: kind, Namespace: namespace, Name: name, Field: path, Detail: detail})
	}
	addAll := func(errs field.ErrorList) {
		for _, fe := range errs {
			path := fe.Field
			if path == "<nil>" {
				// field.Path's String of a nil path: the error is about the
				// object as a whole (the anyOf validator reports this way
				// and names the field in the message).
				path = ""
			}
			add(path, fe.ErrorBody())
		}
	}
	addUnknown := func(paths []string) {
		for _, p := range paths {
			add(p, unknownField)
		}
	}
	unknown, errs := validateMetadata(u, ki.scope)
	addUnknown(unknown)
	addAll(errs)
	if ki.structural != nil {
		unknown, errs := ki.validateSchema(u)
		addUnknown(unknown)
		addAll(errs)
	}
	if len(problems) == 0 {
		return nil
	}

	// The schema validator walks maps, so its order varies between runs;
	// sort for stable messages.
	slices.SortStableFunc(problems, func(a, b *FieldError) int {
		return cmp.Or(cmp.Compare(a.Field, b.Field), cmp.Compare(a.Detail, b.Detail))
	})
	list := make([]error, len(problems))
	for i, p := range problems {
		list[i] = p
	}
	return errors.Join(list...)
}

// unknownField is the message for a field the API server would drop.
const unknownField = "unknown field: the API server would prune it silently"

// toJSONObject returns a deep copy of obj as the API server decodes it: maps,
// slices, strings, bool, int64 and float64 only. The copy is what pruning
// and defaulting modify, so obj itself is left alone.
func toJSONObject(obj map[string]any) (map[string]any, error) {
	data, err := json.Marshal(obj)
	if err != nil {
		return nil, fmt.Errorf("object cannot be encoded as JSON: %w", err)
	}
	var u map[string]any
	if err := utiljson.Unmarshal(data, &u); err != nil {
		return nil, fmt.Errorf("object cannot be decoded from JSON: %w", err)
	}
	if u == nil {
		return nil, errors.New("object is empty")
	}
	return u, nil
}

// serverSetFields are metadata fields that only the API server sets. On
// create it overwrites or rejects them, so a renderer that emits them is
// confused about what it is producing.
var serverSetFields = []string{
	"uid", "resourceVersion", "generation", "creationTimestamp",
	"deletionTimestamp", "deletionGracePeriodSeconds", "managedFields", "selfLink",
}

// validateMetadata decodes metadata into ObjectMeta the way the API server
// does and applies the API server's ObjectMeta validation for creates. It
// returns the paths of unknown metadata fields, which the API server drops,
// and the validation errors.
func validateMetadata(u map[string]any, sc scope) ([]string, field.ErrorList) {
	path := field.NewPath("metadata")
	raw, ok := u["metadata"]
	if !ok || raw == nil {
		return nil, field.ErrorList{field.Required(path.Child("name"), "")}
	}
	m, ok := raw.(map[string]any)
	if !ok {
		return nil, field.ErrorList{field.TypeInvalid(path, raw, "must be an object")}
	}
	meta, _, unknown, err := objectmeta.GetObjectMetaWithOptions(u, objectmeta.ObjectMetaOptions{ReturnUnknownFieldPaths: true})
	if err != nil {
		return nil, field.ErrorList{field.Invalid(path, nil, err.Error())}
	}

	var errs field.ErrorList
	for _, f := range serverSetFields {
		v, ok := m[f]
		// creationTimestamp: null is what typed Go objects marshal to when
		// the field is unset, so it carries nothing and is harmless.
		if !ok || v == nil {
			continue
		}
		errs = append(errs, field.Forbidden(path.Child(f), "set by the API server; must not be rendered"))
	}

	requiresNamespace := sc == scopeNamespaced
	if sc == scopeUnknown {
		// Scope unknown: validate the namespace if there is one, and
		// otherwise do not ask for one.
		requiresNamespace = meta.Namespace != ""
	}
	errs = append(errs, apivalidation.ValidateObjectMeta(meta, requiresNamespace, apivalidation.NameIsDNSSubdomain, path)...)
	return unknown, errs
}

// validateSchema runs, on u, the steps the API server applies to a custom
// resource on create, in the same order: drop status if it is a
// subresource, prune unknown fields and meaningless nulls, apply defaults,
// then validate against the OpenAPI schema, embedded resources, list types
// and CEL rules.
// It returns the pruned field paths and the validation errors.
func (ki *kindInfo) validateSchema(u map[string]any) ([]string, field.ErrorList) {
	if ki.statusSubresource {
		// Typed Go objects render a zero status; the API server throws any
		// status away on create, so there is nothing to check.
		delete(u, "status")
	}
	unknown := pruning.PruneWithOptions(u, ki.structural, true, structuralschema.UnknownFieldPathOptions{TrackUnknownFieldPaths: true})
	// null in a non-nullable field without a default means "unset" to the
	// API server, which drops it before validating. Typed Go objects render
	// such nulls for unset pointers and maps, and nothing is lost, so they
	// are not reported.
	defaulting.PruneNonNullableNullsWithoutDefaults(u, ki.structural)
	// Metadata of x-kubernetes-embedded-resource objects is decoded as
	// ObjectMeta like the root's, dropping unknown fields.
	var errs field.ErrorList
	metaErr, metaUnknown := objectmeta.CoerceWithOptions(nil, u, ki.structural, false, objectmeta.CoerceOptions{ReturnUnknownFieldPaths: true})
	if metaErr != nil {
		errs = append(errs, metaErr)
	}
	unknown = append(unknown, metaUnknown...)
	// Defaults are applied before validation on the hub; without this,
	// a required field that the schema defaults would be reported missing.
	defaulting.Default(u, ki.structural)

	errs = append(errs, validation.ValidateCustomResource(nil, u, ki.schema)...)
	errs = append(errs, objectmeta.Validate(context.Background(), nil, u, ki.structural, false)...)
	errs = append(errs, listtype.ValidateListSetsAndMaps(nil, ki.structural, u)...)
	if ki.cel != nil {
		// Like the API server, skip CEL rules when the object is so broken
		// that their results would be noise. The errors already reported
		// fail validation, so the rules get their turn once those are fixed.
		if !blocking(errs) {
			celErrs, _ := ki.cel.Validate(context.Background(), nil, ki.structural, u, nil, celconfig.RuntimeCELCostBudget)
			errs = append(errs, celErrs...)
		}
	}
	return unknown, errs
}

// blocking mirrors the API server's hasBlockingErr.
func blocking(errs field.ErrorList) bool {
	for _, e := range errs {
		switch e.Type {
		case field.ErrorTypeNotSupported, field.ErrorTypeRequired, field.ErrorTypeTooLong, field.ErrorTypeTooMany, field.ErrorTypeTypeInvalid:
			return true
		}
	}
	return false
}
