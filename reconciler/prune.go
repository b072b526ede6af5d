package reconciler

import (
	"context"
	"errors"
	"fmt"
	"maps"
	"slices"

	"github.com/siteops/siteops/engine"
	"github.com/siteops/siteops/policy"
	"github.com/siteops/siteops/reconciler/source"
	"github.com/siteops/siteops/sites"
)

// remove handles the sites a revision no longer defines. A site the
// engine never held is forgotten. The others are deleted through the
// engine only with WithPrune and when all of them fit in the policy's
// deletion budget (a commit that removes more is more likely a mistake
// than a decision); otherwise they stay installed and their documents
// say orphaned.
//
// hold, when not empty, says why none of them may be deleted whatever
// the options.
func (l *Loop) remove(ctx context.Context, rev string, removed []string, hold string) error {
	if len(removed) == 0 {
		return nil
	}
	var held []string
	for _, name := range removed {
		if _, err := l.eng.Status(ctx, name); errors.Is(err, engine.ErrNotFound) {
			l.mu.Lock()
			l.ix.drop(name)
			l.facts.Forget(name)
			l.mu.Unlock()
			continue
		}
		held = append(held, name)
	}
	if len(held) == 0 {
		return nil
	}
	l.mu.RLock()
	fleetSize := 0
	for _, r := range l.ix.sites {
		if !r.deleting {
			fleetSize++
		}
	}
	l.mu.RUnlock()
	budget := policy.DeletionBudget(fleetSize)
	var why string
	reason := engine.ReasonOrphaned
	switch {
	case hold != "":
		why = hold
	case !l.o.prune:
		why = "pruning is off (siteops run --prune)"
	case len(held) > budget:
		reason = engine.ReasonOverDeletionBudget
		why = fmt.Sprintf("%d sites were removed at once, over the deletion budget of %d for a fleet of %d", len(held), budget, fleetSize)
		l.o.logger.Warn("removed sites over the deletion budget are kept", "revision", rev, "removed", len(held), "budget", budget)
	}
	for _, name := range held {
		l.mu.Lock()
		r := l.ix.sites[name]
		l.ix.unlink(r)
		r.unit, r.source, r.generator, r.deps, r.findings, r.observed = "", "", "", nil, nil, rev
		r.unblock()
		if why != "" {
			r.orphan(reason, fmt.Sprintf("The site is no longer defined at revision %s and was not deleted: %s. The engine keeps revision %s.", source.ShortRevision(rev), why, source.ShortRevision(r.kept())))
			l.mu.Unlock()
			continue
		}
		r.unorphan()
		l.mu.Unlock()
		if err := l.eng.Delete(ctx, name); err != nil {
			if ctx.Err() != nil {
				return ctx.Err()
			}
			// One site the engine cannot delete stops neither the
			// others nor the pass: it stays as it is, orphaned, and
			// its deletion is tried again at the next pass.
			l.o.logger.Error("delete failed; the site stays installed and is deleted at the next pass", "site", name, "revision", rev, "error", err)
			l.mu.Lock()
			r.orphan(engine.ReasonOrphaned, fmt.Sprintf("The site is no longer defined at revision %s; the engine could not delete it (%v). It is tried again at the next revision; the engine keeps revision %s.", source.ShortRevision(rev), err, source.ShortRevision(r.kept())))
			l.fleet.deleteRetry[name] = struct{}{}
			l.mu.Unlock()
			continue
		}
		l.mu.Lock()
		r.deleting = true
		delete(l.fleet.deleteRetry, name)
		l.mu.Unlock()
		l.o.logger.Info("site deleted from the repository: tearing it down", "site", name, "revision", rev)
	}
	return nil
}

// takeDeleteRetry returns the sites whose deletion failed at an earlier
// pass, and forgets them.
func (l *Loop) takeDeleteRetry() map[string]struct{} {
	l.mu.Lock()
	defer l.mu.Unlock()
	d := l.fleet.deleteRetry
	l.fleet.deleteRetry = map[string]struct{}{}
	return d
}

// retryDeletes tries again the deletions that failed at an earlier pass,
// of the sites that this pass neither defined again nor removed itself.
func (l *Loop) retryDeletes(ctx context.Context, rev string, pending map[string]struct{}) ([]string, error) {
	var again []string
	l.mu.RLock()
	for _, name := range slices.Sorted(maps.Keys(pending)) {
		_, tried := l.fleet.deleteRetry[name]
		if r := l.ix.sites[name]; r != nil && r.unit == "" && r.orphaned && !r.deleting && !tried {
			again = append(again, name)
		}
	}
	l.mu.RUnlock()
	return again, l.remove(ctx, rev, again, "")
}

// unsureRemovals takes out of removed the sites a load error of the
// revision may hide: those whose file the loop does not know (known only
// from its state or from the engine, after a restart) when the revision
// has load errors. A file that does not parse names no site, so such a
// site may be in it rather than gone.
func (l *Loop) unsureRemovals(removed []string, problems sites.Problems) (sure, unsure []string) {
	if !slices.ContainsFunc(problems, func(p sites.Problem) bool { return p.Severity == sites.SeverityError }) {
		return removed, nil
	}
	l.mu.RLock()
	defer l.mu.RUnlock()
	for _, name := range removed {
		if r := l.ix.sites[name]; r != nil && r.source == "" && r.unit == "" {
			unsure = append(unsure, name)
		} else {
			sure = append(sure, name)
		}
	}
	return sure, unsure
}

// loadErrorsHold says why a removal unsureRemovals set apart is not
// carried out.
const loadErrorsHold = "the revision has load errors (status/README.md lists them) and the site may be in a file that did not load; mend them and the site is found again, or, if it is really gone, deleted with --prune"
