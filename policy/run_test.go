package policy

import (
	"context"
	"path/filepath"
	"slices"
	"sync"
	"testing"

	"github.com/open-policy-agent/opa/v1/ast"

	"github.com/siteops/siteops/policy/report"
	"github.com/siteops/siteops/sites"
)

// TestRunStreams checks a fleet through a Run, site by site from several
// goroutines and in reverse order, dropping each site once evaluated: the
// fleet-wide findings are those of the fixture, at its marked lines, and
// what the run keeps of a site for them is its name, not its document.
func TestRunStreams(t *testing.T) {
	const dir = "rules/testdata/ztp.nodes.mac-unique"
	fleet, bundles := loadFixture(t, dir, "bad.yaml")
	e := testEngine(t)
	run, err := e.Start(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	var wg sync.WaitGroup
	for _, s := range slices.Backward(fleet.Sites) {
		wg.Go(func() {
			c := run.Evaluate(s, bundles[s.Name])
			if want := ast.MustParseTerm(`{"site": {"name": "` + s.Name + `"}}`); c.input.Compare(want.Value) != 0 {
				t.Errorf("site %s: the run keeps %v of the input, want %v", s.Name, c.input, want)
			}
			run.Add(c)
		})
	}
	wg.Wait()
	run.AddProblems(fleet.Problems)
	fleet, bundles = nil, nil
	rep, err := run.Finish()
	if err != nil {
		t.Fatal(err)
	}
	var lines []int
	for _, f := range rep.Findings {
		if f.Rule != "ztp.nodes.mac-unique" || f.Pos.File != "bad.yaml" {
			t.Errorf("unexpected finding %s", describe(f))
		}
		lines = append(lines, f.Pos.Line)
	}
	slices.Sort(lines)
	if want := wantLines(t, filepath.Join(dir, "bad.yaml"), "ztp.nodes.mac-unique"); !slices.Equal(lines, want) {
		t.Errorf("findings at lines %v, want %v:\n%s", lines, want, describeAll(rep.Findings))
	}
	if rep.Sites != 3 {
		t.Errorf("report of %d sites, want 3", rep.Sites)
	}
	if run.checked != nil {
		t.Errorf("the finished run still holds %d sites", len(run.checked))
	}
}

// TestFleetRules checks which rules wait for the fleet index: those that
// may read data.siteops.fleet, directly, through a function or rule, or
// through data with a computed key.
func TestFleetRules(t *testing.T) {
	var builtin []string
	for _, r := range testEngine(t).fleet.rules {
		builtin = append(builtin, r.ID)
	}
	slices.Sort(builtin)
	if want := []string{"ztp.bmc.address-unique", "ztp.nodes.hostname-unique", "ztp.nodes.mac-unique"}; !slices.Equal(builtin, want) {
		t.Errorf("built-in fleet rules %v, want %v", builtin, want)
	}
	dir := writeFiles(t, map[string]string{"p.rego": `package main

deny_count contains "too many sites" if count(data.siteops.fleet.sites) > 100

warn_indirect contains "x" if sites > 100

sites := count(data.siteops.fleet.sites)

deny_dynamic contains "x" if {
	some k
	data.siteops[k].sites
	k == "fleet"
}

deny_all_data contains "x" if count(data.siteops) == 0

deny_local contains "x" if input.site.name == "nothing"

warn_other_data contains "x" if data.main.other == 0

other := 1
`})
	e, err := Load(context.Background(), WithUserPolicies(dir))
	if err != nil {
		t.Fatal(err)
	}
	got := map[string]bool{}
	for _, r := range e.fleet.rules {
		got[r.ID] = true
	}
	for id, fleet := range map[string]bool{"main.deny_count": true, "main.warn_indirect": true, "main.deny_dynamic": true,
		"main.deny_all_data": true, "main.deny_local": false, "main.warn_other_data": false} {
		if got[id] != fleet {
			t.Errorf("rule %s reads the fleet: %v, want %v", id, got[id], fleet)
		}
	}
	if !e.userFleet {
		t.Error("a user rule reads the fleet, and the engine does not know it")
	}
}

func TestInputRead(t *testing.T) {
	tests := []struct {
		name, src string
		want      projection
	}{
		{"keys written out", `r if { input.site.name == "a"; some n in input.site.nodes; n.role == "x" }`,
			projection{root: map[string]bool{}, site: map[string]bool{"name": true, "nodes": true}}},
		{"through a function", `r if f(1)
f(x) := input.site.cluster.name`, projection{root: map[string]bool{}, site: map[string]bool{"cluster": true}}},
		{"other parts", `r if { input.objects[_].kind == "x"; input.positions }`,
			projection{root: map[string]bool{"objects": true, "positions": true}, site: map[string]bool{}}},
		{"the site whole", `r if { x := input.site; x.name == "a" }`, projection{all: true}},
		{"a computed site key", `r if { some k; input.site[k] == "a" }`, projection{all: true}},
		{"the input whole", `r if walk(input, _)`, projection{all: true}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			c := ast.MustCompileModules(map[string]string{"p.rego": "package p\n\n" + tt.src})
			got := inputRead(c, []ast.Ref{ast.MustParseRef("data.p.r")})
			if got.all != tt.want.all || !tt.want.all && (!mapsEqual(got.root, tt.want.root) || !mapsEqual(got.site, tt.want.site)) {
				t.Errorf("got %+v, want %+v", got, tt.want)
			}
		})
	}
	input := ast.MustParseTerm(`{"site": {"name": "a", "nodes": [1], "cluster": {}}, "objects": [], "positions": {}}`).Value
	got := projection{root: map[string]bool{"objects": true}, site: map[string]bool{"nodes": true}}.project(input)
	if want := ast.MustParseTerm(`{"site": {"nodes": [1]}, "objects": []}`); got.Compare(want.Value) != 0 {
		t.Errorf("projected %v, want %v", got, want)
	}
	// What is kept shares no term with the document: a shared term would
	// keep the block the document's terms were allocated in.
	shared := map[*ast.Term]bool{}
	ast.WalkTerms(input, func(t *ast.Term) bool { shared[t] = true; return false })
	ast.WalkTerms(got, func(term *ast.Term) bool {
		if shared[term] {
			t.Errorf("the projection shares the term %v with the input document", term)
		}
		return false
	})
}

func mapsEqual(a, b map[string]bool) bool {
	if len(a) != len(b) {
		return false
	}
	for k := range a {
		if !b[k] {
			return false
		}
	}
	return true
}

// TestUserFleetRule checks a user rule that reads the fleet and names a
// field of the site: it sees the parts of the input it reads, and its
// finding is placed on the field's line although the run no longer holds
// the site.
func TestUserFleetRule(t *testing.T) {
	policies := writeFiles(t, map[string]string{"p.rego": `package main

deny contains {"msg": sprintf("%s is one of %d sites", [input.site.cluster.baseDomain, count(data.siteops.fleet.sites)]),
	"field": input.site.fields.baseDomain} if true
`})
	e, err := Load(context.Background(), WithUserPolicies(policies))
	if err != nil {
		t.Fatal(err)
	}
	rep := checkFiles(t, e, goodSite, nil, "good.yaml")
	fs := findingsOf(rep, "main.deny")
	if len(fs) != 1 {
		t.Fatalf("findings: %s", describeAll(rep.Findings))
	}
	// good.yaml: "  baseDomain: example.net" on line 8.
	if f := fs[0]; f.Message != "example.net is one of 1 sites" || f.Pos.File != "good.yaml" || f.Pos.Line != 8 {
		t.Errorf("finding %s, want good.yaml:8", describe(f))
	}
	if len(findingsOf(rep, "ztp.nodes.mac-unique")) != 0 || rep.Count(report.Deny) != 1 {
		t.Errorf("other findings: %s", describeAll(rep.Findings))
	}
}

// A fleet rule's finding is placed at its field, or at the closest parent
// the Run kept: a fact's field, a node, the cluster, any path of
// input.positions with a user's fleet rule; else at the site's source.
func TestSitePositions(t *testing.T) {
	at := func(line int) sites.Position { return sites.Position{File: "site.yaml", Line: line, Column: 3} }
	p := &sitePositions{
		facts: []fact{
			{field: "spec.clusters[0].nodes[1].bootMACAddress", pos: at(40)},
			{field: "spec.clusters[0].apiVIPs[0]", pos: at(12)},
		},
		places: []pathPosition{
			{"spec.clusters[0]", at(5)},
			{"spec.clusters[0].nodes[0]", at(20)},
			{"spec.clusters[0].nodes[1]", at(35)},
		},
		all:    map[string]sites.Position{"spec.clusters[0].nodes[1].rootDeviceHints": at(44)},
		source: sites.Position{File: "site.yaml", Line: 1, Column: 1},
	}
	for _, tt := range []struct {
		path string
		want sites.Position
	}{
		{"spec.clusters[0].nodes[1].bootMACAddress", at(40)},
		{"spec.clusters[0].apiVIPs[0]", at(12)},
		{"spec.clusters[0].apiVIPs", at(5)},
		{"spec.clusters[0].nodes[0].hostName", at(20)},
		{"spec.clusters[0].nodes[1].nodeNetwork.interfaces[0].macAddress", at(35)},
		{"spec.clusters[0].nodes[1].rootDeviceHints.deviceName", at(44)},
		{"spec.clusters[0].clusterName", at(5)},
		{"spec.clusters[1].clusterName", p.source},
		{"metadata.name", p.source},
		{"", p.source},
	} {
		if got := p.Pos(tt.path); got != tt.want {
			t.Errorf("Pos(%q) = %v, want %v", tt.path, got, tt.want)
		}
	}
}
