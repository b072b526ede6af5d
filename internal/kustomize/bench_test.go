package kustomize

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/siteops/siteops/hack/fleetgen/gen"
	yamlv2 "go.yaml.in/yaml/v2"
	"sigs.k8s.io/kustomize/api/provider"
)

const (
	benchSites   = 1000
	benchRegions = 10
)

// overlayFleet is the kustomize layout of a fleet: one base
// ClusterInstance, one overlay per site patching its name, MAC and
// addresses, the sites grouped in region directories, each with a
// kustomization listing its sites, and a top kustomization listing the
// regions.
func overlayFleet(sites, regions int) map[string]string {
	files := map[string]string{
		"base/kustomization.yaml":   kust("resources:\n- clusterinstance.yaml\n"),
		"base/clusterinstance.yaml": ciBase,
	}
	var top strings.Builder
	top.WriteString(kust("resources:\n"))
	region := make([]strings.Builder, regions)
	for r := range regions {
		fmt.Fprintf(&top, "- regions/r%02d\n", r)
		region[r].WriteString(kust("resources:\n"))
	}
	for i := range sites {
		r := i % regions
		name := fmt.Sprintf("site-%04d", i)
		fmt.Fprintf(&region[r], "- %s\n", name)
		files[fmt.Sprintf("regions/r%02d/%s/kustomization.yaml", r, name)] = kust(fmt.Sprintf(`resources:
- ../../../base
patches:
- patch: |-
    apiVersion: siteconfig.open-cluster-management.io/v1alpha1
    kind: ClusterInstance
    metadata:
      name: base
      namespace: base
    spec:
      baseDomain: %[1]s.example.com
      machineNetwork:
      - cidr: 10.%[2]d.%[3]d.0/24
      apiVIPs:
      - 10.%[2]d.%[3]d.5
- target:
    kind: ClusterInstance
  patch: |-
    - op: replace
      path: /metadata/name
      value: %[1]s
    - op: replace
      path: /metadata/namespace
      value: %[1]s
    - op: replace
      path: /spec/clusterName
      value: %[1]s
    - op: replace
      path: /spec/nodes/0/bootMACAddress
      value: "0c:42:a1:00:%02[2]x:%02[3]x"
    - op: replace
      path: /spec/nodes/0/bmcAddress
      value: redfish-virtualmedia://10.%[2]d.%[3]d.10/redfish/v1/Systems/1
`, name, i/256, i%256))
	}
	for r := range regions {
		files[fmt.Sprintf("regions/r%02d/kustomization.yaml", r)] = region[r].String()
	}
	files["kustomization.yaml"] = top.String()
	return files
}

// generatorFleet is the ZTP layout: one kustomization listing a SiteConfig
// file per site under generators:.
func generatorFleet(sites int) map[string]string {
	files := map[string]string{}
	var k strings.Builder
	k.WriteString(kust("generators:\n"))
	for i := range sites {
		name := fmt.Sprintf("site-%04d", i)
		fmt.Fprintf(&k, "- %s.yaml\n", name)
		files[name+".yaml"] = siteConfig(name)
	}
	files["kustomization.yaml"] = k.String()
	return files
}

// resourceFleet is one kustomization listing a ClusterInstance file per
// site under resources: (the case kustomize handles in quadratic time).
func resourceFleet(sites int) map[string]string {
	files := map[string]string{}
	var k strings.Builder
	k.WriteString(kust("resources:\n"))
	for i := range sites {
		name := fmt.Sprintf("site-%04d", i)
		fmt.Fprintf(&k, "- %s.yaml\n", name)
		files[name+".yaml"] = strings.ReplaceAll(ciBase, "base", name)
	}
	files["kustomization.yaml"] = k.String()
	return files
}

func BenchmarkBuild(b *testing.B) {
	cases := []struct {
		name   string
		files  map[string]string
		docs   int
		gens   int
		cached bool
	}{
		{"overlays", overlayFleet(benchSites, benchRegions), benchSites, 0, false},
		{"overlays-cached", overlayFleet(benchSites, benchRegions), benchSites, 0, true},
		{"generators", generatorFleet(benchSites), 0, benchSites, false},
		{"resources", resourceFleet(benchSites), benchSites, 0, false},
	}
	for _, c := range cases {
		b.Run(c.name, func(b *testing.B) {
			fsys := rootFS(b, writeTree(b, c.files))
			var opts []Option
			if c.cached {
				opts = append(opts, WithCache(NewCache()))
				if _, err := Build(context.Background(), fsys, ".", opts...); err != nil {
					b.Fatal(err)
				}
			}
			b.ResetTimer()
			for b.Loop() {
				r, err := Build(context.Background(), fsys, ".", opts...)
				if err != nil {
					b.Fatal(err)
				}
				if len(r.Documents) != c.docs || len(r.SiteConfigGenerators) != c.gens {
					b.Fatalf("%d documents and %d generators, want %d and %d", len(r.Documents), len(r.SiteConfigGenerators), c.docs, c.gens)
				}
			}
			b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N)/benchSites, "ns/site")
		})
	}
}

// BenchmarkKrustyRegion is the reference point: plain krusty building one
// region of 100 site overlays from disk.
func BenchmarkKrustyRegion(b *testing.B) {
	root := writeTree(b, overlayFleet(benchSites, benchRegions))
	sites := benchSites / benchRegions
	for b.Loop() {
		if got := len(reference(b, root, filepath.Join("regions", "r00"))); got != sites {
			b.Fatalf("%d documents, want %d", got, sites)
		}
	}
	b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N)/float64(sites), "ns/site")
}

// haOverlay is fleetgen's HA base ClusterInstance and the patches of two
// of its site overlays (one strategic-merge, one JSON 6902).
func haOverlay(b *testing.B) (base, smPatch, jsonPatch []byte) {
	b.Helper()
	root := b.TempDir()
	cfg := gen.Config{Sites: 2, Shape: gen.ShapeHA, Layout: gen.LayoutOverlays, Format: gen.FormatClusterInstance, Manifests: 2, Seed: 1}
	if _, err := gen.Generate(root, cfg); err != nil {
		b.Fatal(err)
	}
	read := func(pattern string) []byte {
		m, err := filepath.Glob(filepath.Join(root, pattern))
		if err != nil || len(m) != 1 {
			b.Fatalf("%s: %v %v", pattern, m, err)
		}
		data, err := os.ReadFile(m[0])
		if err != nil {
			b.Fatal(err)
		}
		return data
	}
	return read("base/ha/clusterinstance.yaml"), read("regions/*/*/patch-strategic.yaml"), read("regions/*/*/patch-json6902.yaml")
}

// BenchmarkOverlayParts measures the parts of an HA site overlay the
// native path does itself, each beside what kustomize does for it:
// reading a patch file, reading a JSON patch, merging a patch (copying
// the object included), writing the output object.
func BenchmarkOverlayParts(b *testing.B) {
	base, smPatch, jsonPatch := haOverlay(b)
	rf := provider.NewDepProvider().GetResourceFactory()
	bld := &builder{rf: rf}
	b.Run("read-patch/native", func(b *testing.B) {
		for b.Loop() {
			if _, err := bld.sliceFromBytes(smPatch); err != nil {
				b.Fatal(err)
			}
		}
	})
	b.Run("read-patch/kustomize", func(b *testing.B) {
		for b.Loop() {
			if _, err := rf.SliceFromBytes(smPatch); err != nil {
				b.Fatal(err)
			}
		}
	})
	b.Run("read-json-patch/native", func(b *testing.B) {
		for b.Loop() {
			if parseJSONPatch(string(jsonPatch)) == nil {
				b.Fatal("not read")
			}
		}
	})
	b.Run("read-json-patch/yaml", func(b *testing.B) {
		for b.Loop() {
			if readJSONPatch(string(jsonPatch)) == nil {
				b.Fatal("not read")
			}
		}
	})
	rs, err := rf.SliceFromBytes(base)
	if err != nil {
		b.Fatal(err)
	}
	patches, err := rf.SliceFromBytes(smPatch)
	if err != nil {
		b.Fatal(err)
	}
	patch := patches[0]
	patch.AllowNameChange()
	// kustomize reads its built-in schemas on first use.
	smMergeable(rs[0], patch, true)
	b.Run("merge-patch/native", func(b *testing.B) {
		for b.Loop() {
			obj := rs[0].DeepCopy()
			if !smMergeable(obj, patch, true) {
				b.Fatal("left to kustomize")
			}
			applySmPatch(obj, patch, true)
		}
	})
	b.Run("merge-patch/kustomize", func(b *testing.B) {
		for b.Loop() {
			obj := rs[0].DeepCopy()
			if err := obj.ApplySmPatch(patch.DeepCopy()); err != nil {
				b.Fatal(err)
			}
		}
	})
	v, ok := jsonValue(rs[0].RNode.YNode())
	if !ok {
		b.Fatal("base not converted")
	}
	m := v.(map[string]any)
	b.Run("write-object/native", func(b *testing.B) {
		for b.Loop() {
			if _, ok := writeV2(m); !ok {
				b.Fatal("left to yaml/v2")
			}
		}
	})
	b.Run("write-object/yaml.v2", func(b *testing.B) {
		for b.Loop() {
			if _, err := yamlv2.Marshal(m); err != nil {
				b.Fatal(err)
			}
		}
	})
}
