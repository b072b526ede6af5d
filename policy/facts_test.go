package policy

import (
	"context"
	"slices"
	"testing"

	"github.com/siteops/siteops/policy/report"
	"github.com/siteops/siteops/sites"
)

// A site checked alone, with the facts the earlier checks kept, gets the
// uniqueness findings a check of the whole fleet gives it; once the sites
// it collides with are forgotten, it gets none.
func TestFactsCarryTheFleetAcrossChecks(t *testing.T) {
	const dir = "rules/testdata/ztp.nodes.mac-unique"
	fleet, bundles := loadFixture(t, dir, "bad.yaml")
	if len(fleet.Sites) < 2 {
		t.Fatalf("the fixture has %d sites", len(fleet.Sites))
	}
	e := testEngine(t)
	ctx := context.Background()
	full, err := e.Check(ctx, fleet, bundles)
	if err != nil {
		t.Fatal(err)
	}
	last := fleet.Sites[len(fleet.Sites)-1]
	want := ruleFindingsOf(full, last.Name)
	if len(want) == 0 {
		t.Fatalf("site %s has no finding in the full check", last.Name)
	}

	facts := NewFacts()
	first := &sites.Fleet{Sites: fleet.Sites[:len(fleet.Sites)-1]}
	if _, err := e.Check(ctx, first, bundles, WithFacts(facts)); err != nil {
		t.Fatal(err)
	}
	if facts.Len() != len(first.Sites) {
		t.Fatalf("facts of %d sites kept, want %d", facts.Len(), len(first.Sites))
	}
	alone := &sites.Fleet{Sites: []*sites.Site{last}}
	rep, err := e.Check(ctx, alone, bundles, WithFacts(facts))
	if err != nil {
		t.Fatal(err)
	}
	if got := ruleFindingsOf(rep, last.Name); !slices.Equal(got, want) {
		t.Errorf("checked alone, %s gets\n%v\nwant, as in the full check,\n%v", last.Name, got, want)
	}
	// Checking it again does not count it twice.
	rep, err = e.Check(ctx, alone, bundles, WithFacts(facts))
	if err != nil {
		t.Fatal(err)
	}
	if got := ruleFindingsOf(rep, last.Name); !slices.Equal(got, want) {
		t.Errorf("checked again, %s gets %v, want %v", last.Name, got, want)
	}
	for _, s := range first.Sites {
		facts.Forget(s.Name)
	}
	rep, err = e.Check(ctx, alone, bundles, WithFacts(facts))
	if err != nil {
		t.Fatal(err)
	}
	if got := ruleFindingsOf(rep, last.Name); len(got) != 0 {
		t.Errorf("with the other sites forgotten, %s still gets %v", last.Name, got)
	}
}

// ruleFindingsOf lists a site's findings of the uniqueness rule as
// "rule line message", for comparison.
func ruleFindingsOf(rep *report.Report, site string) []string {
	var out []string
	for _, f := range rep.Findings {
		if f.Site == site && f.Rule == "ztp.nodes.mac-unique" {
			out = append(out, f.Rule+" "+f.Pos.String()+" "+f.Message)
		}
	}
	slices.Sort(out)
	return out
}
