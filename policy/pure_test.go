package policy

import (
	"context"
	"testing"

	"github.com/open-policy-agent/opa/v1/ast"
)

func TestPureFunctions(t *testing.T) {
	c := ast.MustCompileModules(map[string]string{
		"lib.rego": `package siteops.lib

drivers := {"ipmi": true}

known(s) if drivers[s]

upper_known(s) if known(upper(s))

with_input(s) := concat("/", [s, input.site.name])

calls_input_helper(s) := with_input(s)

fleet(s) := data.siteops.fleet.shared.macs[s]

clock(s) := time.now_ns()

two(s) := 1 if s == "a"

two(s) := input.x if s == "b"
`,
		"user.rego": `package main

mine(s) := lower(s)
`,
	})
	p := newPureResults(c)
	for name, want := range map[string]bool{
		"data.siteops.lib.known":              true,
		"data.siteops.lib.upper_known":        true,
		"data.siteops.lib.with_input":         false,
		"data.siteops.lib.calls_input_helper": false,
		"data.siteops.lib.fleet":              false,
		"data.siteops.lib.clock":              false,
		"data.siteops.lib.two":                false, // one of its definitions reads the input
		"data.main.mine":                      false, // not the built-in library's
	} {
		if got := p.pure[name]; got != want {
			t.Errorf("%s pure: %v, want %v", name, got, want)
		}
	}
}

// TestPureResultsKept evaluates the library with topdown (internal/irvm
// keeps pure functions' values on its own) on sites that share a value
// (the BMC driver): a call's result is kept the second time it is made,
// and found by later evaluations; a value of one site is not kept.
func TestPureResultsKept(t *testing.T) {
	e, err := Load(context.Background(), withTopdown())
	if err != nil {
		t.Fatal(err)
	}
	e.pure = newPureResults(e.compiler)
	if !e.pure.pure["data.siteops.lib.bmc_tls"] {
		t.Fatal("lib.bmc_tls is not found pure")
	}
	fleet, bundles := loadFixture(t, "rules/testdata/ztp.bmc.certificate-verification-disabled", "good.yaml")
	if len(fleet.Sites) == 0 {
		t.Fatal("no site")
	}
	ctx := context.Background()
	pq, _, err := e.prepare(ctx, e.local, ast.NewObject(), false)
	if err != nil {
		t.Fatal(err)
	}
	s := fleet.Sites[0]
	input := newView(s, bundles[s.Name], e.needs.discovery).value(nil, e.needs.positions)
	for i := range 3 {
		if _, err := e.eval(ctx, &pq, input); err != nil {
			t.Fatal(err)
		}
		switch {
		case i == 0 && e.pure.size != 0:
			t.Errorf("results kept after the first evaluation: %d", e.pure.size)
		case i > 0 && e.pure.size == 0:
			t.Errorf("no result kept after evaluation %d", i+1)
		}
	}
	size := e.pure.size
	kept := 0
	for i := range e.pure.table {
		shard := e.pure.table[i].Load()
		if shard == nil {
			continue
		}
		for _, list := range *shard {
			kept += len(list)
			for _, entry := range list {
				op, _ := entry.ref[0].Value.(ast.Ref)
				if !e.pure.pure[op.String()] {
					t.Errorf("kept the result of %v, which is not a pure function", entry.ref)
				}
				if got := e.pure.get(entry.ref.Hash(), entry.ref); got != entry.value {
					t.Errorf("get(%v) = %v, want %v", entry.ref, got, entry.value)
				}
			}
		}
	}
	if kept != size {
		t.Errorf("the table holds %d results, its size says %d", kept, size)
	}
	if _, err := e.eval(ctx, &pq, input); err != nil || e.pure.size != size {
		t.Errorf("a fourth evaluation kept more: %d results, was %d (%v)", e.pure.size, size, err)
	}
}
