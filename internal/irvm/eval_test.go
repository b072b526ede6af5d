package irvm

import (
	"context"
	"errors"
	"strings"
	"testing"

	"github.com/open-policy-agent/opa/v1/ast"
	"github.com/open-policy-agent/opa/v1/rego"
	"github.com/open-policy-agent/opa/v1/topdown"
)

func TestEvaluatesAsTopdown(t *testing.T) {
	input := `{"site": {"name": "a", "nodes": [
			{"role": "master", "hostname": "m0", "macs": ["aa:bb", "cc:dd"], "labels": {"x": "1"}},
			{"role": "master", "hostname": "m1", "macs": ["ee:ff"]},
			{"role": "worker", "hostname": "w0", "macs": []}
		],
		"cidrs": ["10.0.0.0/24", "10.0.1.0/24", "bad"],
		"n": 3, "f": 1.5, "s": "Hello, World", "nested": {"a": {"b": [1, 2, {"c": "PRIVATE"}]}}}}`
	data := `{"fleet": {"macs": {"aa:bb": [{"site": "a"}, {"site": "b"}]}}, "limits": {"n": 2}}`
	cases := []struct{ name, module, query string }{
		{"complete", `package p
x := count(input.site.nodes)`, "x := data.p.x"},
		{"partial set", `package p
masters contains n.hostname if { some n in input.site.nodes; n.role == "master" }`, "x := data.p.masters"},
		{"partial object", `package p
by_role[n.hostname] := n.role if some n in input.site.nodes`, "x := data.p.by_role"},
		{"comprehensions", `package p
x := {"a": [m | some n in input.site.nodes; some m in n.macs], "s": {n.role | some n in input.site.nodes}, "o": {n.hostname: count(n.macs) | some n in input.site.nodes}}`, "x := data.p.x"},
		{"functions", `package p
f(n) := sprintf("%s/%d", [n.hostname, count(n.macs)])
g(x) := "big" if x > 2
else := "small"
x := [[f(n), g(count(n.macs))] | some n in input.site.nodes]`, "x := data.p.x"},
		{"else chains and default", `package p
default y := "none"
y := "many" if count(input.site.nodes) > 5
x := r if { r := y }`, "x := data.p.x"},
		{"negation", `package p
x contains n.hostname if { some n in input.site.nodes; not n.labels }
x contains "no-z" if not input.site.z`, "x := data.p.x"},
		{"every", `package p
x if every n in input.site.nodes { n.hostname != "" }
y if every n in input.site.nodes { n.role == "master" }`, "x := data.p.x; y := object.get(data.p, \"y\", false)"},
		{"built-ins", `package p
x := {
	"valid": [c | some c in input.site.cidrs; net.cidr_is_valid(c)],
	"contains": net.cidr_contains("10.0.0.0/8", "10.0.1.5"),
	"lower": lower(input.site.s), "split": split(input.site.s, ", "),
	"regex": regex.match("^H.*d$", input.site.s), "arith": input.site.n * 2 + input.site.f,
	"json": json.marshal(input.site.nested), "idx": indexof(input.site.s, "W"),
}`, "x := data.p.x"},
		{"walk", `package p
x contains path if { walk(input.site.nested, [path, v]); v == "PRIVATE" }
y := count([p | walk(input.site, [p, _])])`, "x := data.p.x; y := data.p.y"},
		{"base data", `package p
x := [o.site | some o in data.fleet.macs["aa:bb"]; o.site != input.site.name]
y := data.limits.n`, "x := data.p.x; y := data.p.y"},
		{"undefined references", `package p
x := object.get(input, ["site", "missing", "deep"], "d")
y := input.site.nodes[5].hostname
z := [h | h := input.site.nodes[_].labels.x]`, "x := data.p.x; z := data.p.z"},
		{"error built-in is undefined", `package p
x contains "a" if to_number("nope") > 1
x contains "b" if true`, "x := data.p.x"},
		{"array patterns", `package p
x := [a | some c in input.site.cidrs; [a, b] := split(c, "/")]`, "x := data.p.x"},
		{"sets and objects equality", `package p
x if {"a", "b"} == {"b", "a"}
y if {"a": 1, "b": [1.0]} == {"b": [1], "a": 1}`, "x := data.p.x; y := data.p.y"},
		{"query over several rules", `package p
a := 1
b contains 2
c := {"k": a}`, "x := data.p.a; y := data.p.b; z := data.p.c"},
	}
	diff := make([]diffCase, len(cases))
	for i, c := range cases {
		diff[i] = diffCase{name: c.name, module: c.module, query: c.query, inputs: []string{input}, data: data}
	}
	compareCases(t, diff)
}

func TestConflictsAreErrors(t *testing.T) {
	c := diffCase{module: "package p\nx := v if some v in input.a", query: "x := data.p.x"}
	in := rego.EvalParsedInput(ast.MustParseTerm(`{"a": [1, 2]}`).Value)
	for _, target := range []string{"", Target} {
		pq, ctx, err := prepareCase(t, target, c)
		if err != nil {
			t.Fatal(err)
		}
		_, err = pq.Eval(ctx, in)
		var te *topdown.Error
		if !errors.As(err, &te) || te.Code != topdown.ConflictErr {
			t.Errorf("target %q: got %v, want a conflict error", target, err)
		}
	}
}

func TestWithIsLeftToTopdown(t *testing.T) {
	ctx := context.Background()
	_, err := rego.New(rego.Module("t.rego", "package p\nx := input.a\ny if { x == 2 with input.a as 2 }"),
		rego.Query("y := data.p.y"), rego.Target(Target)).PrepareForEval(ctx)
	if !errors.Is(err, ErrUnsupported) {
		t.Fatalf("got %v, want ErrUnsupported", err)
	}
}

func TestCancelled(t *testing.T) {
	module := `package p
x := count([i | some i in numbers.range(1, 100000); i % 7 == 0; j := i * 3; j > 0])`
	ctx, cancel := context.WithCancel(context.Background())
	pq, err := rego.New(rego.Module("t.rego", module), rego.Query("x := data.p.x"), rego.Target(Target)).PrepareForEval(ctx)
	if err != nil {
		t.Fatal(err)
	}
	cancel()
	_, err = pq.Eval(ctx, rego.EvalParsedInput(ast.NewObject()))
	var te *topdown.Error
	if !errors.As(err, &te) || te.Code != topdown.CancelErr {
		t.Fatalf("got %v, want a cancellation", err)
	}
}

func TestStrictBuiltinErrors(t *testing.T) {
	module := "package p\nx if to_number(\"nope\") > 1"
	for _, target := range []string{"", Target} {
		pq, err := rego.New(rego.Module("t.rego", module), rego.Query("x := data.p.x"), rego.Target(target),
			rego.StrictBuiltinErrors(true)).PrepareForEval(context.Background())
		if err != nil {
			t.Fatal(err)
		}
		if _, err := pq.Eval(context.Background(), rego.EvalParsedInput(ast.NewObject())); err == nil || !strings.Contains(err.Error(), "to_number") {
			t.Errorf("target %q: got %v, want the built-in's error", target, err)
		}
	}
}
