package render

import (
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"sort"
	"strconv"

	"github.com/siteops/siteops/internal/tomap"
	"github.com/siteops/siteops/internal/yamlenc"
)

// Object is one rendered resource: its identity, its sync wave and its
// content as JSON-compatible data.
type Object struct {
	APIVersion string
	Kind       string
	Namespace  string
	Name       string
	Wave       int
	// Content is nil in the objects RenderEncoded wrote from their typed
	// form (see RenderEncoded) and in those RenderTyped left typed: Map
	// builds it for them.
	Content map[string]any

	// typed is the typed object, pruned by prune, that AppendYAML writes
	// when Content is nil.
	typed any
	prune *tomap.Prune
	// built is the map Map built for a typed object, at its first read:
	// a check reads an InfraEnv's content for each selector and for the
	// discovery Ignition. It is set without a lock: a bundle is read by
	// one goroutine at a time.
	built map[string]any
}

// Map is the object's content: Content, or for an object of RenderTyped
// or RenderEncoded without it, the map Render would have given, built at
// the first call (nil if the typed object cannot be converted, which
// AppendYAML reports). It is the object's own: a reader does not change
// it. This package's readers of content go through it, so that an object
// of RenderEncoded's bundle reads as one of Render's.
func (o *Object) Map() map[string]any {
	if o.Content != nil || o.typed == nil {
		return o.Content
	}
	if o.built == nil {
		m, err := tomap.Object(o.typed)
		if err != nil {
			return nil
		}
		// A replaced value is the site's own document: copied, as the map
		// path copies it; the rest is the conversion's own.
		o.prune.ApplyCopying(m)
		o.built = m
	}
	return o.built
}

// Ref names an object as kind namespace/name.
func (o *Object) Ref() string {
	if o.Namespace == "" {
		return o.Kind + " " + o.Name
	}
	return o.Kind + " " + o.Namespace + "/" + o.Name
}

// AppendYAML appends the object as one YAML document, without "---". An
// object it cannot encode is named beside the field yamlenc names:
// "NMStateConfig s1/n0: yamlenc: unsupported float64 value NaN at
// spec.weight".
func (o *Object) AppendYAML(dst []byte) ([]byte, error) {
	var out []byte
	var err error
	if o.Content == nil && o.typed != nil {
		out, err = yamlenc.AppendTypedPruned(dst, o.typed, o.prune)
	} else {
		out, err = yamlenc.Append(dst, o.Content)
	}
	if err != nil {
		return dst, fmt.Errorf("%s: %w", o.Ref(), err)
	}
	return out, nil
}

// Bundle is everything one site renders to, in apply order.
type Bundle struct {
	Site    string
	Objects []*Object
	// Suppressed are the objects the site's suppression or pruning lists
	// keep from being applied (ClusterInstance suppressedManifests and
	// pruneManifests), as "Kind namespace/name".
	Suppressed []string
}

// Hash is a digest of the bundle's content, stable across runs: it changes
// exactly when what would be applied changes.
func (b *Bundle) Hash() (string, error) {
	h := sha256.New()
	// The buffer grows to the largest object (the extra manifests'
	// ConfigMap): one from the pool saves growing it again for each site.
	buf := getEncodeBuffer(0)
	defer putEncodeBuffer(buf)
	for _, o := range b.Objects {
		var err error
		if *buf, err = o.AppendYAML((*buf)[:0]); err != nil {
			return "", err
		}
		h.Write(*buf)
		h.Write([]byte("---\n"))
	}
	return "sha256:" + hex.EncodeToString(h.Sum(nil)), nil
}

// SortByWaveAndKind puts objects in the SiteConfig operator's apply order:
// sync wave, then kind name; objects of one kind in one wave keep the order
// they were rendered in (cluster templates, then nodes in list order).
func SortByWaveAndKind(objs []*Object) {
	sort.SliceStable(objs, func(i, j int) bool {
		a, b := objs[i], objs[j]
		if a.Wave != b.Wave {
			return a.Wave < b.Wave
		}
		return a.Kind < b.Kind
	})
}

// Sort puts objects in apply order: sync wave, then kind (namespaces and
// built-in kinds first), then namespace, then name.
func Sort(objs []*Object) {
	sort.SliceStable(objs, func(i, j int) bool {
		a, b := objs[i], objs[j]
		if a.Wave != b.Wave {
			return a.Wave < b.Wave
		}
		if ka, kb := kindRank(a.Kind), kindRank(b.Kind); ka != kb {
			return ka < kb
		}
		if a.Kind != b.Kind {
			return a.Kind < b.Kind
		}
		if a.Namespace != b.Namespace {
			return a.Namespace < b.Namespace
		}
		return a.Name < b.Name
	})
}

func kindRank(kind string) int {
	for i, k := range kindOrder {
		if k == kind {
			return i
		}
	}
	return len(kindOrder)
}

// waveOf reads an object's sync-wave annotation, Argo CD's or the
// SiteConfig operator's (default 0).
func waveOf(content map[string]any) int {
	ann, _ := nestedMap(content, "metadata", "annotations")
	return annotatedWave(ann)
}

// annotatedWave is waveOf for an object's annotations.
func annotatedWave[V any](ann map[string]V) int {
	for _, key := range []string{AnnotationSyncWave, AnnotationCISyncWave} {
		if s, ok := any(ann[key]).(string); ok {
			if w, err := strconv.Atoi(s); err == nil {
				return w
			}
		}
	}
	return 0
}

// nestedMap returns the map at the given keys, if there is one.
func nestedMap(m map[string]any, keys ...string) (map[string]any, bool) {
	for _, k := range keys {
		next, ok := m[k].(map[string]any)
		if !ok {
			return nil, false
		}
		m = next
	}
	return m, true
}

// ensureMap returns the map at the given keys, creating it if needed.
func ensureMap(m map[string]any, keys ...string) map[string]any {
	for _, k := range keys {
		next, ok := m[k].(map[string]any)
		if !ok {
			next = map[string]any{}
			m[k] = next
		}
		m = next
	}
	return m
}

func str(m map[string]any, keys ...string) string {
	if len(keys) == 0 {
		return ""
	}
	parent, ok := nestedMap(m, keys[:len(keys)-1]...)
	if !ok {
		return ""
	}
	s, _ := parent[keys[len(keys)-1]].(string)
	return s
}
