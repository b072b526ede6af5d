package convert

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"reflect"
	"testing"

	"github.com/siteops/siteops/internal/yamlenc"
	"github.com/siteops/siteops/render"
	"github.com/siteops/siteops/sites"
)

// corpus is a tree of SiteConfigs to convert as a whole.
type corpus struct {
	name string
	// root is the fleet root on disk; paths are loaded inside it.
	root  string
	paths []string
	// manifests is the default extra-manifest directory on disk.
	manifests string
	// optional corpora are skipped when root is absent.
	optional bool
}

// sharedConformance is the project's SiteConfig conformance set, next to
// the repository; testdata/siteconfig is a copy for where it is absent.
const sharedConformance = "../../shared/conformance/siteconfig"

var corpora = []corpus{
	{name: "examples", root: "../examples/fleet", paths: []string{"."}, manifests: "../examples/extra-manifests"},
	{name: "conformance-copy", root: "testdata/siteconfig", paths: []string{"inputs"},
		manifests: "testdata/siteconfig/fixtures/extra-manifest-default"},
	{name: "conformance-shared", root: sharedConformance, paths: []string{"inputs"},
		manifests: sharedConformance + "/fixtures/extra-manifest-default", optional: true},
}

// converted is one SiteConfig cluster with its conversion, encoded and
// loaded back.
type converted struct {
	orig   *sites.Site
	result Result
	yaml   []byte
	ci     *sites.Site
}

// convertCorpus converts every SiteConfig cluster of a corpus and checks
// that each result encodes, loads back as a ClusterInstance without any
// problem, and converts the same way twice.
func convertCorpus(t *testing.T, c corpus) (*render.Renderer, []converted) {
	t.Helper()
	if _, err := os.Stat(c.root); err != nil {
		if c.optional {
			t.Skipf("%s is absent: %v", c.root, err)
		}
		t.Fatal(err)
	}
	dir, err := sites.ReadManifestDir(os.DirFS(c.manifests), ".")
	if err != nil {
		t.Fatal(err)
	}
	r := render.New(render.WithDefaultManifests(dir))
	fleet, err := sites.Load(context.Background(), os.DirFS(c.root), c.paths)
	if err != nil {
		t.Fatal(err)
	}
	// Broken inputs (the conformance set's error cases) fail to load;
	// only what loads is converted.
	out := []converted{}
	tmp := t.TempDir()
	for _, s := range fleet.Sites {
		if s.Format == sites.FormatClusterInstance {
			continue
		}
		res, err := Convert(s, WithRenderer(r))
		if err != nil {
			t.Errorf("%s: Convert: %v", s.Name, err)
			continue
		}
		data, err := yamlenc.Marshal(res.ClusterInstance)
		if err != nil {
			t.Errorf("%s: encoding: %v", s.Name, err)
			continue
		}
		again, err := Convert(s, WithRenderer(r))
		if err != nil || !reflect.DeepEqual(res, again) {
			t.Errorf("%s: a second conversion differs (err %v)", s.Name, err)
		}
		if again, _ := yamlenc.Marshal(again.ClusterInstance); !bytes.Equal(data, again) {
			t.Errorf("%s: a second conversion encodes differently", s.Name)
		}
		name := res.Name + ".yaml"
		if err := os.WriteFile(filepath.Join(tmp, name), data, 0o644); err != nil {
			t.Fatal(err)
		}
		back, err := sites.Load(context.Background(), os.DirFS(tmp), []string{name})
		if err != nil {
			t.Fatal(err)
		}
		if len(back.Problems) > 0 || len(back.Sites) != 1 {
			t.Errorf("%s: the ClusterInstance does not load back cleanly: %d sites, problems %v\n%s", s.Name, len(back.Sites), back.Problems, data)
			continue
		}
		ci := back.Sites[0]
		if ci.Format != sites.FormatClusterInstance || ci.Name != s.Name || ci.Namespace != s.Name {
			t.Errorf("%s: loads back as %s %s/%s", s.Name, ci.Format, ci.Namespace, ci.Name)
		}
		out = append(out, converted{orig: s, result: res, yaml: data, ci: ci})
	}
	if len(out) == 0 {
		t.Fatalf("%s: no SiteConfig cluster converted", c.name)
	}
	return r, out
}

func TestConvertCorpora(t *testing.T) {
	for _, c := range corpora {
		t.Run(c.name, func(t *testing.T) {
			_, all := convertCorpus(t, c)
			for _, cv := range all {
				for _, n := range cv.result.Report {
					if n.Pos.File == "" || n.Pos.Line == 0 || n.Field == "" || n.Message == "" || n.Site != cv.orig.Name {
						t.Errorf("%s: incomplete note %+v", cv.orig.Name, n)
					}
				}
			}
			t.Logf("%d clusters converted", len(all))
		})
	}
}

// TestConvertConformanceNotes pins what the conformance set's inputs must
// report: each names a field the conversion cannot carry silently.
func TestConvertConformanceNotes(t *testing.T) {
	_, all := convertCorpus(t, corpora[1])
	want := map[string][]struct {
		field string
		kind  NoteKind
	}{
		"core-ha-01": {
			{"spec.crTemplates.KlusterletAddonConfig", ManualStep},
			{"spec.clusters[0].apiVIP", Renamed},
			{"spec.clusters[0].ingressVIP", Renamed},
			{"spec.clusters[0].biosConfigRef.filePath", ManualStep},
			{"spec.clusters[0].clusterLabels.vendor", Changed},
			{"spec.clusters[0].nodes[3].biosConfigRef.filePath", ManualStep},
		},
		"tower-e-17": {
			{"spec.crAnnotations.add.Namespace", Dropped},
			{"spec.clusters[0].crTemplates.ManagedCluster", ManualStep},
			{`spec.clusters[0].crAnnotations.add.AgentClusterInstall["argocd.argoproj.io/sync-wave"]`, Changed},
			{"spec.clusters[0].crSuppression[1]", Dropped},
		},
		"kiosk-sno-3": {
			{"spec.crAnnotations.add.ConfigMap", Dropped},
			{"spec.clusters[0].siteConfigMap", ManualStep},
		},
		"store-0143": {
			{"spec.biosConfigRef.filePath", ManualStep},
			{"spec.clusters[1].mergeDefaultMachineConfigs", ManualStep},
			{"spec.clusters[1].apiVIP", Renamed},
		},
		"store-0142":   {{"spec.clusters[0].extraManifestPath", ManualStep}},
		"lab-west-std": {{"spec.clusters[0].extraManifests", ManualStep}},
		"metro-c3":     {{"spec.clusters[0].nodes[2].ironicInspect", Renamed}},
		"sno-v6-07":    {{"spec.clusters[0].nodes[0].userData", Dropped}},
	}
	for _, cv := range all {
		for _, w := range want[cv.orig.Name] {
			found := false
			for _, n := range cv.result.Report {
				found = found || n.Field == w.field && n.Kind == w.kind
			}
			if !found {
				t.Errorf("%s: no %s note on %s", cv.orig.Name, w.kind, w.field)
			}
		}
		delete(want, cv.orig.Name)
	}
	for name := range want {
		t.Errorf("cluster %s was not converted", name)
	}
}
