package policy

import (
	"context"
	"fmt"
	"slices"
	"sort"
	"strings"
	"sync"

	"github.com/open-policy-agent/opa/v1/ast"
	"github.com/open-policy-agent/opa/v1/rego"
	"github.com/open-policy-agent/opa/v1/storage/inmem"

	"github.com/siteops/siteops/internal/irvm"
	"github.com/siteops/siteops/internal/redact"
	"github.com/siteops/siteops/policy/report"
	"github.com/siteops/siteops/render"
	"github.com/siteops/siteops/sites"
)

// A Run checks one fleet site by site, so that a caller can load, render
// and check each site and then drop it (sites.Stream): memory stays with
// what the check reports, not with the fleet. Rules that read only their
// site are evaluated at once, by Evaluate; rules that read
// data.siteops.fleet wait for Finish, which builds the index from the
// facts of every site. For those, a Run keeps of each site the parts of
// its input document they read and where its facts are written, not the
// site.
//
//	run, err := e.Start(ctx)
//	// for each site, on a pool of goroutines:
//	c := run.Evaluate(site, bundle)
//	run.Add(c) // site and bundle may be dropped now
//	run.AddProblems(problems)
//	rep, err := run.Finish()
type Run struct {
	e           *Engine
	ctx         context.Context
	co          checkOptions
	local, user rego.PreparedEvalQuery

	mu       sync.Mutex
	checked  []*SiteCheck
	problems sites.Problems
}

// SiteCheck is what Evaluate found of one site, for Add.
type SiteCheck struct {
	name, path string
	source     sites.Position
	findings   []report.Finding
	err        error
	timedOut   bool
	facts      []fact
	// waived maps each rule the site waives to the reason.
	waived map[string]string
	// input and at are kept for the fleet rules (nil without any).
	input ast.Value
	at    *sitePositions
	// view is kept for the change rules, for a site that has started
	// installing.
	view *view
}

// Start prepares a check of one fleet: the query of the rules that read
// only their site. WithChange adds the change rules.
func (e *Engine) Start(ctx context.Context, opts ...CheckOption) (*Run, error) {
	r := &Run{e: e, ctx: ctx}
	for _, o := range opts {
		o(&r.co)
	}
	if !e.local.empty() {
		pq, err := e.preparedLocal(ctx)
		if err != nil {
			return nil, err
		}
		r.local = pq
	}
	if !e.user.empty() {
		pq, _, err := e.prepare(ctx, e.user, ast.NewObject(), false)
		if err != nil {
			return nil, err
		}
		r.user = pq
	}
	return r, nil
}

// preparedLocal is the local query, prepared by the first Run that
// succeeds in it (a cancelled one leaves it to the next).
func (e *Engine) preparedLocal(ctx context.Context) (rego.PreparedEvalQuery, error) {
	lq := &e.localQuery
	lq.mu.Lock()
	defer lq.mu.Unlock()
	if !lq.prepared {
		pq, ir, err := e.prepare(ctx, e.local, ast.NewObject(), !e.o.topdown)
		if err != nil {
			return pq, err
		}
		lq.pq, lq.ir, lq.prepared = pq, ir, true
	}
	return lq.pq, nil
}

// prepare compiles a query for a run, with the user's data and fleet (an
// empty object before the fleet is known) as data.siteops.fleet. With ir,
// the query (of built-in rules) is planned and run by internal/irvm,
// several times faster than OPA's topdown evaluator on the built-in
// library; when it cannot be (OPA's planner or irvm refuses it), topdown
// runs it.
func (e *Engine) prepare(ctx context.Context, q query, fleet ast.Value, ir bool) (pq rego.PreparedEvalQuery, usedIR bool, err error) {
	data := ast.NewObject(item("siteops", ast.ObjectTerm(item("fleet", ast.NewTerm(fleet)))))
	e.data.Foreach(func(k, v *ast.Term) { data.Insert(k, v) })
	opts := []func(*rego.Rego){
		rego.Store(inmem.NewFromASTObject(data)),
		rego.ParsedQuery(q.body),
		e.ign.function(),
	}
	if ir {
		pq, err = rego.New(append(opts, rego.Compiler(e.irCompiler), rego.Target(irvm.Target))...).PrepareForEval(irvm.WithData(ctx, data))
		if err == nil {
			return pq, true, nil
		}
	}
	if pq, err = rego.New(append(opts, rego.Compiler(e.compiler))...).PrepareForEval(ctx); err != nil {
		return pq, false, fmt.Errorf("prepare query: %w", astErrors(err))
	}
	return pq, false, nil
}

// Evaluate normalizes a site, builds its input document and evaluates the
// rules that read only the site. b is the site's rendered bundle (nil
// when it did not render). It is safe to call from many goroutines; the
// site and bundle are not used after it returns. The evaluator recurses
// deeply: call Evaluate from long-lived goroutines (a pool), not from one
// started per site, whose stack would grow anew every time.
func (r *Run) Evaluate(s *sites.Site, b *render.Bundle) *SiteCheck {
	e := r.e
	v := newView(s, b, e.needs.discovery)
	c := &SiteCheck{name: s.Name, path: v.path, source: s.Source}
	var objects *ast.Term
	if e.needs.objects {
		if objects, c.err = objectsTerm(b); c.err != nil {
			return c
		}
	}
	input := v.value(objects, e.needs.positions)
	ref := siteRef{s.Name, v.path, s}
	if !e.local.empty() {
		c.findings, c.timedOut, c.err = e.evaluate(r.ctx, &r.local, &e.local, input, ref)
	}
	if !e.user.empty() && !c.timedOut && c.err == nil {
		var found []report.Finding
		found, c.timedOut, c.err = e.evaluate(r.ctx, &r.user, &e.user, input, ref)
		c.findings = append(c.findings, found...)
	}
	var bad []report.Finding
	c.waived, bad = e.waivers(v)
	c.findings = append(c.findings, bad...)
	if !e.fleet.empty() {
		c.facts, c.input = v.facts(), e.fleetReads.project(input)
		c.at = v.positions(c.facts, e.userFleet)
	}
	if ch := r.co.change; ch != nil && ch.Started[s.Name] {
		c.view = v
	}
	return c
}

// Add records a site's check. Each site of the fleet is added once; it
// may be called from many goroutines.
func (r *Run) Add(c *SiteCheck) {
	r.mu.Lock()
	r.checked = append(r.checked, c)
	r.mu.Unlock()
}

// AddProblems records load problems of the fleet: they become findings
// (site.load, site.load-warning).
func (r *Run) AddProblems(ps sites.Problems) {
	if len(ps) == 0 {
		return
	}
	r.mu.Lock()
	r.problems = append(r.problems, ps...)
	r.mu.Unlock()
}

// Finish builds the fleet index, evaluates the rules that read it, applies
// waivers and the change rules, and returns the sorted report. The error
// is for the run as a whole (a cancelled context, a policy that fails at
// run time); everything about the sites is a finding. A Run is finished
// once: Finish lets go of the sites added.
func (r *Run) Finish() (*report.Report, error) {
	e, ctx := r.e, r.ctx
	// The run lets go of its sites: a caller that keeps the Run (a pass
	// of the loop, until its status is written) keeps none of them.
	checked := r.checked
	r.checked = nil
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	sort.Slice(checked, func(i, j int) bool { return checked[i].name < checked[j].name })
	names := make([]string, len(checked))
	errs := make([]error, len(checked))
	for i, c := range checked {
		names[i], errs[i] = c.name, c.err
	}
	if err := joinSiteErrors(names, errs); err != nil {
		return nil, fmt.Errorf("evaluate policies: %w", err)
	}
	if !e.fleet.empty() {
		if err := r.evaluateFleet(checked, names); err != nil {
			return nil, err
		}
	}

	// Load warnings of a site that loaded can be waived by the site, like
	// its rule findings; load errors cannot (the site has no annotations
	// that loaded).
	index := make(map[string]int, len(checked))
	for i, c := range checked {
		index[c.name] = i
	}
	rep := &report.Report{Sites: len(checked)}
	for _, f := range e.problemFindings(r.problems) {
		if i, ok := index[f.Site]; ok && f.Rule == RuleSiteLoadWarning {
			checked[i].findings = append(checked[i].findings, f)
			continue
		}
		rep.Findings = append(rep.Findings, f)
	}
	for _, c := range checked {
		for i := range c.findings {
			if reason, ok := c.waived[c.findings[i].Rule]; ok {
				c.findings[i].Waived = reason
			}
		}
		rep.Findings = append(rep.Findings, c.findings...)
	}
	if r.co.change != nil {
		heads := make(map[string]*view, len(checked))
		for _, c := range checked {
			heads[c.name] = c.view
		}
		rep.Findings = append(rep.Findings, e.changeFindings(r.co.change, heads, r.problems)...)
	}
	for i := range rep.Findings {
		redactFinding(&rep.Findings[i])
	}
	rep.Sort()
	return rep, nil
}

// redactFinding hides credentials in what a finding prints: a rule may
// quote a value of the site (a BMC address with user:password@), and
// every output format, status file and log line is made from findings.
func redactFinding(f *report.Finding) {
	f.Message = redact.Text(f.Message)
	f.Remediation = redact.Text(f.Remediation)
	f.Waived = redact.Text(f.Waived)
	f.Field = redact.Text(f.Field)
}

// evaluateFleet evaluates the rules that read data.siteops.fleet on every
// site that did not run out of time already.
func (r *Run) evaluateFleet(checked []*SiteCheck, names []string) error {
	e, ctx := r.e, r.ctx
	all := make([]siteFacts, len(checked))
	for i, c := range checked {
		all[i] = siteFacts{site: c.name, facts: c.facts}
	}
	indexNames := names
	if f := r.co.facts; f != nil {
		// The sites of other checks that share a value with these join
		// the index (in name order, which orders each value's uses); then
		// these sites' facts are kept for the next check.
		others, covered := f.others(all, e.userFleet)
		f.keep(all)
		all = append(all, others...)
		slices.SortFunc(all, func(a, b siteFacts) int { return strings.Compare(a.site, b.site) })
		indexNames = covered
	}
	data := fleetData(all, indexNames)
	pq, _, err := e.prepare(ctx, e.fleet, data, false)
	if err != nil {
		return err
	}
	var shared []ast.Object // nil: every site is evaluated
	if e.skipsQuietSites() {
		shared = sharedKeys(data)
	}
	errs := make([]error, len(checked))
	e.parallel(ctx, len(checked), func(i int) {
		c := checked[i]
		if c.timedOut || shared != nil && !repeatsValue(c.facts, shared) {
			c.input = nil
			return
		}
		fs, timedOut, err := e.evaluate(ctx, &pq, &e.fleet, c.input, siteRef{c.name, c.path, c.at})
		c.findings, c.timedOut, errs[i] = append(c.findings, fs...), timedOut, err
		c.input = nil
	})
	if err := ctx.Err(); err != nil {
		return err
	}
	if err := joinSiteErrors(names, errs); err != nil {
		return fmt.Errorf("evaluate policies: %w", err)
	}
	return nil
}

// sitePositions is where the fields of a site's facts, its nodes and its
// cluster are written: what a Run keeps of a site to place the findings of
// the fleet rules, which name such fields (with a user rule among them,
// every path of input.positions too). Another path resolves to its closest
// parent among them.
//
// Every site of a fleet keeps one until the fleet rules have run, so it
// holds little: the facts, which the site keeps anyway, and the places of
// the cluster and its nodes, in a slice. A map of them all took 16 MB of a
// 10,000-site check, five times that at the collector's peak.
type sitePositions struct {
	facts []fact
	// places are the cluster's and the nodes' paths with where they are
	// written.
	places []pathPosition
	// all holds every path of input.positions, for a user's fleet rule
	// (nil otherwise).
	all    map[string]sites.Position
	source sites.Position
}

type pathPosition struct {
	path string
	pos  sites.Position
}

func (p *sitePositions) Pos(path string) sites.Position {
	for path != "" {
		if pos, ok := p.lookup(path); ok {
			return pos
		}
		i := strings.LastIndexAny(path, ".[")
		if i < 0 {
			break
		}
		path = path[:i]
	}
	return p.source
}

// lookup finds the place of path itself: a fact's field first, then the
// cluster or a node, then any other path of input.positions.
func (p *sitePositions) lookup(path string) (sites.Position, bool) {
	for i := range p.facts {
		if p.facts[i].field == path {
			return p.facts[i].pos, true
		}
	}
	for i := range p.places {
		if p.places[i].path == path {
			return p.places[i].pos, true
		}
	}
	pos, ok := p.all[path]
	return pos, ok
}

// positions keeps where the site writes its facts' fields, nodes and
// cluster, and with all, every path of input.positions.
func (v *view) positions(facts []fact, all bool) *sitePositions {
	p := &sitePositions{facts: facts, places: make([]pathPosition, 0, len(v.m.Nodes)+1), source: v.site.Source}
	p.places = append(p.places, pathPosition{v.path, v.site.Pos(v.path)})
	for i := range v.m.Nodes {
		p.places = append(p.places, pathPosition{v.m.Nodes[i].Path, v.site.Pos(v.m.Nodes[i].Path)})
	}
	if all {
		p.all = map[string]sites.Position{}
		v.positionPaths(func(path string) {
			if _, ok := p.lookup(path); !ok {
				p.all[path] = v.site.Pos(path)
			}
		})
	}
	return p
}
