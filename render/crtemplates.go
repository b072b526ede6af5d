package render

import (
	"fmt"
	"reflect"
	"regexp"
	"strings"

	"github.com/siteops/siteops/sites"
)

// crTemplates: a whole-object replacement for a kind, read from a file of
// the repository, whose string values may be placeholders such as
// "{{ .Cluster.ClusterName }}" (siteconfig-v1.md §3.0, §5.3).

// placeholder matches a value that is exactly one placeholder.
var placeholder = regexp.MustCompile(`^\{\{\s*\.([A-Za-z0-9_]+)((?:\.[A-Za-z0-9_]+)+)\s*\}\}$`)

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
// Its errors are problems on the crTemplates entry.
func (r *siteRender) applyCRTemplate(kind string, node int, def map[string]any) (map[string]any, error) {
	p, field := r.crTemplatePath(kind, node)
	if p == "" {
		return def, nil
	}
	obj, err := r.crTemplate(kind, node, p, def)
	if err != nil {
		return nil, r.site.Problem(field, "%v", err)
	}
	return obj, nil
}

func (r *siteRender) crTemplate(kind string, node int, p string, def map[string]any) (map[string]any, error) {
	f := r.site.Files.Files[p]
	if f == nil {
		return nil, fmt.Errorf("crTemplates %s: %s was not loaded", kind, p)
	}
	obj, err := sites.DecodeManifest(f.Path, f.Data)
	if err != nil {
		return nil, fmt.Errorf("crTemplates %s: %v", kind, err)
	}
	if err := r.substitute(obj, node); err != nil {
		return nil, fmt.Errorf("crTemplates %s (%s): %v", kind, p, err)
	}
	if k, _ := obj["kind"].(string); k != kind {
		return nil, fmt.Errorf("crTemplates %s: %s holds kind %q; it must hold a %s", kind, p, clipString(k), kind)
	}
	md, ok := obj["metadata"].(map[string]any)
	if !ok {
		return nil, fmt.Errorf("crTemplates %s: %s has no metadata", kind, p)
	}
	ann, ok := md["annotations"].(map[string]any)
	if !ok {
		return nil, fmt.Errorf("crTemplates %s: %s has no metadata.annotations; it needs at least %s", kind, p, AnnotationSyncWave)
	}
	want := str(def, "metadata", "annotations", AnnotationSyncWave)
	if got, _ := ann[AnnotationSyncWave].(string); got != want {
		return nil, fmt.Errorf("crTemplates %s: %s has sync-wave %q; it must keep the default %q", kind, p, got, want)
	}
	if str(obj, "metadata", "name") != str(def, "metadata", "name") || str(obj, "metadata", "namespace") != str(def, "metadata", "namespace") {
		r.warn(fmt.Sprintf("crTemplates %s: %s renders %s/%s, not %s/%s; the override is ignored and the default is used",
			kind, p, str(obj, "metadata", "namespace"), str(obj, "metadata", "name"),
			str(def, "metadata", "namespace"), str(def, "metadata", "name")))
		return def, nil
	}
	return obj, nil
}

// substitute replaces placeholders in place. A placeholder whose value is
// zero, or that names no field, removes its key, as upstream does.
func (r *siteRender) substitute(v any, node int) error {
	switch t := v.(type) {
	case map[string]any:
		for k, e := range t {
			if s, ok := e.(string); ok {
				val, keep, err := r.lookup(s, node)
				if err != nil {
					return err
				}
				if !keep {
					delete(t, k)
				} else {
					t[k] = val
				}
				continue
			}
			if err := r.substitute(e, node); err != nil {
				return err
			}
		}
	case []any:
		for i, e := range t {
			if s, ok := e.(string); ok {
				val, keep, err := r.lookup(s, node)
				if err != nil {
					return err
				}
				if keep {
					t[i] = val
				} else {
					t[i] = nil
				}
				continue
			}
			if err := r.substitute(e, node); err != nil {
				return err
			}
		}
	}
	return nil
}

func (r *siteRender) lookup(s string, node int) (any, bool, error) {
	m := placeholder.FindStringSubmatch(s)
	if m == nil {
		return s, true, nil
	}
	var root reflect.Value
	switch m[1] {
	case "Site":
		root = reflect.ValueOf(r.site.Spec()).Elem()
	case "Cluster":
		root = reflect.ValueOf(r.data).Elem()
	case "Node":
		if node < 0 {
			return nil, false, nil
		}
		root = reflect.ValueOf(&r.cluster.Nodes[node]).Elem()
	default:
		return nil, false, fmt.Errorf("placeholder %s could not be translated: use .Site, .Cluster or .Node", s)
	}
	v := root
	for _, name := range strings.Split(m[2][1:], ".") {
		for v.Kind() == reflect.Pointer {
			if v.IsNil() {
				return nil, false, nil
			}
			v = v.Elem()
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
