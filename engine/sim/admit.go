package sim

import (
	"errors"
	"fmt"
	"math"
	"reflect"

	"github.com/siteops/siteops/render"
)

// admitWithin is the default of Options.AdmitWithin: how many sites may
// change within one batch of the runner at SpeedMax, counting those the
// last commit left installing, before bundles applied meanwhile wait for
// a later batch. At SpeedMax every site installing at once has events in
// every batch, and every commit writes each site its batch changed: a
// fleet applied in one go would install in lockstep, each commit writing
// all of it, where the same sites taken in as others finish are each
// written about once. With 16, 32, 64, 128, 256 and 1,024, 10,000 SNO
// sites installed in 11.6, 10.4, 11.2, 12.0, 11.6 and 26.4 s, and 2,000
// five-node sites in 13.7, 13.3, 15.1, 15.0, 17.9 s and more
// (hack/benchengine on two cores): fewer leave the runner waiting for
// commits, more make each commit write sites again.
const admitWithin = 32

// incoming is a bundle read into what the engine keeps of it, before the
// engine is locked.
type incoming struct {
	site     string
	revision string
	d        *desired
	refusals []refusal
	hints    []ignitionHint
	// dropped is set on a waiting bundle whose site was deleted.
	dropped bool
}

func prepare(b *render.Bundle, revision string) *incoming {
	d, refusals := parseBundle(b)
	var hints []ignitionHint
	if len(refusals) == 0 {
		hints = ignitionHints(d)
	}
	d.dropContent()
	return &incoming{site: b.Site, revision: revision, d: d, refusals: refusals, hints: hints}
}

// room reports whether the runner may take in another site: the sites
// changed in the batch under way and those the last commit left
// installing (with timers pending, so they change again in this batch)
// are fewer than Options.AdmitWithin. A site that waits for nothing (for
// the user, or installed) does not count. Callers hold mu.
func (e *Engine) room() bool {
	return len(e.dirty)+e.installing < e.opts.AdmitWithin
}

// paced reports whether applied bundles may wait for the runner: at
// SpeedMax, where the runner never waits for the clock. It reads only the
// options, which never change, so it needs no lock.
func (e *Engine) paced() bool {
	return math.IsInf(e.opts.Speed, 1) && !e.opts.Stepped
}

// admits reports whether a bundle is applied at once: not when paced
// bundles wait already, or the runner has no room for another site.
// Callers hold mu.
func (e *Engine) admits() bool {
	return !e.paced() || e.lineLen() == 0 && e.room()
}

// enqueue puts a bundle in the waiting line, where it replaces a bundle
// of the same site that still waits. A bundle of a site being deleted, or
// handed to a closed engine, is refused as Apply refuses it. It needs no
// lock but lineMu, which it takes.
func (e *Engine) enqueue(in *incoming) error {
	e.lineMu.Lock()
	defer e.lineMu.Unlock()
	switch {
	case e.lineClosed:
		return errClosed
	case e.deleting[in.site]:
		return deletingError(in.site)
	}
	if w := e.lineBy[in.site]; w != nil {
		*w = *in
		return nil
	}
	e.line = append(e.line, in)
	e.lineBy[in.site] = in
	return nil
}

func (e *Engine) lineLen() int {
	e.lineMu.Lock()
	defer e.lineMu.Unlock()
	return len(e.lineBy)
}

// next takes the first bundle of the waiting line, nil when none waits.
func (e *Engine) next() *incoming {
	e.lineMu.Lock()
	defer e.lineMu.Unlock()
	for len(e.line) > 0 {
		in := e.line[0]
		e.line[0] = nil
		e.line = e.line[1:]
		if !in.dropped {
			delete(e.lineBy, in.site)
			return in
		}
	}
	e.line = nil
	return nil
}

// admitWaiting applies waiting bundles in the order they came, while the
// runner has room for them, or all of them. Callers hold mu.
func (e *Engine) admitWaiting(all bool) {
	for all || e.room() {
		in := e.next()
		if in == nil {
			return
		}
		if err := e.applyLocked(in); err != nil {
			// enqueue refused a site being deleted, and Delete drops
			// what waits: a bug if it shows.
			e.opts.Logger.Error("apply a waiting bundle", "site", in.site, "revision", in.revision, "err", err)
		}
	}
}

// dropWaiting forgets the bundle of a site that waits, and reports
// whether there was one.
func (e *Engine) dropWaiting(site string) bool {
	e.lineMu.Lock()
	defer e.lineMu.Unlock()
	w := e.lineBy[site]
	if w == nil {
		return false
	}
	w.dropped = true
	delete(e.lineBy, site)
	return true
}

// applyLocked admits one prepared bundle. Callers hold mu.
func (e *Engine) applyLocked(in *incoming) error {
	s := e.sites[in.site]
	if s == nil {
		s = &site{st: &siteState{Name: in.site}}
		e.sites[in.site] = s
	}
	if s.st.Deleting != nil {
		return deletingError(in.site)
	}
	d, refusals := in.d, append(in.refusals, e.conflicts(in.site, in.d)...)
	o := e.op(s)
	o.ignition = in.hints
	if len(refusals) > 0 {
		o.refuse(refusals, in.revision)
	} else {
		d, refusals = o.admit(d)
		old := s.st.Desired
		if !reflect.DeepEqual(old, d) || s.st.Revision != in.revision || !reflect.DeepEqual(s.st.Refusals, refusals) {
			e.index(in.site, old, d)
			o.accept(d, refusals, in.revision)
			s.desiredDirty = true
		}
	}
	o.finish()
	return nil
}

func deletingError(site string) error {
	return fmt.Errorf("apply %s: the site is being deleted; apply it again once its deletion finished", site)
}

var (
	errNoSite = errors.New("apply: the bundle names no site")
	errClosed = errors.New("apply: the engine is closed")
)

// listDeleting keeps Engine.deleting in step with whether s is being
// deleted. Callers hold mu.
func (e *Engine) listDeleting(s *site) {
	del := s.st.Deleting != nil && !s.st.Gone
	if del == s.listedDeleting {
		return
	}
	s.listedDeleting = del
	e.lineMu.Lock()
	if del {
		e.deleting[s.st.Name] = true
	} else {
		delete(e.deleting, s.st.Name)
	}
	e.lineMu.Unlock()
}
