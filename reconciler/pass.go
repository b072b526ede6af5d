package reconciler

import (
	"context"
	"errors"
	"fmt"
	"maps"
	"runtime"
	"runtime/debug"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/siteops/siteops/engine"
	"github.com/siteops/siteops/policy/report"
	"github.com/siteops/siteops/reconciler/source"
	"github.com/siteops/siteops/render"
	"github.com/siteops/siteops/sites"
)

// reconcile runs one pass over a new revision: load what changed, render,
// check, apply, and write the status back.
func (l *Loop) reconcile(ctx context.Context, snap source.Snapshot) error {
	start := time.Now()
	kind := passIncremental
	var w *work
	if !l.fleet.started || l.fleet.reloadAll || snap.Changed == nil {
		kind, w = passFull, newWork()
		w.full = true
	} else {
		l.mu.RLock()
		w = l.ix.plan(snap.Changed)
		for name := range l.fleet.applyRetry {
			if r := l.ix.sites[name]; r != nil {
				w.reloadSite(r)
			}
		}
		l.mu.RUnlock()
	}
	steps := &stepTimer{last: start}
	pendingDeletes := l.takeDeleteRetry()
	changed, err := l.apply(ctx, snap, w, steps)
	if err != nil {
		l.mu.Lock()
		maps.Copy(l.fleet.deleteRetry, pendingDeletes)
		l.mu.Unlock()
		return err
	}
	retried, err := l.retryDeletes(ctx, snap.Revision, pendingDeletes)
	if err != nil {
		return err
	}
	for _, name := range retried {
		changed[name] = struct{}{}
	}
	// The pass stands even when its status cannot be written: the
	// write is tried again (Run), and the engine has what it needs.
	_, writeErr := l.writeStatus(ctx, l.mergeDirty(changed))
	steps.mark("write")
	if err := l.saveState(); err != nil {
		return err
	}
	elapsed := time.Since(start)
	l.m.passDuration.WithLabelValues(kind).Observe(elapsed.Seconds())
	l.mu.Lock()
	l.fleet.lastPass, l.fleet.lastError, l.fleet.reloadAll = time.Now(), "", false
	rev := l.fleet.revision
	l.mu.Unlock()
	l.m.setRevision(rev, float64(time.Now().Unix()))
	log := l.o.logger.With("revision", rev)
	l.ready.Store(true)
	if m, ok := l.src.(source.ReconcileMarker); ok {
		if err := m.MarkReconciled(snap.Revision); err != nil {
			log.Warn("cannot record the revision as reconciled; a restart reloads from the previous one", "error", err)
		}
	}
	if kind == passFull {
		// A full pass held the whole fleet (sites, bundles cut for the
		// policies, the policies' input); give that memory back now
		// rather than keep it for passes that load a few sites.
		debug.FreeOSMemory()
	}
	log.Info("pass finished", "kind", kind, "sites", len(changed), "duration", elapsed.Round(time.Millisecond))
	log.Debug("pass steps", steps.attrs()...)
	if writeErr != nil {
		l.failed("write status", writeErr)
	}
	return nil
}

// mergeDirty adds the sites of a pass to the engine's dirty set and takes
// it.
func (l *Loop) mergeDirty(names map[string]struct{}) map[string]struct{} {
	d := l.takeDirty()
	maps.Copy(d, names)
	return d
}

// apply loads, renders, checks and applies what w asks for, and updates
// the index. It returns the sites whose documents may have changed.
func (l *Loop) apply(ctx context.Context, snap source.Snapshot, w *work, steps *stepTimer) (map[string]struct{}, error) {
	touched := map[string]struct{}{}
	if w.empty() {
		l.mu.Lock()
		l.fleet.revision = snap.Revision
		l.mu.Unlock()
		return touched, nil
	}
	res, err := l.load(ctx, snap.FS, w)
	if err != nil {
		return nil, err
	}
	steps.mark("load")
	rev := snap.Revision

	// Sites defined again elsewhere than where the index has them, by a
	// unit this pass did not reload, stay where they are.
	var accepted []*loaded
	for _, lo := range res.sites {
		if old := l.ix.sites[lo.rec.name]; old != nil && old.unit != "" && !res.covered[lo.rec.name] {
			s := lo.site
			p := s.Problem(s.FieldPath("clusterName"), "cluster %q is already defined at %s; this definition is not used", s.Name, old.source)
			p.Hint = "a cluster name must be unique across the fleet; rename or remove one definition"
			res.problems = append(res.problems, p)
			continue
		}
		accepted = append(accepted, lo)
	}

	// Check.
	fleet := &sites.Fleet{Problems: res.problems}
	bundles := make(map[string]*render.Bundle, len(accepted))
	for _, lo := range accepted {
		if lo.bundle != nil {
			fleet.Sites = append(fleet.Sites, lo.site)
			bundles[lo.site.Name] = lo.bundle
		}
	}
	rep, err := l.o.policy.Check(ctx, fleet, bundles)
	if err != nil {
		return nil, fmt.Errorf("check policies: %w", err)
	}
	fleet, bundles = nil, nil
	steps.mark("check")
	byName, orphanFindings := l.route(rep.Findings, accepted, res.covered)

	// Decide, per site, and apply.
	var toApply []*loaded
	loadedNames := map[string]bool{}
	before := map[string]string{} // observed revisions of the sites, before this pass
	l.mu.Lock()
	for _, lo := range accepted {
		name := lo.rec.name
		loadedNames[name] = true
		r := lo.rec
		if old := l.ix.sites[name]; old != nil {
			r.hash, r.applied, r.phase = old.hash, old.applied, old.phase
			before[name] = old.observed
		}
		r.observed, r.findings = rev, byName[name]
		switch deny := denies(r.findings); {
		case lo.bundle == nil:
			r.block(engine.PhaseInvalid, engine.ReasonRenderFailed, blockedMessage(rev, "the site does not render", r.findings, r.kept()))
		case len(deny) > 0:
			r.block(engine.PhasePolicyFailed, engine.ReasonPolicyDenied, blockedMessage(rev, fmt.Sprintf("%d deny finding(s) block it", len(deny)), deny, r.kept()))
		default:
			if r.hash != lo.hash || !l.engineHas(ctx, name) {
				toApply = append(toApply, lo)
			}
		}
		l.ix.put(r)
		touched[name] = struct{}{}
	}
	for unit, reads := range res.reads {
		l.ix.setKustomization(unit, reads)
	}
	fleetRev := rev
	if !l.fleet.started && snap.Changed != nil {
		// A restart: sites the revisions since the one last reconciled
		// do not concern keep the revision they were observed at, so
		// that restarting commits nothing when nothing changed.
		since := l.ix.plan(snap.Changed)
		for _, lo := range accepted {
			if prev := before[lo.rec.name]; prev != "" && !since.concerns(lo.rec) {
				lo.rec.observed = prev
			}
		}
		if since.empty() && l.savedRevision != "" {
			fleetRev = l.savedRevision
		}
	}
	if w.full {
		for unit := range l.ix.kustomizations {
			if _, ok := res.reads[unit]; !ok {
				l.ix.dropKustomization(unit)
			}
		}
	}

	// Sites the pass expected and did not find: broken, or removed.
	var removed []string
	for _, name := range slices.Sorted(maps.Keys(res.covered)) {
		if loadedNames[name] {
			continue
		}
		r := l.ix.sites[name]
		if fs := byName[name]; len(denies(fs)) > 0 || hasErrorAbout(res.problems, r) {
			r.observed, r.findings = rev, fs
			r.block(engine.PhaseInvalid, engine.ReasonLoadFailed, blockedMessage(rev, "the site no longer loads", denies(fs), r.kept()))
			touched[name] = struct{}{}
			continue
		}
		removed = append(removed, name)
	}
	if !l.fleet.started {
		// Sites the engine holds that the repository does not define
		// (removed while the loop was not running).
		held, err := l.eng.Sites(ctx)
		if err != nil {
			l.mu.Unlock()
			return nil, fmt.Errorf("list the engine's sites: %w", err)
		}
		for _, name := range held {
			if l.ix.sites[name] == nil {
				l.ix.put(&record{name: name, observed: rev})
				removed = append(removed, name)
			}
		}
	}
	l.fleet.revision = fleetRev
	l.fleet.problems = orphanFindings
	l.fleet.started = true
	l.mu.Unlock()

	steps.mark("index")
	if err := l.applyAll(ctx, rev, toApply); err != nil {
		return nil, err
	}
	steps.mark("apply")
	for _, name := range removed {
		touched[name] = struct{}{}
	}
	removed, unsure := l.unsureRemovals(removed, res.problems)
	if err := l.remove(ctx, rev, removed, ""); err != nil {
		return nil, err
	}
	if err := l.remove(ctx, rev, unsure, loadErrorsHold); err != nil {
		return nil, err
	}
	return touched, nil
}

// engineHas reports whether the engine holds a site: after its state was
// lost, a site must be applied again even if the loop remembers it.
func (l *Loop) engineHas(ctx context.Context, name string) bool {
	if l.fleet.started {
		return true // checked on the first pass
	}
	_, err := l.eng.Status(ctx, name)
	return !errors.Is(err, engine.ErrNotFound)
}

// applyAll hands bundles to the engine on all CPUs, rendering again
// those the load did not keep whole.
func (l *Loop) applyAll(ctx context.Context, rev string, todo []*loaded) error {
	if len(todo) == 0 {
		return nil
	}
	r := render.New(l.o.renderOpts...)
	var (
		mu     sync.Mutex
		failed = map[string]error{}
		next   = make(chan *loaded)
		wg     sync.WaitGroup
	)
	for range min(runtime.GOMAXPROCS(0), len(todo)) {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for lo := range next {
				b := lo.bundle
				if !lo.full {
					b, _ = r.Render(lo.site)
				}
				err := errors.New("the site no longer renders")
				if b != nil {
					err = l.eng.Apply(ctx, b, rev)
				}
				lo.bundle, lo.site = nil, nil
				mu.Lock()
				if err != nil {
					failed[lo.rec.name] = err
					l.o.logger.Error("apply failed", "site", lo.rec.name, "revision", rev, "error", err)
				} else {
					l.mu.Lock()
					lo.rec.hash, lo.rec.applied = lo.hash, rev
					lo.rec.unblock()
					delete(l.fleet.applyRetry, lo.rec.name)
					l.mu.Unlock()
					l.m.sitesApplied.Inc()
				}
				mu.Unlock()
			}
		}()
	}
	for _, lo := range todo {
		select {
		case next <- lo:
		case <-ctx.Done():
		}
	}
	close(next)
	wg.Wait()
	if err := ctx.Err(); err != nil {
		return err
	}
	l.mu.Lock()
	for name, err := range failed {
		r := l.ix.sites[name]
		msg := fmt.Sprintf("Revision %s could not be handed to the engine (%v); it is tried again at the next revision.", source.ShortRevision(rev), err)
		if r.kept() != "" {
			msg += fmt.Sprintf(" The engine keeps revision %s.", source.ShortRevision(r.kept()))
		}
		r.block("", engine.ReasonEngineError, msg)
		l.fleet.applyRetry[name] = struct{}{}
	}
	l.mu.Unlock()
	return nil
}

// denies returns the deny findings that are not waived.
func denies(fs []report.Finding) []report.Finding {
	var out []report.Finding
	for _, f := range fs {
		if f.Severity == report.Deny && f.Waived == "" {
			out = append(out, f)
		}
	}
	return out
}

// hasErrorAbout reports whether a load error concerns a site that did
// not load: it names the site, or is in its file, or in the kustomize tree
// it came from.
func hasErrorAbout(problems sites.Problems, r *record) bool {
	for _, p := range problems {
		if p.Severity != sites.SeverityError {
			continue
		}
		if p.Site == r.name || (r.source != "" && p.Pos.File == r.source) || (r.unit != r.source && r.unit != "" && within(p.Pos.File, r.unit)) {
			return true
		}
	}
	return false
}

// blockedMessage says why revision rev is not applied to a site, and
// what the engine keeps.
func blockedMessage(rev, why string, findings []report.Finding, applied string) string {
	var b strings.Builder
	fmt.Fprintf(&b, "Revision %s is not applied: %s", source.ShortRevision(rev), why)
	if len(findings) > 0 {
		f := findings[0]
		fmt.Fprintf(&b, " (%s: %s: %s", f.Pos, f.Rule, strings.TrimSuffix(f.Message, "."))
		if len(findings) > 1 {
			fmt.Fprintf(&b, "; and %d more", len(findings)-1)
		}
		b.WriteString(")")
	}
	b.WriteString(". ")
	if applied != "" {
		fmt.Fprintf(&b, "The engine keeps revision %s. ", source.ShortRevision(applied))
	} else {
		b.WriteString("Nothing was applied yet. ")
	}
	b.WriteString(blockedRemedy(findings))
	return b.String()
}

// blockedRemedy says what unblocks a site: the fix of its first finding
// when the rule gives one, and in any case a commit that mends what the
// findings list.
func blockedRemedy(findings []report.Finding) string {
	var b strings.Builder
	if len(findings) > 0 && findings[0].Remediation != "" {
		fmt.Fprintf(&b, "To fix it: %s. ", strings.TrimSuffix(findings[0].Remediation, "."))
	}
	b.WriteString("Push a commit that mends what the findings of this document list (a rule that can be waived takes a siteops.io/waive annotation with a reason); the next revision is applied then.")
	return b.String()
}

// route gives each finding to the sites it concerns: the site it names,
// if the pass loaded or expected that site; else the sites defined in the
// file it is about (a file that no longer parses concerns the sites it
// defined before). What concerns no site is returned apart.
func (l *Loop) route(findings []report.Finding, accepted []*loaded, covered map[string]bool) (map[string][]report.Finding, []report.Finding) {
	known := maps.Clone(covered)
	bySource := map[string][]string{}
	for name := range covered {
		if r := l.ix.sites[name]; r != nil && r.source != "" {
			bySource[r.source] = append(bySource[r.source], name)
		}
	}
	for _, lo := range accepted {
		known[lo.rec.name] = true
		if !slices.Contains(bySource[lo.rec.source], lo.rec.name) {
			bySource[lo.rec.source] = append(bySource[lo.rec.source], lo.rec.name)
		}
	}
	byName := map[string][]report.Finding{}
	var rest []report.Finding
	for _, f := range findings {
		switch names := bySource[f.Pos.File]; {
		case f.Site != "" && known[f.Site]:
			byName[f.Site] = append(byName[f.Site], f)
		case len(names) > 0:
			for _, n := range names {
				byName[n] = append(byName[n], f)
			}
		default:
			rest = append(rest, f)
		}
	}
	return byName, rest
}

// stepTimer measures the steps of a pass, for the debug log.
type stepTimer struct {
	last  time.Time
	steps []any
}

func (s *stepTimer) mark(step string) {
	now := time.Now()
	s.steps = append(s.steps, step, now.Sub(s.last).Round(time.Millisecond))
	s.last = now
}

func (s *stepTimer) attrs() []any { return s.steps }
