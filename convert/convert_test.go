package convert

import (
	"errors"
	"reflect"
	"strings"
	"testing"

	"github.com/siteops/siteops/sites"
)

// wantNote is a note a conversion must report.
type wantNote struct {
	field string
	kind  NoteKind
	// marker is text on the line the note must point at, starting at the
	// column it must point at.
	marker string
	// has is a piece of the message.
	has string
}

// baseNote reports the notes every cluster gets (the Namespace, the
// extra-manifest ConfigMap, the AgentClusterInstall shape); cases check
// them only when they list them.
func baseNote(n Note) bool {
	for _, prefix := range []string{"ClusterInstance renders no Namespace", "ClusterInstance builds no extra-manifest ConfigMap",
		"the AgentClusterInstall the ClusterInstance renders differs"} {
		if strings.HasPrefix(n.Message, prefix) {
			return true
		}
	}
	return false
}

func TestConvertMapping(t *testing.T) {
	biosFile := "BootMode: Uefi\nHyperThreading: Enabled\n"
	tests := []struct {
		name   string
		in     siteConfig
		files  map[string]string
		opts   []Option
		want   map[string]any // ClusterInstance path → value, types included
		absent []string       // ClusterInstance paths that must not be set
		notes  []wantNote
	}{
		{
			name: "a minimal SNO carries over with the defaults made explicit",
			in:   siteConfig{},
			want: map[string]any{
				"apiVersion":                          "siteconfig.open-cluster-management.io/v1alpha1",
				"kind":                                "ClusterInstance",
				"metadata.name":                       "c1",
				"metadata.namespace":                  "c1",
				"spec.clusterName":                    "c1",
				"spec.baseDomain":                     "example.com",
				"spec.pullSecretRef":                  map[string]any{"name": "pull"},
				"spec.clusterImageSetNameRef":         "img-4.20",
				"spec.sshPublicKey":                   "ssh-ed25519 AAAA test",
				"spec.clusterType":                    "SNO",
				"spec.networkType":                    "OVNKubernetes",
				"spec.templateRefs":                   []any{map[string]any{"name": "ai-cluster-templates-v1", "namespace": "open-cluster-management"}},
				"spec.extraManifestsRefs":             []any{map[string]any{"name": "c1"}},
				"spec.nodes[0].hostName":              "n0",
				"spec.nodes[0].role":                  "master",
				"spec.nodes[0].bootMode":              "UEFI",
				"spec.nodes[0].automatedCleaningMode": "disabled",
				"spec.nodes[0].bmcAddress":            "redfish-virtualmedia+https://192.0.2.10/redfish/v1/Systems/1",
				"spec.nodes[0].bmcCredentialsName":    map[string]any{"name": "n0-bmc"},
				"spec.nodes[0].bootMACAddress":        "02:00:00:00:00:01",
				"spec.nodes[0].templateRefs":          []any{map[string]any{"name": "ai-node-templates-v1", "namespace": "open-cluster-management"}},
			},
			absent: []string{"spec.apiVIPs", "spec.holdInstallation", "spec.cpuPartitioningMode", "spec.extraLabels",
				"spec.extraAnnotations", "spec.suppressedManifests", "spec.diskEncryption", "spec.proxy",
				"spec.nodes[0].ironicInspect", "spec.nodes[0].nodeNetwork", "metadata.annotations"},
			notes: []wantNote{
				{field: "spec.clusters[0].clusterName", kind: ManualStep, marker: "clusterName: c1", has: "create that Namespace"},
				{field: "spec.clusters[0]", kind: ManualStep, marker: "clusterName: c1", has: "create ConfigMap c1/c1"},
				{field: "spec.clusters[0]", kind: Changed, marker: "clusterName: c1", has: "manifestsConfigMapRef becomes manifestsConfigMapRefs"},
			},
		},
		{
			name: "the template namespace is an option",
			in:   siteConfig{version: "v2"},
			opts: []Option{WithTemplateNamespace("multicluster-engine")},
			want: map[string]any{
				"spec.templateRefs[0].namespace":          "multicluster-engine",
				"spec.nodes[0].templateRefs[0].namespace": "multicluster-engine",
			},
		},
		{
			name: "singular VIPs become lists; a disagreeing one is reported as changed",
			in: siteConfig{cluster: `      apiVIP: 192.0.2.5
      ingressVIP: 192.0.2.6
      ingressVIPs: [192.0.2.7]
`, nodes: node("m0", "02:00:00:00:00:01", "", "") + node("m1", "02:00:00:00:00:02", "", "") + node("m2", "02:00:00:00:00:03", "", "")},
			want: map[string]any{
				"spec.apiVIPs":     []any{"192.0.2.5"},
				"spec.ingressVIPs": []any{"192.0.2.7"},
				"spec.clusterType": "HighlyAvailable",
			},
			notes: []wantNote{
				{field: "spec.clusters[0].apiVIP", kind: Renamed, marker: "apiVIP: 192.0.2.5", has: "written as apiVIPs"},
				{field: "spec.clusters[0].ingressVIP", kind: Changed, marker: "ingressVIP: 192.0.2.6", has: "not its first entry"},
				{field: "spec.clusters[0]", kind: Changed, marker: "clusterName: c1", has: "apiVIP is no longer set; ingressVIP is no longer set"},
			},
		},
		{
			name: "a singular VIP equal to the list's first entry is only a rename",
			in: siteConfig{version: "v2", cluster: `      apiVIP: 192.0.2.5
      apiVIPs: [192.0.2.5, "2001:db8::5"]
`},
			want: map[string]any{"spec.apiVIPs": []any{"192.0.2.5", "2001:db8::5"}},
			notes: []wantNote{
				{field: "spec.clusters[0].apiVIP", kind: Renamed, marker: "apiVIP: 192.0.2.5", has: "first entry is this address already"},
				{field: "spec.clusters[0]", kind: Changed, marker: "clusterName: c1", has: "apiVIP is no longer set"},
			},
		},
		{
			name: "networks: service CIDR strings become objects, host prefixes stay integers",
			in: siteConfig{version: "v2", cluster: `      machineNetwork:
        - cidr: 192.0.2.0/24
      clusterNetwork:
        - cidr: 10.128.0.0/14
          hostPrefix: 23
      serviceNetwork:
        - 172.30.0.0/16
        - fd02::/112
      additionalNTPSources: [ntp.example.com]
      networkType: OpenShiftSDN
`},
			want: map[string]any{
				"spec.machineNetwork":       []any{map[string]any{"cidr": "192.0.2.0/24"}},
				"spec.clusterNetwork":       []any{map[string]any{"cidr": "10.128.0.0/14", "hostPrefix": int64(23)}},
				"spec.serviceNetwork":       []any{map[string]any{"cidr": "172.30.0.0/16"}, map[string]any{"cidr": "fd02::/112"}},
				"spec.additionalNTPSources": []any{"ntp.example.com"},
				"spec.networkType":          "OpenShiftSDN",
			},
		},
		{
			name: "cluster settings that carry over as they are",
			in: siteConfig{version: "v2", cluster: `      holdInstallation: true
      cpuPartitioningMode: AllNodes
      installConfigOverrides: '{"fips":true}'
      ignitionConfigOverride: '{"ignition":{"version":"3.2.0"}}'
      proxy:
        httpProxy: http://proxy:3128
        noProxy: .example.com
`},
			want: map[string]any{
				"spec.holdInstallation":       true,
				"spec.cpuPartitioningMode":    "AllNodes",
				"spec.installConfigOverrides": `{"fips":true}`,
				"spec.ignitionConfigOverride": `{"ignition":{"version":"3.2.0"}}`,
				"spec.proxy":                  map[string]any{"httpProxy": "http://proxy:3128", "noProxy": ".example.com"},
			},
		},
		{
			name: "node settings that carry over as they are, free-form values with their types",
			in: siteConfig{version: "v2", nodes: node("n0", "02:00:00:00:00:01", "master", `          bootMode: UEFISecureBoot
          automatedCleaningMode: metadata
          installerArgs: '["--append-karg", "nosmt"]'
          ignitionConfigOverride: '{"ignition":{"version":"3.2.0"}}'
          ironicInspect: disabled
          nodeLabels:
            node-role.kubernetes.io/infra: ""
          rootDeviceHints:
            minSizeGigabytes: 100
            rotational: false
            deviceName: /dev/sda
          nodeNetwork:
            interfaces:
              - name: eno1
                macAddress: "02:00:00:00:00:01"
            config:
              interfaces:
                - name: eno1
                  type: ethernet
                  state: up
                  ipv4:
                    enabled: true
                    address:
                      - ip: 192.0.2.10
                        prefix-length: 24
`)},
			want: map[string]any{
				"spec.nodes[0].bootMode":               "UEFISecureBoot",
				"spec.nodes[0].automatedCleaningMode":  "metadata",
				"spec.nodes[0].installerArgs":          `["--append-karg", "nosmt"]`,
				"spec.nodes[0].ignitionConfigOverride": `{"ignition":{"version":"3.2.0"}}`,
				"spec.nodes[0].ironicInspect":          "disabled",
				"spec.nodes[0].nodeLabels":             map[string]any{"node-role.kubernetes.io/infra": ""},
				"spec.nodes[0].rootDeviceHints":        map[string]any{"minSizeGigabytes": int64(100), "rotational": false, "deviceName": "/dev/sda"},
				"spec.nodes[0].nodeNetwork.interfaces": []any{map[string]any{"name": "eno1", "macAddress": "02:00:00:00:00:01"}},
				"spec.nodes[0].nodeNetwork.config.interfaces[0].ipv4.address[0].prefix-length": int64(24),
				"spec.nodes[0].nodeNetwork.config.interfaces[0].ipv4.enabled":                  true,
			},
		},
		{
			name: "ironicInspect: enabled written out is renamed to the empty value",
			in: siteConfig{version: "v2", nodes: node("n0", "02:00:00:00:00:01", "", `          ironicInspect: enabled
`)},
			absent: []string{"spec.nodes[0].ironicInspect"},
			notes: []wantNote{
				{field: "spec.clusters[0].nodes[0].ironicInspect", kind: Renamed, marker: "ironicInspect: enabled", has: `the CRD has no "enabled"`},
			},
		},
		{
			name: "roles: empty counts as master, anything but master and worker becomes worker",
			in: siteConfig{version: "v2", nodes: node("m0", "02:00:00:00:00:01", `""`, "") + node("m1", "02:00:00:00:00:02", "master", "") +
				node("m2", "02:00:00:00:00:03", "master", "") + node("w0", "02:00:00:00:00:04", "worker", "") +
				node("i0", "02:00:00:00:00:05", "infra", "") + node("a0", "02:00:00:00:00:06", "arbiter", "")},
			want: map[string]any{
				"spec.clusterType":   "HighlyAvailable",
				"spec.nodes[0].role": "master",
				"spec.nodes[1].role": "master",
				"spec.nodes[3].role": "worker",
				"spec.nodes[4].role": "worker",
				"spec.nodes[5].role": "worker",
			},
			notes: []wantNote{
				{field: "spec.clusters[0].nodes[0].role", kind: Changed, marker: `role: ""`, has: "annotation now says master"},
				{field: "spec.clusters[0].nodes[4].role", kind: Changed, marker: "role: infra", has: "node-role.kubernetes.io/infra"},
				{field: "spec.clusters[0].nodes[5].role", kind: Changed, marker: "role: arbiter", has: "HighlyAvailableArbiter"},
			},
		},
		{
			name: "one master with workers is still SNO (SNO expansion)",
			in:   siteConfig{version: "v2", nodes: node("m0", "02:00:00:00:00:01", "", "") + node("w0", "02:00:00:00:00:02", "worker", "")},
			want: map[string]any{"spec.clusterType": "SNO"},
		},
		{
			name: "clusterLabels become ManagedCluster extraLabels; vendor and accelerated ZTP are reported",
			in: siteConfig{version: "v2", cluster: `      clusterLabels:
        common: "true"
        vendor: OpenShift
        accelerated-ztp: full
`},
			want: map[string]any{
				"spec.extraLabels":        map[string]any{"ManagedCluster": map[string]any{"common": "true", "vendor": "OpenShift", "accelerated-ztp": "full"}},
				"spec.extraManifestsRefs": []any{map[string]any{"name": "c1"}, map[string]any{"name": "c1-aztp"}},
			},
			notes: []wantNote{
				{field: "spec.clusters[0].clusterLabels.vendor", kind: Changed, marker: "vendor: OpenShift", has: "auto-detect"},
				{field: "spec.clusters[0].clusterLabels.accelerated-ztp", kind: ManualStep, marker: "accelerated-ztp: full", has: "c1-aztp"},
			},
		},
		{
			name: "crAnnotations: per kind, cluster over site; unrendered kinds and ineffective node entries dropped; sync-wave keys reported",
			in: siteConfig{version: "v2",
				site: `  crAnnotations:
    add:
      BareMetalHost:
        example.com/site-bmh: "yes"
      ManagedCluster:
        example.com/site-mc: "yes"
      Namespace:
        example.com/ns: "yes"
`,
				cluster: `      crAnnotations:
        add:
          ManagedCluster:
            example.com/cluster-mc: "yes"
          AgentClusterInstall:
            argocd.argoproj.io/sync-wave: "7"
            siteconfig.open-cluster-management.io/sync-wave: "9"
          Widget:
            example.com/w: "1"
`,
				nodes: node("n0", "02:00:00:00:00:01", "", `          crAnnotations:
            add:
              BareMetalHost:
                example.com/node-bmh: "yes"
              InfraEnv:
                example.com/node-ie: "yes"
              HostFirmwareSettings:
                example.com/hfs: "yes"
`)},
			want: map[string]any{
				"spec.extraAnnotations": map[string]any{
					"BareMetalHost":  map[string]any{"example.com/site-bmh": "yes"},
					"ManagedCluster": map[string]any{"example.com/cluster-mc": "yes"},
					"AgentClusterInstall": map[string]any{"argocd.argoproj.io/sync-wave": "7",
						"siteconfig.open-cluster-management.io/sync-wave": "9"},
				},
				"spec.nodes[0].extraAnnotations": map[string]any{"BareMetalHost": map[string]any{"example.com/node-bmh": "yes"}},
			},
			notes: []wantNote{
				{field: "spec.crAnnotations.add.Namespace", kind: Dropped, marker: "Namespace:", has: "render no Namespace"},
				{field: `spec.clusters[0].crAnnotations.add.AgentClusterInstall["argocd.argoproj.io/sync-wave"]`, kind: Changed, marker: "argocd.argoproj.io/sync-wave", has: "orders nothing"},
				{field: `spec.clusters[0].crAnnotations.add.AgentClusterInstall["siteconfig.open-cluster-management.io/sy..."]`, kind: Changed, marker: "siteconfig.open-cluster-management.io/sync-wave", has: "ignored now"},
				{field: "spec.clusters[0].crAnnotations.add.Widget", kind: Dropped, marker: "Widget:", has: "neither API renders Widget objects"},
				{field: "spec.clusters[0].nodes[0].crAnnotations.add.InfraEnv", kind: Dropped, marker: "InfraEnv:", has: "had no effect"},
				{field: "spec.clusters[0].nodes[0].crAnnotations.add.HostFirmwareSettings", kind: Dropped, marker: "HostFirmwareSettings:", has: "BIOS settings"},
			},
		},
		{
			name: "crSuppression: cluster kinds carry over, node kinds at cluster level had no effect",
			in: siteConfig{version: "v2",
				cluster: `      crSuppression:
        - KlusterletAddonConfig
        - BareMetalHost
        - Namespace
        - KlusterletAddonConfig
`,
				nodes: node("n0", "02:00:00:00:00:01", "", `          crSuppression:
            - NMStateConfig
            - InfraEnv
            - HostFirmwareSettings
`)},
			want: map[string]any{
				"spec.suppressedManifests":          []any{"KlusterletAddonConfig"},
				"spec.nodes[0].suppressedManifests": []any{"NMStateConfig"},
			},
			notes: []wantNote{
				{field: "spec.clusters[0].crSuppression[1]", kind: Dropped, marker: "BareMetalHost", has: "cluster-level crSuppression never reached BareMetalHost objects"},
				{field: "spec.clusters[0].crSuppression[2]", kind: Dropped, marker: "Namespace", has: "render no Namespace"},
				{field: "spec.clusters[0].nodes[0].crSuppression[1]", kind: Dropped, marker: "InfraEnv", has: "node-level crSuppression never reached InfraEnv objects"},
				{field: "spec.clusters[0].nodes[0].crSuppression[2]", kind: Dropped, marker: "HostFirmwareSettings", has: "render no HostFirmwareSettings"},
			},
		},
		{
			name: "crTemplates at each level are manual steps naming the template set to copy",
			in: siteConfig{version: "v2",
				site: `  crTemplates:
    KlusterletAddonConfig: tpl/kac.yaml
    InfraEnv: tpl/ie-site.yaml
`,
				cluster: `      crTemplates:
        InfraEnv: tpl/ie.yaml
`,
				nodes: node("n0", "02:00:00:00:00:01", "", `          crTemplates:
            BareMetalHost: tpl/bmh.yaml
`)},
			files: map[string]string{"tpl/kac.yaml": "kind: KlusterletAddonConfig\n", "tpl/ie.yaml": "kind: InfraEnv\n",
				"tpl/ie-site.yaml": "kind: InfraEnv\n", "tpl/bmh.yaml": "kind: BareMetalHost\n"},
			notes: []wantNote{
				{field: "spec.crTemplates.KlusterletAddonConfig", kind: ManualStep, marker: "KlusterletAddonConfig: tpl/kac.yaml", has: "open-cluster-management/ai-cluster-templates-v1, edit its KlusterletAddonConfig template the way tpl/kac.yaml"},
				{field: "spec.clusters[0].crTemplates.InfraEnv", kind: ManualStep, marker: "InfraEnv: tpl/ie.yaml", has: "ai-node-templates-v1"},
				{field: "spec.clusters[0].nodes[0].crTemplates.BareMetalHost", kind: ManualStep, marker: "BareMetalHost: tpl/bmh.yaml", has: "templateRefs of this node"},
			},
		},
		{
			name: "biosConfigRef at each level where it is in effect",
			in: siteConfig{version: "v2",
				site:    "  biosConfigRef:\n    filePath: bios/site.yaml\n",
				cluster: "      biosConfigRef:\n        filePath: bios/cluster.yaml\n",
				nodes: node("n0", "02:00:00:00:00:01", "", "          biosConfigRef:\n            filePath: bios/node.yaml\n") +
					node("w0", "02:00:00:00:00:02", "worker", "")},
			files: map[string]string{"bios/site.yaml": biosFile, "bios/cluster.yaml": biosFile, "bios/node.yaml": biosFile},
			notes: []wantNote{
				{field: "spec.clusters[0].biosConfigRef.filePath", kind: ManualStep, marker: "filePath: bios/cluster.yaml", has: "HostFirmwareSettings template"},
				{field: "spec.clusters[0].nodes[0].biosConfigRef.filePath", kind: ManualStep, marker: "filePath: bios/node.yaml", has: "for this node"},
			},
		},
		{
			name:  "a site BIOS profile is reported when the cluster has none",
			in:    siteConfig{version: "v2", site: "  biosConfigRef:\n    filePath: bios/site.yaml\n"},
			files: map[string]string{"bios/site.yaml": biosFile},
			notes: []wantNote{
				{field: "spec.biosConfigRef.filePath", kind: ManualStep, marker: "filePath: bios/site.yaml", has: "bios/site.yaml"},
			},
		},
		{
			name: "node fields ClusterInstance has no place for",
			in: siteConfig{version: "v2", nodes: node("n0", "02:00:00:00:00:01", "", `          cpuset: "0-1"
          userData:
            name: user-data
          diskPartition:
            - device: /dev/sdb
              partitions:
                - mount_point: /var/data
                  size: 100
                  start: 30000
`)},
			absent: []string{"spec.nodes[0].userData", "spec.nodes[0].cpuset", "spec.nodes[0].diskPartition"},
			notes: []wantNote{
				{field: "spec.clusters[0].nodes[0].cpuset", kind: Dropped, marker: "cpuset:", has: "cpuPartitioningMode: AllNodes"},
				{field: "spec.clusters[0].nodes[0].userData", kind: Dropped, marker: "userData:", has: "spec.userData"},
				{field: "spec.clusters[0].nodes[0].diskPartition", kind: Dropped, marker: "diskPartition:", has: "ignitionConfigOverride"},
			},
		},
		{
			name: "site fields ClusterInstance has no place for",
			in: siteConfig{version: "v2", site: "  sshPrivateKeySecretRef:\n    name: ssh-priv\n", cluster: `      siteConfigMap:
        name: site-data
        data:
          region: eu
      mergeDefaultMachineConfigs: true
`},
			notes: []wantNote{
				{field: "spec.sshPrivateKeySecretRef.name", kind: Dropped, marker: "name: ssh-priv", has: "never rendered"},
				{field: "spec.clusters[0].siteConfigMap", kind: ManualStep, marker: "siteConfigMap:", has: "ConfigMap ztp-site/site-data (keys region)"},
				{field: "spec.clusters[0].mergeDefaultMachineConfigs", kind: ManualStep, marker: "mergeDefaultMachineConfigs:", has: "predefined-extra-manifests-<role>.yaml"},
			},
		},
		{
			name: "disk encryption: types renamed, the PCR list dropped, the effect is a manual step",
			in: siteConfig{version: "v2", cluster: `      diskEncryption:
        type: tpm2
        tpm2:
          pcrList: "1,7"
`},
			want: map[string]any{"spec.diskEncryption": map[string]any{"type": "tpmv2"}},
			notes: []wantNote{
				{field: "spec.clusters[0].diskEncryption", kind: Changed, marker: "diskEncryption:", has: "extra-manifest ConfigMap"},
				{field: "spec.clusters[0].diskEncryption.type", kind: Renamed, marker: "type: tpm2", has: `"tpmv2"`},
				{field: "spec.clusters[0].diskEncryption.tpm2.pcrList", kind: Dropped, marker: "pcrList:", has: "PCR list"},
			},
		},
		{
			name: "extra-manifest search paths: the note points at them and lists the files the ConfigMap held",
			in: siteConfig{version: "v2", cluster: `      extraManifests:
        searchPaths:
          - manifests/
        filter:
          exclude: [02-skip.yaml]
`},
			files: map[string]string{
				"manifests/01-ns.yaml":   "apiVersion: v1\nkind: Namespace\nmetadata:\n  name: tools\n",
				"manifests/02-skip.yaml": "apiVersion: v1\nkind: Namespace\nmetadata:\n  name: skipped\n",
			},
			want: map[string]any{"spec.extraManifestsRefs": []any{map[string]any{"name": "c1"}}},
			notes: []wantNote{
				{field: "spec.clusters[0].extraManifests", kind: ManualStep, marker: "extraManifests:", has: "holding the 1 files the SiteConfig generator put in it (01-ns.yaml)"},
			},
		},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			text := tc.in.String()
			files := map[string]string{"site.yaml": text}
			for k, v := range tc.files {
				files[k] = v
			}
			site := loadOne(t, files)
			res, err := Convert(site, tc.opts...)
			if err != nil {
				t.Fatalf("Convert: %v", err)
			}
			if res.Name != "c1" {
				t.Errorf("Name = %q, want c1", res.Name)
			}
			for path, want := range tc.want {
				got, ok := get(res.ClusterInstance, path)
				if !ok {
					t.Errorf("%s is not set, want %#v", path, want)
				} else if !reflect.DeepEqual(got, want) {
					t.Errorf("%s = %#v, want %#v", path, got, want)
				}
			}
			for _, path := range tc.absent {
				if got, ok := get(res.ClusterInstance, path); ok {
					t.Errorf("%s = %#v, want it left out", path, got)
				}
			}
			checkNotes(t, text, res.Report, tc.notes)
		})
	}
}

// checkNotes matches the report against the wanted notes: each wanted
// note must be there, at its position, and every other note must be one
// of the base notes.
func checkNotes(t *testing.T, text string, got []Note, want []wantNote) {
	t.Helper()
	matched := make([]bool, len(got))
	for _, w := range want {
		found := false
		for i, n := range got {
			if matched[i] || n.Field != w.field || n.Kind != w.kind || !strings.Contains(n.Message, w.has) {
				continue
			}
			matched[i], found = true, true
			if pos := posOf(t, "site.yaml", text, w.marker); n.Pos != pos {
				t.Errorf("note on %s is at %s, want %s", w.field, n.Pos, pos)
			}
			if n.Site != "c1" {
				t.Errorf("note on %s names site %q, want c1", w.field, n.Site)
			}
			break
		}
		if !found {
			t.Errorf("missing %s note on %s containing %q", w.kind, w.field, w.has)
		}
	}
	for i, n := range got {
		if !matched[i] && !baseNote(n) {
			t.Errorf("unexpected note: %s", n)
		}
	}
	if t.Failed() {
		for _, n := range got {
			t.Logf("got: %s", n)
		}
	}
}

func TestConvertRefuses(t *testing.T) {
	tests := []struct {
		name   string
		in     siteConfig
		field  string
		marker string
	}{
		{"a boot MAC that is not a MAC", siteConfig{nodes: node("n0", "0200.0000.0001", "", "")}, "spec.clusters[0].nodes[0].bootMACAddress", "bootMACAddress:"},
		{"an interface MAC that is not a MAC", siteConfig{nodes: node("n0", "02:00:00:00:00:01", "", `          nodeNetwork:
            interfaces:
              - name: eno1
                macAddress: "02-00-00-00-00-01"
`)}, "spec.clusters[0].nodes[0].nodeNetwork.interfaces[0].macAddress", "macAddress:"},
		{"installerArgs that are not JSON", siteConfig{nodes: node("n0", "02:00:00:00:00:01", "", "          installerArgs: --append-karg nosmt\n")},
			"spec.clusters[0].nodes[0].installerArgs", "installerArgs:"},
		{"a cluster ignition override that is not JSON", siteConfig{cluster: "      ignitionConfigOverride: igen\n"},
			"spec.clusters[0].ignitionConfigOverride", "ignitionConfigOverride:"},
		{"a network type outside the enum", siteConfig{cluster: "      networkType: Calico\n"}, "spec.clusters[0].networkType", "networkType:"},
		{"a node without a BMC address", siteConfig{nodes: `        - hostName: n0
          bmcCredentialsName:
            name: n0-bmc
          bootMACAddress: "02:00:00:00:00:01"
`}, "spec.clusters[0].nodes[0].bmcAddress", "hostName: n0"},
		{"three API VIPs", siteConfig{cluster: "      apiVIPs: [192.0.2.1, 192.0.2.2, 192.0.2.3]\n"}, "spec.clusters[0].apiVIPs", "apiVIPs:"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			text := tc.in.String()
			site := loadOne(t, map[string]string{"site.yaml": text})
			_, err := Convert(site)
			var ce *Error
			if !errors.As(err, &ce) {
				t.Fatalf("Convert error = %v, want *Error", err)
			}
			if len(ce.Problems) != 1 {
				t.Fatalf("got %d problems, want 1: %v", len(ce.Problems), ce)
			}
			p := ce.Problems[0]
			if p.Field != tc.field || p.Site != "c1" || p.Severity != sites.SeverityError || p.Hint == "" {
				t.Errorf("problem = %+v, want an error with a hint on %s of site c1", p, tc.field)
			}
			marker := tc.marker
			if want := posOf(t, "site.yaml", text, marker); p.Pos != want {
				t.Errorf("problem at %s, want %s", p.Pos, want)
			}
		})
	}
}

func TestConvertRefusesClusterInstances(t *testing.T) {
	ci := `apiVersion: siteconfig.open-cluster-management.io/v1alpha1
kind: ClusterInstance
metadata: {name: ci1, namespace: ci1}
spec:
  clusterName: ci1
  baseDomain: example.com
  clusterImageSetNameRef: img
  pullSecretRef: {name: ps}
  templateRefs: [{name: ai-cluster-templates-v1, namespace: open-cluster-management}]
  nodes:
    - hostName: n0
      bmcAddress: redfish://192.0.2.1/redfish/v1/Systems/1
      bmcCredentialsName: {name: bmc}
      bootMACAddress: "02:00:00:00:00:01"
      templateRefs: [{name: ai-node-templates-v1, namespace: open-cluster-management}]
`
	site := loadOne(t, map[string]string{"site.yaml": ci})
	if _, err := Convert(site); !errors.Is(err, ErrNotSiteConfig) {
		t.Errorf("Convert(ClusterInstance) error = %v, want ErrNotSiteConfig", err)
	}
	if _, err := Convert(nil); !errors.Is(err, ErrNotSiteConfig) {
		t.Errorf("Convert(nil) error = %v, want ErrNotSiteConfig", err)
	}
	if _, err := Convert(loadOne(t, map[string]string{"site.yaml": siteConfig{}.String()}), WithTemplateNamespace("")); err == nil {
		t.Error("an empty template namespace was accepted")
	}
}

func TestNoteString(t *testing.T) {
	n := Note{Pos: sites.Position{File: "a.yaml", Line: 3, Column: 7}, Site: "c1", Field: "spec.clusters[0].apiVIP",
		Kind: Renamed, Message: "ClusterInstance has only apiVIPs"}
	want := "a.yaml:3:7: site c1: spec.clusters[0].apiVIP: renamed: ClusterInstance has only apiVIPs"
	if got := n.String(); got != want {
		t.Errorf("String() = %q, want %q", got, want)
	}
}

func TestReportIsInSourceOrderAndStable(t *testing.T) {
	text := siteConfig{site: "  sshPrivateKeySecretRef:\n    name: k\n", cluster: "      apiVIP: 192.0.2.5\n      ingressVIP: 192.0.2.6\n",
		nodes: node("n0", "02:00:00:00:00:01", "", "          cpuset: \"0\"\n") + node("n1", "02:00:00:00:00:02", "", "          cpuset: \"1\"\n") +
			node("n2", "02:00:00:00:00:03", "", "")}.String()
	site := loadOne(t, map[string]string{"site.yaml": text})
	first, err := Convert(site)
	if err != nil {
		t.Fatal(err)
	}
	for i := 1; i < len(first.Report); i++ {
		a, b := first.Report[i-1].Pos, first.Report[i].Pos
		if a.Line > b.Line || a.Line == b.Line && a.Column > b.Column {
			t.Errorf("note %d (%s) comes before note %d (%s)", i-1, a, i, b)
		}
	}
	for range 5 {
		again, err := Convert(site)
		if err != nil {
			t.Fatal(err)
		}
		if !reflect.DeepEqual(first, again) {
			t.Fatal("two conversions of the same site differ")
		}
	}
}
