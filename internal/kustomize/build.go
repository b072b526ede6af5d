package kustomize

import (
	"bytes"
	"context"
	"crypto/sha256"
	"errors"
	"fmt"
	"io/fs"
	"path"
	"slices"
	"sort"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"gopkg.in/yaml.v3"
	"sigs.k8s.io/kustomize/api/krusty"
	"sigs.k8s.io/kustomize/api/provider"
	"sigs.k8s.io/kustomize/api/resmap"
	"sigs.k8s.io/kustomize/api/resource"
	"sigs.k8s.io/kustomize/api/types"
)

// builder holds the state of one Build call.
type builder struct {
	fsys fs.FS
	o    options
	res  *resolver
	rf   *resource.Factory
	// sem bounds the krusty runs and file parses going on at once.
	sem chan struct{}

	// plans is filled by the planning pass, on one goroutine.
	plans map[string]planned

	files  memo[string, []byte]
	hashes memo[string, [32]byte]
	parsed memo[string, *parsedFile]
	cache  *Cache

	// exact is set when the top kustomization asks for build metadata
	// (origin annotations, ...) in the output. Those are relative to the
	// top directory and cover every object, so the whole tree is then
	// built by one krusty run, without the fast paths.
	exact bool
	// userOrigin: the output keeps kustomize's origin annotations.
	userOrigin bool

	servedMu sync.Mutex
	served   map[servedKey][]byte
}

// servedKey identifies how a kustomization below the top of a krusty run
// is served: as part of the output, or as plugin configuration.
type servedKey struct {
	kd     *kdir
	config bool
}

func newBuilder(fsys fs.FS, o options) *builder {
	b := &builder{
		fsys:   fsys,
		o:      o,
		res:    newResolver(fsys),
		rf:     provider.NewDepProvider().GetResourceFactory(),
		sem:    make(chan struct{}, o.workers),
		plans:  map[string]planned{},
		cache:  o.cache,
		served: map[servedKey][]byte{},
	}
	if b.cache == nil {
		b.cache = NewCache()
	}
	return b
}

// memo remembers the outcome of a computation per key, errors included,
// and runs it once even when asked concurrently.
type memo[K comparable, V any] struct {
	mu sync.Mutex
	m  map[K]*memoEntry[V]
}

type memoEntry[V any] struct {
	once sync.Once
	v    V
	err  error
}

func (m *memo[K, V]) get(k K, f func(K) (V, error)) (V, error) {
	m.mu.Lock()
	if m.m == nil {
		m.m = map[K]*memoEntry[V]{}
	}
	e, ok := m.m[k]
	if !ok {
		e = &memoEntry[V]{}
		m.m[k] = e
	}
	m.mu.Unlock()
	e.once.Do(func() { e.v, e.err = f(k) })
	return e.v, e.err
}

// readFile reads a fleet file (resolved, root-relative) once per build.
func (b *builder) readFile(p string) ([]byte, error) {
	return b.files.get(p, func(p string) ([]byte, error) {
		data, err := readLimited(b.fsys, p, b.o.maxFileSize)
		if err != nil {
			return nil, err
		}
		if err := checkAliases(p, data); err != nil {
			return nil, err
		}
		return data, nil
	})
}

func (b *builder) fileHash(p string) ([32]byte, error) {
	return b.hashes.get(p, func(p string) ([32]byte, error) {
		// Read without keeping: a file hashed need not be held.
		data, err := readLimited(b.fsys, p, b.o.maxFileSize)
		if err != nil {
			return [32]byte{}, err
		}
		return sha256.Sum256(data), nil
	})
}

// Cache keeps build results across Build calls, keyed by the content of
// everything each build read (a SiteConfig generator by its path, all the
// build gives of it): a changed file changes the key, so a cached result
// is never stale. It holds every result it is given; drop it to
// free them. Safe for concurrent use.
type Cache struct {
	mu sync.Mutex
	m  map[cacheKey]*cacheEntry
}

// NewCache returns an empty cache.
func NewCache() *Cache { return &Cache{m: map[cacheKey]*cacheEntry{}} }

type mode int

const (
	// modeTop: the directory Build was called on.
	modeTop mode = iota
	// modeChild: a directory built on its own inside a composite, the way
	// kustomize builds it as part of its parent: the top kustomization's
	// build metadata replaces its own, and its sortOptions are ignored.
	modeChild
)

type cacheKey struct {
	content [32]byte
	mode    mode
	exact   bool
}

type cacheEntry struct {
	once sync.Once
	r    *dirResult
	err  error
}

// dirResult is what a directory builds to.
type dirResult struct {
	docs     []*doc
	gens     []Generator
	warnings []Warning
	// cacheable is false when the build read something its key does not
	// cover (a remote base, or a file kustomize read unexpectedly).
	cacheable bool

	inlineOnce sync.Once
	inline     []byte
	inlineErr  error
}

// doc is an output object with what the build needs to know about it.
type doc struct {
	Document
	id docID
	// local objects are kept while building (a parent may use them) and
	// left out of the final output, as kustomize does.
	local bool
	// src is the unchanged source object, for objects of flat results.
	src *parsedDoc
	// renamed: the build changed the object's name or namespace, or made
	// the object.
	renamed bool
	// res is the object of a native result as kustomize holds it inside a
	// build (build annotations included), for a parent's native build. It
	// is shared and never changed.
	res *resource.Resource
}

func (c *Cache) get(k cacheKey, f func() (*dirResult, error)) (*dirResult, error) {
	c.mu.Lock()
	e, ok := c.m[k]
	if !ok {
		e = &cacheEntry{}
		c.m[k] = e
	}
	c.mu.Unlock()
	e.once.Do(func() { e.r, e.err = f() })
	// A cancelled build, or one whose key does not cover what it read,
	// must not be reused.
	if errors.Is(e.err, context.Canceled) || errors.Is(e.err, context.DeadlineExceeded) || (e.err == nil && !e.r.cacheable) {
		c.mu.Lock()
		if c.m[k] == e {
			delete(c.m, k)
		}
		c.mu.Unlock()
	}
	return e.r, e.err
}

// build plans and builds the kustomization in dir.
func (b *builder) build(ctx context.Context, dir string) (*Result, error) {
	real, err := b.res.resolve(dir)
	if err != nil {
		return nil, err
	}
	if st, err := fs.Stat(b.fsys, real); err != nil {
		return nil, explainFSError(real, err)
	} else if !st.IsDir() {
		return nil, fmt.Errorf("%s is not a directory", dir)
	}
	kd, err := b.plan(real, []string{real})
	if err != nil {
		return nil, err
	}
	if kd.expanded > maxExpanded {
		return nil, fmt.Errorf("%s: the tree is too large: counting each base as often as it is included, it expands to more than %d "+
			"kustomizations and entries, so its build would multiply objects (a base listed by two overlays at every level doubles "+
			"them per level); include each base once, or split the tree", kd.file, maxExpanded)
	}
	if len(kd.k.BuildMetadata) > 0 {
		b.exact = true
		b.userOrigin = slices.Contains(kd.k.BuildMetadata, types.OriginAnnotations)
	}
	r, err := b.run(ctx, kd, modeTop)
	if err != nil {
		return nil, err
	}
	res := &Result{}
	for _, d := range r.docs {
		if !d.local {
			doc := d.Document
			// Results may live on in a cache: the caller gets its own copy.
			doc.Data = bytes.Clone(doc.Data)
			res.Documents = append(res.Documents, doc)
		}
	}
	seen := map[string]bool{}
	for _, g := range r.gens {
		if !seen[g.File] {
			seen[g.File] = true
			res.SiteConfigGenerators = append(res.SiteConfigGenerators, g)
		}
	}
	seenW := map[Warning]bool{}
	for _, w := range r.warnings {
		if !seenW[w] {
			seenW[w] = true
			res.Warnings = append(res.Warnings, w)
		}
	}
	return res, nil
}

// run builds a planned directory, through the cache.
func (b *builder) run(ctx context.Context, kd *kdir, m mode) (*dirResult, error) {
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	useKrusty := b.exact || kd.class == classFull ||
		(kd.class == classComposite && kd.whole) ||
		(m == modeTop && kd.k.SortOptions != nil)
	if (!useKrusty && kd.class == classFlat) || (kd.k.SortOptions == nil && len(kd.k.BuildMetadata) == 0) {
		// The result does not depend on the mode: one cache entry serves
		// the directory built on its own and inside a parent.
		m = modeChild
	}
	compute := func() (*dirResult, error) {
		switch {
		case useKrusty && kd.native && !b.exact && !b.o.noNative && (m != modeTop || kd.k.SortOptions == nil):
			r, err := b.native(ctx, kd)
			if errors.Is(err, errNotNative) {
				return b.krustyBuild(ctx, kd, m)
			}
			return r, err
		case useKrusty:
			return b.krustyBuild(ctx, kd, m)
		case kd.class == classFlat:
			return b.flat(ctx, kd)
		default:
			return b.composite(ctx, kd, m)
		}
	}
	if kd.remote {
		return compute()
	}
	return b.cache.get(cacheKey{content: kd.key, mode: m, exact: b.exact}, compute)
}

// gather runs f for every index in [0, n) on its own goroutine and waits.
func gather(n int, f func(i int)) {
	var wg sync.WaitGroup
	for i := range n {
		wg.Go(func() { f(i) })
	}
	wg.Wait()
}

// fileDocs returns the objects of a resource file, parsed under the
// semaphore.
func (b *builder) fileDocs(p string) ([]*doc, error) {
	b.sem <- struct{}{}
	pf, err := b.parseFile(p)
	<-b.sem
	if err != nil {
		return nil, err
	}
	docs := make([]*doc, len(pf.docs))
	for i, pd := range pf.docs {
		docs[i] = &doc{
			Document: Document{
				Data:       pd.yaml,
				APIVersion: pd.id.apiVersion, Kind: pd.id.kind, Namespace: pd.id.namespace, Name: pd.id.name,
				Origin: Origin{File: pd.file, Line: pd.line},
			},
			id:    pd.id,
			local: pd.local,
			src:   pd,
		}
	}
	return docs, nil
}

type part struct {
	docs     []*doc
	gens     []Generator
	warnings []Warning
	err      error
}

// parts builds the resources of kd, each on its own.
func (b *builder) parts(ctx context.Context, kd *kdir) ([]part, bool, error) {
	parts := make([]part, len(kd.resources))
	cacheable := true
	var mu sync.Mutex
	gather(len(kd.resources), func(i int) {
		e := kd.resources[i]
		p := &parts[i]
		if !e.isDir() {
			p.docs, p.err = b.fileDocs(e.path)
			return
		}
		r, err := b.run(ctx, e.sub, modeChild)
		if err != nil {
			p.err = err
			return
		}
		p.docs, p.gens, p.warnings = r.docs, r.gens, r.warnings
		if !r.cacheable {
			mu.Lock()
			cacheable = false
			mu.Unlock()
		}
	})
	for i, p := range parts {
		if p.err != nil {
			e := kd.resources[i]
			if errors.Is(p.err, context.Canceled) || errors.Is(p.err, context.DeadlineExceeded) {
				return nil, false, p.err
			}
			if e.isDir() {
				return nil, false, fmt.Errorf("build kustomization %s: %w", e.sub.dir, p.err)
			}
			return nil, false, fmt.Errorf("%s: %s entry %q: %w", posOf(kd.file, e.line), e.field, clip(e.raw), p.err)
		}
	}
	return parts, cacheable, nil
}

// flat builds a directory of resource files and flat directories by
// reading the files: its output is their objects, in order.
func (b *builder) flat(ctx context.Context, kd *kdir) (*dirResult, error) {
	parts, cacheable, err := b.parts(ctx, kd)
	if err != nil {
		return nil, err
	}
	return b.concat(kd, parts, cacheable)
}

// composite builds a plain list of resources whose directories are built
// one by one, and concatenates the outputs. That is what kustomize
// outputs too, except when a directory renames an object another one
// refers to: kustomize fixes such references across the whole tree. Then
// the tree is built by krusty as one.
func (b *builder) composite(ctx context.Context, kd *kdir, m mode) (*dirResult, error) {
	parts, cacheable, err := b.parts(ctx, kd)
	if err != nil {
		return nil, err
	}
	if crossReferences(parts) {
		return b.krustyBuild(ctx, kd, m)
	}
	return b.concat(kd, parts, cacheable)
}

// concat joins the outputs of the resources of kd, refusing duplicate
// objects as kustomize does.
func (b *builder) concat(kd *kdir, parts []part, cacheable bool) (*dirResult, error) {
	r := &dirResult{cacheable: cacheable}
	n := 0
	for _, p := range parts {
		n += len(p.docs)
	}
	r.docs = make([]*doc, 0, n)
	seen := make(map[docID]*doc, n)
	for _, p := range parts {
		for _, d := range p.docs {
			k := d.id.dupKey()
			if first, dup := seen[k]; dup {
				return nil, fmt.Errorf("%s: %s %q (namespace %q) is defined twice, at %s and at %s; kustomize refuses duplicate objects",
					kd.file, d.Kind, d.Name, k.namespace, first.Origin, d.Origin)
			}
			seen[k] = d
			r.docs = append(r.docs, d)
		}
		r.gens = append(r.gens, p.gens...)
		r.warnings = append(r.warnings, p.warnings...)
	}
	for _, e := range kd.siteConfig {
		for _, f := range e.siteConfigs {
			r.gens = append(r.gens, Generator{File: f, Kustomization: kd.file})
		}
	}
	return r, nil
}

// Kinds from kustomize's default name-reference configuration
// (api/internal/konfig/builtinpluginconsts/namereference.go): objects of a
// referable kind can be referred to by name from objects of a referrer
// kind, and kustomize rewrites those references when it renames the
// object.
var (
	referableKinds = setOf("Deployment", "ReplicationController", "ReplicaSet", "StatefulSet",
		"ConfigMap", "Secret", "Service", "Role", "ClusterRole", "ServiceAccount",
		"PersistentVolumeClaim", "PersistentVolume", "StorageClass", "PriorityClass",
		"IngressClass", "ValidatingAdmissionPolicy")
	referrerKinds = setOf("APIService", "ClusterRole", "ClusterRoleBinding", "CronJob", "DaemonSet",
		"Deployment", "HorizontalPodAutoscaler", "Ingress", "Job", "MutatingWebhookConfiguration",
		"Node", "PersistentVolume", "PersistentVolumeClaim", "Pod", "PodTemplate", "ReplicaSet",
		"ReplicationController", "Role", "RoleBinding", "Service", "ServiceAccount", "StatefulSet",
		"StorageClass", "ValidatingAdmissionPolicyBinding", "ValidatingWebhookConfiguration")
)

func setOf(s ...string) map[string]bool {
	m := make(map[string]bool, len(s))
	for _, k := range s {
		m[k] = true
	}
	return m
}

// crossReferences reports whether one part renames (or generates) an
// object of a referable kind while another holds objects that can refer
// to it.
func crossReferences(parts []part) bool {
	referrers := false
	for _, p := range parts {
		for _, d := range p.docs {
			referrers = referrers || referrerKinds[d.Kind]
		}
	}
	if !referrers {
		// Nothing refers to anything: renames cannot matter.
		return false
	}
	renames, refers := -1, -1
	for i, p := range parts {
		var ren, ref bool
		for _, d := range p.docs {
			ren = ren || (d.renamed && referableKinds[d.Kind])
			ref = ref || referrerKinds[d.Kind]
		}
		if ren {
			if renames >= 0 || (refers >= 0 && refers != i) {
				return true
			}
			renames = i
		}
		if ref {
			if renames >= 0 && renames != i {
				return true
			}
			refers = i
		}
	}
	return false
}

// inlineYAML is a flat result served to krusty as one file, each object
// carrying its tracking annotation.
func (r *dirResult) inlineYAML() ([]byte, error) {
	r.inlineOnce.Do(func() {
		srcs := make([]*parsedDoc, len(r.docs))
		for i, d := range r.docs {
			srcs[i] = d.src
		}
		r.inline, r.inlineErr = joinAnnotated(srcs)
	})
	return r.inline, r.inlineErr
}

// krustyBuild builds kd with krusty, on a file system that serves the
// checked kustomizations, inlines flat directories and tracks origins.
func (b *builder) krustyBuild(ctx context.Context, kd *kdir, m mode) (*dirResult, error) {
	w := &walker{
		b:   b,
		ctx: ctx,
		fs: &buildFS{b: b, overlay: map[string][]byte{}, annotate: map[string]bool{},
			reads: map[string]bool{}},
		output:  map[string]bool{},
		config:  map[string]bool{},
		other:   map[string]bool{},
		inlined: map[string]string{},
		seen:    map[string]bool{},
		known:   map[string]bool{},
	}
	if err := w.serve(kd, true, m, false, ""); err != nil {
		return nil, err
	}
	for f := range w.output {
		if w.config[f] || w.other[f] {
			continue
		}
		// Parsed here, outside the semaphore, so that krusty's reads hit
		// the memo; a file that does not parse is reported by krusty.
		if _, err := b.parseFile(f); err == nil {
			w.fs.annotate[f] = true
		}
	}
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	opts := &krusty.Options{
		Reorder:          krusty.ReorderOptionNone,
		LoadRestrictions: types.LoadRestrictionsRootOnly,
		PluginConfig:     types.DisabledPluginConfig(),
	}
	if m == modeTop && kd.k.SortOptions != nil {
		// kustomize applies sortOptions either way; "unspecified" only
		// keeps it from logging that the option is set twice.
		opts.Reorder = krusty.ReorderOptionUnspecified
	}
	b.sem <- struct{}{}
	defer func() { <-b.sem }()
	rm, err := runKrusty(opts, w.fs, toVirtual(kd.dir))
	if err != nil {
		return nil, w.explain(err)
	}
	docs, err := b.convert(kd, rm)
	if err != nil {
		return nil, err
	}
	r := &dirResult{docs: docs, gens: w.gens, warnings: w.warnings, cacheable: !w.fs.remoteRead && !kd.remote}
	for f := range w.fs.reads {
		if !w.known[f] {
			r.cacheable = false
		}
	}
	return r, nil
}

// krustyRuns counts krusty runs, for tests.
var krustyRuns atomic.Int64

// runKrusty runs krusty, turning a panic into an error: kustomize panics
// on some malformed input.
// buildTimeout bounds one krusty run. A few small files can ask kustomize
// for an exponential number of objects (resources that each list two
// bases with a name suffix); krusty cannot be interrupted, so a run that
// overruns is abandoned and its tree fails, while every other tree goes on.
const buildTimeout = 60 * time.Second

// maxObjects bounds what one build may output.
const maxObjects = 100000

func runKrusty(opts *krusty.Options, fsys *buildFS, dir string) (resmap.ResMap, error) {
	krustyRuns.Add(1)
	type result struct {
		m   resmap.ResMap
		err error
	}
	done := make(chan result, 1)
	go func() {
		var r result
		defer func() {
			if p := recover(); p != nil {
				r.err = fmt.Errorf("kustomize failed: %v", p)
			}
			done <- r
		}()
		r.m, r.err = krusty.MakeKustomizer(opts).Run(fsys, dir)
	}()
	timer := time.NewTimer(buildTimeout)
	defer timer.Stop()
	select {
	case r := <-done:
		if r.err == nil && r.m.Size() > maxObjects {
			return nil, fmt.Errorf("the build outputs %d objects, over the limit of %d", r.m.Size(), maxObjects)
		}
		return r.m, r.err
	case <-timer.C:
		return nil, fmt.Errorf("the build ran for more than %v and was abandoned; check the tree for resources that multiply (a base listed twice per level)", buildTimeout)
	}
}

// convert turns krusty's output into documents, taking the origin of each
// object from its tracking annotation (or, for objects kustomize made,
// from kustomize's origin annotation) and removing both.
func (b *builder) convert(kd *kdir, rm resmap.ResMap) ([]*doc, error) {
	res := rm.Resources()
	docs := make([]*doc, 0, len(res))
	for _, r := range res {
		d := &doc{id: idOf(r), renamed: true, Document: Document{Modified: true}}
		anns := r.GetAnnotations()
		if v, ok := anns[trackAnnotation]; ok {
			delete(anns, trackAnnotation)
			if err := r.SetAnnotations(anns); err != nil {
				return nil, err
			}
			if file, i, ok := parseTrack(v); ok {
				if pf, err := b.parseFile(file); err == nil && i < len(pf.docs) {
					pd := pf.docs[i]
					d.Origin = Origin{File: pd.file, Line: pd.line}
					d.renamed = pd.id.name != d.id.name || pd.id.namespace != d.id.namespace || pd.id.kind != d.id.kind
					d.src = pd
				}
			}
		}
		if o, err := r.GetOrigin(); err == nil && o != nil && d.Origin.File == "" {
			d.Origin = kustomizeOrigin(kd.dir, o)
		}
		if !b.userOrigin {
			if err := r.SetOrigin(nil); err != nil {
				return nil, err
			}
		}
		data, err := r.AsYAML()
		if err != nil {
			return nil, fmt.Errorf("%s: %w", kd.file, err)
		}
		d.Data = data
		d.APIVersion, d.Kind, d.Namespace, d.Name = d.id.apiVersion, d.id.kind, d.id.namespace, d.id.name
		if d.src != nil {
			d.Modified = !bytes.Equal(data, d.src.yaml)
		}
		d.src = nil // only flat results are inlined
		docs = append(docs, d)
	}
	return docs, nil
}

// kustomizeOrigin reads kustomize's own origin annotation, whose paths are
// relative to the directory krusty built.
func kustomizeOrigin(dir string, o *resource.Origin) Origin {
	p := o.Path
	if p == "" {
		p = o.ConfiguredIn
	}
	if o.Repo != "" {
		repo := o.Repo
		if o.Ref != "" {
			repo += "?ref=" + o.Ref
		}
		return Origin{File: p, Repo: repo}
	}
	if p == "" {
		return Origin{}
	}
	f := path.Join(dir, p)
	if strings.Contains(path.Base(f), ".siteops-inline-") {
		return Origin{}
	}
	return Origin{File: f}
}

// walker prepares the file system of one krusty run: it walks the
// kustomizations krusty will read and serves each, rewritten where needed.
type walker struct {
	b   *builder
	ctx context.Context
	fs  *buildFS
	// output, config and other are the files krusty will read as
	// resources, as plugin configurations and otherwise; only the first
	// kind carries tracking annotations.
	output, config, other map[string]bool
	// known is every fleet file the plan expects krusty to read.
	known map[string]bool
	// inlined maps inline file paths to the directory they stand for.
	inlined  map[string]string
	seen     map[string]bool
	gens     []Generator
	warnings []Warning
}

// serve prepares kd and what it refers to. top is the directory krusty
// runs on; config is set for the directories of plugin configurations;
// ns is the namespace kustomize hands down to kd from above.
func (w *walker) serve(kd *kdir, top bool, m mode, config bool, ns string) error {
	key := fmt.Sprintf("%t\x00%s", config, kd.dir)
	if w.seen[key] {
		return nil
	}
	w.seen[key] = true
	if kd.k.Namespace != "" {
		ns = kd.k.Namespace
	}
	w.known[kd.file] = true
	for _, f := range kd.files {
		w.other[f] = true
		w.known[f] = true
	}
	gensBefore := len(w.gens)
	var edits []edit
	for i, e := range kd.resources {
		switch {
		case e.remote:
		case !e.isDir():
			w.known[e.path] = true
			if config {
				w.config[e.path] = true
			} else {
				w.output[e.path] = true
			}
		case !w.b.exact && !config && ns == "" && e.sub.class == classFlat:
			// A flat directory is served as one file of its objects:
			// read once however many overlays use it, and without the
			// cost of building it in each. Not under a namespace:
			// kustomize sets it on a base's objects before the overlay's
			// patches see them, and an inlined file would not get it.
			r, err := w.b.run(w.ctx, e.sub, modeChild)
			if err != nil {
				return fmt.Errorf("build kustomization %s: %w", e.sub.dir, err)
			}
			data, err := r.inlineYAML()
			if err != nil {
				return err
			}
			name := fmt.Sprintf(".siteops-inline-%d.yaml", i)
			p := path.Join(kd.dir, name)
			w.fs.overlay[toVirtual(p)] = data
			w.inlined[p] = e.sub.dir
			w.known[p] = true
			for _, f := range e.sub.resourceFiles(nil) {
				w.known[f] = true
			}
			w.gens = append(w.gens, r.gens...)
			w.warnings = append(w.warnings, r.warnings...)
			edits = append(edits, edit{field: e.field, index: e.index, value: name})
		default:
			if err := w.serve(e.sub, false, m, config, ns); err != nil {
				return err
			}
		}
	}
	for _, e := range kd.siteConfig {
		for _, f := range e.siteConfigs {
			w.gens = append(w.gens, Generator{File: f, Kustomization: kd.file})
			w.known[f] = true
		}
		edits = append(edits, edit{field: e.field, index: e.index, remove: true})
	}
	for _, e := range kd.components {
		if !e.remote {
			if err := w.serve(e.sub, false, m, config, ns); err != nil {
				return err
			}
		}
	}
	for _, e := range kd.plugins {
		switch {
		case e.remote, e.inline != nil:
		case e.isDir():
			if err := w.serve(e.sub, false, m, true, ns); err != nil {
				return err
			}
		default:
			w.config[e.path] = true
			w.known[e.path] = true
		}
	}
	if kd.class == classFull && len(w.gens) > gensBefore {
		w.warnings = append(w.warnings, Warning{File: kd.file, Line: kd.line("generators", -1),
			Message: fmt.Sprintf("this kustomization transforms what it builds (%s), but not the sites of the SiteConfig generators in its tree: siteops reads those SiteConfigs as written",
				strings.Join(transformingFields(kd), ", "))})
	}
	data, err := w.b.servedKustomization(kd, top, m, config, edits)
	if err != nil {
		return err
	}
	w.fs.overlay[toVirtual(kd.file)] = data
	return nil
}

func transformingFields(kd *kdir) []string {
	var out []string
	for f := range kd.fields {
		if !flatFields[f] {
			out = append(out, f)
		}
	}
	if kd.isComponent {
		out = append(out, "kind: Component")
	}
	sort.Strings(out)
	if len(out) == 0 {
		out = []string{"plugins"}
	}
	return out
}

// edit changes one item of a list field of a kustomization.
type edit struct {
	field  string
	index  int
	value  string // the new item
	remove bool
}

// servedKustomization is the kustomization file krusty reads for kd:
// the checked file, with flat directories replaced by their inline files,
// SiteConfig generators removed, and at the top the build metadata that
// turns on kustomize's origin annotations. Unchanged files are served as
// they are.
func (b *builder) servedKustomization(kd *kdir, top bool, m mode, config bool, edits []edit) ([]byte, error) {
	sk := servedKey{kd, config}
	if !top {
		b.servedMu.Lock()
		data, ok := b.served[sk]
		b.servedMu.Unlock()
		if ok {
			return data, nil
		}
	}
	// Origin annotations cost kustomize work on every object and every
	// transformer, so they are asked for only when some object will lack
	// a tracking annotation.
	meta := []string(nil)
	switch {
	case !top:
	case b.exact && !b.userOrigin && kd.generates:
		meta = append(slices.Clone(kd.k.BuildMetadata), types.OriginAnnotations)
	case b.exact:
		meta = kd.k.BuildMetadata
	case kd.generates:
		meta = []string{types.OriginAnnotations}
	}
	data := kd.data
	needsMeta := top && !slices.Equal(meta, kd.k.BuildMetadata)
	dropSort := top && m == modeChild && kd.k.SortOptions != nil
	if len(edits) > 0 || needsMeta || dropSort {
		if kd.root == nil {
			return nil, fmt.Errorf("%s: cannot rewrite the kustomization (it does not parse as one YAML mapping)", kd.file)
		}
		root := copyNode(kd.root)
		applyEdits(root, edits)
		if dropSort {
			deleteKey(root, "sortOptions")
		}
		if needsMeta {
			deleteKey(root, "buildMetadata")
		}
		if needsMeta && len(meta) > 0 {
			seq := &yaml.Node{Kind: yaml.SequenceNode}
			for _, v := range meta {
				seq.Content = append(seq.Content, strNode(v))
			}
			root.Content = append(root.Content, strNode("buildMetadata"), seq)
		}
		if !hasContent(root) {
			// kustomize refuses an empty kustomization; an empty resources
			// list keeps it valid.
			root.Content = append(root.Content, strNode("resources"), &yaml.Node{Kind: yaml.SequenceNode, Style: yaml.FlowStyle})
		}
		var buf bytes.Buffer
		enc := yaml.NewEncoder(&buf)
		enc.SetIndent(2)
		if err := enc.Encode(root); err != nil {
			return nil, fmt.Errorf("%s: rewrite: %w", kd.file, err)
		}
		data = buf.Bytes()
	}
	if !top {
		b.servedMu.Lock()
		b.served[sk] = data
		b.servedMu.Unlock()
	}
	return data, nil
}

func strNode(s string) *yaml.Node {
	return &yaml.Node{Kind: yaml.ScalarNode, Tag: "!!str", Value: s, Style: yaml.DoubleQuotedStyle}
}

func copyNode(n *yaml.Node) *yaml.Node {
	if n == nil {
		return nil
	}
	c := *n
	c.Content = make([]*yaml.Node, len(n.Content))
	for i, k := range n.Content {
		c.Content[i] = copyNode(k)
	}
	return &c
}

func applyEdits(root *yaml.Node, edits []edit) {
	// Removals go from the end of each list so that indices hold.
	sort.SliceStable(edits, func(i, j int) bool { return edits[i].index > edits[j].index })
	for _, e := range edits {
		seq := mapValue(root, e.field)
		if seq == nil || seq.Kind != yaml.SequenceNode || e.index >= len(seq.Content) {
			continue
		}
		if e.remove {
			seq.Content = slices.Delete(seq.Content, e.index, e.index+1)
		} else {
			seq.Content[e.index] = strNode(e.value)
		}
	}
	// A list left empty is dropped.
	for i := 0; i+1 < len(root.Content); {
		v := root.Content[i+1]
		if v.Kind == yaml.SequenceNode && len(v.Content) == 0 && (root.Content[i].Value == "generators") {
			root.Content = slices.Delete(root.Content, i, i+2)
			continue
		}
		i += 2
	}
}

func deleteKey(root *yaml.Node, key string) {
	for i := 0; i+1 < len(root.Content); i += 2 {
		if root.Content[i].Value == key {
			root.Content = slices.Delete(root.Content, i, i+2)
			return
		}
	}
}

// hasContent reports whether a kustomization sets anything beyond its
// apiVersion and kind.
func hasContent(root *yaml.Node) bool {
	for i := 0; i+1 < len(root.Content); i += 2 {
		switch root.Content[i].Value {
		case "apiVersion", "kind":
		default:
			return true
		}
	}
	return false
}

// explain makes a krusty error readable: fleet paths instead of the paths
// kustomize saw, and inlined directories by their names.
func (w *walker) explain(err error) error {
	msg := err.Error()
	for p, dir := range w.inlined {
		msg = strings.ReplaceAll(msg, toVirtual(p), dir)
	}
	msg = strings.ReplaceAll(msg, vroot+"/", "")
	msg = strings.ReplaceAll(msg, vroot, ".")
	return &krustyError{msg: msg, err: err}
}

// krustyError is an error from kustomize, with fleet-relative paths.
type krustyError struct {
	msg string
	err error
}

func (e *krustyError) Error() string { return e.msg }
func (e *krustyError) Unwrap() error { return e.err }

// checkRemoteKustomization checks a kustomization file of a cloned remote
// base before kustomize reads it, with the same rules as the fleet's:
// no plugins, and remote entries only of the allowed kinds.
func (b *builder) checkRemoteKustomization(abs string, data []byte) error {
	var k types.Kustomization
	if err := k.Unmarshal(data); err != nil {
		return fmt.Errorf("%s: %w", abs, err)
	}
	kd := &kdir{file: abs, k: k, fields: setFields(&k)}
	if err := inlineAliases(abs, &k); err != nil {
		return err
	}
	if len(k.OpenAPI) > 0 {
		return kd.refuse("openapi", 0, "", "custom OpenAPI schemas are not supported")
	}
	for _, f := range []string{"helmCharts", "helmGlobals", "helmChartInflationGenerator"} {
		if kd.fields[f] {
			return kd.refuse(f, 0, "", "kustomize inflates Helm charts by running the helm program")
		}
	}
	for _, f := range []struct {
		name    string
		entries []string
	}{{"resources", k.Resources}, {"bases", k.Bases}, {"components", k.Components},
		{"generators", k.Generators}, {"transformers", k.Transformers}, {"validators", k.Validators}} {
		for _, raw := range f.entries {
			if err := checkAliases(abs, []byte(raw)); err != nil {
				return err
			}
			if rs, err := b.rf.SliceFromBytes([]byte(raw)); err == nil && f.name != "resources" && f.name != "bases" && f.name != "components" {
				for _, r := range rs {
					if err := b.checkPluginConfigOnly(kd, f.name, raw, r); err != nil {
						return err
					}
				}
				continue
			}
			if isRemoteBase(raw) {
				if reason := checkRemote(raw); reason != "" {
					return kd.refuse(f.name, 0, raw, "%s", reason)
				}
			}
		}
	}
	return nil
}

// checkPluginConfigOnly refuses a plugin configuration that is not one of
// kustomize's built-in plugins.
func (b *builder) checkPluginConfigOnly(kd *kdir, field, raw string, r *resource.Resource) error {
	for _, a := range functionAnnotations {
		if _, ok := r.GetAnnotations()[a]; ok {
			return kd.refuse(field, 0, raw, "KRM functions are not run")
		}
	}
	if r.GetKind() == clusterInstanceKind {
		return kd.refuse(field, 0, raw, "%s", clusterInstanceNotPlugin(r, field))
	}
	if r.GetApiVersion() != "builtin" || !builtinPlugins[r.GetKind()] {
		return kd.refuse(field, 0, raw, "%s is not one of kustomize's built-in plugins", r.GetKind())
	}
	return nil
}
