package policy

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"testing"
	"testing/fstest"

	"github.com/open-policy-agent/opa/v1/ast"

	"github.com/siteops/siteops/render"
	"github.com/siteops/siteops/sites"
)

// FuzzInputDocument builds the input document rules see from arbitrary
// site files: every site that loads and renders gives a document that
// converts to JSON, names its site, and yields its fleet facts, without a
// panic. Seeds are the rule fixtures.
func FuzzInputDocument(f *testing.F) {
	seeds, _ := filepath.Glob(filepath.Join("rules", "testdata", "*", "*.yaml"))
	for _, p := range seeds {
		if data, err := os.ReadFile(p); err == nil {
			f.Add(data)
		}
	}
	r := render.New()
	f.Fuzz(func(t *testing.T, data []byte) {
		fleet, err := sites.Load(context.Background(), fstest.MapFS{"site.yaml": {Data: data}}, []string{"site.yaml"})
		if err != nil {
			return
		}
		for _, s := range fleet.Sites {
			b, _ := r.Render(s)
			objects, err := objectsTerm(b)
			if err != nil {
				t.Fatalf("site %s: objects: %v", s.Name, err)
			}
			v := newView(s, b, true)
			doc := v.value(objects, true)
			js, err := ast.JSON(doc)
			if err != nil {
				t.Fatalf("site %s: the input is not JSON: %v", s.Name, err)
			}
			if _, err := json.Marshal(js); err != nil {
				t.Fatalf("site %s: %v", s.Name, err)
			}
			in, ok := js.(map[string]any)
			site, _ := in["site"].(map[string]any)
			if !ok || site["name"] != s.Name {
				t.Fatalf("site %s: input.site.name is %v", s.Name, site["name"])
			}
			_ = v.facts()
		}
	})
}
