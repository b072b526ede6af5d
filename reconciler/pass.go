package reconciler

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"maps"
	"runtime"
	"runtime/debug"
	"slices"
	"strings"
	"sync"
	"time"

	"k8s.io/utils/clock"

	"github.com/siteops/siteops/engine"
	"github.com/siteops/siteops/policy/report"
	"github.com/siteops/siteops/reconciler/source"
	"github.com/siteops/siteops/render"
	"github.com/siteops/siteops/sites"
)

// reconcile runs one pass over a new revision: load what changed, render,
// check, apply, and write the status back.
func (l *Loop) reconcile(ctx context.Context, snap source.Snapshot) error {
	start := l.o.clock.Now()
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
	steps := &stepTimer{clock: l.o.clock, last: start}
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
	elapsed := l.o.clock.Since(start)
	l.m.passDuration.WithLabelValues(kind).Observe(elapsed.Seconds())
	l.mu.Lock()
	l.fleet.lastPass, l.fleet.lastError, l.fleet.reloadAll = l.o.clock.Now(), "", false
	rev := l.fleet.revision
	l.mu.Unlock()
	l.m.setRevision(rev, float64(l.o.clock.Now().Unix()))
	log := l.o.logger.With("revision", rev)
	l.ready.Store(true)
	if m, ok := l.src.(source.ReconcileMarker); ok {
		if err := m.MarkReconciled(snap.Revision); err != nil {
			log.Warn("cannot record the revision as reconciled; a restart reloads from the previous one", "error", err)
		}
	}
	if kind == passFull {
		// A full pass held the whole fleet (sites, what the fleet-wide
		// rules read of each, the status documents); give that memory back
		// now rather than keep it for passes that load a few sites.
		debug.FreeOSMemory()
	}
	log.Info("pass finished", "kind", kind, "sites", len(changed), "duration", elapsed.Round(time.Millisecond),
		slog.Group("steps", steps.attrs()...))
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

// applyBatch is how many bundles each applying goroutine hands to an
// engine.BatchApplier at a time: each batch takes the engine's lock once,
// and at most this many rendered bundles are held per goroutine.
const applyBatch = 16

// applier returns how bundles are handed to e, and how many at a time:
// applyBatch at a time to an engine.BatchApplier, else one by one.
func applier(e engine.Engine) (func(ctx context.Context, bundles []*render.Bundle, revision string) []error, int) {
	if ba, ok := e.(engine.BatchApplier); ok {
		return ba.ApplyBatch, applyBatch
	}
	return func(ctx context.Context, bs []*render.Bundle, revision string) []error {
		errs := make([]error, len(bs))
		for i, b := range bs {
			errs[i] = e.Apply(ctx, b, revision)
		}
		return errs
	}, 1
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
	apply, size := applier(l.eng)
	done := func(lo *loaded, err error) {
		mu.Lock()
		defer mu.Unlock()
		if err != nil {
			failed[lo.rec.name] = err
			l.o.logger.Error("apply failed", "site", lo.rec.name, "revision", rev, "error", err)
			return
		}
		l.mu.Lock()
		lo.rec.hash, lo.rec.applied = lo.hash, rev
		lo.rec.unblock()
		delete(l.fleet.applyRetry, lo.rec.name)
		l.mu.Unlock()
		l.m.sitesApplied.Inc()
	}
	for range min(runtime.GOMAXPROCS(0), len(todo)) {
		wg.Add(1)
		go func() {
			defer wg.Done()
			batch := make([]*loaded, 0, size)
			bundles := make([]*render.Bundle, 0, size)
			flush := func() {
				for i, err := range apply(ctx, bundles, rev) {
					done(batch[i], err)
				}
				clear(bundles)
				batch, bundles = batch[:0], bundles[:0]
			}
			for lo := range next {
				b := lo.bundle
				if !lo.full {
					b, _ = r.Render(lo.site)
				}
				lo.bundle, lo.site = nil, nil
				if b == nil {
					done(lo, errors.New("the site no longer renders"))
					continue
				}
				batch, bundles = append(batch, lo), append(bundles, b)
				if len(batch) == size {
					flush()
				}
			}
			if len(batch) > 0 {
				flush()
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

// stepTimer measures the steps of a pass, for the "pass finished" log
// line: where a slow pass spent its time, without a profile.
type stepTimer struct {
	clock clock.PassiveClock
	last  time.Time
	steps []any
}

func (s *stepTimer) mark(step string) {
	now := s.clock.Now()
	s.steps = append(s.steps, step, now.Sub(s.last).Round(time.Millisecond))
	s.last = now
}

func (s *stepTimer) attrs() []any { return s.steps }
