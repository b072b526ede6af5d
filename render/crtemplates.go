package render

import (
	"fmt"
	"reflect"
	"strings"

	"github.com/siteops/siteops/sites"
)

// crTemplates: a whole-object replacement for a kind, read from a file of the
// repository, whose string values may be placeholders such as
// "{{ .Cluster.ClusterName }}" (instantiateCR in openshift-kni/cnf-features-deploy
// ztp/siteconfig-generator/siteConfig/siteConfigBuilder.go).

// crTemplatePath finds the override for kind, node, then cluster, then
// site for node kinds; cluster, then site, for the others; and the
// document path of the entry that names it.
func (r *siteRender) crTemplatePath(kind string, node int) (p, field string) {
	if node >= 0 {
		if p, ok := r.cluster.Nodes[node].CrTemplates[kind]; ok {
			return p, r.site.FieldPath(fmt.Sprintf("nodes[%d].crTemplates.%s", node, kind))
		}
	}
	if p, ok := r.cluster.CrTemplates[kind]; ok {
		return p, r.site.FieldPath("crTemplates." + kind)
	}
	return r.site.Spec().CrTemplates[kind], "spec.crTemplates." + kind
}

// applyCRTemplate replaces def by the kind's override, if the site has one.
// Its errors are problems on the crTemplates entry. An override that
// renders another name or namespace than def is ignored, with a warning;
// a ConfigMap override is tried on both ConfigMaps of a v2 site, so it is
// only warned about when it fits neither (see warnIgnoredConfigMap).
func (r *siteRender) applyCRTemplate(kind string, node int, def map[string]any) (map[string]any, error) {
	p, field := r.crTemplatePath(kind, node)
	if p == "" {
		return def, nil
	}
	obj, ignored, err := r.crTemplate(kind, node, p, def)
	if err != nil {
		return nil, r.site.Problem(field, "%v", err)
	}
	if kind == KindConfigMap {
		r.configMapOverrides = append(r.configMapOverrides, ignored)
	} else if ignored != "" {
		r.warn(ignored)
	}
	return obj, nil
}

// warnIgnoredConfigMap warns about a ConfigMap override that fitted none
// of the site's ConfigMaps.
func (r *siteRender) warnIgnoredConfigMap() {
	for _, ignored := range r.configMapOverrides {
		if ignored == "" {
			return
		}
	}
	for _, ignored := range r.configMapOverrides {
		r.warn(ignored)
	}
}

// crTemplate reads and checks an override. When it renders another name
// or namespace than def, def is returned with the reason it was ignored.
func (r *siteRender) crTemplate(kind string, node int, p string, def map[string]any) (obj map[string]any, ignored string, err error) {
	f := r.site.Files.Files[p]
	if f == nil {
		return nil, "", fmt.Errorf("crTemplates %s: %s was not loaded", kind, p)
	}
	obj, err = sites.DecodeManifest(f.Path, f.Data)
	if err != nil {
		return nil, "", fmt.Errorf("crTemplates %s: %v", kind, err)
	}
	if err := r.substitute(obj, node); err != nil {
		return nil, "", fmt.Errorf("crTemplates %s (%s): %v", kind, p, err)
	}
	if k, _ := obj["kind"].(string); k != kind {
		return nil, "", fmt.Errorf("crTemplates %s: %s holds kind %q; it must hold a %s", kind, p, clipString(k), kind)
	}
	md, ok := obj["metadata"].(map[string]any)
	if !ok {
		return nil, "", fmt.Errorf("crTemplates %s: %s has no metadata", kind, p)
	}
	// An override for another object is ignored before its annotations are
	// checked: a ConfigMap override for the site ConfigMap carries that
	// ConfigMap's sync wave.
	if str(obj, "metadata", "name") != str(def, "metadata", "name") || str(obj, "metadata", "namespace") != str(def, "metadata", "namespace") {
		return def, fmt.Sprintf("crTemplates %s: %s renders %s/%s, not %s/%s; the override is ignored and the default is used",
			kind, p, str(obj, "metadata", "namespace"), str(obj, "metadata", "name"),
			str(def, "metadata", "namespace"), str(def, "metadata", "name")), nil
	}
	ann, ok := md["annotations"].(map[string]any)
	if !ok {
		return nil, "", fmt.Errorf("crTemplates %s: %s has no metadata.annotations; it needs at least %s", kind, p, AnnotationSyncWave)
	}
	want := str(def, "metadata", "annotations", AnnotationSyncWave)
	switch got := ann[AnnotationSyncWave].(type) {
	case string:
		if got != want {
			return nil, "", fmt.Errorf("crTemplates %s: %s has sync-wave %q; it must keep the default %q", kind, p, got, want)
		}
	case nil:
		return nil, "", fmt.Errorf("crTemplates %s: %s has no %s annotation; it must keep the default %q", kind, p, AnnotationSyncWave, want)
	default:
		return nil, "", fmt.Errorf("crTemplates %s: %s has sync-wave %v, not a string; write it quoted, as the default %q", kind, p, got, want)
	}
	return obj, "", nil
}

// substitute replaces placeholders in place, the way the generator does
// (getClusterCR in its siteConfigBuilder.go): it descends into mappings only,
// so a placeholder inside a list stays as written, and a placeholder whose
// value is zero, or that names no field, removes its key.
func (r *siteRender) substitute(m map[string]any, node int) error {
	for k, e := range m {
		switch t := e.(type) {
		case map[string]any:
			if err := r.substitute(t, node); err != nil {
				return err
			}
		case string:
			val, keep, err := r.lookup(t, node)
			if err != nil {
				return err
			}
			if keep {
				m[k] = val
			} else {
				delete(m, k)
			}
		}
	}
	return nil
}

// placeholderRoots are the prefixes a placeholder may start with, and the value
// each one names (GetSiteConfigFieldValue in the generator's siteConfig.go).
var placeholderRoots = []string{".Site.", ".Cluster.", ".Node."}

// lookup resolves a value that is a placeholder: any string that starts
// with "{{" and ends with "}}", whatever lies between. What is between,
// trimmed of braces and blanks, is a dotted path of Go field names under
// .Site, .Cluster or .Node; anything else is an error. A path that names no
// field, or a zero value, removes the key (keep is false). Other strings
// are kept as they are: there is no interpolation.
func (r *siteRender) lookup(s string, node int) (val any, keep bool, err error) {
	if !strings.HasPrefix(s, "{{") || !strings.HasSuffix(s, "}}") {
		return s, true, nil
	}
	key := strings.Trim(s, "{ }")
	var v reflect.Value
	switch {
	case strings.HasPrefix(key, ".Site."):
		v = reflect.ValueOf(r.site.Spec()).Elem()
	case strings.HasPrefix(key, ".Cluster."):
		v = reflect.ValueOf(r.data).Elem()
	case strings.HasPrefix(key, ".Node.") && node >= 0:
		v = reflect.ValueOf(&r.cluster.Nodes[node]).Elem()
	case strings.HasPrefix(key, ".Node."):
		return nil, false, nil // no node in a cluster-level object
	default:
		return nil, false, fmt.Errorf("placeholder %s could not be translated: a placeholder starts with one of %s",
			clipString(s), strings.Join(placeholderRoots, ", "))
	}
	key = key[strings.Index(key[1:], ".")+2:]
	for _, name := range strings.Split(key, ".") {
		for v.Kind() == reflect.Pointer {
			if v.IsNil() {
				return nil, false, nil
			}
			v = v.Elem()
		}
		// Through a list of clusters or nodes the path goes on with this
		// site's cluster and the object's node.
		switch v.Type() {
		case reflect.TypeOf([]sites.Clusters{}):
			v = reflect.ValueOf(r.data).Elem()
		case reflect.TypeOf([]sites.Nodes{}):
			if node < 0 {
				return nil, false, nil
			}
			v = reflect.ValueOf(&r.cluster.Nodes[node]).Elem()
		}
		if v.Kind() != reflect.Struct {
			return nil, false, nil
		}
		v = v.FieldByName(name)
		if !v.IsValid() || !v.CanInterface() {
			return nil, false, nil
		}
	}
	if v.IsZero() {
		return nil, false, nil
	}
	return plain(v), true, nil
}

// plain converts a Go value to JSON-compatible data, naming struct fields
// by their yaml tags as the generator's YAML output does.
func plain(v reflect.Value) any {
	switch v.Kind() {
	case reflect.Pointer, reflect.Interface:
		if v.IsNil() {
			return nil
		}
		return plain(v.Elem())
	case reflect.Struct:
		m := map[string]any{}
		t := v.Type()
		for i := 0; i < t.NumField(); i++ {
			tag := strings.Split(t.Field(i).Tag.Get("yaml"), ",")
			if tag[0] == "-" || !t.Field(i).IsExported() {
				continue
			}
			name := tag[0]
			if name == "" {
				name = strings.ToLower(t.Field(i).Name)
			}
			if len(tag) > 1 && tag[1] == "omitempty" && v.Field(i).IsZero() {
				continue
			}
			m[name] = plain(v.Field(i))
		}
		return m
	case reflect.Map:
		m := map[string]any{}
		for _, k := range v.MapKeys() {
			m[fmt.Sprint(k.Interface())] = plain(v.MapIndex(k))
		}
		return m
	case reflect.Slice, reflect.Array:
		s := make([]any, v.Len())
		for i := range s {
			s[i] = plain(v.Index(i))
		}
		return s
	case reflect.String:
		return v.String()
	case reflect.Bool:
		return v.Bool()
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64:
		return v.Int()
	case reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64:
		return int64(v.Uint())
	case reflect.Float32, reflect.Float64:
		return v.Float()
	}
	return fmt.Sprint(v.Interface())
}

// clipString shortens repository text quoted in a message.
func clipString(s string) string {
	if len(s) > 64 {
		return s[:64] + "..."
	}
	return s
}
