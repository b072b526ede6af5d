package policy

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"testing"

	"github.com/open-policy-agent/opa/v1/ast"
	"sigs.k8s.io/yaml"
)

// TestInputDocument pins the input document that rules see, for one site
// of each format (without the rendered objects, which are render's
// output as they are): user policies depend on its shape, so a change
// must show in a golden diff. go test ./policy -run TestInputDocument
// -update rewrites testdata/input-*.golden.yaml.
func TestInputDocument(t *testing.T) {
	for _, tt := range []struct{ name, dir string }{
		{"siteconfig", "rules/testdata/ztp.network.vips-required"},
		{"clusterinstance", "rules/testdata/ztp.overrides.install-config-valid"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			fleet, bundles := loadFixture(t, tt.dir, "good.yaml")
			if len(fleet.Sites) != 1 {
				t.Fatalf("%d sites, problems %v", len(fleet.Sites), fleet.Problems)
			}
			s := fleet.Sites[0]
			doc := newView(s, bundles[s.Name]).value(nil, true)
			js, err := ast.JSON(doc)
			if err != nil {
				t.Fatal(err)
			}
			got, err := yaml.Marshal(js)
			if err != nil {
				t.Fatal(err)
			}
			golden := filepath.Join("testdata", "input-"+tt.name+".golden.yaml")
			if *update {
				if err := os.MkdirAll("testdata", 0o755); err != nil {
					t.Fatal(err)
				}
				if err := os.WriteFile(golden, got, 0o644); err != nil {
					t.Fatal(err)
				}
				return
			}
			want, err := os.ReadFile(golden)
			if err != nil {
				t.Fatal(err)
			}
			if !bytes.Equal(got, want) {
				t.Errorf("input document differs from %s (run with -update and review the diff):\n%s", golden, got)
			}
		})
	}
}

func TestInputNeeds(t *testing.T) {
	tests := []struct {
		src                string
		objects, positions bool
	}{
		{"package p\nx if input.site.name", false, false},
		{"package p\nx if input.objects[_].kind == \"BareMetalHost\"", true, false},
		{"package p\nx if input.positions[\"spec\"]", false, true},
		{"package p\nx if input[k]", true, true},
		{"package p\nx := input", true, true},
	}
	for _, tt := range tests {
		c := ast.MustCompileModules(map[string]string{"p.rego": tt.src})
		if o, p := inputNeeds(c); o != tt.objects || p != tt.positions {
			t.Errorf("%q: objects %v positions %v, want %v %v", tt.src, o, p, tt.objects, tt.positions)
		}
	}
	// The built-in library needs neither: they cost most to build.
	e := testEngine(t)
	if e.needObjects || e.needPositions {
		t.Errorf("the built-in library reads input.objects (%v) or input.positions (%v)", e.needObjects, e.needPositions)
	}
}

func TestFleetData(t *testing.T) {
	fleet, bundles := loadFixture(t, "rules/testdata/ztp.nodes.mac-unique", "bad.yaml")
	var views []*view
	for _, s := range fleet.Sites {
		views = append(views, newView(s, bundles[s.Name]))
	}
	js, err := ast.JSON(fleetData(views, []string{"east", "north", "west"}))
	if err != nil {
		t.Fatal(err)
	}
	data := js.(map[string]any)
	uses := data["macs"].(map[string]any)["0a:5e:00:01:01:00"].([]any)
	if len(uses) != 4 {
		t.Fatalf("uses of the shared MAC: %v", uses)
	}
	first := uses[0].(map[string]any)
	if first["site"] != "east" || first["node"] != "spec.clusters[0].nodes[0]" ||
		first["field"] != "spec.clusters[0].nodes[0].bootMACAddress" || first["pos"] != "bad.yaml:32:11" {
		t.Errorf("first use: %v", first)
	}
	shared := data["shared"].(map[string]any)
	if n := shared["macs"].(map[string]any)["0a:5e:00:01:01:00"]; n != json.Number("2") {
		t.Errorf("shared.macs = %v, want 2 nodes for the MAC", shared["macs"])
	}
	// One node listing its MAC twice is not shared: the rule sees that locally.
	if _, ok := shared["macs"].(map[string]any)["0a:5e:00:03:01:00"]; ok {
		t.Errorf("a MAC of one node is listed as shared: %v", shared["macs"])
	}
	if names := data["clusterNames"].(map[string]any); len(names) != 3 || len(shared["clusterNames"].(map[string]any)) != 0 {
		t.Errorf("clusterNames %v, shared %v", names, shared["clusterNames"])
	}
	if sites := data["sites"].([]any); len(sites) != 3 || sites[0] != "east" {
		t.Errorf("sites: %v", sites)
	}
}
