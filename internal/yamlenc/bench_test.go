package yamlenc

import (
	"encoding/json"
	"fmt"
	"strings"
	"testing"

	sigsyaml "sigs.k8s.io/yaml"
)

type benchObject struct {
	name string
	v    any
}

// benchObjects returns realistic rendered objects, decoded from JSON with
// UseNumber as siteops holds them.
func benchObjects() []benchObject {
	return []benchObject{
		{"BareMetalHost", decodeJSON(bareMetalHostJSON)},
		{"ConfigMap", decodeJSON(configMapJSON())},
	}
}

func decodeJSON(s string) any {
	dec := json.NewDecoder(strings.NewReader(s))
	dec.UseNumber()
	var v any
	if err := dec.Decode(&v); err != nil {
		panic(err)
	}
	return v
}

// bareMetalHostJSON is a typical 40-odd-line object.
const bareMetalHostJSON = `{
  "apiVersion": "metal3.io/v1alpha1",
  "kind": "BareMetalHost",
  "metadata": {
    "name": "worker-0.site-a.example.com",
    "namespace": "site-a",
    "labels": {
      "infraenvs.agent-install.openshift.io": "site-a",
      "siteops.io/site": "site-a",
      "siteops.io/role": "worker"
    },
    "annotations": {
      "argocd.argoproj.io/sync-wave": "1",
      "bmac.agent-install.openshift.io/hostname": "worker-0",
      "bmac.agent-install.openshift.io/role": "worker",
      "inspect.metal3.io": "disabled",
      "bmac.agent-install.openshift.io/installer-args": "[\"--append-karg\", \"ip=dhcp\"]",
      "siteops.io/rendered-from": "sites/site-a/hosts.yaml"
    }
  },
  "spec": {
    "online": true,
    "automatedCleaningMode": "disabled",
    "bootMACAddress": "00:1a:2b:3c:4d:5e",
    "bootMode": "UEFISecureBoot",
    "bmc": {
      "address": "redfish-virtualmedia+https://10.0.0.10/redfish/v1/Systems/1",
      "credentialsName": "worker-0-bmc-secret",
      "disableCertificateVerification": true
    },
    "rootDeviceHints": {
      "deviceName": "/dev/disk/by-path/pci-0000:00:17.0-ata-1",
      "minSizeGigabytes": 120
    },
    "preprovisioningNetworkDataName": "worker-0-nmstate",
    "hardwareProfile": "unknown",
    "userData": {},
    "customDeploy": {"method": "start_assisted_install"},
    "taints": [
      {"key": "node-role.kubernetes.io/infra", "effect": "NoSchedule", "value": ""},
      {"key": "siteops.io/maintenance", "effect": "NoExecute", "value": "true"}
    ]
  }
}`

// configMapJSON has several 1 KiB multi-line YAML values, like the
// manifests siteops embeds in policy ConfigMaps.
func configMapJSON() string {
	data := map[string]string{}
	for i := range 4 {
		var b strings.Builder
		for j := 0; b.Len() < 1024; j++ {
			fmt.Fprintf(&b, "apiVersion: v1\nkind: Namespace\nmetadata:\n  name: ns-%d-%d\n  labels:\n    tier: \"%d\"\n", i, j, j)
		}
		data[fmt.Sprintf("manifest-%d.yaml", i)] = b.String()
	}
	data["version"] = "4.18.0"
	data["replicas"] = "3"
	obj := map[string]any{
		"apiVersion": "v1",
		"kind":       "ConfigMap",
		"metadata":   map[string]any{"name": "site-manifests", "namespace": "site-a"},
		"data":       data,
	}
	b, err := json.Marshal(obj)
	if err != nil {
		panic(err)
	}
	return string(b)
}

func BenchmarkAppend(b *testing.B) {
	for _, obj := range benchObjects() {
		b.Run(obj.name, func(b *testing.B) {
			buf, err := Append(nil, obj.v)
			if err != nil {
				b.Fatal(err)
			}
			b.SetBytes(int64(len(buf)))
			b.ReportAllocs()
			for b.Loop() {
				buf, _ = Append(buf[:0], obj.v)
			}
		})
	}
}

// BenchmarkSigsYAML measures the route this package replaces, for
// comparison.
func BenchmarkSigsYAML(b *testing.B) {
	for _, obj := range benchObjects() {
		b.Run(obj.name, func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				if _, err := sigsyaml.Marshal(obj.v); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}
