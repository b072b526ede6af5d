package reconciler

import (
	"context"
	"errors"
	"fmt"

	"github.com/siteops/siteops/engine"
	"github.com/siteops/siteops/policy"
)

// remove handles the sites a revision no longer defines. A site the
// engine never held is forgotten. The others are deleted through the
// engine only with WithPrune and when all of them fit in the policy's
// deletion budget (a commit that removes more is more likely a mistake
// than a decision); otherwise they stay installed and their documents
// say orphaned.
func (l *Loop) remove(ctx context.Context, rev string, removed []string) error {
	if len(removed) == 0 {
		return nil
	}
	var held []string
	for _, name := range removed {
		if _, err := l.eng.Status(ctx, name); errors.Is(err, engine.ErrNotFound) {
			l.mu.Lock()
			l.ix.drop(name)
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
	switch {
	case !l.o.prune:
		why = "pruning is off (siteops run --prune)"
	case len(held) > budget:
		why = fmt.Sprintf("%d sites were removed at once, over the deletion budget of %d for a fleet of %d", len(held), budget, fleetSize)
		l.o.logger.Warn("removed sites over the deletion budget are kept", "revision", rev, "removed", len(held), "budget", budget)
	}
	for _, name := range held {
		l.mu.Lock()
		r := l.ix.sites[name]
		l.ix.unlink(r)
		r.unit, r.source, r.generator, r.deps, r.blocked, r.findings, r.observed = "", "", "", nil, false, nil, rev
		if why != "" {
			r.orphaned = true
			r.message = fmt.Sprintf("The site is no longer defined at revision %s and was not deleted: %s. The engine keeps revision %s.", short(rev), why, short(r.applied))
			l.mu.Unlock()
			continue
		}
		r.orphaned, r.message = false, ""
		l.mu.Unlock()
		if err := l.eng.Delete(ctx, name); err != nil {
			return fmt.Errorf("delete site %s: %w", name, err)
		}
		l.mu.Lock()
		r.deleting = true
		l.mu.Unlock()
		l.o.logger.Info("site deleted from the repository: tearing it down", "site", name, "revision", rev)
	}
	return nil
}
