package reconciler

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"maps"
	"path"
	"slices"
	"strings"
	"sync/atomic"

	"github.com/siteops/siteops/policy"
	"github.com/siteops/siteops/render"
	"github.com/siteops/siteops/sites"
)

// loaded is one site a pass loaded and rendered.
type loaded struct {
	site *sites.Site
	rec  *record
	// bundle is the rendered bundle, kept when the site is to be applied
	// and the pass's budget allows (full is then set); check is what the
	// policies found of the site that rendered (nil when it did not).
	bundle *render.Bundle
	full   bool
	check  *policy.SiteCheck
	hash   string
	// problems are the render problems, until they join the pass's.
	problems sites.Problems
}

// release drops what the pass no longer needs of a site once it is
// decided, so that the rest of a full pass does not hold the whole fleet:
// a site applied keeps its whole bundle, or its definition to render it
// again; any other keeps nothing.
func (lo *loaded) release(apply bool) {
	lo.check = nil
	switch {
	case !apply:
		lo.site, lo.bundle = nil, nil
	case lo.full:
		lo.site = nil
	}
}

// loadResult is what a pass loaded.
type loadResult struct {
	sites    []*loaded
	problems sites.Problems
	// covered are the sites the pass reloaded: those it expected to
	// find again. One missing from sites was removed or broken.
	covered map[string]bool
	// reads are the kustomization units loaded, with what each read.
	reads map[string]map[string]struct{}
}

// loader runs the loads of one pass.
type loader struct {
	l    *Loop
	fsys fs.FS
	r    *render.Renderer
	// run checks each site as it renders: what a pass holds of a site
	// until it is decided is its check, not its rendered objects.
	run  *policy.Run
	res  *loadResult
	seen map[string]bool
	kept atomic.Int64
	// byUnit and byGenerated index the known sites by load unit, and
	// the generator sites by file.
	byUnit, byGenerated map[string][]string
}

// cover marks sites as expected back from the load.
func (ld *loader) cover(names []string) {
	for _, n := range names {
		ld.res.covered[n] = true
	}
}

// load reads what w asks for from fsys, renders it and evaluates the
// rules that read one site with run.
func (l *Loop) load(ctx context.Context, fsys fs.FS, w *work, run *policy.Run) (*loadResult, error) {
	ld := &loader{l: l, fsys: fsys, r: render.New(l.o.renderOpts...), run: run, seen: map[string]bool{},
		res:    &loadResult{covered: map[string]bool{}, reads: map[string]map[string]struct{}{}},
		byUnit: map[string][]string{}, byGenerated: map[string][]string{}}
	if w.full {
		u := findUnits(fsys)
		w.files, w.kustomizations, w.generated = map[string]bool{}, map[string]bool{}, nil
		for _, f := range u.files {
			w.files[f] = true
		}
		for _, k := range u.kustomizations {
			w.kustomizations[k] = true
		}
		for name := range l.ix.sites {
			ld.res.covered[name] = true
		}
	}
	ld.indexSites(w)
	if err := ld.files(ctx, slices.Sorted(maps.Keys(w.files))); err != nil {
		return nil, err
	}
	for _, dir := range slices.Sorted(maps.Keys(w.kustomizations)) {
		if err := ld.kustomization(ctx, dir); err != nil {
			return nil, err
		}
	}
	for _, dir := range slices.Sorted(maps.Keys(w.generated)) {
		if err := ld.generated(ctx, dir, w.generated[dir]); err != nil {
			return nil, err
		}
	}
	return ld.res, nil
}

// indexSites fills byUnit and byGenerated with the known sites of the
// units and generator files w loads, and only those: a pass that loads
// one site builds no index of the whole fleet.
func (ld *loader) indexSites(w *work) {
	generated := map[string]bool{}
	for _, files := range w.generated {
		maps.Copy(generated, files)
	}
	for name, r := range ld.l.ix.sites {
		if r.unit != "" && (w.files[r.unit] || w.kustomizations[r.unit]) {
			ld.byUnit[r.unit] = append(ld.byUnit[r.unit], name)
		}
		if r.generator != "" && generated[r.source] {
			ld.byGenerated[r.source] = append(ld.byGenerated[r.source], name)
		}
	}
}

// files loads plain-file units. A file that is gone had sites that are
// gone with it. The files are loaded as the walk of their directories
// finds them, each directory showing only them: a file that defines no
// site is then skipped as in a walk, not reported as a file named on its
// own.
func (ld *loader) files(ctx context.Context, files []string) error {
	only := map[string]map[string]bool{}
	var direct []string
	for _, f := range files {
		ld.cover(ld.byUnit[f])
		st, err := fs.Stat(ld.fsys, f)
		switch {
		case isNotExist(err):
		case err != nil || st.IsDir():
			direct = append(direct, f) // the loader says what is wrong
		default:
			dir := path.Dir(f)
			if only[dir] == nil {
				only[dir] = map[string]bool{}
			}
			only[dir][path.Base(f)] = true
		}
	}
	paths := append(slices.Sorted(maps.Keys(only)), direct...)
	if len(paths) == 0 {
		return nil
	}
	view, _ := newFSView(ld.fsys, nil, only)
	return ld.stream(ctx, view, paths, func(s *sites.Site) (string, string) { return s.Source.File, "" })
}

// kustomization rebuilds a kustomization unit, recording what it reads.
func (ld *loader) kustomization(ctx context.Context, dir string) error {
	ld.cover(ld.byUnit[dir])
	view, rec := newFSView(ld.fsys, nil, nil)
	gens := map[string]generatorList{}
	var generated []*sites.Site
	err := ld.stream(ctx, view, []string{dir}, func(s *sites.Site) (string, string) {
		g, ok := gens[s.BaseDir]
		if !ok {
			g.file, g.listed = ld.l.gens.generators(ld.fsys, s.BaseDir)
			gens[s.BaseDir] = g
		}
		if g.listed[s.Source.File] {
			generated = append(generated, s)
			return dir, g.file
		}
		return dir, ""
	})
	if err != nil {
		return err
	}
	// What only generator sites read concerns those sites alone: a change
	// there reloads them, not the unit.
	reads := maps.Clone(rec.paths())
	for _, s := range generated {
		delete(reads, s.Source.File)
		for _, d := range siteDeps(s) {
			if dir, ok := cutDir(d); ok {
				for p := range reads {
					if path.Dir(p) == dir || path.Dir(path.Dir(p)) == dir || p == dir {
						delete(reads, p)
					}
				}
			} else {
				delete(reads, d)
			}
		}
	}
	ld.res.reads[dir] = reads
	return nil
}

type generatorList struct {
	file   string
	listed map[string]bool
}

// generated reloads SiteConfig files listed under the generators: of the
// kustomization in dir, alone: the loader is shown a kustomization that
// lists only them in place of the real one, so that they are read exactly
// as the whole build reads them (relative paths against dir), without
// reading the others.
func (ld *loader) generated(ctx context.Context, dir string, files map[string]bool) error {
	kfile, listed := ld.l.gens.generators(ld.fsys, dir)
	if kfile == "" {
		return fmt.Errorf("reload %s: its kustomization is gone", dir)
	}
	var b strings.Builder
	b.WriteString("apiVersion: kustomize.config.k8s.io/v1beta1\nkind: Kustomization\ngenerators:\n")
	for _, f := range slices.Sorted(maps.Keys(files)) {
		ld.cover(ld.byGenerated[f])
		if !listed[f] {
			continue // no longer listed: its sites are gone
		}
		rel := strings.TrimPrefix(f, dir+"/")
		if dir == "." {
			rel = f
		}
		fmt.Fprintf(&b, "- %q\n", rel)
	}
	view, _ := newFSView(ld.fsys, map[string][]byte{kfile: []byte(b.String())}, nil)
	return ld.stream(ctx, view, []string{dir}, func(s *sites.Site) (string, string) {
		return ld.l.ix.unitOf(dir), kfile
	})
}

// unitOf returns the kustomization unit that contains dir. Units do not
// nest, so there is at most one.
func (ix *index) unitOf(dir string) string {
	for unit := range ix.kustomizations {
		if within(dir, unit) {
			return unit
		}
	}
	return dir
}

// stream loads paths from fsys, rendering and checking each site on the
// workers of sites.Stream, and keeps the sites and problems. origin names a site's unit
// and generator kustomization.
func (ld *loader) stream(ctx context.Context, fsys fs.FS, paths []string, origin func(*sites.Site) (unit, generator string)) error {
	work := func(s *sites.Site) any { return ld.render(s) }
	return sites.Stream(ctx, fsys, paths, work, func(it sites.Item) error {
		ld.res.problems = append(ld.res.problems, it.Problems...)
		if it.Site == nil {
			return nil
		}
		s := it.Site
		if ld.seen[s.Name] {
			p := s.Problem(s.FieldPath("clusterName"), "cluster %q is defined more than once in this revision; this definition is not used", s.Name)
			p.Hint = "a cluster name must be unique across the fleet; rename or remove one definition"
			ld.res.problems = append(ld.res.problems, p)
			return nil
		}
		ld.seen[s.Name] = true
		lo := it.Result.(*loaded)
		ld.res.problems = append(ld.res.problems, lo.problems...)
		lo.problems = nil
		unit, gen := origin(s)
		lo.rec = &record{name: s.Name, unit: unit, source: s.Source.File, baseDir: s.BaseDir, generator: gen, deps: siteDeps(s)}
		ld.res.sites = append(ld.res.sites, lo)
		return nil
	}, ld.l.o.loadOpts...)
}

// render renders one site and checks it, on the worker of sites.Stream
// that decoded it (long-lived: the evaluator's deep stack is grown once).
// The bundle is kept whole when it must be applied (its hash changed),
// up to the pass's budget; otherwise the apply renders the site again.
func (ld *loader) render(s *sites.Site) *loaded {
	lo := &loaded{site: s}
	b, problems := ld.r.Render(s)
	lo.problems = problems
	if b == nil {
		return lo
	}
	h, err := b.Hash()
	if err != nil {
		lo.problems = append(lo.problems, s.Problem(s.FieldPath(""), "hash the rendered resources: %v", err))
		return lo
	}
	lo.hash, lo.check = h, ld.run.Evaluate(s, b)
	if prev := ld.l.ix.sites[s.Name]; (prev == nil || prev.hash != h) && ld.kept.Add(1) <= int64(ld.l.o.maxKept) {
		lo.bundle, lo.full = b, true
	}
	return lo
}

func isNotExist(err error) bool { return errors.Is(err, fs.ErrNotExist) }
