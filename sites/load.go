package sites

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io/fs"
	"maps"
	"path"
	"runtime"
	"slices"
	"sort"
	"strings"
	"sync"
	"sync/atomic"

	"gopkg.in/yaml.v3"

	"github.com/siteops/siteops/internal/kustomize"
	"github.com/siteops/siteops/internal/parallel"
	"github.com/siteops/siteops/internal/safefs"
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
	allowRemote bool
	documents   []Document
	unlisted    bool
}

// WithStrict makes unknown fields errors instead of warnings.
func WithStrict(strict bool) Option { return func(o *options) { o.strict = strict } }

// WithMaxFileSize sets the largest file read, in bytes.
func WithMaxFileSize(n int64) Option { return func(o *options) { o.maxFileSize = n } }

// WithAllowRemoteBases lets kustomizations use remote bases (git or
// https). Off by default: fetching runs git, and the content is not the
// repository's.
func WithAllowRemoteBases(allow bool) Option { return func(o *options) { o.allowRemote = allow } }

// WithDocuments adds site definitions that are not files of the fleet
// (standard input, a KRM function's items), read after the paths.
func WithDocuments(docs ...Document) Option {
	return func(o *options) { o.documents = append(o.documents, docs...) }
}

// Document is YAML that may define sites and does not come from a file of
// the fleet. Paths inside its sites resolve against the fleet root.
type Document struct {
	// Name is where problems say the document is: "stdin", or the file a
	// KRM item came from.
	Name string
	Data []byte
	// Via, when set, says that Data is not the text of Name but a copy of
	// it passed on by something else ("in the ResourceList on stdin"):
	// positions are then Line of Name (0 when unknown), the field path
	// says the rest, and each problem ends with Via. When empty, Data is
	// the text itself and positions are its own.
	Via  string
	Line int
	// Exact says Data is, unchanged, the document of Name that starts at
	// Line: its sites are decoded from Name, with Name's positions.
	Exact bool
}

// WithUnlistedSiteWarnings warns of the site files beside a
// kustomization that it does not list (see unlistedSites). Off by
// default: it reads the kustomization's whole folder, which a caller that
// tracks what each site depends on would count as a dependency.
func WithUnlistedSiteWarnings(on bool) Option { return func(o *options) { o.unlisted = on } }

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

// Load reads the sites under paths (files or directories, slash-separated
// and relative to the root of fsys). Directories are walked; dot-folders
// and status/ folders are skipped. A directory holding a kustomization is
// built in-process (internal/kustomize) with plugins, Helm and remote bases
// refused: the SiteConfig and ClusterInstance objects it outputs are the
// sites, and SiteConfig files its generators: list are read directly.
// Paths a site refers to are resolved inside fsys and may not leave it.
//
// Load returns an error only when ctx is cancelled; everything wrong with
// the input is a Problem, and a broken site or tree never stops the others.
func Load(ctx context.Context, fsys fs.FS, paths []string, opts ...Option) (*Fleet, error) {
	l := newLoader(ctx, fsys, paths, opts)
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
// stays flat however large the fleet. work runs for each site on one of a
// fixed set of long-lived worker goroutines (GOMAXPROCS, or WithWorkers),
// all CPUs busy, before the site reaches emit: work that recurses deeply
// finds a stack already grown.
//
// A cluster name already seen makes the later definition fail, with a
// problem on both definitions that names the other: the first one is
// still delivered, since it was delivered before the second was read.
func Stream(ctx context.Context, fsys fs.FS, paths []string, work func(*Site) any, emit func(Item) error, opts ...Option) error {
	l := newLoader(ctx, fsys, paths, opts)
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

func newLoader(ctx context.Context, fsys fs.FS, paths []string, opts []Option) *loader {
	o := applyOptions(opts)
	l := &loader{fsys: fsys, o: o, reader: newFileReader(fsys, o.maxFileSize), seen: map[string]int{},
		kustomizations: map[string]bool{}, active: map[string]bool{}, kcache: kustomize.NewCache(), ctx: ctx,
		builtDocs: map[string]bool{}}
	for _, p := range paths {
		l.collect(p, ".")
	}
	for _, d := range o.documents {
		c := candidate{path: d.Name, base: ".", data: d.Data, line: d.Line, named: true, exact: d.Exact}
		if d.Via == "" {
			c.verbatim = true
		} else {
			c.via = d.Via
		}
		l.files = append(l.files, c)
	}
	return l
}

// candidate is a file that may hold SiteConfigs, with the directory its
// relative paths resolve against.
type candidate struct {
	path string
	base string
	// data, when set, is a document that came out of a kustomize build
	// (or was passed on in a Document); path and line are where it came
	// from, via says how it arrived ("in the object built by K").
	data []byte
	line int
	via  string
	// verbatim is set when data is the text of path itself (standard
	// input): positions are data's own.
	verbatim bool
	// exact is set when the built document is the one in the file at
	// line, unchanged: it is decoded from the file for exact positions,
	// keeping only the document with that identity (any, when identity
	// is empty: the caller matched it).
	exact    bool
	identity string
	// named is set for a file named on its own (a path argument, or a
	// kustomization's generators: entry) rather than found in a walk: it
	// must define a site.
	named bool
	// listed is set for a file the walk's listing gave as a regular file,
	// or that a kustomize build has just read as one (a generators:
	// entry): it is read with safefs.ReadListedFile.
	listed bool
}

type loader struct {
	fsys   fs.FS
	o      options
	reader *fileReader
	files  []candidate
	seen   map[string]int // index in files
	// bigFile lets one large file decode at a time: yaml.v3 builds a node
	// tree about a hundred times the size of the text.
	bigFile sync.Mutex
	// kustomizations read so far, and those being read (to catch cycles).
	kustomizations, active map[string]bool
	kcache                 *kustomize.Cache
	builtDocs              map[string]bool
	ctx                    context.Context
	problems               Problems
}

func (l *loader) problem(file, format string, args ...any) {
	l.problems = append(l.problems, Problem{Pos: Position{File: file}, Severity: SeverityError,
		Message: fmt.Sprintf(format, args...)})
}

// problemErr reports err on file, keeping it for errors.Is.
func (l *loader) problemErr(file string, err error) {
	l.problems = append(l.problems, Problem{Pos: Position{File: file}, Severity: SeverityError,
		Message: err.Error(), Err: err, Hint: fileHint(err)})
}

// collect adds the SiteConfig candidates under p; base is the directory
// their relative paths resolve against.
func (l *loader) collect(arg, base string) {
	p, err := RootPath(arg)
	if err != nil {
		l.problemErr(arg, err)
		return
	}
	st, err := fs.Stat(l.fsys, p)
	if err != nil {
		l.problemErr(p, explainFSError(p, err))
		return
	}
	if !st.IsDir() {
		if kustomize.IsKustomizationFile(p) && l.collectKustomization(path.Dir(p)) {
			return // a kustomization named by its file is built like its directory
		}
		// Named on its own, it must define a site, whether or not it was
		// found already.
		c, _ := l.addFile(p, base)
		c.named = true
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
			if fp != p && (strings.HasPrefix(name, ".") || name == StatusDir) {
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
		if c, added := l.addFile(fp, base); added {
			c.listed = d.Type().IsRegular()
		}
		return nil
	})
	if err != nil {
		l.problem(p, "%v", err)
	}
}

// addFile adds p to the files to decode, unless it is there already. It
// returns p's candidate, and whether it added it; the pointer is good
// until the next file is added.
func (l *loader) addFile(p, base string) (*candidate, bool) {
	if i, ok := l.seen[p]; ok {
		return &l.files[i], false
	}
	l.seen[p] = len(l.files)
	l.files = append(l.files, candidate{path: p, base: base})
	return &l.files[len(l.files)-1], true
}

// collectKustomization reads dir as a ZTP kustomization directory if it has
// a kustomization file, and reports whether it did. kustomize runs the
// generator in the kustomization directory, so the relative paths of the
// SiteConfigs it lists resolve against that directory.
func (l *loader) collectKustomization(dir string) bool {
	file, ok := kustomize.IsKustomization(l.fsys, dir)
	if !ok {
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
	res, err := kustomize.Build(l.ctx, l.fsys, dir, kustomize.WithAllowRemote(l.o.allowRemote),
		kustomize.WithMaxFileSize(l.o.maxFileSize), kustomize.WithCache(l.kcache), kustomize.WithWorkers(l.o.workers))
	if err != nil {
		p := Problem{Pos: Position{File: file}, Severity: SeverityError, Message: err.Error(), Err: err,
			Hint: "the sites of this kustomization are not loaded; fix the entry, every other tree is still read"}
		var refused *kustomize.RefusedError
		if errors.As(err, &refused) {
			p.Pos = Position{File: refused.File, Line: refused.Line}
			p.Field = refused.Field
			p.Message = fmt.Sprintf("%s entry %q is refused: %s", refused.Field, refused.Entry, refused.Reason)
			if isRemote(refused.Entry) {
				p.Hint = "siteops reads only the repository's own files; vendor the base, or pass --allow-remote-bases"
			}
		}
		l.problems = append(l.problems, p)
		return true
	}
	for _, w := range res.Warnings {
		l.problems = append(l.problems, Problem{Pos: Position{File: w.File, Line: w.Line}, Severity: SeverityWarning, Message: w.Message})
	}
	listed := map[string]bool{}
	for _, g := range res.SiteConfigGenerators {
		// kustomize runs the generator in the kustomization's directory.
		c, _ := l.addFile(g.File, path.Dir(g.Kustomization))
		// Listed, it must define a site. The build has just read it as a
		// regular file: it is read as one a listing gave (three system
		// calls fewer a site).
		c.named, c.listed = true, true
		listed[g.File] = true
	}
	for _, d := range res.Documents {
		listed[d.Origin.File] = true
	}
	l.addBuilt(dir, file, res.Documents)
	if l.o.unlisted {
		l.unlistedSites(dir, file, listed)
	}
	return true
}

// addBuilt adds the site documents of a kustomize build. Only what the
// build output holds becomes a site: an object a patch deleted, or one
// marked local-config, is gone. An object that came out exactly as written
// in its file is decoded from that file, so that positions are exact; an
// object the build changed (or took from a List, or from a remote base) is
// decoded from the build's output and placed at the start of the object it
// came from. Relative paths in a built site resolve against the directory
// of the file it came from, whichever kustomization reached it.
func (l *loader) addBuilt(dir, file string, docs []kustomize.Document) {
	for _, d := range docs {
		if d.Kind == "Secret" && d.APIVersion == "v1" {
			registerSecret(d.Data)
		}
		if !IsSiteKind(d.APIVersion, d.Kind) {
			continue
		}
		key := fmt.Sprintf("%s|%s|%d|%s/%s/%s", d.Origin.Repo, d.Origin.File, d.Origin.Line, d.Kind, d.Namespace, d.Name)
		if l.builtDocs[key] {
			continue // reached again through another path
		}
		l.builtDocs[key] = true
		origin, base := d.Origin.File, path.Dir(d.Origin.File)
		if origin == "" || d.Origin.Repo != "" {
			origin, base = file, dir // the kustomization is the best place we have
		}
		c := candidate{path: origin, base: base, data: d.Data, line: d.Origin.Line, via: "in the object built by " + file}
		if !d.Modified && d.Origin.Line > 0 && d.Origin.Repo == "" {
			c.exact = true
			c.identity = d.Kind + "/" + d.Namespace + "/" + d.Name
		}
		l.files = append(l.files, c)
	}
}

// IsSiteKind reports whether an object of this apiVersion and kind is a
// site definition (SiteConfig or ClusterInstance).
func IsSiteKind(apiVersion, kind string) bool {
	return kind == "SiteConfig" || kind == "ClusterInstance" || strings.HasPrefix(apiVersion, siteConfigGroup) ||
		strings.HasPrefix(apiVersion, clusterInstanceGroup)
}

// isRemote reports whether a kustomization entry names a remote location.
func isRemote(entry string) bool {
	return strings.Contains(entry, "://") || strings.HasPrefix(entry, "github.com/") || strings.HasPrefix(entry, "git@")
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
	// The window is counted in files, as it was when a batch was one
	// file: four a worker, plus the batches under way.
	window := 4 * l.o.workers
	futures := make(chan chan []decoded, max(window/maxBatch, 1))
	// The files are decoded on a pool of long-lived goroutines: a
	// goroutine started per file grew its stack anew, copying, as it went
	// down the decoder and the renderer (3 % of a 10,000-site render).
	pool := parallel.NewPoolOf(l.o.workers)
	// The most sites a decoded file held; -1 until a file is decoded.
	var mostSites atomic.Int64
	mostSites.Store(-1)
	go func() {
		defer close(futures)
		defer pool.Close()
		for rest := l.files; len(rest) > 0; {
			n := batchSize(len(l.files), l.o.workers, mostSites.Load())
			files := rest[:min(n, len(rest))]
			rest = rest[len(files):]
			ch := make(chan []decoded, 1)
			select {
			case futures <- ch:
			case <-ctx.Done():
				return
			}
			// Every future sent gets its job: the loop below waits
			// for each one.
			pool.Go(func() {
				ds := make([]decoded, len(files))
				for i, c := range files {
					if ctx.Err() == nil {
						ds[i] = l.decodeAndWork(c, work)
						storeMax(&mostSites, int64(len(ds[i].sites)))
					}
				}
				ch <- ds
			})
		}
	}()
	var err error
	for ch := range futures {
		for _, d := range <-ch {
			if err == nil {
				if err = emit(d); err != nil {
					cancel()
				}
			}
		}
	}
	if err == nil {
		err = ctx.Err()
	}
	return err
}

// maxBatch is the most sites' worth of files a worker of decodeStream
// takes at once. Every batch is a hand-off to a worker and one back, with
// the worker and the goroutine that emits taking turns at each: a file a
// batch kept the two cores of a 10,000-site render less busy (8 % more
// wall time for the same CPU time), and 32 a batch left one core waiting
// on the other's batch at the end of the window.
const maxBatch = 8

// batchSize is how many files a worker takes next: maxBatch sites' worth
// of the largest file decoded so far, mostSites (one file while it is -1,
// before any file is decoded; one at a time once a file held eight sites
// or more), so that a fleet of files of hundreds of sites keeps as few
// sites in flight as a batch of one file did; and fewer when the files
// are too few to keep every worker busy with eight batches each.
func batchSize(files, workers int, mostSites int64) int {
	if mostSites < 0 {
		return 1
	}
	return int(min(int64(max(files/(8*workers), 1)), max(maxBatch/max(mostSites, 1), 1)))
}

// storeMax raises v to n if n is larger.
func storeMax(v *atomic.Int64, n int64) {
	for old := v.Load(); n > old && !v.CompareAndSwap(old, n); old = v.Load() {
	}
}

// decodeAndWork decodes a file, resolves its sites and runs work on each
// site that resolved.
func (l *loader) decodeAndWork(c candidate, work func(*Site) any) decoded {
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
	return d
}

// bigFileSize is the size from which files decode one at a time.
const bigFileSize = 1 << 20

// siteConfigMarkers: a file that holds neither cannot define a site.
var siteConfigMarkers = [][]byte{[]byte("SiteConfig"), []byte(siteConfigGroup), []byte("ClusterInstance"), []byte(clusterInstanceGroup)}

func (l *loader) decodeOne(c candidate) decoded {
	file := c.path
	if c.data != nil && !c.verbatim {
		return l.decodeBuilt(c)
	}
	data := c.data
	if !c.verbatim {
		read := readLimited
		if c.listed {
			read = safefs.ReadListedFile
		}
		var err error
		if data, err = read(l.fsys, file, l.o.maxFileSize); err != nil {
			return decoded{problems: Problems{{Pos: Position{File: file}, Severity: SeverityError, Message: err.Error(), Err: err, Hint: fileHint(err)}}}
		}
	}
	// A file that does not mention SiteConfig cannot define a site; skip it
	// without parsing (fleet trees also hold extra manifests and templates).
	if !slices.ContainsFunc(siteConfigMarkers, func(m []byte) bool { return bytes.Contains(data, m) }) {
		if c.named {
			return decoded{problems: Problems{noSiteProblem(file, data)}}
		}
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
	if c.named && len(sites) == 0 && len(problems) == 0 {
		problems = Problems{noSiteProblem(file, data)}
	}
	return decoded{sites: sites, problems: problems}
}

// noSiteProblem says that a file named on its own defines no site, and
// what it holds instead.
func noSiteProblem(file string, data []byte) Problem {
	p := Problem{Pos: Position{File: file}, Severity: SeverityError,
		Hint: "a site is a document of kind SiteConfig, apiVersion ran.openshift.io/v1 or v2, or of kind ClusterInstance, apiVersion " + ClusterInstanceAPIVersion}
	found := describeDocuments(data)
	if len(found) == 0 {
		p.Message = "the file holds no YAML document, so no site"
	} else {
		p.Message = "no SiteConfig or ClusterInstance document in the file, so no site: it holds " + strings.Join(found, ", ")
	}
	return p
}

// describeDocuments names what the YAML documents of data are, up to a few.
func describeDocuments(data []byte) []string {
	dec := yaml.NewDecoder(bytes.NewReader(data))
	var found []string
	for len(found) < 3 {
		var root yaml.Node
		if err := dec.Decode(&root); err != nil {
			break
		}
		if len(root.Content) == 0 {
			continue
		}
		n := root.Content[0]
		switch kind := mappingValue(n, "kind"); {
		case n.Kind != yaml.MappingNode:
			found = append(found, kindName(n))
		case kind != nil && kind.Kind == yaml.ScalarNode:
			found = append(found, fmt.Sprintf("kind %q", clip(kind.Value)))
		default:
			found = append(found, "a mapping without kind")
		}
	}
	return found
}

// decodeBuilt decodes a document that a kustomize build changed. Its
// text is the build's, not the file's, so every position is moved to the
// start of the object in the file it came from: the field path says the
// rest.
func (l *loader) decodeBuilt(c candidate) decoded {
	if c.exact {
		if d, ok := l.decodeExact(c); ok {
			return d
		}
	}
	sites, problems := decodeFile(c.path, c.data, decodeOptions{strict: l.o.strict})
	at := Position{File: c.path, Line: c.line}
	for i := range problems {
		problems[i].Pos = at
		problems[i].Message += " (" + c.via + ")"
	}
	for _, s := range sites {
		s.BaseDir = c.base
		s.Source = at
		for k := range s.fields {
			s.fields[k] = at
		}
	}
	return decoded{sites: sites, problems: problems}
}

// decodeExact decodes the one document of a file that a build passed
// through unchanged, with the file's own positions.
func (l *loader) decodeExact(c candidate) (decoded, bool) {
	data, err := readLimited(l.fsys, c.path, l.o.maxFileSize)
	if err != nil {
		return decoded{}, false
	}
	doc, ok := documentAt(data, c.line)
	if !ok {
		return decoded{}, false
	}
	sites, problems := decodeFile(c.path, doc, decodeOptions{strict: l.o.strict})
	for _, s := range sites {
		if c.identity != "" && s.identity() != c.identity {
			return decoded{}, false
		}
		s.BaseDir = c.base
	}
	return decoded{sites: sites, problems: problems}, true
}

// documentAt returns the file's text with every line outside the YAML
// document that starts at line blanked, so that decoding it keeps the
// file's line numbers.
func documentAt(data []byte, line int) ([]byte, bool) {
	lines := bytes.SplitAfter(data, []byte("\n"))
	if line < 1 || line > len(lines) {
		return nil, false
	}
	out := make([]byte, 0, len(data))
	in := false
	for i, ln := range lines {
		n := i + 1
		switch {
		case n == line:
			in = true
		case in && (bytes.HasPrefix(ln, []byte("---")) || bytes.HasPrefix(ln, []byte("..."))):
			in = false
		}
		if in {
			out = append(out, ln...)
		} else if bytes.HasSuffix(ln, []byte("\n")) {
			out = append(out, '\n')
		}
	}
	return out, true
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
			pr.Err, pr.Hint = err, fileHint(err)
			problems = append(problems, pr)
			return
		}
		files.Files[p] = f
	}
	dir := func(field, p string) {
		d, err := l.reader.readDir(s.join(p))
		if err != nil {
			pr := s.Problem(field, "%v", err)
			pr.Err, pr.Hint = err, fileHint(err)
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
