package render

import (
	"fmt"

	"github.com/siteops/siteops/internal/tomap"
)

// typedZeroFields are fields the upstream Go types serialize even when they are
// zero (no omitempty), while the generator leaves every unset value out (the
// generator's getClusterCR works on untyped maps). They are removed when zero
// so that output matches.
var typedZeroFields = map[string][][]string{
	KindNamespace:         {{"spec"}},
	KindClusterDeployment: {{"spec", "installed"}, {"spec", "baseDomain"}, {"spec", "clusterName"}, {"spec", "controlPlaneConfig"}},
	KindBareMetalHost:     {{"spec", "bmc", "address"}, {"spec", "bmc", "credentialsName"}, {"spec", "bmc"}},
	KindNMStateConfig:     {{"spec", "config"}},
}

// toContent converts a typed object to JSON-compatible data, without what
// a rendered object never carries: status and an empty creationTimestamp
// (both belong to the hub).
func toContent(kind string, obj any) (map[string]any, error) {
	m, err := tomap.Object(obj)
	if err != nil {
		return nil, fmt.Errorf("convert %s: %w", kind, err)
	}
	if md, ok := m["metadata"].(map[string]any); ok {
		if md["creationTimestamp"] == nil {
			delete(md, "creationTimestamp")
		}
	}
	for _, path := range typedZeroFields[kind] {
		removeIfZero(m, path)
	}
	return m, nil
}

func removeIfZero(m map[string]any, path []string) {
	parent, ok := nestedMap(m, path[:len(path)-1]...)
	if !ok {
		return
	}
	key := path[len(path)-1]
	switch v := parent[key].(type) {
	case nil:
		delete(parent, key)
	case bool:
		if !v {
			delete(parent, key)
		}
	case string:
		if v == "" {
			delete(parent, key)
		}
	case map[string]any:
		if emptyTree(v) {
			delete(parent, key)
		}
	}
}

// emptyTree reports whether a map holds nothing but empty maps.
func emptyTree(m map[string]any) bool {
	for _, v := range m {
		sub, ok := v.(map[string]any)
		if !ok || !emptyTree(sub) {
			return false
		}
	}
	return true
}
