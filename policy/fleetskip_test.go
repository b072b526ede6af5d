package policy

import (
	"context"
	"slices"
	"testing"

	"github.com/open-policy-agent/opa/v1/ast"
)

// TestBuiltinFleetRulesListed holds builtinFleetRules to the built-in rules
// that read the fleet: a new one must be looked at before the sites
// without a repeated value may skip it.
func TestBuiltinFleetRulesListed(t *testing.T) {
	e := testEngine(t)
	var ids []string
	for _, r := range e.fleet.rules {
		ids = append(ids, r.ID)
	}
	slices.Sort(ids)
	if !slices.Equal(ids, builtinFleetRules) {
		t.Errorf("the built-in rules that read the fleet are %v; builtinFleetRules lists %v", ids, builtinFleetRules)
	}
	if !e.skipsQuietSites() {
		t.Error("the built-in library alone does not skip the sites without a repeated value")
	}
}

// TestSkippedSitesFindNothing checks every fixture as one fleet twice: with
// the built-in library, which evaluates the fleet rules only for sites
// with a repeated value, and with a user rule that reads the fleet and
// finds nothing, which makes every site evaluated. The findings must be
// the same.
func TestSkippedSitesFindNothing(t *testing.T) {
	dir := writeFiles(t, map[string]string{"fleet.rego": `package main

deny contains msg if {
	count(data.siteops.fleet.sites) < 0
	msg := "never"
}
`})
	all, err := Load(context.Background(), WithUserPolicies(dir))
	if err != nil {
		t.Fatal(err)
	}
	if all.skipsQuietSites() {
		t.Fatal("a user rule reads the fleet, and the engine still skips sites")
	}
	var fixtures []string
	for _, f := range fixtureDirs(t) {
		fixtures = append(fixtures, f+"/bad.yaml", f+"/good.yaml")
	}
	skipping := checkFiles(t, testEngine(t), "rules/testdata", nil, fixtures...)
	every := checkFiles(t, all, "rules/testdata", nil, fixtures...)
	if len(skipping.Findings) == 0 {
		t.Fatal("the fixtures have no finding")
	}
	if got, want := describeAll(skipping.Findings), describeAll(every.Findings); got != want {
		t.Errorf("findings with skipping:\n%s\nevaluating every site:\n%s", got, want)
	}
}

func TestRepeatsValue(t *testing.T) {
	const macs, hostnames = 0, 1
	mac := func(node, key string, itf int) fact { return fact{kind: macs, node: node, key: key, itf: itf} }
	shared := make([]ast.Object, len(factKinds))
	shared[hostnames] = ast.NewObject(ast.Item(ast.StringTerm("sno-1.example.com"), ast.IntNumberTerm(2)))
	tests := []struct {
		name  string
		facts []fact
		want  bool
	}{
		{"distinct values", []fact{mac("n0", "0a", -1), mac("n0", "0b", 0), mac("n1", "0c", -1)}, false},
		{"the boot MAC repeated by an interface", []fact{mac("n0", "0a", -1), mac("n0", "0a", 0)}, false},
		{"one MAC on two interfaces of a node", []fact{mac("n0", "0a", 0), mac("n0", "0a", 1)}, true},
		{"two interfaces without a MAC", []fact{mac("n0", "", 0), mac("n0", "", 1)}, true},
		{"one MAC on interfaces of two nodes", []fact{mac("n0", "0a", 0), mac("n1", "0a", 0)}, false},
		{"a shared host name", []fact{{kind: hostnames, node: "n0", key: "sno-1.example.com", itf: -1}}, true},
		{"an empty host name", []fact{{kind: hostnames, node: "n0", key: "", itf: -1}}, false},
	}
	if factKinds[macs].name != factMACs || factKinds[hostnames].name != factHostnames {
		t.Fatal("the fact kinds moved: update the indexes of this test")
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := repeatsValue(tt.facts, shared); got != tt.want {
				t.Errorf("repeatsValue = %v, want %v", got, tt.want)
			}
		})
	}
}
