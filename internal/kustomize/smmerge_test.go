package kustomize

import (
	"testing"

	"sigs.k8s.io/kustomize/api/provider"
	"sigs.k8s.io/kustomize/api/resmap"
	"sigs.k8s.io/kustomize/api/resource"
)

// TestSmMerge holds smMerge to kustomize's strategic merge: on each object
// and patch, applied as a patch file (by the patch's id) and through a
// target, both must output the same object, or smMergeable must leave
// the patch to kustomize.
func TestSmMerge(t *testing.T) {
	// nativeCI with null fields: empty ones, which kyaml drops where the
	// patch does not reach, and written ones, which it keeps.
	ci := nativeCI + "  emptyNull:\n  tildeNull: ~\n  wordNull: null\n  deep:\n    gone:\n    kept: ~\n    list:\n    - a:\n"
	head := "apiVersion: siteconfig.open-cluster-management.io/v1alpha1\nkind: ClusterInstance\nmetadata:\n  name: base\n  namespace: base\n"
	tests := []struct {
		name, dest, patch string
		// merged natively as a patch of its own and through a target
		// (whose patch kustomize first puts through string maps)
		native, nativeTarget bool
	}{
		{"scalars and a new field", ci, head + "spec:\n  clusterName: site\n  holdInstallation: true\n  baseDomain: example.com\n", true, true},
		{"nested mappings merge", ci, head + "  labels:\n    region: east\nspec:\n  extraLabels:\n    ManagedCluster:\n      site: one\n", true, true},
		{"a list is replaced", ci, head + "spec:\n  nodes:\n  - hostName: m9\n    gone:\n    bmc: {a: null}\n", true, true},
		{"null removes a scalar, a mapping and a list", ci, head + "spec:\n  clusterName: ~\n  extraLabels:\n  nodes: null\n", true, true},
		{"null removes labels", ci, head + "  labels: null\n", true, false},
		{"a label set to null, or to a number", ci, head + "  labels:\n    tier: null\n    n: 1\n", true, false},
		{"string labels and annotations", ci, head + "  labels:\n    tier: core\n    n: \"1\"\n  annotations:\n    note: x\n", true, true},
		{"null for a field the object lacks", ci, head + "spec:\n  missing: null\n", true, true},
		{"an added mapping loses its null fields", ci, head + "spec:\n  added:\n    a: 1\n    b: null\n    c:\n      d:\n      e: [x, null]\n", true, true},
		{"a mapping over a null", ci, head + "spec:\n  wordNull:\n    a: b\n    c: null\n  emptyNull: [1]\n  tildeNull: 3\n", true, true},
		{"types kept from the patch", ci, head + "spec:\n  holdInstallation: \"yes\"\n  clusterName: 12\n", true, true},
		{"an empty patch", ci, head, true, true},
		{"a rename", ci, "apiVersion: siteconfig.open-cluster-management.io/v1alpha1\nkind: ClusterInstance\nmetadata:\n  name: site-1\n  namespace: other\nspec:\n  clusterName: site-1\n", true, true},
		{"a directive", ci, head + "spec:\n  nodes:\n  - hostName: m0\n    $patch: delete\n", false, false},
		{"a mapping over a scalar", ci, head + "spec:\n  clusterName:\n    a: b\n", false, false},
		{"a list over a mapping", ci, head + "spec:\n  extraLabels: [a]\n", false, false},
		{"a schema in a comment", ci, head + "spec:\n  clusterName: x # {\"$openapi\": \"x\"}\n", false, false},
		{"an object inside", ci, head + "spec:\n  inner:\n    apiVersion: v1\n    kind: ConfigMap\n    data: {a: b}\n", false, false},
		{"a kind with a schema", "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: base\ndata:\n  a: b\n",
			"apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: base\ndata:\n  c: d\n", false, false},
	}
	rf := provider.NewDepProvider().GetResourceFactory()
	one := func(t *testing.T, text string) *resource.Resource {
		rs, err := rf.SliceFromBytes([]byte(text))
		if err != nil || len(rs) != 1 {
			t.Fatalf("parse: %v", err)
		}
		return rs[0]
	}
	for _, tt := range tests {
		for _, target := range []bool{false, true} {
			name := tt.name
			if target {
				name += ", through a target"
			}
			t.Run(name, func(t *testing.T) {
				mine, theirs, patch := one(t, tt.dest), one(t, tt.dest), one(t, tt.patch)
				patch.AllowNameChange()
				native := smMergeable(mine, patch) && (!target || plainPatchMetadata(patch))
				wantNative := tt.native
				if target {
					wantNative = tt.nativeTarget
				}
				if native != wantNative {
					t.Fatalf("merged natively: %t, want %t", native, wantNative)
				}
				if !native {
					return
				}
				applySmPatch(mine, patch, target)
				if target {
					m := resmap.New()
					if err := m.Append(theirs); err != nil {
						t.Fatal(err)
					}
					if err := m.ApplySmPatch(resource.MakeIdSet([]*resource.Resource{theirs}), patch); err != nil {
						t.Fatalf("kustomize: %v", err)
					}
				} else if err := theirs.ApplySmPatch(patch); err != nil {
					t.Fatalf("kustomize: %v", err)
				}
				sameOutput(t, "smMerge", mine, theirs)
				if mine.CurId() != theirs.CurId() || mine.OrgId() != theirs.OrgId() {
					t.Errorf("ids %v %v, kustomize's %v %v", mine.CurId(), mine.OrgId(), theirs.CurId(), theirs.OrgId())
				}
			})
		}
	}
}
