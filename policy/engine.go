package policy

import (
	"context"
	"errors"
	"fmt"
	"github.com/open-policy-agent/opa/v1/topdown"
	"maps"
	"runtime"
	"slices"
	"sort"
	"strings"
	"sync"

	"github.com/open-policy-agent/opa/v1/ast"
	"github.com/open-policy-agent/opa/v1/rego"

	"github.com/siteops/siteops/policy/report"
	"github.com/siteops/siteops/render"
	"github.com/siteops/siteops/sites"
)

// Engine checks fleets against the built-in rule library and the user
// policies it was loaded with. Load compiles every policy once; Check
// prepares one query per run and evaluates it per site, on all CPUs. An
// Engine keeps between checks only the per-site query of the built-in
// library, prepared once, with the values its pure functions gave; it is
// safe for concurrent use.
type Engine struct {
	o        options
	compiler *ast.Compiler
	// irCompiler holds the built-in library alone, compiled for
	// internal/irvm (ast.EvalModeIR), which runs local: rego switches the
	// mode of a compiler it plans from, and compiler is topdown's.
	irCompiler *ast.Compiler
	// rules are the internal, built-in and user rules.
	rules []ruleInfo
	byID  map[string]*ruleInfo
	// local asks for the built-in rules that read only the site, run by
	// internal/irvm; user for the user rules that read only the site,
	// run by topdown (conftest's evaluator, whose semantics they were
	// written for); fleet for the rules that may read
	// data.siteops.fleet, which exists only once every site is known
	// (see Run), run by topdown too.
	local, user, fleet query
	// fleetReads is what of the input the fleet rules can read: all a Run
	// keeps of a site's input for them. userFleet says whether a user rule
	// is among them: its findings may name any field of the site.
	fleetReads projection
	userFleet  bool
	data       ast.Object
	ign        *ignitionCache
	// guard stops evaluations that take the heap over the budget.
	guard *memGuard
	// needs says which costly parts of the input some policy reads.
	needs needs
	// pure keeps the results of the library's pure functions across
	// evaluations.
	pure *pureResults
	// localQuery is local prepared once for every Run: it reads no fleet,
	// and planning it costs tens of milliseconds, at every pass of the
	// loop otherwise. irvm's kept values then last across runs too.
	localQuery struct {
		mu       sync.Mutex
		prepared bool
		pq       rego.PreparedEvalQuery
		ir       bool // run by internal/irvm, not topdown (which it fell back to)
	}
}

// query is one prepared-per-run query over some of the rules: each rule
// set is bound to a variable of its own.
type query struct {
	body     ast.Body
	rules    []*ruleInfo
	bindings []string
}

func (q *query) empty() bool { return len(q.rules) == 0 }

// Load reads the built-in library, the user policies and the data files,
// and compiles them together. Problems with user files come back as
// *PolicyError values (joined), each with its file and line.
func Load(ctx context.Context, opts ...Option) (*Engine, error) {
	o := applyOptions(opts)
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	ns, err := ast.ParseRef("data." + o.namespace)
	if err != nil || !ns.IsGround() {
		return nil, fmt.Errorf("load policies: namespace %q is not a package path", o.namespace)
	}
	installLimits()
	mods, err := loadBuiltins()
	if err != nil {
		return nil, fmt.Errorf("load built-in rules: %w", err)
	}
	user, err := loadUserPolicies(o.policyDirs, o.maxFileSize)
	if err != nil {
		return nil, fmt.Errorf("load user policies: %w", err)
	}
	data, err := loadData(o.dataDirs, o.maxFileSize)
	if err != nil {
		return nil, fmt.Errorf("load data: %w", err)
	}
	all := maps.Clone(mods)
	maps.Copy(all, user)
	c := newCompiler()
	if c.Compile(all); c.Failed() {
		return nil, fmt.Errorf("compile policies: %w", astErrors(c.Errors))
	}
	ci := newCompiler().WithEvalMode(ast.EvalModeIR)
	if ci.Compile(maps.Clone(mods)); ci.Failed() {
		return nil, fmt.Errorf("compile built-in rules: %w", astErrors(ci.Errors))
	}
	builtins, err := builtinRules(c, mods)
	if err != nil {
		return nil, fmt.Errorf("load built-in rules: %w", err)
	}
	e := &Engine{o: o, compiler: c, irCompiler: ci, data: data, ign: &ignitionCache{}, byID: map[string]*ruleInfo{}, guard: newMemGuard(o.memBudget)}
	e.needs = inputNeeds(c)
	e.pure = newPureResults(c)
	e.rules = append(e.rules, internalRules...)
	e.rules = append(e.rules, builtins...)
	for _, r := range userRules(c, user, ns) {
		// A user rule cannot take a built-in id: its id starts with its
		// package, which may not be siteops, and built-in ids are
		// ztp.*, site.* and policy.*; skip the impossible clash anyway.
		if !slices.ContainsFunc(e.rules, func(b ruleInfo) bool { return b.ID == r.ID }) {
			e.rules = append(e.rules, r)
		}
	}
	var local, users, fleet []string
	for i := range e.rules {
		r := &e.rules[i]
		e.byID[r.ID] = r
		if r.ref == nil {
			continue
		}
		q, texts := &e.local, &local
		switch {
		case readsFleet(c, r.ref):
			q, texts = &e.fleet, &fleet
		case r.user:
			q, texts = &e.user, &users
		}
		b := fmt.Sprintf("r%d", len(q.rules))
		if r.user {
			// A user rule may be a complete rule, undefined when its body
			// fails: collect it, so the query never is.
			*texts = append(*texts, fmt.Sprintf("%s = [x | x := %s[_]]", b, r.ref))
		} else {
			*texts = append(*texts, fmt.Sprintf("%s = %s", b, r.ref)) // a set, checked by builtinRules
		}
		q.rules, q.bindings = append(q.rules, r), append(q.bindings, b)
	}
	refs := make([]ast.Ref, len(e.fleet.rules))
	for i, r := range e.fleet.rules {
		refs[i] = r.ref
		e.userFleet = e.userFleet || r.user
	}
	e.fleetReads = inputRead(c, refs)
	for _, q := range []struct {
		q     *query
		texts []string
	}{{&e.local, local}, {&e.user, users}, {&e.fleet, fleet}} {
		if len(q.texts) == 0 {
			continue
		}
		if q.q.body, err = ast.ParseBody(strings.Join(q.texts, "; ")); err != nil {
			return nil, fmt.Errorf("build query: %w", err)
		}
	}
	return e, nil
}

// newCompiler is a compiler of policies in the sandbox (capabilities), in
// Rego v1, without print statements.
func newCompiler() *ast.Compiler {
	return ast.NewCompiler().
		WithCapabilities(capabilities()).
		WithEnablePrintStatements(false).
		WithDefaultRegoVersion(ast.RegoV1).
		WithUseTypeCheckAnnotations(true)
}

// Rules lists every rule, built-in (engine and library) then user, each
// group by id: what --list-rules prints.
func (e *Engine) Rules() []report.Rule {
	out := make([]report.Rule, len(e.rules))
	for i, r := range e.rules {
		out[i] = r.Rule
	}
	sort.SliceStable(out, func(i, j int) bool {
		if bi, bj := out[i].Source == "builtin", out[j].Source == "builtin"; bi != bj {
			return bi
		}
		return out[i].ID < out[j].ID
	})
	return out
}

// NeedsObjects reports whether some loaded policy reads input.objects.
func (e *Engine) NeedsObjects() bool { return e.needs.objects }

// Reads reports whether Check reads a rendered object: every object when
// some loaded policy reads input.objects; else only BareMetalHosts (for
// their BMC settings) and, when the discovery Ignition is built, InfraEnvs
// and NMStateConfigs. A caller short of memory may drop the others from
// its bundles before Check: a large fleet's whole bundles cost gigabytes.
func (e *Engine) Reads(o *render.Object) bool {
	switch {
	case e.needs.objects, o.Kind == render.KindBareMetalHost:
		return true
	case o.Kind == render.KindInfraEnv, o.Kind == render.KindNMStateConfig:
		return e.needs.discovery
	}
	return false
}

// Check evaluates every site of the fleet with its rendered bundle (a site
// without one is checked with no objects) and turns the fleet's load
// problems into findings. Sites are evaluated in parallel; the report is
// sorted. The error is for the run as a whole (a cancelled context, a
// policy that fails at run time); everything about the sites is a finding.
//
// WithChange adds the change rules, which compare the fleet with the
// revision before it. Check holds every site and bundle of the fleet; a
// caller that streams the sites uses a Run instead.
func (e *Engine) Check(ctx context.Context, fleet *sites.Fleet, bundles map[string]*render.Bundle, opts ...CheckOption) (*report.Report, error) {
	run, err := e.Start(ctx, opts...)
	if err != nil {
		return nil, err
	}
	checked := make([]*SiteCheck, len(fleet.Sites))
	e.parallel(ctx, len(checked), func(i int) {
		checked[i] = run.Evaluate(fleet.Sites[i], bundles[fleet.Sites[i].Name])
	})
	for _, c := range checked {
		if c != nil {
			run.Add(c)
		}
	}
	run.AddProblems(fleet.Problems)
	return run.Finish()
}

// parallel runs fn(0..n-1) on the engine's workers, stopping early when
// ctx is cancelled.
func (e *Engine) parallel(ctx context.Context, n int, fn func(i int)) {
	next := make(chan int)
	var wg sync.WaitGroup
	for range min(e.o.workers, max(n, 1)) {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := range next {
				fn(i)
			}
		}()
	}
feed:
	for i := range n {
		select {
		case next <- i:
		case <-ctx.Done():
			break feed
		}
	}
	close(next)
	wg.Wait()
}

// evaluate runs one query on a site's input and turns the rule results
// into findings placed with at. Nothing a policy does on one site stops
// the others: the site's time limit is a policy.timeout finding, and an
// evaluation error, a built-in call over the sandbox's bounds, the memory
// budget exceeded on its own and a panic of the evaluator are policy.error
// findings. stopped reports either: the site's evaluation is over. err is
// only for a cancelled check.
func (e *Engine) evaluate(ctx context.Context, pq *rego.PreparedEvalQuery, q *query, input ast.Value, s siteRef) (out []report.Finding, stopped bool, err error) {
	defer func() {
		if p := recover(); p != nil {
			out, stopped, err = []report.Finding{e.failure(s, fmt.Errorf("the evaluator failed: %v", p))}, true, nil
		}
	}()
	out, stopped, err = e.evaluateOnce(ctx, pq, q, input, s, false)
	if errors.Is(err, errMemory) {
		// Stopped with whatever ran beside it: run it again alone, from a
		// heap rid of what the stopped evaluation left.
		runtime.GC()
		out, stopped, err = e.evaluateOnce(ctx, pq, q, input, s, true)
	}
	switch {
	case err != nil && ctx.Err() != nil:
		return nil, false, nil // the whole check is cancelled; Finish reports it
	case err != nil:
		return []report.Finding{e.failure(s, err)}, true, nil
	}
	return out, stopped, nil
}

// failure is the policy.error finding of a site whose evaluation failed,
// placed at the policy's file and line when the error has them.
func (e *Engine) failure(s siteRef, err error) report.Finding {
	msg := err.Error()
	if errors.Is(err, errMemory) {
		msg = fmt.Sprintf("the heap grew more than the memory budget (%d MiB) while this site was evaluated alone", e.o.memBudget>>20)
	}
	f := e.finding(RulePolicyError, s.name, s.at, s.path, fmt.Sprintf("evaluating the policies for site %s failed: %s", s.name, msg))
	var te *topdown.Error
	var pe *PolicyError
	switch {
	case errors.As(err, &te) && te.Location != nil:
		f.Pos = sites.Position{File: te.Location.File, Line: te.Location.Row, Column: te.Location.Col}
	case errors.As(err, &pe) && pe.Pos.File != "":
		f.Pos = pe.Pos
	}
	return f
}

// evaluateOnce is one evaluation under the site's time limit and the
// memory guard; alone runs it with no other evaluation beside it.
func (e *Engine) evaluateOnce(ctx context.Context, pq *rego.PreparedEvalQuery, q *query, input ast.Value, s siteRef, alone bool) (out []report.Finding, timedOut bool, err error) {
	if alone {
		e.guard.solo.Lock()
		defer e.guard.solo.Unlock()
	} else {
		e.guard.solo.RLock()
		defer e.guard.solo.RUnlock()
	}
	mctx, stop := context.WithCancelCause(ctx)
	defer stop(nil)
	untrack := e.guard.track(stop)
	defer untrack()
	sctx, cancel := context.WithTimeout(mctx, e.o.siteTimeout)
	defer cancel()
	rs, err := e.eval(sctx, pq, input)
	switch {
	case err != nil && ctx.Err() != nil:
		return nil, false, ctx.Err()
	case err != nil && errors.Is(context.Cause(mctx), errMemory):
		return nil, false, errMemory
	case err != nil && errors.Is(sctx.Err(), context.DeadlineExceeded):
		return []report.Finding{e.finding(RulePolicyTimeout, s.name, s.at, s.path,
			fmt.Sprintf("evaluating the policies for site %s took longer than %s and was stopped", s.name, e.o.siteTimeout))}, true, nil
	case err != nil:
		return nil, false, astErrors(err)
	case len(rs) != 1:
		return nil, false, fmt.Errorf("the query gave %d results, want 1", len(rs))
	}
	for i, r := range q.rules {
		var results []*ast.Term
		if t, ok := rs[0].Bindings[q.bindings[i]].(*ast.Term); ok {
			switch v := t.Value.(type) {
			case ast.Set: // a built-in rule
				results = v.Slice()
			case *ast.Array: // a user rule, collected
				v.Foreach(func(x *ast.Term) { results = append(results, x) })
			}
		}
		for _, res := range results {
			x, err := ast.JSON(res.Value)
			if err != nil {
				return nil, false, err
			}
			f, err := e.resultFinding(r, s.name, s.at, x)
			if err != nil {
				return nil, false, err
			}
			out = append(out, f)
		}
	}
	return out, false, nil
}

// eval evaluates a prepared query on one input document with a rule cache
// of its own and the pure functions' results of earlier evaluations. The
// evaluation is cancelled with ctx through a callback on ctx rather than
// the goroutine OPA otherwise starts per evaluation to wait for it.
func (e *Engine) eval(ctx context.Context, pq *rego.PreparedEvalQuery, input ast.Value) (rego.ResultSet, error) {
	cache := getRuleCache()
	defer putRuleCache(cache)
	cache.shared = e.pure
	cancel := topdown.NewCancel()
	stop := context.AfterFunc(ctx, cancel.Cancel)
	defer stop()
	rs, err := pq.Eval(ctx, rego.EvalParsedInput(input), rego.EvalVirtualCache(cache), rego.EvalGenerateJSON(keepTerm),
		rego.EvalExternalCancel(cancel))
	if err == nil {
		e.pure.keep(cache)
	}
	return rs, err
}

// keepTerm leaves the query's results as terms: most rule sets are empty,
// and converting every one of them to Go values for every site would cost
// more than reading the few results there are.
func keepTerm(t *ast.Term, _ *rego.EvalContext) (any, error) { return t, nil }

// resultFinding turns one rule result into a finding. Built-in rules
// return {"msg", "field"}; user rules a string or an object with a string
// msg (conftest), optionally with field, _loc ({file, line}) and object.
func (e *Engine) resultFinding(r *ruleInfo, site string, at locator, res any) (report.Finding, error) {
	if msg, ok := res.(string); ok && r.user {
		return e.ruleFinding(r, site, at, "", msg), nil
	}
	obj, ok := res.(map[string]any)
	msg, _ := obj["msg"].(string)
	if !ok || msg == "" {
		return report.Finding{}, &PolicyError{Pos: sites.Position{File: r.Source},
			Message: fmt.Sprintf("rule %s returned %v; a result is a string or an object with a string msg", r.ID, res)}
	}
	field, _ := obj["field"].(string)
	f := e.ruleFinding(r, site, at, field, msg)
	if loc, ok := obj["_loc"].(map[string]any); ok {
		if file, ok := loc["file"].(string); ok && file != "" {
			f.Pos = sites.Position{File: file, Line: intOf(loc["line"]), Column: intOf(loc["column"])}
		}
	}
	if o, ok := obj["object"].(map[string]any); ok {
		ref := &report.ObjectRef{}
		ref.APIVersion, _ = o["apiVersion"].(string)
		ref.Kind, _ = o["kind"].(string)
		ref.Namespace, _ = o["namespace"].(string)
		ref.Name, _ = o["name"].(string)
		f.Object = ref
	}
	return f, nil
}

func intOf(x any) int {
	switch n := x.(type) {
	case int:
		return n
	case int64:
		return int(n)
	case float64:
		return int(n)
	case interface{ Int64() (int64, error) }:
		i, _ := n.Int64()
		return int(i)
	}
	return 0
}

// siteRef is what a finding needs of its site: the name, the document
// path of the cluster, and where each path is written.
type siteRef struct {
	name, path string
	at         locator
}

// locator says where a document path of a site is written: a
// *sites.Site, or what a Run keeps of one (see sitePositions).
type locator interface {
	Pos(path string) sites.Position
}

func (e *Engine) ruleFinding(r *ruleInfo, site string, at locator, field, msg string) report.Finding {
	return report.Finding{Rule: r.ID, Severity: r.Severity, Site: site, Field: field, Message: msg,
		Pos: at.Pos(field), Remediation: r.Remediation, Reference: r.Reference}
}

// finding makes a finding of an engine-internal rule.
func (e *Engine) finding(rule, site string, at locator, field, msg string) report.Finding {
	return e.ruleFinding(e.byID[rule], site, at, field, msg)
}

// waivers reads the site's waiver annotation: the reason for each rule it
// waives, and findings for the waivers that waive nothing because they
// are malformed or name no rule that can be waived.
func (e *Engine) waivers(v *view) (reasons map[string]string, bad []report.Finding) {
	s := v.site
	value, ok := v.annotations[AnnotationWaive]
	if !ok {
		return nil, nil
	}
	field := fmt.Sprintf("metadata.annotations[%q]", AnnotationWaive)
	waivers, malformed := parseWaivers(value)
	for _, b := range malformed {
		bad = append(bad, e.finding(RuleWaiver, s.Name, s, field,
			fmt.Sprintf("waiver %q has no reason; it waives nothing", b)))
	}
	reasons = map[string]string{}
	for _, w := range waivers {
		r, known := e.byID[w.rule]
		switch {
		case !known:
			bad = append(bad, e.finding(RuleWaiver, s.Name, s, field,
				fmt.Sprintf("waiver names rule %q, which no loaded policy defines; it waives nothing", w.rule)))
		case r.ref == nil && r.ID != RuleSiteLoadWarning:
			bad = append(bad, e.finding(RuleWaiver, s.Name, s, field,
				fmt.Sprintf("rule %s cannot be waived", w.rule)))
		default:
			reasons[w.rule] = w.reason
		}
	}
	return reasons, bad
}

// problemFindings turns load problems into findings: errors are
// site.load, warnings site.load-warning.
func (e *Engine) problemFindings(problems sites.Problems) []report.Finding {
	out := make([]report.Finding, 0, len(problems))
	for _, p := range problems {
		r := e.byID[RuleSiteLoad]
		if p.Severity == sites.SeverityWarning {
			r = e.byID[RuleSiteLoadWarning]
		}
		rem := r.Remediation
		if p.Hint != "" {
			rem = p.Hint
		}
		out = append(out, report.Finding{Rule: r.ID, Severity: r.Severity, Site: p.Site, Field: p.Field,
			Message: p.Message, Pos: p.Pos, Remediation: rem, Reference: r.Reference})
	}
	return out
}

// joinSiteErrors reports each distinct evaluation error once, with the
// first site it happened on: a broken user rule fails the same way on
// every site.
func joinSiteErrors(names []string, errs []error) error {
	type seen struct {
		site  string
		err   error
		other int
	}
	var order []string
	byMsg := map[string]*seen{}
	for i, err := range errs {
		if err == nil {
			continue
		}
		if s, ok := byMsg[err.Error()]; ok {
			s.other++
			continue
		}
		byMsg[err.Error()] = &seen{site: names[i], err: err}
		order = append(order, err.Error())
	}
	out := make([]error, 0, len(order))
	for _, msg := range order {
		s := byMsg[msg]
		if s.other > 0 {
			out = append(out, fmt.Errorf("site %s (and %d more): %w", s.site, s.other, s.err))
		} else {
			out = append(out, fmt.Errorf("site %s: %w", s.site, s.err))
		}
	}
	return errors.Join(out...)
}
