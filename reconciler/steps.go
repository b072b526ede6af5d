package reconciler

import (
	"context"
	"errors"
	"fmt"
	"maps"
	"slices"

	"github.com/siteops/siteops/engine"
	"github.com/siteops/siteops/policy"
	"github.com/siteops/siteops/policy/report"
	"github.com/siteops/siteops/reconciler/source"
)

// A pass over a new revision runs passSteps in order, each a function of
// its own that reads and fills the pass, the way a Flux reconciler runs
// its sub-reconcilers: load what changed (rendering each site and
// evaluating the rules that read it alone), keep the first definition of
// a cluster, check against the whole fleet, decide per site, record in
// the index, find what was removed, apply, and delete or orphan what was
// removed. Status is written
// after the steps (Loop.reconcile). The loop's lock is taken only around
// changes to the index, never across a call to the engine, so that the
// dashboard and the API never wait on the engine.

// pass is what the steps of one pass share.
type pass struct {
	snap source.Snapshot
	rev  string
	w    *work
	// run is the policy check of the pass, which the load step feeds;
	// res is what the load step read; accepted the sites it keeps.
	run      *policy.Run
	res      *loadResult
	accepted []*loaded
	// byName routes the check's findings to the sites; orphanFindings
	// concern no site.
	byName         map[string][]report.Finding
	orphanFindings []report.Finding
	// toApply are the sites whose bundle changed; removed those the
	// revision no longer defines, unsure those of them a load error may
	// hide.
	toApply         []*loaded
	removed, unsure []string
	// touched are the sites whose documents may have changed.
	touched map[string]struct{}
}

// passStep is one step of a pass.
type passStep struct {
	name string
	run  func(l *Loop, ctx context.Context, p *pass) error
}

// passSteps are the steps of a pass, in order; their names label the
// durations the "pass finished" log line gives.
var passSteps = []passStep{
	{"load", (*Loop).stepLoad},
	{"dedupe", (*Loop).stepDedupe},
	{"check", (*Loop).stepCheck},
	{"decide", (*Loop).stepDecide},
	{"removals", (*Loop).stepRemovals},
	{"apply", (*Loop).stepApply},
	{"prune", (*Loop).stepPrune},
}

// apply runs the steps of a pass over what w asks for. It returns the
// sites whose documents may have changed.
func (l *Loop) apply(ctx context.Context, snap source.Snapshot, w *work, steps *stepTimer) (map[string]struct{}, error) {
	p := &pass{snap: snap, rev: snap.Revision, w: w, touched: map[string]struct{}{}}
	if w.empty() {
		l.mu.Lock()
		l.fleet.revision = snap.Revision
		l.mu.Unlock()
		return p.touched, nil
	}
	for _, s := range passSteps {
		if err := s.run(l, ctx, p); err != nil {
			return nil, err
		}
		steps.mark(s.name)
	}
	return p.touched, nil
}

// stepLoad loads and renders what the pass asks for, and evaluates the
// rules that read one site as each site renders.
func (l *Loop) stepLoad(ctx context.Context, p *pass) error {
	run, err := l.o.policy.Start(ctx, policy.WithFacts(l.facts))
	if err != nil {
		return fmt.Errorf("check policies: %w", err)
	}
	p.run = run
	p.res, err = l.load(ctx, p.snap.FS, p.w, run)
	return err
}

// stepDedupe keeps a cluster where the index has it: a site defined again
// elsewhere, by a unit this pass did not reload, is a problem of the new
// definition.
func (l *Loop) stepDedupe(_ context.Context, p *pass) error {
	res := p.res
	for _, lo := range res.sites {
		if old := l.ix.sites[lo.rec.name]; old != nil && old.unit != "" && !res.covered[lo.rec.name] {
			s := lo.site
			pr := s.Problem(s.FieldPath("clusterName"), "cluster %q is already defined at %s; this definition is not used", s.Name, old.source)
			pr.Hint = "a cluster name must be unique across the fleet; rename or remove one definition"
			res.problems = append(res.problems, pr)
			lo.release(false)
			continue
		}
		p.accepted = append(p.accepted, lo)
	}
	return nil
}

// stepCheck finishes the policy check of the sites that rendered and were
// kept, holding them to the fleet-wide rules against every site the loop
// knows.
func (l *Loop) stepCheck(ctx context.Context, p *pass) error {
	for _, lo := range p.accepted {
		if lo.check != nil {
			p.run.Add(lo.check)
		}
	}
	p.run.AddProblems(p.res.problems)
	rep, err := p.run.Finish()
	p.run = nil
	if err != nil {
		return fmt.Errorf("check policies: %w", err)
	}
	p.byName, p.orphanFindings = l.route(rep.Findings, p.accepted, p.res.covered)
	return nil
}

// stepDecide decides, per site, whether the revision is applied or
// blocked, and records the sites in the index.
func (l *Loop) stepDecide(ctx context.Context, p *pass) error {
	rev := p.rev
	// What the engine holds of each site is asked before the lock: on a
	// first pass, a site must be applied again even if the loop remembers
	// it when the engine lost it, or never took in the revision the loop
	// handed it (a process killed before the engine committed it).
	// A site the engine cannot report now is taken as held.
	held := map[string]*engine.SiteStatus{}
	if !l.fleet.started {
		for _, lo := range p.accepted {
			switch st, err := l.eng.Status(ctx, lo.rec.name); {
			case err == nil:
				held[lo.rec.name] = &st
			case errors.Is(err, engine.ErrNotFound):
				held[lo.rec.name] = nil
			}
		}
	}
	before := map[string]string{} // observed revisions of the sites, before this pass
	l.mu.Lock()
	defer l.mu.Unlock()
	for _, lo := range p.accepted {
		name := lo.rec.name
		r := lo.rec
		lost := false
		if old := l.ix.sites[name]; old != nil {
			r.hash, r.applied, r.engineRevision, r.phase = old.hash, old.applied, old.engineRevision, old.phase
			before[name] = old.observed
			if st, asked := held[name]; asked {
				lost = st == nil || old.applied != "" && st.Revision != old.applied && st.RefusedRevision != old.applied
			}
		}
		r.observed, r.findings = rev, p.byName[name]
		apply := false
		switch deny := denies(r.findings); {
		case lo.check == nil:
			r.block(engine.PhaseInvalid, engine.ReasonRenderFailed, blockedMessage(rev, "the site does not render", r.findings, r.kept()))
		case len(deny) > 0:
			r.block(engine.PhasePolicyFailed, engine.ReasonPolicyDenied, blockedMessage(rev, fmt.Sprintf("%d deny finding(s) block it", len(deny)), deny, r.kept()))
		case r.hash != lo.hash || lost:
			p.toApply = append(p.toApply, lo)
			apply = true
		}
		lo.release(apply)
		l.ix.put(r)
		p.touched[name] = struct{}{}
	}
	for unit, reads := range p.res.reads {
		l.ix.setKustomization(unit, reads)
	}
	fleetRev := rev
	if !l.fleet.started && p.snap.Changed != nil {
		// A restart: sites the revisions since the one last reconciled
		// do not concern keep the revision they were observed at, so
		// that restarting commits nothing when nothing changed.
		since := l.ix.plan(p.snap.Changed)
		for _, lo := range p.accepted {
			if prev := before[lo.rec.name]; prev != "" && !since.concerns(lo.rec) {
				lo.rec.observed = prev
			}
		}
		if since.empty() && l.savedRevision != "" {
			fleetRev = l.savedRevision
		}
	}
	if p.w.full {
		for unit := range l.ix.kustomizations {
			if _, ok := p.res.reads[unit]; !ok {
				l.ix.dropKustomization(unit)
			}
		}
	}
	l.fleet.revision = fleetRev
	l.fleet.problems = p.orphanFindings
	return nil
}

// stepRemovals finds the sites the pass expected and did not find: those
// a load error or a deny finding concerns are blocked, the others
// removed. On a first pass, the sites the engine holds that the
// repository does not define are removed too (removed while the loop was
// not running).
func (l *Loop) stepRemovals(ctx context.Context, p *pass) error {
	var held []string
	if !l.fleet.started {
		var err error
		if held, err = l.eng.Sites(ctx); err != nil {
			return fmt.Errorf("list the engine's sites: %w", err)
		}
	}
	loaded := make(map[string]bool, len(p.accepted))
	for _, lo := range p.accepted {
		loaded[lo.rec.name] = true
	}
	l.mu.Lock()
	defer l.mu.Unlock()
	for _, name := range slices.Sorted(maps.Keys(p.res.covered)) {
		if loaded[name] {
			continue
		}
		r := l.ix.sites[name]
		if fs := p.byName[name]; len(denies(fs)) > 0 || hasErrorAbout(p.res.problems, r) {
			r.observed, r.findings = p.rev, fs
			r.block(engine.PhaseInvalid, engine.ReasonLoadFailed, blockedMessage(p.rev, "the site no longer loads", denies(fs), r.kept()))
			p.touched[name] = struct{}{}
			continue
		}
		p.removed = append(p.removed, name)
	}
	for _, name := range held {
		if l.ix.sites[name] == nil {
			l.ix.put(&record{name: name, observed: p.rev})
			p.removed = append(p.removed, name)
		}
	}
	l.fleet.started = true
	for _, name := range p.removed {
		p.touched[name] = struct{}{}
	}
	return nil
}

// stepApply hands the bundles that changed to the engine.
func (l *Loop) stepApply(ctx context.Context, p *pass) error {
	return l.applyAll(ctx, p.rev, p.toApply)
}

// stepPrune deletes the removed sites, within the deletion budget, or
// reports them orphaned; those a load error may hide are kept.
func (l *Loop) stepPrune(ctx context.Context, p *pass) error {
	sure, unsure := l.unsureRemovals(p.removed, p.res.problems)
	if err := l.remove(ctx, p.rev, sure, ""); err != nil {
		return err
	}
	return l.remove(ctx, p.rev, unsure, loadErrorsHold)
}
