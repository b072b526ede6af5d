package reconciler

import (
	"path"
	"slices"

	"github.com/siteops/siteops/engine"
	"github.com/siteops/siteops/policy/report"
	"github.com/siteops/siteops/sites"
)

// record is what the loop keeps of one site between passes: where the
// site comes from and what it depends on (to know which commits concern
// it), the hash of the bundle applied (to skip applying it again), and
// what its status document says beyond the engine's status. A record
// holds no bundle and no site: memory after the first pass does not grow
// with what the sites contain.
type record struct {
	name string
	// unit is the load unit (units.go) the site came from; source the
	// file that defines it; baseDir the directory its relative paths
	// resolve against.
	unit, source, baseDir string
	// generator is the kustomization file that lists source under
	// generators: ("" when the site is not read that way), which lets the
	// site be reloaded alone.
	generator string
	// deps are the files and extra-manifest directories the site refers
	// to, root-relative.
	deps []string

	// hash and applied are the bundle hash and revision last handed to
	// the engine; empty when the engine has never been given the site.
	// engineRevision is the revision the engine last reported it
	// installs, which is older than applied when the engine refused it.
	hash, applied, engineRevision string
	// observed is the revision of the last pass that evaluated the site.
	observed string
	// findings are those of the observed revision.
	findings []report.Finding
	// blocked is set when the observed revision was not applied: a deny
	// finding, or a site that no longer loads or renders. message says
	// why, in one sentence.
	blocked bool
	message string
	// reason is the loop's reason for a blocked or orphaned site, and
	// blockedAs the phase a blocked site shows (Invalid, PolicyFailed; ""
	// keeps the engine's phase).
	reason    engine.Reason
	blockedAs engine.Phase
	// orphaned is set for a site that is no longer in the repository and
	// was not deleted; deleting for one the engine is tearing down.
	orphaned, deleting bool

	// phase is the phase the last written document showed, attention
	// whether its reason needs a person; seen what was last logged of the
	// site's progress.
	phase     engine.Phase
	attention bool
	seen      seen
}

// kept is the revision the engine keeps for the site, as far as the loop
// knows.
func (r *record) kept() string {
	if r.engineRevision != "" {
		return r.engineRevision
	}
	return r.applied
}

// caughtUp reports whether the status last written shows the engine at
// the revision the loop applied last, or says why it is not.
func (r *record) caughtUp() bool { return caughtUp(r.applied, r.engineRevision, r.attention) }

// caughtUp reports whether an engine that installs revision, and whose
// status needs attention or not, has caught up with the revision applied
// to it: it installs that revision, or says why it does not (a refused
// change or a conflict needs a person, and waiting would not end it).
// Until then a site Installed at an earlier revision is not done: the
// engine may take an applied bundle in later (the embedded engine queues
// them at --speed max).
func caughtUp(applied, revision string, attention bool) bool {
	return applied == "" || revision == applied || attention
}

// block marks the record's observed revision as not applied: the site
// shows phase as (or the engine's phase when ""), with reason and
// message.
func (r *record) block(as engine.Phase, reason engine.Reason, message string) {
	r.blocked, r.blockedAs, r.reason, r.message = true, as, reason, message
}

// unblock clears what block set, once a revision of the site applied.
func (r *record) unblock() {
	r.blocked, r.blockedAs, r.reason, r.message = false, "", "", ""
}

// orphan marks the record as no longer in the repository and not
// deleted, with reason and message; unorphan clears it.
func (r *record) orphan(reason engine.Reason, message string) {
	r.orphaned, r.reason, r.message = true, reason, message
}

func (r *record) unorphan() { r.orphaned, r.reason, r.message = false, "", "" }

// index is the loop's memory of the fleet, and the dependency index that
// maps a changed path to the sites and units it concerns.
type index struct {
	sites map[string]*record
	// byPath maps a site's own file and the files it refers to, byDir the
	// extra-manifest directories it refers to, to site names.
	byPath, byDir map[string]map[string]struct{}
	// kustomizations maps each kustomization unit to what its load read,
	// less the files that only concern single generator sites: a change
	// to any of them rebuilds the unit.
	kustomizations map[string]map[string]struct{}
	// readers maps each such path back to its units.
	readers map[string]map[string]struct{}
}

func newIndex() *index {
	return &index{sites: map[string]*record{}, byPath: map[string]map[string]struct{}{},
		byDir: map[string]map[string]struct{}{}, kustomizations: map[string]map[string]struct{}{},
		readers: map[string]map[string]struct{}{}}
}

func addTo(m map[string]map[string]struct{}, key, name string) {
	set := m[key]
	if set == nil {
		set = map[string]struct{}{}
		m[key] = set
	}
	set[name] = struct{}{}
}

func removeFrom(m map[string]map[string]struct{}, key, name string) {
	if set := m[key]; set != nil {
		delete(set, name)
		if len(set) == 0 {
			delete(m, key)
		}
	}
}

// siteDeps lists the files and directories a loaded site refers to.
func siteDeps(s *sites.Site) []string {
	if s.Files == nil {
		return nil
	}
	var deps []string
	for _, f := range s.Files.Files {
		deps = append(deps, f.Path)
	}
	for _, d := range s.Files.Dirs {
		deps = append(deps, d.Path+"/")
		if d.Workload != nil {
			deps = append(deps, d.Workload.Path+"/")
		}
	}
	slices.Sort(deps)
	return slices.Compact(deps)
}

// link records where a site comes from and what it depends on. Directory
// dependencies end in "/".
func (ix *index) link(r *record) {
	addTo(ix.byPath, r.source, r.name)
	for _, d := range r.deps {
		if dir, ok := cutDir(d); ok {
			addTo(ix.byDir, dir, r.name)
		} else {
			addTo(ix.byPath, d, r.name)
		}
	}
}

// unlink forgets what link recorded.
func (ix *index) unlink(r *record) {
	removeFrom(ix.byPath, r.source, r.name)
	for _, d := range r.deps {
		if dir, ok := cutDir(d); ok {
			removeFrom(ix.byDir, dir, r.name)
		} else {
			removeFrom(ix.byPath, d, r.name)
		}
	}
}

func cutDir(dep string) (string, bool) {
	if len(dep) > 1 && dep[len(dep)-1] == '/' {
		return dep[:len(dep)-1], true
	}
	return "", false
}

// setKustomization records what the load of a kustomization unit read.
func (ix *index) setKustomization(unit string, reads map[string]struct{}) {
	ix.dropKustomization(unit)
	ix.kustomizations[unit] = reads
	for p := range reads {
		addTo(ix.readers, p, unit)
	}
}

func (ix *index) dropKustomization(unit string) {
	for p := range ix.kustomizations[unit] {
		removeFrom(ix.readers, p, unit)
	}
	delete(ix.kustomizations, unit)
}

// put adds or replaces a site's record, keeping what the loop knows of
// the site's past (hash, revision applied, phase).
func (ix *index) put(r *record) {
	if old := ix.sites[r.name]; old != nil {
		ix.unlink(old)
	}
	ix.sites[r.name] = r
	ix.link(r)
}

// drop forgets a site.
func (ix *index) drop(name string) {
	if old := ix.sites[name]; old != nil {
		ix.unlink(old)
		delete(ix.sites, name)
	}
}

// work is what a pass must reload.
type work struct {
	// full asks for the whole tree: something changed that may add or
	// remove load units (a kustomization file outside every unit).
	full bool
	// files are plain-file units to load; kustomizations units to
	// rebuild; generated maps a kustomization directory to the generator
	// files to reload alone.
	files          map[string]bool
	kustomizations map[string]bool
	generated      map[string]map[string]bool
}

func newWork() *work {
	return &work{files: map[string]bool{}, kustomizations: map[string]bool{}, generated: map[string]map[string]bool{}}
}

func (w *work) empty() bool {
	return !w.full && len(w.files) == 0 && len(w.kustomizations) == 0 && len(w.generated) == 0
}

// reloadSite adds what reloads one known site.
func (w *work) reloadSite(r *record) {
	switch {
	case r.unit == "":
		// orphaned: nothing to reload
	case r.generator != "":
		dir := path.Dir(r.generator)
		if w.generated[dir] == nil {
			w.generated[dir] = map[string]bool{}
		}
		w.generated[dir][r.source] = true
	case r.unit == r.source:
		w.files[r.unit] = true
	default:
		w.kustomizations[r.unit] = true
	}
}

// concerns reports whether the work reloads a site.
func (w *work) concerns(r *record) bool {
	switch {
	case w.full:
		return true
	case r.generator != "":
		return w.generated[path.Dir(r.generator)][r.source] || w.kustomizations[r.unit]
	}
	return w.files[r.unit] || w.kustomizations[r.unit]
}

// plan turns the paths a commit changed into the work of a pass.
func (ix *index) plan(changed []string) *work {
	w := newWork()
	for _, p := range changed {
		for name := range ix.byPath[p] {
			w.reloadSite(ix.sites[name])
		}
		// An extra-manifest directory holds its files and a workload/
		// sub-directory (sites.ManifestDir).
		for _, dir := range []string{path.Dir(p), path.Dir(path.Dir(p))} {
			for name := range ix.byDir[dir] {
				w.reloadSite(ix.sites[name])
			}
		}
		// A file a kustomize build read, or an entry of a directory it
		// listed (recorded as "dir/"), rebuilds the unit.
		for _, q := range []string{p, path.Dir(p) + "/"} {
			for unit := range ix.readers[q] {
				w.kustomizations[unit] = true
			}
		}
		inUnit := false
		for unit := range ix.kustomizations {
			if within(p, unit) {
				inUnit = true
				break
			}
		}
		switch {
		case inUnit:
			// Inside a kustomize tree, only what a build read matters.
		case isKustomizationFile(p) && walkedDir(path.Dir(p)):
			// A kustomization appears or goes outside every unit: the
			// units themselves change.
			w.full = true
		case walked(p):
			w.files[p] = true
		}
	}
	// A unit rebuilt reloads its generator sites with it.
	for dir := range w.generated {
		for unit := range w.kustomizations {
			if within(dir, unit) {
				delete(w.generated, dir)
				break
			}
		}
	}
	return w
}
