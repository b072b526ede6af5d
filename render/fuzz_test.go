package render_test

import (
	"bytes"
	"context"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"testing/fstest"

	"github.com/siteops/siteops/render"
	"github.com/siteops/siteops/sites"
)

// conformanceFixtures is the directory the SiteConfig conformance inputs
// refer to (crTemplates, BIOS profiles, extra manifests).
const conformanceFixtures = "../test/conformance/testdata/siteconfig"

// FuzzRender renders whatever loads: SiteConfigs with the conformance
// fixtures next to them, and ClusterInstances. Nothing may panic; a site
// renders to a bundle that encodes, or to problems that name its file.
func FuzzRender(f *testing.F) {
	fixtures := fstest.MapFS{}
	root := os.DirFS(conformanceFixtures)
	err := fs.WalkDir(root, "fixtures", func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		data, err := fs.ReadFile(root, p)
		fixtures[p] = &fstest.MapFile{Data: data}
		return err
	})
	if err != nil {
		f.Fatal(err)
	}
	for _, glob := range []string{conformanceFixtures + "/inputs/*.yaml", "../test/conformance/testdata/clusterinstance/inputs/*.yaml"} {
		paths, _ := filepath.Glob(glob)
		if len(paths) == 0 {
			f.Fatalf("no seeds match %s", glob)
		}
		for _, p := range paths {
			data, err := os.ReadFile(p)
			if err != nil {
				f.Fatal(err)
			}
			f.Add(data)
		}
	}
	f.Add([]byte(fieldSite))
	defaults, err := sites.ReadManifestDir(fixtures, "fixtures/extra-manifest-default")
	if err != nil {
		f.Fatal(err)
	}
	r := render.New(render.WithDefaultManifests(defaults))
	enc, _ := render.NewEncoder(render.FormatYAML)
	f.Fuzz(func(t *testing.T, data []byte) {
		fsys := fstest.MapFS{"site.yaml": &fstest.MapFile{Data: data}}
		for p, file := range fixtures {
			fsys[p] = file
		}
		fleet, err := sites.Load(context.Background(), fsys, []string{"site.yaml"})
		if err != nil {
			t.Fatal(err)
		}
		for _, s := range fleet.Sites {
			res := r.RenderEncoded(s, enc)
			// Objects written from their typed form give the bytes of
			// their content maps.
			if b, _ := r.Render(s); b != nil {
				want, err := enc.Encode(nil, b)
				switch {
				case (err == nil) != (res.Bundle != nil):
					t.Errorf("site %s: the content maps encode with error %v; written typed: %v", s.Name, err, res.Problems)
				case err == nil && !bytes.Equal(want, res.Encoded):
					t.Errorf("site %s: written typed:\n%s\nfrom the content maps:\n%s", s.Name, res.Encoded, want)
				}
			}
			for _, p := range res.Problems {
				if p.Pos.File == "" || p.Message == "" {
					t.Errorf("problem without a file or message: %+v", p)
				}
			}
			if res.Bundle == nil {
				if !res.Problems.HasErrors() {
					t.Errorf("site %s: no bundle and no error", s.Name)
				}
				continue
			}
			// A host without hostName renders nameless objects, as the
			// generator does (the policies refuse it), so only kind and
			// apiVersion are always there.
			for _, o := range res.Bundle.Objects {
				if o.Kind == "" || o.APIVersion == "" {
					t.Errorf("site %s: object without kind or apiVersion: %v", s.Name, o.Content)
				}
			}
			if len(res.Bundle.Objects) > 0 && !strings.HasPrefix(string(res.Encoded), "---\n") {
				t.Errorf("site %s: encoded bundle %q", s.Name, clipText(res.Encoded))
			}
		}
	})
}

func clipText(b []byte) string {
	if len(b) > 80 {
		return string(b[:80]) + "..."
	}
	return string(b)
}
