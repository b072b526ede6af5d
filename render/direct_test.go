package render_test

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/siteops/siteops/hack/fleetgen/gen"
	"github.com/siteops/siteops/render"
	"github.com/siteops/siteops/sites"
)

// sameYAML renders s both ways: objects written from their typed form
// (RenderEncoded with the YAML encoder) and from their content maps
// (Render, then the encoder). The bytes must be the same. It returns the
// kinds of the objects written from their typed form.
func sameYAML(t *testing.T, r *render.Renderer, s *sites.Site) []string {
	t.Helper()
	enc, err := render.NewEncoder(render.FormatYAML)
	if err != nil {
		t.Fatal(err)
	}
	b, problems := r.Render(s)
	res := r.RenderEncoded(s, enc)
	if (b == nil) != (res.Bundle == nil) || fmt.Sprint(problems) != fmt.Sprint(res.Problems) {
		t.Fatalf("site %s: Render gave %v, RenderEncoded %v", s.Name, problems, res.Problems)
	}
	if b == nil {
		return nil
	}
	want, err := enc.Encode(nil, b)
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(res.Encoded, want) {
		t.Fatalf("site %s: written from typed objects:\n%s\nfrom content maps:\n%s", s.Name, res.Encoded, want)
	}
	var typed []string
	for i, o := range res.Bundle.Objects {
		m := b.Objects[i]
		if o.Kind != m.Kind || o.APIVersion != m.APIVersion || o.Namespace != m.Namespace || o.Name != m.Name || o.Wave != m.Wave {
			t.Errorf("site %s: object %d is %s %s wave %d, want %s %s wave %d", s.Name, i, o.APIVersion, o.Ref(), o.Wave, m.APIVersion, m.Ref(), m.Wave)
		}
		if o.Content == nil {
			typed = append(typed, o.Kind)
		}
	}
	return typed
}

// loadDir loads the site files under dir (paths relative to it) with
// the extra manifests of manifests, if set.
func loadDir(t *testing.T, dir string, paths []string, manifests string) (*render.Renderer, []*sites.Site) {
	t.Helper()
	root, err := os.OpenRoot(dir)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { root.Close() })
	var opts []render.Option
	if manifests != "" {
		md, err := sites.ReadManifestDir(root.FS(), manifests)
		if err != nil {
			t.Fatal(err)
		}
		opts = append(opts, render.WithDefaultManifests(md))
	}
	fleet, err := sites.Load(context.Background(), root.FS(), paths)
	if err != nil {
		t.Fatal(err)
	}
	return render.New(opts...), fleet.Sites
}

// Every site of the examples, of the conformance inputs (crTemplates,
// suppressions, annotations, node labels, empty lists) and of generated
// fleets writes the same YAML from its typed objects as from their
// content maps, and the typed form is used.
func TestTypedObjectsWriteTheirContent(t *testing.T) {
	conformance := filepath.Join("..", "test", "conformance", "testdata", "siteconfig")
	inputs, err := filepath.Glob(filepath.Join(conformance, "inputs", "*.yaml"))
	if err != nil || len(inputs) == 0 {
		t.Fatalf("no conformance inputs: %v", err)
	}
	var names []string
	for _, in := range inputs {
		names = append(names, filepath.Join("inputs", filepath.Base(in)))
	}
	fleets := []struct {
		name, dir, manifests string
		paths                []string
	}{
		{"examples", filepath.Join("..", "examples"), "extra-manifests", []string{"fleet"}},
		{"conformance", conformance, "fixtures/extra-manifest-default", names},
	}
	for _, shape := range gen.Shapes() {
		dir := t.TempDir()
		if _, err := gen.Generate(dir, gen.Config{Sites: 40, Shape: shape, Manifests: 5, Seed: 7}); err != nil {
			t.Fatal(err)
		}
		fleets = append(fleets, struct {
			name, dir, manifests string
			paths                []string
		}{"generated " + string(shape), dir, gen.ExtraManifestsDir, []string{"."}})
	}
	for _, f := range fleets {
		t.Run(f.name, func(t *testing.T) {
			r, ss := loadDir(t, f.dir, f.paths, f.manifests)
			if len(ss) == 0 {
				t.Fatal("no sites")
			}
			typed := map[string]bool{}
			for _, s := range ss {
				for _, kind := range sameYAML(t, r, s) {
					typed[kind] = true
				}
			}
			// Every site of these fleets has static networking.
			for _, kind := range []string{render.KindNamespace, render.KindClusterDeployment, render.KindBareMetalHost, render.KindNMStateConfig} {
				if !typed[kind] {
					t.Errorf("no %s was written from its typed form (%v were)", kind, typed)
				}
			}
		})
	}
}

// crAnnotations that meet the generated ones (the sync wave, the ZTP
// annotation, the inspection annotation that only "disabled" may keep, a
// node label's annotation, the ManagedCluster's labels set by the site)
// give the same objects written either way: renderMap compares them.
func TestTypedObjectsTakeCrAnnotationsAsMaps(t *testing.T) {
	add := "  crAnnotations:\n    add:\n" +
		"      BareMetalHost: {inspect.metal3.io: enabled, argocd.argoproj.io/sync-wave: \"9\", bmac.agent-install.openshift.io.node-label.x: \"y\"}\n" +
		"      ClusterDeployment: {ran.openshift.io/ztp-gitops-generated: '{}', note: \"\"}\n" +
		"      ManagedCluster: {vendor: x}\n"
	for name, files := range map[string]map[string]string{
		"inspection enabled by crAnnotations": everyKindSite(add, ""),
		"inspection disabled by the node":     everyKindSite(add, "      ironicInspect: disabled\n      nodeLabels: {x: z}\n"),
	} {
		t.Run(name, func(t *testing.T) {
			files["site.yaml"] = strings.Replace(files["site.yaml"], "  - clusterName: c1\n", "  - clusterName: c1\n    clusterLabels: {vendor: OpenShift}\n", 1)
			b, problems := renderMap(t, files, "")
			if b == nil {
				t.Fatalf("not rendered: %v", problems)
			}
		})
	}
}

// The objects of RenderEncoded's bundle read as Render's to this
// package's functions that read content: the JSON encoder, the discovery
// Ignition and the NMStateConfig selector.
func TestTypedObjectsReadAsTheirContent(t *testing.T) {
	dir := t.TempDir()
	if _, err := gen.Generate(dir, gen.Config{Sites: 12, Shape: gen.ShapeMixed, Manifests: 3, Seed: 3}); err != nil {
		t.Fatal(err)
	}
	r, ss := loadDir(t, dir, []string{"."}, gen.ExtraManifestsDir)
	yamlEnc, _ := render.NewEncoder(render.FormatYAML)
	jsonEnc, _ := render.NewEncoder(render.FormatJSON)
	byKind := func(b *render.Bundle, kind string) []*render.Object {
		var out []*render.Object
		for _, o := range b.Objects {
			if o.Kind == kind {
				out = append(out, o)
			}
		}
		return out
	}
	for _, s := range ss {
		b, _ := r.Render(s)
		res := r.RenderEncoded(s, yamlEnc)
		if b == nil || res.Bundle == nil {
			t.Fatalf("site %s did not render", s.Name)
		}
		want, err := jsonEnc.Encode(nil, b)
		if err != nil {
			t.Fatal(err)
		}
		if got, err := jsonEnc.Encode(nil, res.Bundle); err != nil || !bytes.Equal(got, want) {
			t.Errorf("site %s: JSON of the typed objects (%v):\n%s\nwant\n%s", s.Name, err, got, want)
		}
		ies, typedIEs := byKind(b, render.KindInfraEnv), byKind(res.Bundle, render.KindInfraEnv)
		nms, typedNMs := byKind(b, render.KindNMStateConfig), byKind(res.Bundle, render.KindNMStateConfig)
		if len(ies) != 1 || len(typedIEs) != 1 || typedIEs[0].Content != nil || len(nms) == 0 || len(nms) != len(typedNMs) {
			t.Fatalf("site %s: %d and %d InfraEnvs, %d and %d NMStateConfigs, want one InfraEnv written typed", s.Name, len(ies), len(typedIEs), len(nms), len(typedNMs))
		}
		for i := range nms {
			if !render.NMStateSelectorMatches(typedIEs[0], typedNMs[i]) || !render.NMStateSelectorMatches(ies[0], nms[i]) {
				t.Errorf("site %s: NMStateConfig %s not selected", s.Name, nms[i].Name)
			}
		}
		d, err := render.DiscoveryIgnition(ies[0], nms)
		if err != nil {
			t.Fatal(err)
		}
		typed, err := render.DiscoveryIgnition(typedIEs[0], typedNMs)
		if err != nil {
			t.Fatal(err)
		}
		if !bytes.Equal(typed.JSON, d.JSON) {
			t.Errorf("site %s: discovery Ignition of the typed objects differs:\n%s\nwant\n%s", s.Name, typed.JSON, d.JSON)
		}
	}
}

// An NMStateConfig's content holds a copy of the site's nmstate document:
// editing the one leaves the other as it was.
func TestNMStateContentIsACopy(t *testing.T) {
	dir := t.TempDir()
	if _, err := gen.Generate(dir, gen.Config{Sites: 1, Shape: gen.ShapeSNO, Seed: 5}); err != nil {
		t.Fatal(err)
	}
	r, ss := loadDir(t, dir, []string{"."}, "")
	site := ss[0].Cluster.Nodes[0].NodeNetwork.Config
	for _, c := range []struct {
		name   string
		render func(*sites.Site) (*render.Bundle, sites.Problems)
	}{{"Render", r.Render}, {"RenderTyped", r.RenderTyped}} {
		t.Run(c.name, func(t *testing.T) {
			b, problems := c.render(ss[0])
			if b == nil {
				t.Fatalf("not rendered: %v", problems)
			}
			for _, o := range b.Objects {
				if o.Kind != render.KindNMStateConfig {
					continue
				}
				if typed := o.Content == nil; typed != (c.name == "RenderTyped") {
					t.Fatalf("%s: Content nil is %v", c.name, typed)
				}
				content := o.Map()
				config, ok := content["spec"].(map[string]any)["config"].(map[string]any)
				if !ok || len(site) == 0 {
					t.Fatalf("no nmstate document: %v, site %v", content["spec"], site)
				}
				config["edited"] = true
				if _, ok := site["edited"]; ok {
					t.Error("editing the content edited the site's nmstate document")
				}
				// Built once: a second read is the same map.
				if again, _ := o.Map()["spec"].(map[string]any)["config"].(map[string]any); again["edited"] != true {
					t.Error("a second Map built the content again")
				}
				return
			}
			t.Fatal("no NMStateConfig")
		})
	}
}

// The render command's encoder, the YAML encoder behind Redacting, writes
// objects from their typed form too; the JSON encoder does not.
func TestRedactingYAMLWritesTyped(t *testing.T) {
	r, ss := loadDir(t, filepath.Join("..", "examples"), []string{"fleet"}, "extra-manifests")
	yamlEnc, _ := render.NewEncoder(render.FormatYAML)
	jsonEnc, _ := render.NewEncoder(render.FormatJSON)
	for _, c := range []struct {
		format render.Encoder
		want   bool
	}{{yamlEnc, true}, {jsonEnc, false}} {
		typed := false
		for _, o := range r.RenderEncoded(ss[0], render.Redacting(c.format)).Bundle.Objects {
			typed = typed || o.Content == nil
		}
		if typed != c.want {
			t.Errorf("%s behind Redacting: objects written typed: %v, want %v", c.format.Ext(), typed, c.want)
		}
	}
}

// A BareMetalHost's BMC facts read from its typed form are the ones its
// content map gives: every generated shape, inspection and certificate
// verification as the templates set them.
func TestBareMetalHostBMCReadsAsItsContent(t *testing.T) {
	for _, shape := range []gen.Shape{gen.ShapeSNO, gen.ShapeHA} {
		dir := t.TempDir()
		if _, err := gen.Generate(dir, gen.Config{Sites: 3, Shape: shape, Seed: 9}); err != nil {
			t.Fatal(err)
		}
		r, ss := loadDir(t, dir, []string{"."}, "")
		for _, s := range ss {
			typed, _ := r.RenderTyped(s)
			maps, _ := r.Render(s)
			if typed == nil || maps == nil || len(typed.Objects) != len(maps.Objects) {
				t.Fatalf("%s: bundles differ", s.Name)
			}
			hosts := 0
			for i, o := range typed.Objects {
				if o.Kind != render.KindBareMetalHost {
					continue
				}
				if o.Content != nil {
					t.Fatalf("%s: %s was not written typed", s.Name, o.Ref())
				}
				hosts++
				h1, d1, s1 := render.BareMetalHostBMC(o)
				h2, d2, s2 := render.BareMetalHostBMC(maps.Objects[i])
				if h1 != h2 || d1 != d2 || s1 != s2 {
					t.Errorf("%s: typed (%q, %v, %v), map (%q, %v, %v)", o.Ref(), h1, d1, s1, h2, d2, s2)
				}
			}
			if hosts == 0 {
				t.Fatalf("%s: no BareMetalHost", s.Name)
			}
		}
	}
}
