package kustomize

import (
	"reflect"
	"strings"
	"testing"

	yamlv2 "go.yaml.in/yaml/v2"
	"sigs.k8s.io/kustomize/api/provider"
	"sigs.k8s.io/kustomize/api/resmap"
	"sigs.k8s.io/kustomize/api/resource"
)

// FuzzMarshalV2 writes two strings as keys, values and items at several
// indentations: what writeV2 writes itself must be yaml/v2's text.
func FuzzMarshalV2(f *testing.F) {
	for _, s := range []string{"ha-000001", "02:9e:00:00:00:00", "10.0.0.0/28", "yes", "x: y", "a #b", "'q'", "é",
		strings.Repeat("word ", 20), "ssh-ed25519 AAAA fleetgen@example.net", "0x1F", "-", "", "a10", "a9"} {
		f.Add(s, "v")
		f.Add("k", s)
	}
	f.Fuzz(func(t *testing.T, a, b string) {
		m := map[string]any{a: b, "k": []any{a, b, map[string]any{b: a, "deeper": map[string]any{"x": b}}}, "l": map[string]any{"m": a}}
		got, ok := writeV2(m)
		if !ok {
			return
		}
		want, err := yamlv2.Marshal(m)
		if err != nil {
			t.Fatal(err)
		}
		if string(got) != string(want) {
			t.Errorf("%q %q: %s", a, b, firstDiff(string(got), string(want)))
		}
	})
}

// FuzzReadPatch reads a text as a resource file and as a JSON patch: the
// shortcuts must give what kustomize's factory and the YAML reader give.
func FuzzReadPatch(f *testing.F) {
	f.Add(nativeCI)
	f.Add(nativeCM)
	f.Add("- op: replace\n  path: /metadata/name\n  value: ha-000002\n- op: remove\n  path: /spec/x\n")
	f.Add("- op: move\n  from: /a\n  path: /b\n- op: test\n  path: /b\n  value: \"02:9e\"\n")
	rf := provider.NewDepProvider().GetResourceFactory()
	f.Fuzz(func(t *testing.T, text string) {
		if rs, ok := plainSlice([]byte(text)); ok {
			want, err := rf.SliceFromBytes([]byte(text))
			if err != nil {
				t.Fatalf("read without the factory, which fails: %v", err)
			}
			if len(rs) != len(want) {
				t.Fatalf("%d objects, the factory reads %d", len(rs), len(want))
			}
			for i := range rs {
				g, _ := rs[i].RNode.String()
				w, _ := want[i].RNode.String()
				if g != w {
					t.Errorf("object %d:\n%s\nthe factory reads\n%s", i, g, w)
				}
			}
		}
		if ops, ok := scanJSONPatch(text); ok {
			if want := readJSONPatch(text); !reflect.DeepEqual(ops, want) {
				t.Errorf("scanned %#v\nread %#v", ops, want)
			}
		}
	})
}

// FuzzSmMerge applies a fuzzed strategic-merge patch (and a fuzzed object)
// natively and with kustomize, as a patch of its own and through a
// target: where smMerge runs, both must output the same object, and the
// same again after kustomize merges numbers over their scalars, which
// shows their styles.
func FuzzSmMerge(f *testing.F) {
	f.Add("spec:\n  clusterName: site\n  nodes:\n  - hostName: m9\n", "  extra:\n    gone:\n")
	f.Add("  labels:\n    tier: core\nspec:\n  extraLabels:\n    ManagedCluster: null\n  added: {a: null, b: 1}\n", "  x: ~\n")
	f.Add("  labels:\n    q: \"on\"\nspec:\n  port: x\n  plain: \"6443\"\n  new: yes\n  x: 'y'\n", "  port: \"6443\"\n  plain: a\n  y: no\n  x: ~\n")
	rf := provider.NewDepProvider().GetResourceFactory()
	head := "apiVersion: siteconfig.open-cluster-management.io/v1alpha1\nkind: ClusterInstance\nmetadata:\n  name: base\n  namespace: base\n"
	f.Fuzz(func(t *testing.T, patchBody, destExtra string) {
		for _, target := range []bool{false, true} {
			dests, err1 := rf.SliceFromBytes([]byte(nativeCI + destExtra))
			theirs, err2 := rf.SliceFromBytes([]byte(nativeCI + destExtra))
			patches, err3 := rf.SliceFromBytes([]byte(head + patchBody))
			if err1 != nil || err2 != nil || err3 != nil || len(dests) != 1 || len(patches) != 1 {
				return
			}
			mine, patch := dests[0], patches[0]
			if !smMergeable(mine, patch, target) || target && !plainPatchMetadata(patch) {
				continue
			}
			var err error
			if target {
				m := resmap.New()
				if err = m.Append(theirs[0]); err != nil {
					return
				}
				err = m.ApplySmPatch(resource.MakeIdSet(theirs), patch)
			} else {
				err = theirs[0].ApplySmPatch(patch)
			}
			if err != nil {
				t.Fatalf("merged natively, kustomize fails: %v", err)
			}
			applySmPatch(mine, patch, target)
			if _, err := krustyYAML(theirs[0]); err != nil {
				return
			}
			sameOutput(t, "smMerge", mine, theirs[0])
			numbers := numbersOver(t, func(t *testing.T, text string) *resource.Resource {
				rs, err := rf.SliceFromBytes([]byte(text))
				if err != nil || len(rs) != 1 {
					return nil
				}
				return rs[0]
			}, theirs[0])
			if numbers == nil || theirs[0].ApplySmPatch(numbers.DeepCopy()) != nil {
				continue
			}
			if err := mine.ApplySmPatch(numbers); err != nil {
				t.Fatalf("numbers merged over kustomize's object, not over smMerge's: %v", err)
			}
			if _, err := krustyYAML(theirs[0]); err != nil {
				continue
			}
			sameOutput(t, "smMerge, then numbers", mine, theirs[0])
		}
	})
}
