package main

import (
	"bytes"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"gopkg.in/yaml.v3"
)

// siteConfig is the part of a SiteConfig the test checks.
type siteConfig struct {
	APIVersion string `yaml:"apiVersion"`
	Kind       string `yaml:"kind"`
	Metadata   struct {
		Name string `yaml:"name"`
	} `yaml:"metadata"`
	Spec struct {
		Clusters []struct {
			ClusterName         string            `yaml:"clusterName"`
			CPUPartitioningMode string            `yaml:"cpuPartitioningMode"`
			InstallConfig       string            `yaml:"installConfigOverrides"`
			APIVIPs             []string          `yaml:"apiVIPs"`
			ClusterLabels       map[string]string `yaml:"clusterLabels"`
			Nodes               []struct {
				HostName       string            `yaml:"hostName"`
				Role           string            `yaml:"role"`
				BMCAddress     string            `yaml:"bmcAddress"`
				BootMACAddress string            `yaml:"bootMACAddress"`
				NodeLabels     map[string]string `yaml:"nodeLabels"`
				NodeNetwork    struct {
					Interfaces []struct {
						MACAddress string `yaml:"macAddress"`
					} `yaml:"interfaces"`
					Config map[string]any `yaml:"config"`
				} `yaml:"nodeNetwork"`
			} `yaml:"nodes"`
		} `yaml:"clusters"`
	} `yaml:"spec"`
}

func TestFleetgen(t *testing.T) {
	tests := []struct {
		shape string
		nodes []int // allowed node counts per cluster
	}{
		{shape: "sno", nodes: []int{1}},
		{shape: "ha", nodes: []int{5}},
		{shape: "mixed", nodes: []int{1, 5}},
	}
	for _, tt := range tests {
		t.Run(tt.shape, func(t *testing.T) {
			dir := t.TempDir()
			generate(t, "-n", "5", "-shape", tt.shape, "-out", dir, "-seed", "3")

			var kust struct {
				Generators []string `yaml:"generators"`
			}
			readYAML(t, filepath.Join(dir, "kustomization.yaml"), &kust)
			if len(kust.Generators) != 5 {
				t.Fatalf("kustomization lists %d generators, want 5", len(kust.Generators))
			}

			macs := map[string]string{}
			names := map[string]bool{}
			for _, f := range kust.Generators {
				var sc siteConfig
				readYAML(t, filepath.Join(dir, f), &sc)
				if sc.APIVersion != "ran.openshift.io/v1" || sc.Kind != "SiteConfig" {
					t.Errorf("%s: apiVersion/kind = %s/%s", f, sc.APIVersion, sc.Kind)
				}
				if len(sc.Spec.Clusters) != 1 {
					t.Fatalf("%s: %d clusters, want 1", f, len(sc.Spec.Clusters))
				}
				c := sc.Spec.Clusters[0]
				if names[c.ClusterName] {
					t.Errorf("%s: duplicate cluster name %s", f, c.ClusterName)
				}
				names[c.ClusterName] = true
				if !slices.Contains(tt.nodes, len(c.Nodes)) {
					t.Errorf("%s: %d nodes, want one of %v", f, len(c.Nodes), tt.nodes)
				}
				if len(c.Nodes) == 5 && len(c.APIVIPs) != 1 {
					t.Errorf("%s: HA cluster has %d apiVIPs, want 1", f, len(c.APIVIPs))
				}
				if c.CPUPartitioningMode != "AllNodes" || c.InstallConfig == "" || len(c.ClusterLabels) != 3 {
					t.Errorf("%s: cpuPartitioningMode %q, overrides %q, %d clusterLabels",
						f, c.CPUPartitioningMode, c.InstallConfig, len(c.ClusterLabels))
				}
				for _, n := range c.Nodes {
					if len(n.NodeLabels) != 1 || n.NodeNetwork.Config == nil || n.BMCAddress == "" {
						t.Errorf("%s/%s: incomplete node", f, n.HostName)
					}
					if prev, ok := macs[n.BootMACAddress]; ok {
						t.Errorf("%s/%s: boot MAC %s already used by %s", f, n.HostName, n.BootMACAddress, prev)
					}
					macs[n.BootMACAddress] = n.HostName
					if len(n.NodeNetwork.Interfaces) != 1 || n.NodeNetwork.Interfaces[0].MACAddress != n.BootMACAddress {
						t.Errorf("%s/%s: nodeNetwork interfaces do not carry the boot MAC", f, n.HostName)
					}
				}
			}

			ents, err := os.ReadDir(filepath.Join(dir, "extra-manifests"))
			if err != nil {
				t.Fatal(err)
			}
			if len(ents) != 20 {
				t.Errorf("extra-manifests has %d files, want 20", len(ents))
			}
			for _, e := range ents {
				if strings.HasSuffix(e.Name(), ".yaml") {
					var m map[string]any
					readYAML(t, filepath.Join(dir, "extra-manifests", e.Name()), &m)
				}
			}
		})
	}
}

// TestFleetgenDeterministic checks that the same flags give the same bytes.
func TestFleetgenDeterministic(t *testing.T) {
	a, b := t.TempDir(), t.TempDir()
	generate(t, "-n", "8", "-shape", "mixed", "-out", a, "-seed", "42", "-manifests", "4")
	generate(t, "-n", "8", "-shape", "mixed", "-out", b, "-seed", "42", "-manifests", "4")
	err := filepath.WalkDir(a, func(p string, d os.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		rel, _ := filepath.Rel(a, p)
		x, _ := os.ReadFile(p)
		y, err := os.ReadFile(filepath.Join(b, rel))
		if err != nil || !bytes.Equal(x, y) {
			t.Errorf("%s differs between two runs with the same seed", rel)
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
}

func TestFleetgenFlags(t *testing.T) {
	for _, args := range [][]string{
		{"-n", "0", "-out", t.TempDir()},
		{"-n", "1", "-shape", "huge", "-out", t.TempDir()},
		{"-n", "1"},
		{"-n", "1", "-layout", "tree", "-out", t.TempDir()},
		{"-n", "1", "-format", "v2", "-out", t.TempDir()},
		{"-n", "1", "-layout", "generators", "-format", "clusterinstance", "-out", t.TempDir()},
		{"-n", "1", "-layout", "overlays", "-format", "siteconfig", "-out", t.TempDir()},
	} {
		if err := run(args, io.Discard, io.Discard); err == nil {
			t.Errorf("run(%q) succeeded, want an error", args)
		}
	}
}

// TestFleetgenLayouts runs each layout through the command line; package
// gen checks the content in depth.
func TestFleetgenLayouts(t *testing.T) {
	for _, tt := range []struct {
		args    []string
		summary string
		present []string // files that must exist
		absent  []string
	}{
		{
			args:    []string{"-layout", "files"},
			summary: "wrote 5 SiteConfigs",
			present: []string{"sno-000001.yaml"},
			absent:  []string{"kustomization.yaml"},
		},
		{
			args:    []string{"-layout", "files", "-format", "clusterinstance"},
			summary: "wrote 5 ClusterInstances",
			present: []string{"sno-000005.yaml"},
			absent:  []string{"kustomization.yaml"},
		},
		{
			args:    []string{"-layout", "generators"},
			summary: "wrote 5 SiteConfigs",
			present: []string{"sno-000001.yaml", "kustomization.yaml"},
		},
		{
			args:    []string{"-layout", "overlays"},
			summary: "wrote 5 ClusterInstance overlays",
			present: []string{"kustomization.yaml", "base/sno/clusterinstance.yaml", "regions/region-00001/kustomization.yaml",
				"regions/region-00001/sno-000001/patch-strategic.yaml", "regions/region-00001/sno-000002/patch-json6902.yaml"},
			absent: []string{"sno-000001.yaml", "base/ha"},
		},
	} {
		t.Run(strings.Join(tt.args, " "), func(t *testing.T) {
			dir := t.TempDir()
			var out bytes.Buffer
			args := append([]string{"-n", "5", "-shape", "sno", "-manifests", "2", "-out", dir}, tt.args...)
			if err := run(args, &out, &out); err != nil {
				t.Fatalf("fleetgen %q: %v\n%s", args, err, out.String())
			}
			if !strings.HasPrefix(out.String(), tt.summary) {
				t.Errorf("summary %q, want it to start with %q", out.String(), tt.summary)
			}
			for _, f := range tt.present {
				if _, err := os.Stat(filepath.Join(dir, f)); err != nil {
					t.Errorf("missing %s: %v", f, err)
				}
			}
			for _, f := range tt.absent {
				if _, err := os.Stat(filepath.Join(dir, f)); err == nil {
					t.Errorf("%s written", f)
				}
			}
		})
	}
}

func generate(t *testing.T, args ...string) {
	t.Helper()
	var out bytes.Buffer
	if err := run(args, &out, &out); err != nil {
		t.Fatalf("fleetgen %s: %v\n%s", strings.Join(args, " "), err, out.String())
	}
}

func readYAML(t *testing.T, path string, v any) {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	if err := yaml.Unmarshal(b, v); err != nil {
		t.Fatalf("parse %s: %v", path, err)
	}
}
