package render

import (
	"reflect"
	"testing"

	"github.com/siteops/siteops/sites"
)

func TestInstallConfigOverrides(t *testing.T) {
	tests := []struct {
		name      string
		cluster   sites.Clusters
		want      string
		wantError bool
	}{
		{name: "network type only", cluster: sites.Clusters{NetworkType: "OVNKubernetes"},
			want: `{"networking":{"networkType":"OVNKubernetes"}}`},
		{name: "overrides without networking are appended as text",
			cluster: sites.Clusters{NetworkType: "OVNKubernetes", InstallConfigOverrides: `{"fips": true}`},
			want:    `{"networking":{"networkType":"OVNKubernetes"},"fips": true}`},
		{name: "block scalar keeps its spacing",
			cluster: sites.Clusters{NetworkType: "OVNKubernetes", InstallConfigOverrides: "{\n  \"capabilities\": {\"baselineCapabilitySet\": \"None\"}\n}\n"},
			want:    "{\"networking\":{\"networkType\":\"OVNKubernetes\"},\n  \"capabilities\": {\"baselineCapabilitySet\": \"None\"}\n}\n"},
		{name: "networking is merged and networkType wins",
			cluster: sites.Clusters{NetworkType: "OVNKubernetes", InstallConfigOverrides: `{"networking":{"networkType":"OpenShiftSDN","x":1},"fips":true}`},
			want:    `{"fips":true,"networking":{"networkType":"OVNKubernetes","x":1}}`},
		{name: "AllNodes without overrides",
			cluster: sites.Clusters{NetworkType: "OVNKubernetes", CPUPartitioning: sites.CPUPartitioningAllNodes},
			want:    `{"networking":{"networkType":"OVNKubernetes"},"cpuPartitioningMode":"AllNodes"}`},
		{name: "AllNodes overwrites a value and sorts keys",
			cluster: sites.Clusters{NetworkType: "OVNKubernetes", CPUPartitioning: sites.CPUPartitioningAllNodes, InstallConfigOverrides: `{"cpuPartitioningMode":"None","additionalTrustBundlePolicy":"Always"}`},
			want:    `{"networking":{"networkType":"OVNKubernetes"},"additionalTrustBundlePolicy":"Always","cpuPartitioningMode":"AllNodes"}`},
		{name: "empty object adds nothing", cluster: sites.Clusters{NetworkType: "OVNKubernetes", InstallConfigOverrides: `{}`},
			want: `{"networking":{"networkType":"OVNKubernetes"}}`},
		{name: "not JSON", cluster: sites.Clusters{NetworkType: "OVNKubernetes", InstallConfigOverrides: `fips: true`}, wantError: true},
		{name: "networking not an object", cluster: sites.Clusters{NetworkType: "OVNKubernetes", InstallConfigOverrides: `{"networking": 3}`}, wantError: true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := installConfigOverrides(&tt.cluster)
			if tt.wantError {
				if err == nil {
					t.Fatalf("got %q, want an error", got)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if got != tt.want {
				t.Errorf("got  %s\nwant %s", got, tt.want)
			}
		})
	}
}

func TestSortOrder(t *testing.T) {
	objs := []*Object{
		{Kind: KindBareMetalHost, Namespace: "c", Name: "b", Wave: 3},
		{Kind: KindManagedCluster, Name: "c", Wave: 2},
		{Kind: KindInfraEnv, Namespace: "c", Name: "c", Wave: 1},
		{Kind: KindConfigMap, Namespace: "c", Name: "c", Wave: 1},
		{Kind: KindBareMetalHost, Namespace: "c", Name: "a", Wave: 3},
		{Kind: KindNamespace, Name: "c", Wave: 0},
		{Kind: KindAgentClusterInstall, Namespace: "c", Name: "c", Wave: 1},
	}
	Sort(objs)
	var got []string
	for _, o := range objs {
		got = append(got, o.Ref())
	}
	want := []string{
		"Namespace c", "ConfigMap c/c", "AgentClusterInstall c/c", "InfraEnv c/c",
		"ManagedCluster c", "BareMetalHost c/a", "BareMetalHost c/b",
	}
	for i := range want {
		if got[i] != want[i] {
			t.Fatalf("order %v\nwant  %v", got, want)
		}
	}
}

func TestMergeMachineConfigs(t *testing.T) {
	mc := func(name, role string, spec map[string]any) manifestEntry {
		return manifestEntry{mergeable: true, content: map[string]any{
			"apiVersion": "machineconfiguration.openshift.io/v1", "kind": KindMachineConfig,
			"metadata": map[string]any{"name": name, "labels": map[string]any{LabelMCRole: role}},
			"spec":     spec,
		}}
	}
	file := func(path, src string) map[string]any {
		return map[string]any{"path": path, "contents": map[string]any{"source": src}}
	}
	entries := map[string]manifestEntry{
		"10-a.yaml": mc("10-a", "master", map[string]any{
			"config":          map[string]any{"ignition": map[string]any{"version": "3.2.0"}, "storage": map[string]any{"files": []any{file("/etc/a", "data:,1")}}},
			"kernelArguments": []any{"a=1"},
		}),
		"20-b.yaml": mc("20-b", "master", map[string]any{
			"config":          map[string]any{"ignition": map[string]any{"version": "3.4.0"}, "storage": map[string]any{"files": []any{file("/etc/a", "data:,2"), file("/etc/b", "data:,3")}}},
			"kernelArguments": []any{"b=2"},
			"fips":            true,
		}),
		"30-w.yaml": mc("30-w", "worker", map[string]any{"kernelArguments": []any{"w=1"}}),
		"ns.yaml":   {mergeable: true, content: map[string]any{"kind": "Namespace"}},
		"tmpl.yaml": {content: nil, text: "x"},
	}
	if err := mergeMachineConfigs(entries); err != nil {
		t.Fatal(err)
	}
	if _, ok := entries["10-a.yaml"]; ok {
		t.Error("merged MachineConfig 10-a.yaml is still there")
	}
	for _, keep := range []string{"ns.yaml", "tmpl.yaml", "predefined-extra-manifests-worker.yaml"} {
		if _, ok := entries[keep]; !ok {
			t.Errorf("%s is missing", keep)
		}
	}
	m := entries["predefined-extra-manifests-master.yaml"].content
	spec := m["spec"].(map[string]any)
	if got := spec["kernelArguments"].([]any); len(got) != 2 || got[0] != "a=1" || got[1] != "b=2" {
		t.Errorf("kernelArguments %v", got)
	}
	if spec["fips"] != true || spec["kernelType"] != "default" {
		t.Errorf("fips %v kernelType %v", spec["fips"], spec["kernelType"])
	}
	files := spec["config"].(map[string]any)["storage"].(map[string]any)["files"].([]any)
	if len(files) != 2 || files[0].(map[string]any)["contents"].(map[string]any)["source"] != "data:,2" {
		t.Errorf("files %v: want /etc/a replaced by the later config and /etc/b added", files)
	}
	if v := spec["config"].(map[string]any)["ignition"].(map[string]any)["version"]; v != "3.2.0" {
		t.Errorf("ignition version %v, want the first config's", v)
	}
}

func TestMergeMachineConfigsInNameOrder(t *testing.T) {
	mc := func(name string, karg string) manifestEntry {
		return manifestEntry{mergeable: true, content: map[string]any{
			"kind":     KindMachineConfig,
			"metadata": map[string]any{"name": name, "labels": map[string]any{LabelMCRole: "master"}},
			"spec":     map[string]any{"kernelArguments": []any{karg}},
		}}
	}
	// File a-* holds the MachineConfig that sorts last by name.
	entries := map[string]manifestEntry{"a-first-file.yaml": mc("99-z", "z"), "b-second-file.yaml": mc("00-a", "a")}
	if err := mergeMachineConfigs(entries); err != nil {
		t.Fatal(err)
	}
	got := entries["predefined-extra-manifests-master.yaml"].content["spec"].(map[string]any)["kernelArguments"]
	if want := []any{"a", "z"}; !reflect.DeepEqual(got, want) {
		t.Errorf("kernelArguments %v, want %v (MachineConfig name order)", got, want)
	}
}
