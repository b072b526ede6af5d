package kustomize

import (
	"testing"

	yamlv3 "go.yaml.in/yaml/v3"
	"sigs.k8s.io/kustomize/api/provider"
	"sigs.k8s.io/kustomize/api/resmap"
	"sigs.k8s.io/kustomize/api/resource"
	kyaml "sigs.k8s.io/kustomize/kyaml/yaml"
)

// TestSmMerge holds smMerge to kustomize's strategic merge: on each object
// and patch, applied as a patch file (by the patch's id) and through a
// target, both must output the same object, or smMergeable must leave
// the patch to kustomize.
func TestSmMerge(t *testing.T) {
	// nativeCI with null fields: empty ones, which kyaml drops where the
	// patch does not reach, and written ones, which it keeps.
	ci := nativeCI + "  emptyNull:\n  tildeNull: ~\n  wordNull: null\n  deep:\n    gone:\n    kept: ~\n    list:\n    - a:\n"
	// nativeCI with strings in quotes and block style, and plain ones YAML
	// 1.1 reads as something else, which kyaml quotes where it walks.
	quoted := nativeCI + "  port: \"6443\"\n  flag: 'no'\n  text: |\n    a\n  plain: x\n  yes: on\n  octal: \"0777\"\n" +
		"  nested:\n    q: \"z\"\n    y: n\n    list: [yes, \"no\"]\n"
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
		// A target makes kustomize merge a copy of the patch with the
		// object's apiVersion and the patch's kind: apps/v1 Deployment,
		// whose containers merge by name.
		{"a kind with a schema under the object's apiVersion", "apiVersion: apps/v1\nkind: Foo\nmetadata:\n  name: base\n" +
			"spec:\n  template:\n    spec:\n      containers:\n      - name: a\n        image: x\n      - name: b\n        image: y\n",
			"apiVersion: example.com/v1\nkind: Deployment\nmetadata:\n  name: base\n" +
				"spec:\n  template:\n    spec:\n      containers:\n      - name: a\n        image: z\n", true, false},
		// kyaml gives a value the style of the one it replaces: quotes
		// keep a number or boolean a string.
		{"a number and a boolean over quoted strings", quoted, head + "spec:\n  port: 6443\n  flag: true\n", false, false},
		{"a number over a block string", quoted, head + "spec:\n  text: 1\n", false, false},
		{"strings over quoted strings, numbers over plain ones", quoted,
			head + "spec:\n  port: x\n  flag: \"no\"\n  text: y\n  plain: 7\n  nested:\n    q: z\n", true, true},
		{"a quoted string over a null", ci, head + "spec:\n  tildeNull: \"5\"\n  wordNull: 'x'\n", true, true},
		{"YAML 1.1 words and numbers, kept and added", quoted,
			head + "spec:\n  new: yes\n  sexagesimal: 1:20\n  added:\n    k: on\n    deeper: {n: N, s: \"off\"}\n", true, true},
		{"labels to quote", ci, head + "  labels:\n    tier: \"on\"\n    q: \"x\"\n    lit: |\n      a\n  annotations:\n    n: '1'\n", true, true},
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
				native := smMergeable(mine, patch, target) && (!target || plainPatchMetadata(patch))
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
				// Styles the output does not show yet: kustomize's own
				// merge of numbers over every scalar shows them.
				numbers := numbersOver(t, one, theirs)
				if err := mine.ApplySmPatch(numbers.DeepCopy()); err != nil {
					t.Fatal(err)
				}
				if err := theirs.ApplySmPatch(numbers); err != nil {
					t.Fatal(err)
				}
				sameOutput(t, "smMerge, then numbers", mine, theirs)
			})
		}
	}
}

// numbersOver is a patch for r that sets every scalar of its mappings,
// through mappings, to a number (apiVersion, kind, name and namespace
// aside). kyaml gives each number the style of the scalar it replaces,
// so two objects that output the same output the same after it only if
// their scalars have the same styles where styles matter.
func numbersOver(t *testing.T, parse func(*testing.T, string) *resource.Resource, r *resource.Resource) *resource.Resource {
	t.Helper()
	var over func(n *yamlv3.Node, path string) *yamlv3.Node
	over = func(n *yamlv3.Node, path string) *yamlv3.Node {
		m := &yamlv3.Node{Kind: yamlv3.MappingNode}
		for i := 0; i+1 < len(n.Content); i += 2 {
			k, v := n.Content[i], n.Content[i+1]
			p := path + "/" + k.Value
			switch {
			case p == "/apiVersion" || p == "/kind" || p == "/metadata/name" || p == "/metadata/namespace":
				m.Content = append(m.Content, k, v)
			case v.Kind == yamlv3.MappingNode:
				m.Content = append(m.Content, k, over(v, p))
			case v.Kind == yamlv3.ScalarNode:
				m.Content = append(m.Content, k, &yamlv3.Node{Kind: yamlv3.ScalarNode, Tag: "!!int", Value: "1"})
			}
		}
		return m
	}
	text, err := kyaml.NewRNode(over(r.RNode.YNode(), "")).String()
	if err != nil {
		t.Fatal(err)
	}
	return parse(t, text)
}

// TestYAML11NonString holds yaml11NonString to kyaml's IsValueNonString on
// strings of up to two pieces of YAML-significant text.
func TestYAML11NonString(t *testing.T) {
	pieces := []string{"a", "Z", "e", "y", "Y", "n", "o", "0", "1", "12", "0x", "0o", "0b", ".", ":", "-", "+", "_", "=", "@", " ", "#",
		"'", "\"", "\\", ",", "[", "}", "?", "|", ">", "!", "&", "*", "%", "`", "~", "<<", "yes", "on", "off", "null", "true", "é",
		"\t", "\n", "\r", ".inf", ".5", "1e3", "2024-01-02", "1:20", "---", "a: b", "- x"}
	for _, s := range piecesAndPairs(pieces) {
		if got, want := yaml11NonString(s), kyaml.IsValueNonString(s); got != want {
			t.Errorf("yaml11NonString(%q) = %t, kyaml's %t", s, got, want)
		}
	}
}
