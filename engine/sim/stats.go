package sim

import "sync/atomic"

// Stats count an engine's work since it started: what benchmarks divide
// by and print.
type Stats struct {
	// Steps are the simulation steps (timers) run.
	Steps uint64
	// Commits are the store transactions (or, without a store, the
	// batches published).
	Commits uint64
	// SitesWritten are the site states written by those commits, and
	// StateBytes their encoded size.
	SitesWritten uint64
	StateBytes   uint64
}

// counters are the commit side of Stats, counted outside the engine's
// lock.
type counters struct {
	commits, sitesWritten, stateBytes atomic.Uint64
}

func (c *counters) count(writes []siteWrite) {
	c.commits.Add(1)
	c.sitesWritten.Add(uint64(len(writes)))
	n := 0
	for _, w := range writes {
		n += len(w.State) + len(w.Desired)
	}
	c.stateBytes.Add(uint64(n))
}

// Stats reports the engine's counters.
func (e *Engine) Stats() Stats {
	return Stats{
		Steps:        e.Steps(),
		Commits:      e.counters.commits.Load(),
		SitesWritten: e.counters.sitesWritten.Load(),
		StateBytes:   e.counters.stateBytes.Load(),
	}
}
