package irvm

import (
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/open-policy-agent/opa/v1/ast"
	"github.com/open-policy-agent/opa/v1/rego"
	"github.com/open-policy-agent/opa/v1/storage/inmem"
	"github.com/open-policy-agent/opa/v1/test/cases"
	"github.com/open-policy-agent/opa/v1/topdown"
	"github.com/open-policy-agent/opa/v1/topdown/print"
)

// Differential tests: each case is evaluated by topdown and by irvm, which
// must agree, or be refused by irvm (ErrUnsupported, and the caller falls
// back to topdown) when the case says so.

// diffCase is one differential case: module, query, inputs (each
// evaluated in turn with the same prepared query) and data.
type diffCase struct {
	name, module, query string
	inputs              []string
	data                string
	opts                []func(*rego.Rego)
	// refused: irvm leaves the case to topdown (a value the plan did
	// not make is changed in place).
	refused bool
}

// prepareCase prepares the case's query for topdown (target "") or irvm.
func prepareCase(t *testing.T, target string, c diffCase) (rego.PreparedEvalQuery, context.Context, error) {
	t.Helper()
	ctx := context.Background()
	data := ast.NewObject()
	if c.data != "" {
		data = ast.MustParseTerm(c.data).Value.(ast.Object)
	}
	opts := []func(*rego.Rego){
		rego.Module("test.rego", c.module),
		rego.Query(c.query),
		rego.Store(inmem.NewFromASTObject(data)),
	}
	opts = append(opts, c.opts...)
	if target != "" {
		opts = append(opts, rego.Target(target))
		ctx = WithData(ctx, data)
	}
	pq, err := rego.New(opts...).PrepareForEval(ctx)
	return pq, ctx, err
}

// resultText renders a result set: bindings and expression values.
func resultText(rs rego.ResultSet) string {
	var rows []string
	for _, r := range rs {
		var b strings.Builder
		keys := make([]string, 0, len(r.Bindings))
		for k := range r.Bindings {
			keys = append(keys, k)
		}
		slices.Sort(keys)
		for _, k := range keys {
			v, err := ast.InterfaceToValue(r.Bindings[k])
			if err != nil {
				return "ERR " + err.Error()
			}
			b.WriteString(k + "=" + v.String() + ";")
		}
		rows = append(rows, b.String())
	}
	slices.Sort(rows)
	return strings.Join(rows, "\n")
}

// runCase evaluates every input of c in turn with one prepared query,
// and returns one line per input.
func runCase(t *testing.T, target string, c diffCase) []string {
	t.Helper()
	pq, ctx, err := prepareCase(t, target, c)
	if err != nil {
		return []string{"PREPARE ERROR: " + err.Error()}
	}
	inputs := c.inputs
	if len(inputs) == 0 {
		inputs = []string{"{}"}
	}
	var out []string
	for _, in := range inputs {
		ectx, cancel := context.WithTimeout(ctx, 20*time.Second)
		var opts []rego.EvalOption
		if in != "" {
			opts = append(opts, rego.EvalParsedInput(ast.MustParseTerm(in).Value))
		}
		rs, err := func() (rs rego.ResultSet, err error) {
			defer func() {
				if r := recover(); r != nil {
					err = fmt.Errorf("PANIC: %v", r)
				}
			}()
			return pq.Eval(ectx, opts...)
		}()
		cancel()
		if err != nil && strings.HasPrefix(err.Error(), "PANIC") {
			out = append(out, err.Error())
			continue
		}
		if err != nil {
			if testing.Verbose() {
				t.Logf("%s error: %v", target, err)
			}
			out = append(out, "ERROR")
			continue
		}
		out = append(out, resultText(rs))
	}
	return out
}

func compareCases(t *testing.T, cases []diffCase) {
	t.Helper()
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			want := runCase(t, "", c)
			got := runCase(t, Target, c)
			refused := len(got) == 1 && strings.HasPrefix(got[0], "PREPARE ERROR") && strings.Contains(got[0], ErrUnsupported.Error())
			if refused != c.refused {
				t.Fatalf("refused by irvm: %v, want %v (%q)", refused, c.refused, got)
			}
			if refused {
				return // the caller evaluates it with topdown
			}
			if testing.Verbose() {
				t.Logf("topdown: %q\nir: %q", want, got)
			}
			for i := range want {
				if got[i] != want[i] {
					t.Errorf("input %d: IR gives\n%s\ntopdown gives\n%s", i, got[i], want[i])
				}
			}
			if !slices.ContainsFunc(want, func(r string) bool { return r != "" && r != "ERROR" }) {
				t.Errorf("topdown gives no result for any input (%q): the case tests nothing", want)
			}
		})
	}
}

func TestTopdownLanguage(t *testing.T) {
	cases := []diffCase{
		{name: "nested partial object", refused: true, module: `package p
a[x].b[y] := z if { some x, v in input.o; some y, z in v }
a.c.d := 1`, query: "x := data.p.a", inputs: []string{`{"o": {"k": {"m": 1, "n": 2}, "j": {"m": 3}}}`}},
		{name: "nested partial set", refused: true, module: `package p
s[x] contains y if { some x, v in input.o; some y, _ in v }`, query: "x := data.p.s", inputs: []string{`{"o": {"k": {"m": 1, "n": 2}, "j": {"m": 3}}}`}},
		{name: "functions else multi", module: `package p
f(x) := "a" if x == 1
else := "b" if x == 2
else := "c"
f(x) := "c" if x == 10.5
g(x) := y if { x > 0; y := "pos" }
g(x) := y if { x < 0; y := "neg" }
x := [[f(n), object.get({"r": g(n)}, "r", "zero")] | some n in input.ns]`, query: "x := data.p.x", inputs: []string{`{"ns": [1, 2, 3, 10.5, -1, 0]}`}},
		{name: "multiple bodies", module: `package p
r contains 1 if input.a
r contains 2 if input.b
r contains 3 if { not input.a; not input.b }
q := 1 if input.a
q := 1 if input.b`, query: "x := data.p.r; y := object.get(data.p, \"q\", \"u\")", inputs: []string{`{"a": true}`, `{"b": true}`, `{}`, `{"a": true, "b": true}`, `{"a": false}`}},
		{name: "some in collections", module: `package p
o := [[k, v] | some k, v in input.o]
s := [v | some v in input.s]
a := [[k, v] | some k, v in input.a]
str := [v | some v in input.str]
n := [v | some v in input.n]
u := [v | some v in input.missing]`, query: "x := data.p", inputs: []string{`{"o": {"b": 1, "a": 2}, "s": {3, 1, 2}, "a": [5, 4], "str": "abc", "n": null}`}},
		{name: "every", module: `package p
e1 if every x in input.a { x > 0 }
e2 if every k, v in input.o { k != v }
e3 if every x in input.s { x > 5 }
e4 if every x in input.str { x > 5 }
e5 if every x in input.missing { x > 5 }
e6 if every x in [] { x > 5 }
e7 if every x in input.n { x == x; false }`, query: "x := data.p", inputs: []string{`{"a": [1, 2], "o": {"a": "b"}, "s": {1}, "str": "abc", "n": 5}`}},
		{name: "negation of calls", module: `package p
f(x) if x > 1
r contains n if { some n in input.ns; not f(n) }
r2 contains n if { some n in input.ns; not startswith(n, "a") }`, query: "x := data.p.r", inputs: []string{`{"ns": [0, 1, 2, 3]}`}},
		{name: "negation of builtin strings", module: `package p
r2 contains n if { some n in input.ns; not startswith(n, "a") }`, query: "x := data.p.r2", inputs: []string{`{"ns": ["ab", "ba", 5]}`}},
		{name: "equality", module: `package p
a if 1 == 1.0
b if {1, 2} == {2, 1}
c if {"a": [1]} == {"a": [1.0]}
d if "a" != "b"
e if input.x == input.y
f if [1, 2] != [1, 2, 3]`, query: "x := data.p", inputs: []string{`{"x": 1.0, "y": 1}`, `{"x": {"a": 1}, "y": {"a": 1.0}}`}},
		{name: "arithmetic", module: `package p
a := 0.1 + 0.2
b := 10000000000000000000000 * 10000000000000000000000
c := 7 / 2
d := 7 % 3
e := -1.5 * 2
f := 1e3 + 1
g := input.x * input.y
h := 3 - 5.5
i := 2 / 0
j := 1.0`, query: "x := data.p", inputs: []string{`{"x": 1.5, "y": 100000000000000000000}`}},
		{name: "string builtins", module: `package p
a := contains(input.s, "ll")
b := startswith(input.s, "he")
c := regex.match("^h.*o$", input.s)
d := sprintf("%s-%d-%v-%.2f", [input.s, 3, {"a": 1}, 1.5])
e := json.marshal({"b": [1, 2.5], "a": null})
f := json.unmarshal("{\"x\": [1, 2.0]}")
g := regex.find_n("l+", input.s, -1)
h := trim_space("  x ")
i := upper(input.s)
j := concat(",", {"b", "a"})
k := format_int(255, 16)
l := substring(input.s, 1, 3)
m := sprintf("%v", [input.f])`, query: "x := data.p", inputs: []string{`{"s": "hello", "f": 1.0}`}},
		{name: "object get", module: `package p
a := object.get(input, "x", "d")
b := object.get(input, ["o", "p"], "d")
c := object.get(input, ["o", "q"], "d")
d := object.get(input.o, "p", "d")
e := object.keys(input.o)
f := object.union(input.o, {"z": 1})
g := object.remove(input.o, ["p"])
h := object.filter(input.o, {"p"})`, query: "x := data.p", inputs: []string{`{"o": {"p": false}}`}},
		{name: "walk", module: `package p
paths := [p | walk(input, [p, v]); v == 1]
vals := [v | walk(input, [_, v]); is_number(v)]
n := count([1 | walk(input, _)])
w if walk(input)`, query: "x := data.p", inputs: []string{`{"a": [1, {"b": 1}], "c": {2, 1}}`}},
		{name: "in operator", module: `package p
a := 1 in input.a
b := 5 in input.a
c := "k" in input.o
d := 1 in input.o
e := 0, 1 in input.a
f := "k", 1 in input.o
g := "x" in input.s
h := "ab" in "abc"
r contains x if { some x in input.a; x in input.b }
i := 1 in input.missing`, query: "x := data.p", inputs: []string{`{"a": [1, 2], "b": [2, 3], "o": {"k": 1}, "s": {"x"}}`}},
		{name: "default functions", module: `package p
default f(_) := "dflt"
f(x) := "one" if x == 1
default g := 5
x := [f(1), f(2), g]`, query: "x := data.p.x"},
		{name: "default complete", module: `package p
default allow := false
allow if input.user == "admin"`, query: "x := data.p.allow", inputs: []string{`{"user": "admin"}`, `{"user": "bob"}`, `{}`}},
		{name: "data refs with vars", module: `package p
ys := [y | some k; y := data.x[k].y]
zs := {k: y | some k; y := data.x[k].y; y > 1}
dd := data.x`, query: "x := data.p", data: `{"x": {"a": {"y": 1}, "b": {"y": 2}, "c": {"z": 3}}}`},
		{name: "virtual docs iterated", module: `package p
rules.a := 1
rules.b := 2 if input.b
rules[k] := 3 if some k in input.ks
names := [n | some n; data.p.rules[n]]`, query: "x := data.p.names", inputs: []string{`{"b": true, "ks": ["c"]}`, `{}`}},
		{name: "virtual docs iterated 2", module: `package p
import data.q
names := [[n, v] | some n; v := q.rules[n]]`, query: "x := data.p.names", inputs: []string{`{"b": true}`}, data: `{}`},
		{name: "complete conflict", module: `package p
x := 1 if input.a
x := 2 if input.b`, query: "x := data.p.x", inputs: []string{`{"a": true}`, `{"a": true, "b": true}`}},
		{name: "function conflict", module: `package p
f(x) := 1 if x > 0
f(x) := 2 if x > 1
y := f(input.n)`, query: "x := data.p.y", inputs: []string{`{"n": 1}`, `{"n": 2}`}},
		{name: "object comprehension conflict", module: `package p
o := {k: v | some v in input.a; k := "k"}`, query: "x := data.p.o", inputs: []string{`{"a": [1]}`, `{"a": [1, 2]}`}},
		{name: "partial object conflict", module: `package p
o[k] := v if { some v in input.a; k := "k" }`, query: "x := data.p.o", inputs: []string{`{"a": [1]}`, `{"a": [1, 2]}`}},
		{name: "comprehension over undefined", module: `package p
a := [x | x := input.missing]
b := {x | x := input.missing.y}
c := count([x | some x in input.missing])`, query: "x := data.p"},
		{name: "print disabled", module: `package p
x := 1 if { print("hi", input.missing); true }
f(a) := a + 1 if print(a)
y := f(1)`, query: "x := data.p.x; y := data.p.y"},
		{name: "builtin error undefined", module: `package p
a := to_number("x")
b := 1 if { to_number("x") }
c := [n | some s in ["1", "x", "2"]; n := to_number(s)]
d := 1 / 0
e := count(input.n)`, query: "x := data.p"},
		{name: "string iteration", module: `package p
a := [x | x := input.s[_]]
b := input.s[0]`, query: "x := data.p", inputs: []string{`{"s": "abc"}`}},
		{name: "array index float", module: `package p
a := input.a[1.0]
b := input.a[1]
c := input.o[1.0]`, query: "x := data.p", inputs: []string{`{"a": [1, 2], "o": {1: "one"}}`}},
		{name: "whole package", module: `package p
a := 1
b contains 2
f(x) := x
c.d := 3
e[k] := 1 if some k in ["x"]`, query: "x := data.p"},
		{name: "whole data", module: `package p
a := 1`, query: "x := data", data: `{"q": {"r": 1}, "p": {"z": 2}}`},
		{name: "base and virtual merge", module: `package p
a := 1`, query: "x := data.p", data: `{"p": {"z": 2}}`},
	}
	compareCases(t, cases)
}

// TestTopdownConcurrent evaluates one prepared query from several
// goroutines at once and compares with topdown.
func TestTopdownConcurrent(t *testing.T) {
	module := `package p
f(x) := sprintf("%v-%v", [x, count(x)])
g(x) := {y: f(y) | some y in x}
h(x) := [k | some k, _ in g(x)]
s contains v if { some n in input.names; v := h(n) }
o[k] := f(input.names[k]) if some k in numbers.range(0, count(input.names)-1)
c := count(s)`
	pqIR, ctx, err := prepareCase(t, Target, diffCase{module: module, query: "x := data.p.s; y := data.p.o; z := data.p.c"})
	if err != nil {
		t.Fatal(err)
	}
	pqTD, _, err := prepareCase(t, "", diffCase{module: module, query: "x := data.p.s; y := data.p.o; z := data.p.c"})
	if err != nil {
		t.Fatal(err)
	}
	var inputs []ast.Value
	for i := range 40 {
		inputs = append(inputs, ast.MustParseTerm(fmt.Sprintf(`{"names": [["a", "b"], ["c%d"], ["a", "b"], ["x", "y", "z%d"]]}`, i%5, i%3)).Value)
	}
	want := make([]string, len(inputs))
	for i, in := range inputs {
		rs, err := pqTD.Eval(ctx, rego.EvalParsedInput(in))
		if err != nil {
			t.Fatal(err)
		}
		want[i] = resultText(rs)
	}
	var wg sync.WaitGroup
	errs := make(chan string, 1000)
	for w := range 8 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for round := range 20 {
				for i := range inputs {
					j := (i + w + round) % len(inputs)
					rs, err := pqIR.Eval(ctx, rego.EvalParsedInput(inputs[j]))
					if err != nil {
						errs <- err.Error()
						return
					}
					if got := resultText(rs); got != want[j] {
						select {
						case errs <- fmt.Sprintf("input %d: got %s want %s", j, got, want[j]):
						default:
						}
						return
					}
				}
			}
		}()
	}
	wg.Wait()
	close(errs)
	for e := range errs {
		t.Error(e)
	}
}

// TestTopdownMemo: a pure function's value kept for 1 is not the value
// for 1.0 (equal in Rego, written differently by json.marshal).
func TestTopdownMemo(t *testing.T) {
	cases := []diffCase{
		{name: "number representation", module: `package p
f(x) := json.marshal(x)
g(x) := x
y := [f(input.n), g(input.n)]`, query: "x := data.p.y", inputs: []string{`{"n": 1}`, `{"n": 1}`, `{"n": 1}`, `{"n": 1.0}`, `{"n": 1e0}`}},
		{name: "number representation nested", module: `package p
f(x) := json.marshal(x)
y := f(input.n)`, query: "x := data.p.y", inputs: []string{`{"n": [1, {"a": 100}]}`, `{"n": [1, {"a": 100}]}`, `{"n": [1.0, {"a": 1e2}]}`}},
	}
	compareCases(t, cases)
}

// TestTopdownTime: without rego.EvalTime, time.now_ns() is the clock's,
// as in topdown.
func TestTopdownTime(t *testing.T) {
	compareCases(t, []diffCase{
		{name: "time.now_ns", module: `package p
y := time.now_ns() > 1700000000000000000`, query: "x := data.p.y"},
		{name: "time.now_ns date", module: `package p
y := time.date(time.now_ns())[0] > 2020`, query: "x := data.p.y"},
		{name: "jwt decode_verify", module: `package p
y := [x, h, c] if io.jwt.decode_verify("eyJhbGciOiJIUzI1NiIsInR5cCI6IkpXVCJ9.eyJ1c2VyIjoiYWxpY2UiLCJhenAiOiJhbGljZSIsInN1Ym9yZGluYXRlcyI6W10sImhyIjpmYWxzZX0.rz3jTY033z-NrKfwrK89_dcLF7TN4gwCMj-fVBDyLoM", {"secret": "secret"}, [x, h, c])`, query: "x := data.p.y"},
	})
}

// TestTopdownSeed: without rego.EvalSeed, rand.intn and uuid.rfc4122
// read crypto/rand, as in topdown.
func TestTopdownSeed(t *testing.T) {
	compareCases(t, []diffCase{
		{name: "rand.intn", module: `package p
y := rand.intn("k", 10) < 10`, query: "x := data.p.y"},
		{name: "uuid", module: `package p
y := count(uuid.rfc4122("k"))`, query: "x := data.p.y"},
	})
}

// TestTopdownRuntime: opa.runtime() is what rego.Runtime gives.
func TestTopdownRuntime(t *testing.T) {
	compareCases(t, []diffCase{
		{name: "opa.runtime", module: `package p
y := opa.runtime().config`, query: "x := data.p.y", opts: []func(*rego.Rego){rego.Runtime(ast.MustParseTerm(`{"config": {"a": 1}}`))}},
	})
}

type printHook struct {
	mu    sync.Mutex
	lines []string
}

func (h *printHook) Print(_ print.Context, s string) error {
	h.mu.Lock()
	defer h.mu.Unlock()
	h.lines = append(h.lines, s)
	return nil
}

func TestTopdownMore(t *testing.T) {
	cases := []diffCase{
		{name: "object literal dup keys", module: `package p
y := {input.a: 1, input.b: 2}`, query: "x := data.p.y", inputs: []string{`{"a": "k", "b": "k"}`, `{"a": 1, "b": 1.0}`}},
		{name: "set literal numbers", module: `package p
y := {input.a, input.b}
z := count(y)`, query: "x := data.p.y; y := data.p.z", inputs: []string{`{"a": 1, "b": 1.0}`}},
		{name: "function multiple outputs", module: `package p
f(x) := y if { some y in x }
z := f(input.a)`, query: "x := data.p.z", inputs: []string{`{"a": [1]}`, `{"a": [1, 1.0]}`, `{"a": [1, 2]}`}},
		{name: "function patterns", module: `package p
f({"a": x}) := x
f([a, b]) := a + b
g(x, x) := "same"
z := [f({"a": 3}), f([1, 2]), g(1, 1)]
w := object.get({"v": g(1, 2)}, "v", "diff")`, query: "x := data.p.z; y := object.get(data.p, \"w\", \"undefined\")"},
		{name: "not false", module: `package p
f(x) := x
a if not f(false)
b if not f(true)
c if not input.f
d if not input.missing
e if { v := false; not v }`, query: "x := data.p", inputs: []string{`{"f": false}`, `{"f": 0}`}},
		{name: "general ref rules", refused: true, module: `package p
a[x].y := 1 if some x in input.xs
a.k.z := 2
b[x][y] contains z if { some x in input.xs; some y in input.xs; z := [x, y] }`, query: "x := data.p.a; y := data.p.a.k; z := data.p.b", inputs: []string{`{"xs": ["k", "j"]}`}},
		{name: "deeper query of general ref", refused: true, module: `package p
a[x].y := 1 if some x in input.xs`, query: "x := data.p.a.k.y", inputs: []string{`{"xs": ["k", "j"]}`, `{"xs": []}`}},
		{name: "query iteration", module: `package p
s contains x if some x in input.xs
o[k] := v if some k, v in input.xs`, query: "data.p.s[x]; data.p.o[y] = x", inputs: []string{`{"xs": ["k", "j"]}`}},
		{name: "base data conflict", module: `package p
a := 1`, query: "x := data.p", data: `{"p": {"a": 5}}`},
		{name: "base data nonconflict deep", module: `package p.q
a := 1`, query: "x := data.p", data: `{"p": {"q": {"b": 5}, "r": 1}}`},
		{name: "base data scalar vs package", module: `package p.q
a := 1`, query: "x := data.p", data: `{"p": {"q": 5}}`},
		{name: "big numbers", module: `package p
a := input.n == 1e400
b := input.n > 10
c := input.n + 1
d := 100000000000000000000000000001 == 100000000000000000000000000000`, query: "x := data.p", inputs: []string{`{"n": 1e400}`}},
		{name: "composite keys", module: `package p
o := {[1, 2]: "a", {"k": 1}: "b"}
v := o[[1, 2]]
s := {[1], {"a"}}
w := [1] in s`, query: "x := data.p"},
		{name: "sort slice", module: `package p
a := sort(input.s)
b := array.slice(input.a, 1, 2)
c := sort(["b", "a"])
d := array.concat(input.a, [9])
e := [x | some x in input.s]`, query: "x := data.p", inputs: []string{`{"s": {"c", 1, [2], null, false, {"a": 1}}, "a": [1, 2, 3]}`}},
		{name: "ref head set mutation", refused: true, module: `package p
a.b := input.o
a[x].c := 1 if some x in input.xs`, query: "x := data.p.a; y := input", inputs: []string{`{"o": {"d": 2}, "xs": ["b"]}`}},
		{name: "ref head set mutation 2", refused: true, module: `package p
a.b := input.s
a[x] contains 1 if some x in input.xs`, query: "x := data.p.a; y := input", inputs: []string{`{"s": [5], "xs": ["b"]}`}},
		{name: "undefined args", module: `package p
f(x) := 1
y := f(input.missing)
z := count([1 | f(input.missing)])`, query: "x := data.p"},
		{name: "rule with var not in head", module: `package p
r contains [a, b] if { some a in input.xs; b := a * 2; a > 1 }`, query: "x := data.p.r", inputs: []string{`{"xs": [1, 2, 3]}`}},
		{name: "logical or and", module: `package p
r if { input.a } 
q := count([1 | input.a == 1])`, query: "x := data.p", inputs: []string{`{"a": 1}`}},
		{name: "regex and glob", module: `package p
a := regex.split(",", "a,b")
b := glob.match("*.x", ["."], "a.x")
c := regex.is_valid("[")
d := regex.replace("aaa", "a", "b")
e := strings.replace_n({"a": "b"}, "aaa")
f := split("a,b", ",")[1]
g := replace("aaa", "a", "c")`, query: "x := data.p"},
		{name: "count of strings", module: `package p
a := count("héllo")
b := [a, b] if ["x", "y"] = [a, b]
c := count(input.s)`, query: "x := data.p", inputs: []string{`{"s": "日本"}`}},
		{name: "unify arrays with strings", module: `package p
a if { [x, y] = input.s }
b if { [x, y] = input.a; x == 1 }
c if { {"k": v} = input.o; v == 1 }`, query: "x := data.p", inputs: []string{`{"s": "ab", "a": [1, 2], "o": {"k": 1}}`, `{"s": ["a", "b"], "a": "12", "o": "k"}`}},
	}
	compareCases(t, cases)
}

// TestTopdownRefHeadMutation: a complete rule whose value is a set, at a
// key that a multi-value rule with a variable key also writes
// (a.b := S; a[x] contains y), is planned as one function that adds to S
// in place: S may be the input's, or a value kept for other evaluations.
// irvm refuses such plans (topdown reports a conflict).
func TestTopdownRefHeadMutation(t *testing.T) {
	cases := []diffCase{
		{name: "input set", refused: true, module: `package p
a.b := input.s
a[x] contains 1 if some x in input.xs`, query: "x := data.p.a; y := input", inputs: []string{`{"s": {5}, "xs": ["b"]}`}},
		{name: "memoized set", refused: true, module: `package p
base := {5}
a.b := base
a[x] contains y if { some x in input.xs; y := input.y }`, query: "x := data.p.a; y := data.p.base",
			inputs: []string{`{"xs": ["c"], "y": 0}`, `{"xs": ["b"], "y": 1}`, `{"xs": ["b"], "y": 2}`, `{"xs": ["b"], "y": 3}`, `{"xs": ["c"], "y": 4}`}},
		{name: "memoized object", refused: true, module: `package p
base := {"k": 5}
a.b := base
a[x].z := y if { some x in input.xs; y := input.y }`, query: "x := data.p.a; y := data.p.base",
			inputs: []string{`{"xs": ["c"], "y": 0}`, `{"xs": ["b"], "y": 1}`, `{"xs": ["b"], "y": 2}`, `{"xs": ["b"], "y": 3}`, `{"xs": ["c"], "y": 4}`}},
	}
	compareCases(t, cases)
}

func TestTopdownFallbacks(t *testing.T) {
	cases := []diffCase{
		{name: "no input", module: `package p
a := 1 if not input
b := count([1 | input])
c := 1 if input.x`, query: "x := data.p", inputs: []string{""}},
		{name: "dynamic package ref", module: `package p.q
r := 1`, query: "x := [[k, v] | v := data.p[k].r]", opts: []func(*rego.Rego){rego.Module("s.rego", "package p.s\nr := 2")}},
		{name: "dynamic rule ref", module: `package p
r.a := 1
r.b := 2 if input.b
t := [[k, v] | some k; v := data.p.r[k]]`, query: "x := data.p.t", inputs: []string{`{"b": true}`, `{}`}},
	}
	compareCases(t, cases)
}

func TestTopdownCompositeLoops(t *testing.T) {
	cases := []diffCase{
		{name: "array literal with iteration", module: `package p
r contains x if x := [input.a[_], 1]
s contains [input.a[_]]
o contains x if x := {"k": input.a[_]}
t contains x if x := {input.a[_], 0}`, query: "x := data.p.r; y := data.p.s; z := [data.p.o, data.p.t]", inputs: []string{`{"a": [1, 2, 3]}`}},
		{name: "comprehension inside loop", module: `package p
r contains x if { some i in input.a; x := [j | some j in input.a; j > i] }`, query: "x := data.p.r", inputs: []string{`{"a": [1, 2, 3]}`}},
	}
	compareCases(t, cases)
}

// TestTopdownDeepFrames nests calls whose frames grow the stack while a
// caller's locals are live, with built-in calls between them.
func TestTopdownDeepFrames(t *testing.T) {
	var b strings.Builder
	b.WriteString("package p\n")
	const depth = 12
	for i := range depth {
		if i == depth-1 {
			fmt.Fprintf(&b, "f%d(x) := sprintf(\"%%v|%%v\", [x, count(x)])\n", i)
			continue
		}
		fmt.Fprintf(&b, `f%d(x) := r if {
	a := [y | some y in x]
	b := {k: v | some k, v in a; v != "zz"}
	c := f%d(array.concat(a, [%d]))
	d := object.get(b, 0, "none")
	e := [c, d, count(a), {"k": [a, b]}]
	r := json.marshal(e)
}
`, i, i+1, i)
	}
	b.WriteString(`out := [f0(v) | some v in input.vs]
s contains f0(input.vs[_])`)
	c := diffCase{name: "deep", module: b.String(), query: "x := data.p.out; y := data.p.s",
		inputs: []string{`{"vs": [["a"], ["b", "c"], []]}`, `{"vs": [["a"], ["b", "c"], []]}`, `{"vs": [["a"], ["b", "c"], []]}`, `{"vs": [["a"], ["q"]]}`}}
	compareCases(t, []diffCase{c})
}

func TestTopdownTemplateStrings(t *testing.T) {
	cases := []diffCase{
		{name: "template string", module: `package p
a := $"n={input.n} s={input.s} o={input.o} m={input.missing}"
b := [$"{x}" | some x in input.a]`, query: "x := data.p", inputs: []string{`{"n": 1.5, "s": "str", "o": {"k": [1, "x"]}, "a": [1, "b", null]}`}},
	}
	compareCases(t, cases)
}

// TestTopdownCancel cancels evaluations part way, then checks that later
// evaluations of the same prepared query still agree with topdown (the
// memo kept nothing from the cancelled ones).
func TestTopdownCancel(t *testing.T) {
	module := `package p
f(n) := count([i | some i in numbers.range(1, n); i % 7 == 0])
g(n) := concat(",", [sprintf("%d", [i]) | some i in numbers.range(1, n)])
x := [f(input.n), count(g(input.n))]`
	c := diffCase{module: module, query: "x := data.p.x"}
	pqIR, ctx, err := prepareCase(t, Target, c)
	if err != nil {
		t.Fatal(err)
	}
	pqTD, _, err := prepareCase(t, "", c)
	if err != nil {
		t.Fatal(err)
	}
	in := rego.EvalParsedInput(ast.MustParseTerm(`{"n": 50000}`).Value)
	rs, err := pqTD.Eval(ctx, in)
	if err != nil {
		t.Fatal(err)
	}
	want := resultText(rs)
	for i := range 20 {
		d := time.Duration(i%10) * time.Millisecond
		cctx, cancel := context.WithTimeout(ctx, d)
		_, _ = pqIR.Eval(cctx, in)
		cancel()
		ec := topdown.NewCancel()
		go func() { time.Sleep(d); ec.Cancel() }()
		_, _ = pqIR.Eval(ctx, in, rego.EvalExternalCancel(ec))
	}
	for range 3 {
		rs, err := pqIR.Eval(ctx, in)
		if err != nil {
			t.Fatal(err)
		}
		if got := resultText(rs); got != want {
			t.Fatalf("after cancelled evaluations IR gives %s, topdown %s", got, want)
		}
	}
}

// TestTopdownCancelBuiltin: without rego.EvalExternalCancel, a context
// deadline stops a long built-in (numbers.range) and an evaluation that
// ends after its deadline, as in topdown.
func TestTopdownCancelBuiltin(t *testing.T) {
	module := `package p
x := count(numbers.range(1, input.n))`
	c := diffCase{module: module, query: "x := data.p.x"}
	var errs [2]error
	for i, target := range []string{"", Target} {
		pq, ctx, err := prepareCase(t, target, c)
		if err != nil {
			t.Fatal(err)
		}
		cctx, cancel := context.WithTimeout(ctx, 5*time.Millisecond)
		start := time.Now()
		_, errs[i] = pq.Eval(cctx, rego.EvalParsedInput(ast.MustParseTerm(`{"n": 2000000}`).Value))
		cancel()
		t.Logf("target %q: %v after %v", target, errs[i], time.Since(start))
	}
	if (errs[0] == nil) != (errs[1] == nil) {
		t.Errorf("topdown error %v, IR error %v", errs[0], errs[1])
	}
}

// TestTopdownConformance runs OPA's own evaluation test cases
// (v1/test/cases/testdata/v1 in the OPA module) with topdown and irvm and
// compares them with each other. Cases whose plan irvm leaves to topdown
// are counted, not compared.
func TestTopdownConformance(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	out, err := exec.CommandContext(ctx, "go", "list", "-m", "-f", "{{.Dir}}", "github.com/open-policy-agent/opa").Output()
	if err != nil {
		t.Fatalf("go list -m github.com/open-policy-agent/opa: %v", err)
	}
	dir := filepath.Join(strings.TrimSpace(string(out)), "v1/test/cases/testdata/v1")
	if _, err := os.Stat(dir); err != nil {
		t.Fatal(err)
	}
	set, err := cases.Load(dir)
	if err != nil {
		t.Fatal(err)
	}
	var ran, fallback, prepFail, diverged int
	only := os.Getenv("IRVM_CASE")
	for _, tc := range set.Cases {
		if len(tc.Env) > 0 || (only != "" && !strings.Contains(tc.Note, only)) {
			continue
		}
		var data ast.Object = ast.NewObject()
		if tc.Data != nil {
			v, err := ast.InterfaceToValue(*tc.Data)
			if err != nil {
				continue
			}
			data = v.(ast.Object)
		}
		var input ast.Value
		if tc.InputTerm != nil {
			input = ast.MustParseTerm(*tc.InputTerm).Value
		} else if tc.Input != nil {
			input, _ = ast.InterfaceToValue(*tc.Input)
		}
		run := func(target string) (string, error, error) {
			ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
			defer cancel()
			opts := []func(*rego.Rego){rego.Query(tc.Query), rego.Store(inmem.NewFromASTObject(data))}
			for i, m := range tc.Modules {
				opts = append(opts, rego.Module(fmt.Sprintf("m%d.rego", i), m))
			}
			if target != "" {
				opts = append(opts, rego.Target(target))
				ctx = WithData(ctx, data)
			}
			pq, err := rego.New(opts...).PrepareForEval(ctx)
			if err != nil {
				return "", err, nil
			}
			var eo []rego.EvalOption
			if input != nil {
				eo = append(eo, rego.EvalParsedInput(input))
			}
			// irvm keeps pure functions' values from the second call on:
			// evaluate three times, and report any change.
			if target != "" && os.Getenv("IRVM_PARALLEL") != "" {
				// several goroutines at once on the prepared query
				var wg sync.WaitGroup
				for range 4 {
					wg.Add(1)
					go func() {
						defer wg.Done()
						defer func() { _ = recover() }()
						for range 3 {
							_, _ = pq.Eval(ctx, eo...)
						}
					}()
				}
				wg.Wait()
			}
			var first string
			for i := range 3 {
				rs, err := func() (rs rego.ResultSet, err error) {
					defer func() {
						if r := recover(); r != nil {
							err = fmt.Errorf("PANIC %v", r)
						}
					}()
					return pq.Eval(ctx, eo...)
				}()
				if err != nil {
					return "", nil, err
				}
				res := resultText(rs)
				if i == 0 {
					first = res
				} else if res != first {
					return res, nil, fmt.Errorf("evaluation %d gives %s, the first %s", i+1, res, first)
				}
			}
			return first, nil, nil
		}
		want, wprep, werr := run("")
		if wprep != nil {
			continue
		}
		got, gprep, gerr := run(Target)
		switch {
		case gprep != nil && errors.Is(gprep, ErrUnsupported):
			fallback++
			continue
		case gprep != nil:
			prepFail++
			t.Logf("%s/%s: IR prepare fails (no fallback): %v", tc.Filename[len(dir):], tc.Note, gprep)
			continue
		}
		ran++
		if (werr != nil) != (gerr != nil) || got != want {
			diverged++
			t.Logf("%s/%s:\n  query %s\n  topdown %q err %v\n  IR      %q err %v", tc.Filename[len(dir):], tc.Note, tc.Query, want, werr, got, gerr)
		}
	}
	t.Logf("ran %d, left to topdown %d, IR prepare failed %d, diverged %d", ran, fallback, prepFail, diverged)
	if ran < 1000 {
		t.Errorf("only %d cases ran", ran)
	}
	if diverged > 0 || prepFail > 0 {
		t.Errorf("%d cases diverge, %d fail to prepare (run with -v for each)", diverged, prepFail)
	}
}

// TestTopdownDataNumberKeys: a number key in a reference into data
// (data.ports[443]) finds the key "443", as topdown reads data by path.
func TestTopdownDataNumberKeys(t *testing.T) {
	compareCases(t, []diffCase{
		{name: "data number key", module: `package p
a := data.ports[443]
b := data.ports[input.port]
c := [n | some n in input.ports; data.ports[n]]`, query: "x := data.p", data: `{"ports": {"443": "https", "80": "http"}}`,
			inputs: []string{`{"port": 80, "ports": [80, 443, 22]}`}},
	})
}
