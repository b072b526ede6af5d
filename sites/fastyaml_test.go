package sites_test

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"path/filepath"
	"testing"

	"github.com/siteops/siteops/hack/fleetgen/gen"
	"github.com/siteops/siteops/render"
	"github.com/siteops/siteops/sites"
)

// Every fleet layout hack/fleetgen writes, in every format and shape,
// renders to the same bytes and the same problems whether its files are
// read by internal/blockyaml or by yaml.v3 alone.
func TestFastYAMLRendersTheSame(t *testing.T) {
	for _, layout := range gen.Layouts() {
		for _, format := range gen.Formats() {
			if gen.CheckLayout(layout, format) != nil {
				continue
			}
			for _, shape := range gen.Shapes() {
				t.Run(fmt.Sprintf("%s/%s/%s", layout, format, shape), func(t *testing.T) {
					dir := t.TempDir()
					cfg := gen.Config{Sites: 16, Shape: shape, Manifests: 20, Seed: 5, Layout: layout, Format: format}
					if _, err := gen.Generate(dir, cfg); err != nil {
						t.Fatal(err)
					}
					fast := renderFleet(t, dir, true)
					slow := renderFleet(t, dir, false)
					if !bytes.Equal(fast, slow) {
						t.Fatalf("the output differs with internal/blockyaml:\n%s", firstDifference(fast, slow))
					}
				})
			}
		}
	}
}

// renderFleet streams the fleet in dir through the renderer, as siteops
// render does, and returns the output followed by every problem.
func renderFleet(t *testing.T, dir string, fastYAML bool) []byte {
	t.Helper()
	defer sites.SetFastYAML(sites.SetFastYAML(fastYAML))
	root, err := os.OpenRoot(dir)
	if err != nil {
		t.Fatal(err)
	}
	defer root.Close()
	md, err := sites.ReadManifestDir(root.FS(), gen.ExtraManifestsDir)
	if err != nil {
		t.Fatal(err)
	}
	r := render.New(render.WithDefaultManifests(md))
	enc, _ := render.NewEncoder(render.FormatYAML)
	var out, problems bytes.Buffer
	w := render.NewStreamWriter(&out, enc)
	rendered := 0
	err = sites.Stream(context.Background(), root.FS(), []string{"."}, func(s *sites.Site) any { return r.RenderEncoded(s, enc) },
		func(it sites.Item) error {
			for _, p := range it.Problems {
				fmt.Fprintln(&problems, p.Error())
			}
			if it.Site == nil {
				return nil
			}
			res := it.Result.(render.Result)
			for _, p := range res.Problems {
				fmt.Fprintln(&problems, p.Error())
			}
			rendered++
			return w.WriteResult(res)
		})
	if err != nil {
		t.Fatal(err)
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	if rendered == 0 {
		t.Fatalf("no site rendered from %s: %s", filepath.Base(dir), problems.String())
	}
	return append(out.Bytes(), problems.Bytes()...)
}

func firstDifference(a, b []byte) string {
	i := 0
	for i < len(a) && i < len(b) && a[i] == b[i] {
		i++
	}
	from := max(0, i-200)
	return fmt.Sprintf("at byte %d:\nwith:    %q\nwithout: %q", i, a[from:min(len(a), i+200)], b[from:min(len(b), i+200)])
}
