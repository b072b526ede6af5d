package render

import (
	"fmt"
	"slices"
	"strings"

	"github.com/siteops/siteops/internal/tomap"
	"github.com/siteops/siteops/internal/yamlenc"
)

// mergeMachineConfigs folds the static MachineConfigs of each role into one,
// predefined-extra-manifests-<role>, the way the machine-config operator merges
// them (MergeManifests in the SiteConfig generator's siteConfigHelper.go): in
// name order, Ignition configs merged (list entries keyed by path or name,
// later wins), kernel arguments appended, extensions united, FIPS if any asks,
// and a kernel type. Other manifests are left as they are.
func mergeMachineConfigs(entries map[string]manifestEntry) error {
	byRole := map[string][]string{}
	// The machine-config operator merges in MachineConfig name order, not
	// in file name order.
	names := sortedKeys(entries)
	slices.SortStableFunc(names, func(a, b string) int {
		return strings.Compare(str(entries[a].content, "metadata", "name"), str(entries[b].content, "metadata", "name"))
	})
	for _, name := range names {
		e := entries[name]
		if !e.mergeable || e.content == nil || e.content["kind"] != KindMachineConfig {
			continue
		}
		role := str(e.content, "metadata", "labels", LabelMCRole)
		if role == "" {
			return fmt.Errorf("MachineConfig %s has no %s label, so it cannot be merged by role", name, LabelMCRole)
		}
		byRole[role] = append(byRole[role], name)
	}
	for _, role := range sortedKeys(byRole) {
		names := byRole[role]
		merged, err := mergeRole(role, names, entries)
		if err != nil {
			return err
		}
		for _, n := range names {
			delete(entries, n)
		}
		text, err := yamlenc.Marshal(merged)
		if err != nil {
			return err
		}
		entries["predefined-extra-manifests-"+role+".yaml"] = manifestEntry{text: string(text), content: merged}
	}
	return nil
}

func mergeRole(role string, names []string, entries map[string]manifestEntry) (map[string]any, error) {
	var (
		config  map[string]any
		kargs   []any
		exts    []any
		seenExt = map[any]bool{}
		fips    bool
		kernel  = "default"
		osImage string
	)
	for _, n := range names {
		spec, _ := nestedMap(entries[n].content, "spec")
		if cfg, ok := spec["config"].(map[string]any); ok {
			if config == nil {
				config = tomap.Copy(cfg).(map[string]any)
			} else {
				mergeIgnition(config, cfg)
			}
		}
		if ka, ok := spec["kernelArguments"].([]any); ok {
			kargs = append(kargs, ka...)
		}
		if ex, ok := spec["extensions"].([]any); ok {
			for _, e := range ex {
				if !seenExt[e] {
					seenExt[e] = true
					exts = append(exts, e)
				}
			}
		}
		if f, ok := spec["fips"].(bool); ok && f {
			fips = true
		}
		if k, ok := spec["kernelType"].(string); ok && k != "" && k != "default" {
			kernel = k
		}
		if u, ok := spec["osImageURL"].(string); ok && u != "" {
			osImage = u
		}
	}
	spec := map[string]any{"kernelType": kernel}
	if config != nil {
		spec["config"] = config
	}
	if len(kargs) > 0 {
		spec["kernelArguments"] = kargs
	}
	if len(exts) > 0 {
		spec["extensions"] = exts
	}
	if fips {
		spec["fips"] = true
	}
	if osImage != "" {
		spec["osImageURL"] = osImage
	}
	return map[string]any{
		"apiVersion": "machineconfiguration.openshift.io/v1",
		"kind":       KindMachineConfig,
		"metadata": map[string]any{
			"name":        "predefined-extra-manifests-" + role,
			"labels":      map[string]any{LabelMCRole: role},
			"annotations": map[string]any{AnnotationZTPGenerated: AnnotationZTPGeneratedValue},
		},
		"spec": spec,
	}, nil
}

// ignitionListKeys names the field that identifies an entry of each
// Ignition list, as Ignition's own merge does.
var ignitionListKeys = map[string]string{
	"files": "path", "directories": "path", "links": "path",
	"units": "name", "dropins": "name", "users": "name", "groups": "name",
	"disks": "device", "filesystems": "device", "raid": "name", "luks": "name",
}

// mergeIgnition merges src into dst: objects key by key, keyed lists entry
// by entry (a later entry with the same key is merged over the earlier
// one), other lists appended, scalars replaced. The Ignition version of the
// first config is kept.
func mergeIgnition(dst, src map[string]any) {
	for k, sv := range src {
		if k == "ignition" && dst[k] != nil {
			continue
		}
		switch s := sv.(type) {
		case map[string]any:
			if d, ok := dst[k].(map[string]any); ok {
				mergeIgnition(d, s)
				continue
			}
		case []any:
			if d, ok := dst[k].([]any); ok {
				dst[k] = mergeList(d, s, ignitionListKeys[k])
				continue
			}
		}
		dst[k] = tomap.Copy(sv)
	}
}

func mergeList(dst, src []any, key string) []any {
	if key == "" {
		return append(dst, tomap.Copy(src).([]any)...)
	}
	index := map[any]int{}
	for i, e := range dst {
		if m, ok := e.(map[string]any); ok {
			index[m[key]] = i
		}
	}
	for _, e := range src {
		m, ok := e.(map[string]any)
		if i, found := index[m[key]]; ok && found {
			mergeIgnition(dst[i].(map[string]any), m)
			continue
		}
		dst = append(dst, tomap.Copy(e))
	}
	return dst
}
