package policy

import (
	"testing"

	"github.com/open-policy-agent/opa/v1/ast"
)

// TestRuleCache checks the evaluator's cache: values and undefined refs
// found again, frames that hide what a `with` computed, and nothing left
// for the next evaluation.
func TestRuleCache(t *testing.T) {
	// A function's results are cached under its ref and its arguments.
	f := ast.MustParseRef("data.p.f")
	a, b := ast.MustParseRef("data.p.a"), f.Append(ast.StringTerm("x"))
	c := getRuleCache()
	if v, undefined := c.Get(a); v != nil || undefined {
		t.Fatalf("empty cache: %v, %v", v, undefined)
	}
	one := ast.IntNumberTerm(1)
	c.Put(a, one)
	c.Put(b, nil)
	buf := f.Append(ast.StringTerm("y")) // the evaluator reuses its key
	c.Put(buf, one)
	if v, undefined := c.Get(a); v != one || undefined {
		t.Errorf("a: %v, %v", v, undefined)
	}
	if v, undefined := c.Get(b); v != nil || !undefined {
		t.Errorf("b: %v, %v, want undefined", v, undefined)
	}
	buf[3] = ast.StringTerm("z")
	if v, _ := c.Get(f.Append(ast.StringTerm("y"))); v != one {
		t.Errorf(`f("y") = %v after its key was reused`, v)
	}
	if v, _ := c.Get(ast.MustParseRef("data.p")); v != nil {
		t.Errorf("a prefix of a cached ref is cached: %v", v)
	}
	c.Push()
	if v, _ := c.Get(a); v != nil {
		t.Errorf("a pushed frame sees %v", v)
	}
	c.Put(a, ast.IntNumberTerm(2))
	if keys := c.Keys(); len(keys) != 1 || !keys[0].Equal(a) {
		t.Errorf("keys of the frame: %v", keys)
	}
	c.Pop()
	if v, _ := c.Get(a); v != one {
		t.Errorf("after Pop: %v, want 1", v)
	}
	putRuleCache(c)
	c = getRuleCache()
	defer putRuleCache(c)
	if v, undefined := c.Get(a); v != nil || undefined {
		t.Errorf("a cache given back keeps %v, %v", v, undefined)
	}
}
