package policy

import (
	"encoding/json"
	"path/filepath"
	"strings"
	"testing"

	"github.com/open-policy-agent/opa/v1/ast"
	"sigs.k8s.io/yaml"

	"github.com/siteops/siteops/render"
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
			doc := newView(s, bundles[s.Name], true).value(nil, true)
			js, err := ast.JSON(doc)
			if err != nil {
				t.Fatal(err)
			}
			got, err := yaml.Marshal(js)
			if err != nil {
				t.Fatal(err)
			}
			golden(t, filepath.Join("testdata", "input-"+tt.name+".golden.yaml"), got)
		})
	}
}

func TestInputNeeds(t *testing.T) {
	tests := []struct {
		src  string
		want needs
	}{
		{"package p\nx if input.site.name", needs{}},
		{"package p\nx if input.objects[_].kind == \"BareMetalHost\"", needs{objects: true}},
		{"package p\nx if input.positions[\"spec\"]", needs{positions: true}},
		{"package p\nx if input.site.discovery[_].bytes > 1", needs{discovery: true}},
		{"package p\nx if input.site[k]", needs{discovery: true}},
		{"package p\nx := input.site", needs{discovery: true}},
		{"package p\nx if input[k]", needs{true, true, true}},
		{"package p\nx := input", needs{true, true, true}},
	}
	for _, tt := range tests {
		c := ast.MustCompileModules(map[string]string{"p.rego": tt.src})
		if got := inputNeeds(c); got != tt.want {
			t.Errorf("%q: needs %+v, want %+v", tt.src, got, tt.want)
		}
	}
	// The built-in library reads neither the objects nor the positions:
	// they cost most to build.
	e := testEngine(t)
	if e.needs.objects || e.needs.positions || !e.needs.discovery {
		t.Errorf("the built-in library needs %+v, want the discovery Ignition only", e.needs)
	}
}

func TestFleetData(t *testing.T) {
	fleet, bundles := loadFixture(t, "rules/testdata/ztp.nodes.mac-unique", "bad.yaml")
	var all []siteFacts
	for _, s := range fleet.Sites {
		all = append(all, siteFacts{site: s.Name, facts: newView(s, bundles[s.Name], false).facts()})
	}
	js, err := ast.JSON(fleetData(all, []string{"east", "north", "west"}))
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

// TestDiscoveryInput checks input.site.discovery: the packed size is
// computed only when it may matter, and a config that cannot be built
// says why instead of stopping the check.
func TestDiscoveryInput(t *testing.T) {
	for _, tt := range []struct {
		name, dir, file string
		archive         bool   // archiveBytes computed
		overLimit       bool   // and over the limit
		err             string // error contains
	}{
		{name: "usual site: bound under the warning threshold", dir: "rules/testdata/ztp.network.vips-required", file: "good.yaml"},
		{name: "large override", dir: "rules/testdata/ztp.infraenv.discovery-ignition-size", file: "bad.yaml", archive: true, overLimit: true},
		{name: "near the limit", dir: "rules/testdata/ztp.infraenv.discovery-ignition-size-warning", file: "bad.yaml", archive: true},
		{name: "override that does not parse", dir: "rules/testdata/ztp.overrides.ignition-valid", file: "bad.yaml", err: "ignitionConfigOverride does not parse"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			fleet, bundles := loadFixture(t, tt.dir, tt.file)
			s := fleet.Sites[0]
			v := newView(s, bundles[s.Name], true)
			if len(v.discovery) != 1 {
				t.Fatalf("%d discovery entries, want one per InfraEnv", len(v.discovery))
			}
			d := v.discovery[0]
			switch {
			case tt.err != "":
				if !strings.Contains(d.err, tt.err) || d.bytes != 0 {
					t.Errorf("entry %+v, want error containing %q", d, tt.err)
				}
				return
			case d.err != "":
				t.Fatalf("error %s", d.err)
			case d.bytes <= 0 || d.bound < d.bytes/2:
				t.Errorf("entry %+v: sizes missing", d)
			case (d.archive >= 0) != tt.archive:
				t.Errorf("archive %d computed = %v, want %v", d.archive, d.archive >= 0, tt.archive)
			case tt.archive && (d.archive > render.DiscoveryIgnitionLimit) != tt.overLimit:
				t.Errorf("archive %d over the limit = %v, want %v", d.archive, !tt.overLimit, tt.overLimit)
			case tt.archive && d.archive > d.bound:
				t.Errorf("archive %d over its bound %d", d.archive, d.bound)
			}
			if newView(s, bundles[s.Name], false).discovery != nil {
				t.Error("discovery built when no policy reads it")
			}
		})
	}
}

// TestValueConvertsAsOPA holds terms.value to ast.InterfaceToValue on the
// values the site decoder gives (nmstate documents, root device hints).
func TestValueConvertsAsOPA(t *testing.T) {
	for _, x := range []any{
		nil, "", "eth0", true, false, 0, 24, int64(-3), uint64(1 << 63), 1.5, 1e21, 2.0,
		map[string]any{},
		[]any{},
		map[string]any{"interfaces": []any{
			map[string]any{"name": "eth0", "type": "ethernet", "state": "up", "mtu": 9000,
				"ipv4": map[string]any{"enabled": true, "address": []any{map[string]any{"ip": "10.0.0.2", "prefix-length": 24}}},
				"ipv6": map[string]any{"enabled": false, "token": nil}},
		}, "dns-resolver": map[string]any{"config": map[string]any{"server": []any{"10.0.0.1", "fd00::1"}}},
			"routes": map[string]any{"config": []any{map[string]any{"destination": "0.0.0.0/0", "metric": 0.5}}}},
		map[string]any{"deviceName": "/dev/sda", "minSizeGigabytes": 120, "rotational": false},
	} {
		want, err := ast.InterfaceToValue(x)
		if err != nil {
			t.Fatal(err)
		}
		var b terms
		got := b.value(x)
		if got.Value.Compare(want) != 0 || got.String() != want.String() {
			t.Errorf("value(%#v) = %v, InterfaceToValue gives %v", x, got, want)
		}
	}
}
