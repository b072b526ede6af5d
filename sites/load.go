package sites

import (
	"bytes"
	"context"
	"fmt"
	"io/fs"
	"maps"
	"path"
	"runtime"
	"slices"
	"sort"
	"strings"
	"sync"

	"gopkg.in/yaml.v3"
)

// Fleet is every site found under the given paths, plus every problem met
// on the way. Sites with errors are left out of Sites; their problems say why.
type Fleet struct {
	Sites    []*Site
	Problems Problems
}

// Option configures Load.
type Option func(*options)

type options struct {
	strict      bool
	maxFileSize int64
	workers     int
}

// WithStrict makes unknown fields errors instead of warnings.
func WithStrict(strict bool) Option { return func(o *options) { o.strict = strict } }

// WithMaxFileSize sets the largest file read, in bytes.
func WithMaxFileSize(n int64) Option { return func(o *options) { o.maxFileSize = n } }

// WithWorkers sets how many files are decoded at once (default GOMAXPROCS).
func WithWorkers(n int) Option { return func(o *options) { o.workers = n } }

func applyOptions(opts []Option) options {
	o := options{maxFileSize: DefaultMaxFileSize, workers: runtime.GOMAXPROCS(0)}
	for _, opt := range opts {
		opt(&o)
	}
	if o.workers < 1 {
		o.workers = 1
	}
	return o
}

// kustomizationNames are the file names kustomize recognises.
var kustomizationNames = []string{"kustomization.yaml", "kustomization.yml", "Kustomization"}

// Load reads the sites under paths (files or directories, slash-separated
// and relative to the root of fsys). Directories are walked; dot-folders
// and status/ folders are skipped. A directory holding a kustomization
// file is read the way ZTP uses it: the SiteConfig files listed under
// generators: are the sites, and directories listed under resources: are
// read the same way. No plugin is ever run. Paths a site refers to are
// resolved against the root of fsys and may not leave it.
//
// Load returns an error only when ctx is cancelled; everything wrong with
// the input is a Problem, and a broken site never stops the others.
func Load(ctx context.Context, fsys fs.FS, paths []string, opts ...Option) (*Fleet, error) {
	l := newLoader(fsys, paths, opts)
	fleet := &Fleet{Problems: l.problems}
	err := l.decodeStream(ctx, nil, func(d decoded) error {
		fleet.Problems = append(fleet.Problems, d.problems...)
		fleet.Sites = append(fleet.Sites, d.sites...)
		return nil
	})
	if err != nil {
		return nil, err
	}
	fleet.Sites, fleet.Problems = dropDuplicates(fleet.Sites, fleet.Problems)
	sort.SliceStable(fleet.Sites, func(i, j int) bool { return fleet.Sites[i].Name < fleet.Sites[j].Name })
	return fleet, nil
}

// Item is one site delivered by Stream, or a problem that belongs to no
// site that loaded (Site is nil then).
type Item struct {
	Site     *Site
	Problems Problems
	// Result is what the work function returned for the site.
	Result any
}

// Stream loads the sites under paths like Load, but hands them to emit one
// by one, in file order (directories walked in lexical order, kustomization
// generators in list order), instead of holding the whole fleet: memory
// stays flat however large the fleet. work runs for each site on a worker
// goroutine, all CPUs busy, before the site reaches emit.
//
// A cluster name already seen makes the later definition fail, with a
// problem on both definitions that names the other: the first one is
// still delivered, since it was delivered before the second was read.
func Stream(ctx context.Context, fsys fs.FS, paths []string, work func(*Site) any, emit func(Item) error, opts ...Option) error {
	l := newLoader(fsys, paths, opts)
	if len(l.problems) > 0 {
		if err := emit(Item{Problems: l.problems}); err != nil {
			return err
		}
	}
	// Only the place of each name is kept, not the site: memory stays flat.
	type definition struct {
		pos   Position
		field string
	}
	seen := map[string]definition{}
	return l.decodeStream(ctx, work, func(d decoded) error {
		if len(d.problems) > 0 {
			if err := emit(Item{Problems: d.problems}); err != nil {
				return err
			}
		}
		for i, s := range d.sites {
			if first, dup := seen[s.Name]; dup {
				p1 := Problem{Pos: first.pos, Severity: SeverityError, Site: s.Name, Field: first.field,
					Message: fmt.Sprintf("cluster %q is also defined at %s", clip(s.Name), s.Pos(s.FieldPath("clusterName")))}
				p2 := s.Problem(s.FieldPath("clusterName"), "cluster %q is already defined at %s; this definition is not rendered", clip(s.Name), first.pos)
				p1.Hint = "a cluster name must be unique across the fleet; rename or remove one definition"
				p2.Hint = p1.Hint
				if err := emit(Item{Problems: Problems{p1, p2}}); err != nil {
					return err
				}
				continue
			}
			seen[s.Name] = definition{pos: s.Pos(s.FieldPath("clusterName")), field: s.FieldPath("clusterName")}
			it := Item{Site: s}
			if d.results != nil {
				it.Result = d.results[i]
			}
			if err := emit(it); err != nil {
				return err
			}
		}
		return nil
	})
}

func newLoader(fsys fs.FS, paths []string, opts []Option) *loader {
	o := applyOptions(opts)
	l := &loader{fsys: fsys, o: o, reader: newFileReader(fsys, o.maxFileSize), seen: map[string]bool{},
		kustomizations: map[string]bool{}, active: map[string]bool{}}
	for _, p := range paths {
		l.collect(p, ".")
	}
	return l
}

// candidate is a file that may hold SiteConfigs, with the directory its
// relative paths resolve against.
type candidate struct {
	path string
	base string
}

type loader struct {
	fsys   fs.FS
	o      options
	reader *fileReader
	files  []candidate
	seen   map[string]bool
	// bigFile lets one large file decode at a time: yaml.v3 builds a node
	// tree about a hundred times the size of the text.
	bigFile sync.Mutex
	// kustomizations read so far, and those being read (to catch cycles).
	kustomizations, active map[string]bool
	problems               Problems
}

func (l *loader) problem(file, format string, args ...any) {
	l.problems = append(l.problems, Problem{Pos: Position{File: file}, Severity: SeverityError,
		Message: fmt.Sprintf(format, args...)})
}

// problemErr reports err on file, keeping it for errors.Is.
func (l *loader) problemErr(file string, err error) {
	l.problems = append(l.problems, Problem{Pos: Position{File: file}, Severity: SeverityError,
		Message: err.Error(), Err: err})
}

// collect adds the SiteConfig candidates under p; base is the directory
// their relative paths resolve against.
func (l *loader) collect(p, base string) {
	p, err := RootPath(p)
	if err != nil {
		l.problem(p, "%v", err)
		return
	}
	st, err := fs.Stat(l.fsys, p)
	if err != nil {
		l.problemErr(p, explainFSError(p, err))
		return
	}
	if !st.IsDir() {
		l.addFile(p, base)
		return
	}
	if l.collectKustomization(p) {
		return
	}
	err = fs.WalkDir(l.fsys, p, func(fp string, d fs.DirEntry, err error) error {
		if err != nil {
			l.problemErr(fp, explainFSError(fp, err))
			return nil
		}
		name := d.Name()
		if d.IsDir() {
			if fp != p && (strings.HasPrefix(name, ".") || name == "status") {
				return fs.SkipDir
			}
			if fp != p && l.collectKustomization(fp) {
				return fs.SkipDir
			}
			return nil
		}
		if strings.HasPrefix(name, ".") || !(strings.HasSuffix(name, ".yaml") || strings.HasSuffix(name, ".yml")) {
			return nil
		}
		l.addFile(fp, base)
		return nil
	})
	if err != nil {
		l.problem(p, "%v", err)
	}
}

func (l *loader) addFile(p, base string) {
	if !l.seen[p] {
		l.seen[p] = true
		l.files = append(l.files, candidate{path: p, base: base})
	}
}

// kustomization is the part of a kustomization file that names SiteConfigs.
type kustomization struct {
	Generators []string `yaml:"generators"`
	Resources  []string `yaml:"resources"`
}

// collectKustomization reads dir as a ZTP kustomization directory if it has
// a kustomization file, and reports whether it did. kustomize runs the
// generator in the kustomization directory, so the relative paths of the
// SiteConfigs it lists resolve against that directory.
func (l *loader) collectKustomization(dir string) bool {
	var file string
	for _, name := range kustomizationNames {
		if st, err := fs.Stat(l.fsys, path.Join(dir, name)); err == nil && !st.IsDir() {
			file = path.Join(dir, name)
			break
		}
	}
	if file == "" {
		return false
	}
	switch {
	case l.active[dir]:
		l.problem(file, "the kustomization includes itself (through resources: or generators:); remove the entry that leads back here")
		return true
	case l.kustomizations[dir]:
		return true // already read through another path
	}
	l.kustomizations[dir], l.active[dir] = true, true
	defer delete(l.active, dir)
	data, err := readLimited(l.fsys, file, l.o.maxFileSize)
	if err != nil {
		l.problemErr(file, err)
		return true
	}
	var k kustomization
	if err := yaml.Unmarshal(data, &k); err != nil {
		l.problems = append(l.problems, yamlProblem(file, data, err))
		return true
	}
	for _, g := range k.Generators {
		l.collectEntry(dir, file, "generators", g)
	}
	for _, r := range k.Resources {
		// Resources that are files are plain objects, never sites; only
		// directories can hold further SiteConfigs.
		if isRemote(r) || path.IsAbs(r) {
			l.collectEntry(dir, file, "resources", r)
		} else if st, err := fs.Stat(l.fsys, path.Join(dir, r)); err == nil && st.IsDir() {
			l.collectEntry(dir, file, "resources", r)
		}
	}
	return true
}

// isRemote reports whether a kustomization entry names a remote location.
func isRemote(entry string) bool {
	return strings.Contains(entry, "://") || strings.HasPrefix(entry, "github.com/") || strings.HasPrefix(entry, "git@")
}

func (l *loader) collectEntry(dir, file, field, entry string) {
	if isRemote(entry) {
		l.problem(file, "%s entry %q is a remote location; siteops reads only files of this repository", field, clipN(entry, 256))
		return
	}
	if path.IsAbs(entry) {
		l.problem(file, "%s entry %q is an absolute path; give a path relative to the kustomization", field, clipN(entry, 256))
		return
	}
	p, err := RootPath(path.Join(dir, entry))
	if err != nil {
		l.problem(file, "%s entry %q: %v", field, entry, err)
		return
	}
	l.collect(p, dir)
}

type decoded struct {
	sites    []*Site
	problems Problems
	// results holds what the caller's work function returned per site.
	results []any
}

// decodeStream reads and decodes the collected files on all CPUs and
// hands them to emit in file order. Only a small window of files is in
// flight, so memory does not grow with the number of files. work, if not
// nil, runs on the worker goroutine for every site that loaded cleanly.
func (l *loader) decodeStream(ctx context.Context, work func(*Site) any, emit func(decoded) error) error {
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	futures := make(chan chan decoded, 4*l.o.workers)
	sem := make(chan struct{}, l.o.workers)
	go func() {
		defer close(futures)
		for _, c := range l.files {
			ch := make(chan decoded, 1)
			select {
			case futures <- ch:
			case <-ctx.Done():
				return
			}
			sem <- struct{}{}
			go func(c candidate) {
				defer func() { <-sem }()
				d := l.decodeOne(c)
				kept := d.sites[:0]
				for _, s := range d.sites {
					if ps := l.resolve(s); len(ps) > 0 {
						d.problems = append(d.problems, ps...)
						continue
					}
					kept = append(kept, s)
				}
				d.sites = kept
				if work != nil {
					d.results = make([]any, len(d.sites))
					for i, s := range d.sites {
						d.results[i] = work(s)
					}
				}
				ch <- d
			}(c)
		}
	}()
	var err error
	for ch := range futures {
		d := <-ch
		if err == nil {
			if err = emit(d); err != nil {
				cancel()
			}
		}
	}
	if err == nil {
		err = ctx.Err()
	}
	return err
}

// bigFileSize is the size from which files decode one at a time.
const bigFileSize = 1 << 20

// siteConfigMarkers: a file that holds neither cannot define a site.
var siteConfigMarkers = [][]byte{[]byte("SiteConfig"), []byte(siteConfigGroup), []byte("ClusterInstance")}

func (l *loader) decodeOne(c candidate) decoded {
	file := c.path
	data, err := readLimited(l.fsys, file, l.o.maxFileSize)
	if err != nil {
		return decoded{problems: Problems{{Pos: Position{File: file}, Severity: SeverityError, Message: err.Error(), Err: err}}}
	}
	// A file that does not mention SiteConfig cannot define a site; skip it
	// without parsing (fleet trees also hold extra manifests and templates).
	if !slices.ContainsFunc(siteConfigMarkers, func(m []byte) bool { return bytes.Contains(data, m) }) {
		return decoded{}
	}
	if len(data) > bigFileSize {
		l.bigFile.Lock()
		defer l.bigFile.Unlock()
	}
	sites, problems := decodeFile(file, data, decodeOptions{strict: l.o.strict})
	for _, s := range sites {
		s.BaseDir = c.base
	}
	return decoded{sites: sites, problems: problems}
}

// resolve reads the files a site refers to and attaches them to it.
func (l *loader) resolve(s *Site) Problems {
	if s.Instance != nil {
		return nil // a ClusterInstance refers to objects on the hub, not to files
	}
	var problems Problems
	files := &Files{Files: map[string]*File{}, Dirs: map[string]*ManifestDir{}}
	file := func(field, p string) {
		f, err := l.reader.readFile(s.join(p))
		if err != nil {
			pr := s.Problem(field, "%v", err)
			pr.Err = err
			problems = append(problems, pr)
			return
		}
		files.Files[p] = f
	}
	dir := func(field, p string) {
		d, err := l.reader.readDir(s.join(p))
		if err != nil {
			pr := s.Problem(field, "%v", err)
			pr.Err = err
			problems = append(problems, pr)
			return
		}
		files.Dirs[p] = d
	}
	c, spec := s.Cluster, s.Spec()
	for _, kind := range slices.Sorted(maps.Keys(spec.CrTemplates)) {
		file(joinPath("spec.crTemplates", kind), spec.CrTemplates[kind])
	}
	if p := spec.BiosConfigRef.FilePath; p != "" {
		file("spec.biosConfigRef.filePath", p)
	}
	for _, kind := range slices.Sorted(maps.Keys(c.CrTemplates)) {
		file(s.FieldPath(joinPath("crTemplates", kind)), c.CrTemplates[kind])
	}
	if p := c.BiosConfigRef.FilePath; p != "" {
		file(s.FieldPath("biosConfigRef.filePath"), p)
	}
	if c.ExtraManifests.SearchPaths != nil {
		for i, p := range *c.ExtraManifests.SearchPaths {
			dir(s.FieldPath(fmt.Sprintf("extraManifests.searchPaths[%d]", i)), p)
		}
	} else if c.ExtraManifestPath != "" {
		dir(s.FieldPath("extraManifestPath"), c.ExtraManifestPath)
	}
	for i := range c.Nodes {
		n := &c.Nodes[i]
		for _, kind := range slices.Sorted(maps.Keys(n.CrTemplates)) {
			file(s.FieldPath(fmt.Sprintf("nodes[%d].%s", i, joinPath("crTemplates", kind))), n.CrTemplates[kind])
		}
		if p := n.BiosConfigRef.FilePath; p != "" {
			file(s.FieldPath(fmt.Sprintf("nodes[%d].biosConfigRef.filePath", i)), p)
		}
	}
	s.Files = files
	return problems
}

// dropDuplicates removes every site whose cluster name is defined more than
// once and reports each definition with the places of the others: which
// one was meant is for a person to decide.
func dropDuplicates(all []*Site, problems Problems) ([]*Site, Problems) {
	byName := map[string][]*Site{}
	for _, s := range all {
		byName[s.Name] = append(byName[s.Name], s)
	}
	kept := all[:0]
	for _, s := range all {
		defs := byName[s.Name]
		if len(defs) == 1 {
			kept = append(kept, s)
			continue
		}
		var others []string
		for _, o := range defs {
			if o != s {
				others = append(others, o.Source.String())
			}
		}
		p := s.Problem(s.FieldPath("clusterName"), "cluster %q is also defined at %s", clip(s.Name), strings.Join(others, ", "))
		p.Hint = "a cluster name must be unique across the fleet; rename or remove one definition"
		problems = append(problems, p)
	}
	return kept, problems
}
