// Package irvm evaluates Rego queries from OPA's intermediate
// representation: the plan OPA's planner makes of a query and the modules
// it reads (the plan OPA compiles to WebAssembly), run by a Go
// interpreter. It is a target of OPA's rego package:
//
//	ctx = irvm.WithData(ctx, data) // the document the plan reads as data
//	pq, err := rego.New(rego.Target(irvm.Target), rego.Compiler(c),
//		rego.ParsedQuery(body)).PrepareForEval(ctx)
//	rs, err := pq.Eval(ctx, rego.EvalParsedInput(input))
//
// # Why
//
// OPA's own evaluator (topdown) unifies every expression and passes
// continuations between them: the built-in rule library of siteops costs
// it most of a millisecond per site, the better half of a check's CPU. A
// plan is a list of plain statements (look a key up, compare two values,
// scan a collection, call a function), which an interpreter runs several
// times faster with the same results.
//
// # What it runs, and what it leaves to topdown
//
// The built-ins are OPA's own (topdown.GetBuiltin), with the bounds and
// wrappers installed there, and the functions given with rego.Function.
// A built-in's error makes its call undefined, as topdown does without
// strict built-in errors; a topdown.Halt stops the evaluation with its
// error. Rules without arguments are evaluated once per evaluation.
//
// A plan that uses the `with` keyword or a reference into data that the
// planner could not resolve (a dynamic call), that has rules the planner
// left out, or that changes in place a value it did not make (rules with
// references in their heads that write into each other's values) is not
// prepared: PrepareForEval returns an error that wraps ErrUnsupported, and
// the caller evaluates with topdown instead. Without rego.EvalTime,
// EvalSeed or EvalExternalCancel, the clock, crypto/rand and the
// context's cancellation are used, as in topdown.
//
// Where OPA's planner itself differs from topdown, so does this
// evaluator: a partial object rule is evaluated whole even when one key
// is asked for (a conflict at another key is an error), the keys of a
// document that mixes data and rules are visited rules first, and a
// query's identical result rows are one. siteops runs only its built-in
// library here (policy), where none of these arise; user policies are
// evaluated by topdown.
//
// The statements' meaning is OPA's: internal/planner makes the plan and
// internal/compiler/wasm gives each statement its semantics
// (open-policy-agent/opa v1.22). The tests hold the interpreter to topdown
// on every rule of the library and on the language's constructs.
package irvm
