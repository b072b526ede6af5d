package policy

import (
	"context"
	"errors"
	"fmt"
	"maps"
	"slices"
	"sort"
	"strings"
	"sync"

	"github.com/open-policy-agent/opa/v1/ast"
	"github.com/open-policy-agent/opa/v1/rego"
	"github.com/open-policy-agent/opa/v1/storage/inmem"

	"github.com/siteops/siteops/policy/report"
	"github.com/siteops/siteops/render"
	"github.com/siteops/siteops/sites"
)

// Engine checks fleets against the built-in rule library and the user
// policies it was loaded with. Load compiles every policy once; Check
// prepares one query per run and evaluates it per site, on all CPUs. An
// Engine holds no state between checks and is safe for concurrent use.
type Engine struct {
	o        options
	compiler *ast.Compiler
	// rules are the internal, built-in and user rules; queried are the
	// ones the query asks for, in the order of its bindings.
	rules   []ruleInfo
	queried []*ruleInfo
	// bindings are the query's variables, one per queried rule.
	bindings []string
	byID     map[string]*ruleInfo
	query    ast.Body
	data     ast.Object
	ign      *ignitionCache
	// needs says which costly parts of the input some policy reads.
	needs needs
}

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
	c := ast.NewCompiler().
		WithCapabilities(capabilities()).
		WithEnablePrintStatements(false).
		WithDefaultRegoVersion(ast.RegoV1).
		WithUseTypeCheckAnnotations(true)
	if c.Compile(all); c.Failed() {
		return nil, fmt.Errorf("compile policies: %w", astErrors(c.Errors))
	}
	builtins, err := builtinRules(c, mods)
	if err != nil {
		return nil, fmt.Errorf("load built-in rules: %w", err)
	}
	e := &Engine{o: o, compiler: c, data: data, ign: &ignitionCache{}, byID: map[string]*ruleInfo{}}
	e.needs = inputNeeds(c)
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
	var q []string
	for i := range e.rules {
		r := &e.rules[i]
		e.byID[r.ID] = r
		if r.ref != nil {
			b := fmt.Sprintf("r%d", len(e.queried))
			if r.user {
				// A user rule may be a complete rule, undefined when
				// its body fails: collect it, so the query never is.
				q = append(q, fmt.Sprintf("%s = [x | x := %s[_]]", b, r.ref))
			} else {
				q = append(q, fmt.Sprintf("%s = %s", b, r.ref)) // a set, checked by builtinRules
			}
			e.queried, e.bindings = append(e.queried, r), append(e.bindings, b)
		}
	}
	if e.query, err = ast.ParseBody(strings.Join(q, "; ")); err != nil {
		return nil, fmt.Errorf("build query: %w", err)
	}
	return e, nil
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
// revision before it.
func (e *Engine) Check(ctx context.Context, fleet *sites.Fleet, bundles map[string]*render.Bundle, opts ...CheckOption) (*report.Report, error) {
	var co checkOptions
	for _, o := range opts {
		o(&co)
	}
	views := make([]*view, len(fleet.Sites))
	names := make([]string, len(fleet.Sites))
	e.parallel(ctx, len(views), func(i int) {
		views[i] = newView(fleet.Sites[i], bundles[fleet.Sites[i].Name], e.needs.discovery)
	})
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	for i, s := range fleet.Sites {
		names[i] = s.Name
	}
	sort.Strings(names)
	data := ast.NewObject(item("siteops", ast.ObjectTerm(item("fleet", ast.NewTerm(fleetData(views, names))))))
	e.data.Foreach(func(k, v *ast.Term) { data.Insert(k, v) })
	pq, err := rego.New(
		rego.Compiler(e.compiler),
		rego.Store(inmem.NewFromASTObject(data)),
		rego.ParsedQuery(e.query),
		e.ign.function(),
	).PrepareForEval(ctx)
	if err != nil {
		return nil, fmt.Errorf("prepare query: %w", astErrors(err))
	}

	perSite := make([][]report.Finding, len(views))
	errs := make([]error, len(views))
	e.parallel(ctx, len(views), func(i int) {
		perSite[i], errs[i] = e.checkSite(ctx, &pq, views[i], bundles[views[i].site.Name])
	})
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	if err := joinSiteErrors(views, errs); err != nil {
		return nil, fmt.Errorf("evaluate policies: %w", err)
	}

	// Load warnings of a site that loaded can be waived by the site, like
	// its rule findings; load errors cannot (the site has no annotations
	// that loaded).
	index := make(map[string]int, len(views))
	for i, v := range views {
		index[v.site.Name] = i
	}
	rep := &report.Report{Sites: len(fleet.Sites)}
	for _, f := range e.problemFindings(fleet.Problems) {
		if i, ok := index[f.Site]; ok && f.Rule == RuleSiteLoadWarning {
			perSite[i] = append(perSite[i], f)
			continue
		}
		rep.Findings = append(rep.Findings, f)
	}
	for i, fs := range perSite {
		rep.Findings = append(rep.Findings, e.waive(views[i], fs)...)
	}
	if co.change != nil {
		heads := make(map[string]*view, len(views))
		for _, v := range views {
			heads[v.site.Name] = v
		}
		rep.Findings = append(rep.Findings, e.changeFindings(co.change, heads, fleet.Problems)...)
	}
	rep.Sort()
	return rep, nil
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

// checkSite evaluates one site. Its waivers are applied by Check, which
// adds the site's load warnings first.
func (e *Engine) checkSite(ctx context.Context, pq *rego.PreparedEvalQuery, v *view, b *render.Bundle) ([]report.Finding, error) {
	s := v.site
	var objects *ast.Term
	if e.needs.objects {
		var err error
		if objects, err = objectsTerm(b); err != nil {
			return nil, err
		}
	}
	input := v.value(objects, e.needs.positions)
	sctx, cancel := context.WithTimeout(ctx, e.o.siteTimeout)
	defer cancel()
	rs, err := pq.Eval(sctx, rego.EvalParsedInput(input))
	var out []report.Finding
	switch {
	case err != nil && ctx.Err() != nil:
		return nil, nil // the whole check is cancelled; Check reports it
	case err != nil && errors.Is(sctx.Err(), context.DeadlineExceeded):
		out = append(out, e.finding(RulePolicyTimeout, s, s.FieldPath(""),
			fmt.Sprintf("evaluating the policies for site %s took longer than %s and was stopped", s.Name, e.o.siteTimeout)))
	case err != nil:
		return nil, astErrors(err)
	case len(rs) != 1:
		return nil, fmt.Errorf("the query gave %d results, want 1", len(rs))
	default:
		for i, r := range e.queried {
			results, _ := rs[0].Bindings[e.bindings[i]].([]any)
			for _, res := range results {
				f, err := e.resultFinding(r, s, res)
				if err != nil {
					return nil, err
				}
				out = append(out, f)
			}
		}
	}
	return out, nil
}

// resultFinding turns one rule result into a finding. Built-in rules
// return {"msg", "field"}; user rules a string or an object with a string
// msg (conftest), optionally with field, _loc ({file, line}) and object.
func (e *Engine) resultFinding(r *ruleInfo, s *sites.Site, res any) (report.Finding, error) {
	if msg, ok := res.(string); ok && r.user {
		return e.ruleFinding(r, s, "", msg), nil
	}
	obj, ok := res.(map[string]any)
	msg, _ := obj["msg"].(string)
	if !ok || msg == "" {
		return report.Finding{}, &PolicyError{Pos: sites.Position{File: r.Source},
			Message: fmt.Sprintf("rule %s returned %v; a result is a string or an object with a string msg", r.ID, res)}
	}
	field, _ := obj["field"].(string)
	f := e.ruleFinding(r, s, field, msg)
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

func (e *Engine) ruleFinding(r *ruleInfo, s *sites.Site, field, msg string) report.Finding {
	pos := s.Source
	if field != "" {
		pos = s.Pos(field)
	}
	return report.Finding{Rule: r.ID, Severity: r.Severity, Site: s.Name, Field: field, Message: msg,
		Pos: pos, Remediation: r.Remediation, Reference: r.Reference}
}

// finding makes a finding of an engine-internal rule.
func (e *Engine) finding(rule string, s *sites.Site, field, msg string) report.Finding {
	return e.ruleFinding(e.byID[rule], s, field, msg)
}

// waive marks the findings of rules the site waives, and reports waivers
// that waive nothing because they are malformed or name no rule.
func (e *Engine) waive(v *view, findings []report.Finding) []report.Finding {
	s := v.site
	value, ok := v.annotations[AnnotationWaive]
	if !ok {
		return findings
	}
	field := fmt.Sprintf("metadata.annotations[%q]", AnnotationWaive)
	waivers, bad := parseWaivers(value)
	for _, b := range bad {
		findings = append(findings, e.finding(RuleWaiver, s, field,
			fmt.Sprintf("waiver %q has no reason; it waives nothing", b)))
	}
	reasons := map[string]string{}
	for _, w := range waivers {
		r, known := e.byID[w.rule]
		switch {
		case !known:
			findings = append(findings, e.finding(RuleWaiver, s, field,
				fmt.Sprintf("waiver names rule %q, which no loaded policy defines; it waives nothing", w.rule)))
		case r.ref == nil && r.ID != RuleSiteLoadWarning:
			findings = append(findings, e.finding(RuleWaiver, s, field,
				fmt.Sprintf("rule %s cannot be waived", w.rule)))
		default:
			reasons[w.rule] = w.reason
		}
	}
	for i := range findings {
		if reason, ok := reasons[findings[i].Rule]; ok {
			findings[i].Waived = reason
		}
	}
	return findings
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
func joinSiteErrors(views []*view, errs []error) error {
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
		byMsg[err.Error()] = &seen{site: views[i].site.Name, err: err}
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
