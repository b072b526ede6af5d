package kustomize

import (
	"bytes"
	"crypto/sha256"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"net/url"
	"path"
	"slices"
	"strings"

	"gopkg.in/yaml.v3"
	"sigs.k8s.io/kustomize/api/krusty"
	"sigs.k8s.io/kustomize/api/resource"
	"sigs.k8s.io/kustomize/api/types"

	"github.com/siteops/siteops/internal/parallel"
	"github.com/siteops/siteops/internal/safefs"
)

// Before anything is built, every kustomization a build can reach is read
// and checked here: each entry that names a file, a directory or a plugin
// is vetted, so that a refusal comes with the kustomization file, the line
// and the entry, and so that krusty is only ever handed a tree in which
// nothing can run a program, fetch anything or leave the fleet. The plan
// also decides how each directory is built (see class) and computes the
// content key its results are cached under.

// class is how a kustomization directory is built.
type class int

const (
	// classFlat: resource files and flat directories only (plus SiteConfig
	// generators). The output is those files' objects, in order; no krusty.
	classFlat class = iota
	// classComposite: a plain list of resources of which some directories
	// transform. Each directory is built on its own and the outputs are
	// concatenated, which avoids kustomize's quadratic accumulation.
	classComposite
	// classFull: anything else; built by krusty.
	classFull
)

// kdir is a checked kustomization directory.
type kdir struct {
	dir  string // resolved, root-relative
	file string // the kustomization file
	data []byte
	root *yaml.Node // the document's mapping, for entry lines and rewriting
	k    types.Kustomization

	fields      map[string]bool // the fields set
	isComponent bool

	resources  []*entry // resources, then bases (kustomize appends bases)
	components []*entry
	plugins    []*entry // generators (other than SiteConfigs), transformers, validators
	siteConfig []*entry // generators entries that are SiteConfig files or directories of them
	// files are the other files this kustomization reads (patches,
	// generator sources, ...), resolved.
	files []string

	class class
	// native: the directory is of a shape the native path builds.
	native bool
	// feedsNative: a directory built natively lists this one, and takes
	// its objects as kustomize holds them (see doc.res).
	feedsNative bool
	// whole: the tree uses vars, configurations or crds, which act across
	// sibling directories, so it must be built by krusty as one.
	whole bool
	// remote: the tree has remote entries; its builds are not cached.
	remote bool
	// generates: the tree has generators or remote entries, whose objects
	// carry no tracking annotation; kustomize's origin annotations are
	// turned on for those.
	generates bool
	// closure is every directory of the tree, itself included, sorted.
	closure []string
	// expanded is what kustomize builds for the tree: this kustomization
	// and each entry, counting a directory every time it is reached (a
	// base included by two overlays is built twice), capped at
	// maxExpanded+1.
	expanded int
	// key identifies the content of everything the tree reads.
	key [32]byte
}

// entry is one entry of a kustomization that names a file, a directory, a
// remote location or (for plugin fields) an inline plugin configuration.
type entry struct {
	field  string
	index  int
	raw    string
	line   int
	remote bool
	inline []*resource.Resource // inline plugin configurations
	path   string               // resolved, for files and directories
	sub    *kdir                // for directories
	// siteConfigs are the SiteConfig files of a generators entry.
	siteConfigs []string
}

func (e *entry) isDir() bool { return e.sub != nil }

// flatFields are the fields a flat or composite kustomization may set.
// buildMetadata and sortOptions only matter at the top of a build, where
// the caller looks at them itself.
var flatFields = map[string]bool{
	"apiVersion": true, "kind": true, "metadata": true,
	"resources": true, "bases": true, "generators": true,
	"buildMetadata": true, "sortOptions": true,
}

// builtinPlugins are the plugin kinds compiled into kustomize, which run
// in-process and are allowed in generators:, transformers: and
// validators:. HelmChartInflationGenerator is left out: it runs helm.
var builtinPlugins = func() map[string]bool {
	m := map[string]bool{}
	for _, name := range krusty.GetBuiltinPluginNames() {
		m[name] = true
	}
	delete(m, "HelmChartInflationGenerator")
	return m
}()

// functionAnnotations mark a plugin configuration as a KRM function to
// run (container, exec or starlark).
var functionAnnotations = []string{"config.kubernetes.io/function", "config.k8s.io/function"}

// SiteConfig is ran.openshift.io/v1 or /v2 (v1 plus a few fields).
const (
	siteConfigGroup = "ran.openshift.io/"
	siteConfigKind  = "SiteConfig"
)

func isSiteConfigType(apiVersion, kind string) bool {
	return kind == siteConfigKind && strings.HasPrefix(apiVersion, siteConfigGroup) && len(apiVersion) > len(siteConfigGroup)
}

// maxDepth bounds how deeply kustomizations may nest.
const maxDepth = 100

// maxExpanded bounds the kustomizations and entries one build expands to,
// each directory counted as often as it is reached: 16 levels of overlays
// that each include two bases are 2^16 builds of the bottom one, hours of
// work and as many objects, from a few small files. Such a tree is
// refused before anything is built.
const maxExpanded = 20000

// planEdge plans the directory real, reached from the kustomizations in
// chain. Like kustomize, a directory that is, or contains, one already on
// the way there is a cycle.
func (b *builder) planEdge(real string, chain []string, from *kdir, e *entry) (*kdir, error) {
	cycle := func(n string) error {
		return fmt.Errorf("%s: %s entry %q leads back to %s: a kustomization cannot include itself or a directory that contains it",
			posOf(from.file, e.line), e.field, clip(e.raw), n)
	}
	for _, a := range chain {
		if contains(real, a) {
			return nil, cycle(real)
		}
	}
	if len(chain) >= maxDepth {
		return nil, fmt.Errorf("%s: %s entry %q: kustomizations nest more than %d deep", posOf(from.file, e.line), e.field, clip(e.raw), maxDepth)
	}
	kd, err := b.plan(real, append(chain[:len(chain):len(chain)], real))
	if err != nil {
		return nil, err
	}
	for _, n := range kd.closure {
		for _, a := range chain {
			if contains(n, a) {
				return nil, cycle(n)
			}
		}
	}
	return kd, nil
}

// contains reports whether directory d is a or an ancestor of a.
func contains(d, a string) bool {
	return d == a || d == "." || strings.HasPrefix(a, d+"/")
}

func posOf(file string, line int) string {
	if line > 0 {
		return fmt.Sprintf("%s:%d", file, line)
	}
	return file
}

type planned struct {
	kd  *kdir
	err error
}

// plan reads and checks the kustomization in the resolved directory dir
// and, recursively, every directory it refers to. Planning runs on one
// goroutine; results are remembered per directory.
func (b *builder) plan(dir string, chain []string) (*kdir, error) {
	if p, ok := b.plans[dir]; ok {
		return p.kd, p.err
	}
	kd, err := b.planDir(dir, chain)
	b.plans[dir] = planned{kd, err}
	return kd, err
}

func (b *builder) findKustomization(dir string) (string, error) {
	var found []string
	for _, name := range kustomizationNames {
		p := path.Join(dir, name)
		st, err := fs.Stat(b.fsys, p)
		switch {
		case err == nil && !st.IsDir():
			// kustomize reads the file through its symlinks; so does the
			// build file system, which serves it by its resolved path.
			real, err := b.res.resolve(p)
			if err != nil {
				return "", err
			}
			found = append(found, real)
		case err != nil && !errors.Is(err, fs.ErrNotExist):
			return "", explainFSError(p, err)
		}
	}
	switch len(found) {
	case 0:
		return "", fmt.Errorf("%w in %s (looked for %s)", ErrNoKustomization, dir, strings.Join(kustomizationNames, ", "))
	case 1:
		return found[0], nil
	}
	return "", fmt.Errorf("%s holds more than one kustomization file (%s); kustomize refuses to choose", dir, strings.Join(found, ", "))
}

func (b *builder) planDir(dir string, chain []string) (*kdir, error) {
	file, err := b.findKustomization(dir)
	if err != nil {
		return nil, err
	}
	data, err := b.readFile(file)
	if err != nil {
		return nil, err
	}
	kd := &kdir{dir: dir, file: file, data: data}
	// Decoded the way kustomize decodes it (unknown fields are errors), so
	// that every field kustomize acts on is one checked here.
	if err := kd.k.Unmarshal(data); err != nil {
		return nil, fmt.Errorf("%s: %w", file, err)
	}
	var doc yaml.Node
	if err := yaml.Unmarshal(data, &doc); err == nil && len(doc.Content) == 1 && doc.Content[0].Kind == yaml.MappingNode {
		kd.root = doc.Content[0]
	}
	kd.fields = setFields(&kd.k)
	kd.isComponent = kd.k.Kind == types.ComponentKind

	if err := b.checkFields(kd, chain); err != nil {
		return nil, err
	}
	kd.classify()
	kd.closure = []string{dir}
	kd.generates = kd.remote || kd.fields["configMapGenerator"] || kd.fields["secretGenerator"]
	for _, e := range kd.plugins {
		kd.generates = kd.generates || e.field == "generators"
	}
	kd.expanded = 1 + len(kd.resources) + len(kd.siteConfig) + len(kd.components) + len(kd.plugins) + len(kd.files)
	for _, e := range kd.subEntries() {
		kd.expanded = min(kd.expanded+e.sub.expanded, maxExpanded+1)
		kd.closure = append(kd.closure, e.sub.closure...)
		kd.whole = kd.whole || e.sub.whole
		kd.remote = kd.remote || e.sub.remote
		kd.generates = kd.generates || e.sub.generates || e.sub.remote
	}
	slices.Sort(kd.closure)
	kd.closure = slices.Compact(kd.closure)
	kd.native = kd.class == classFull && kd.nativeShape()
	if kd.native {
		for _, e := range kd.resources {
			if e.isDir() {
				e.sub.feedsNative = true
			}
		}
	}
	kd.key, err = b.contentKey(kd)
	return kd, err
}

// subEntries are the entries naming directories kustomize builds.
func (kd *kdir) subEntries() []*entry {
	var out []*entry
	for _, list := range [][]*entry{kd.resources, kd.siteConfig, kd.components, kd.plugins} {
		for _, e := range list {
			if e.isDir() {
				out = append(out, e)
			}
		}
	}
	return out
}

// setFields returns the names of the fields set in k, as written in YAML.
func setFields(k *types.Kustomization) map[string]bool {
	out := map[string]bool{}
	j, err := json.Marshal(k)
	if err != nil {
		return out
	}
	var m map[string]json.RawMessage
	if json.Unmarshal(j, &m) == nil {
		for f := range m {
			out[f] = true
		}
	}
	return out
}

func (kd *kdir) classify() {
	kd.class = classFull
	if kd.isComponent {
		return
	}
	for f := range kd.fields {
		if !flatFields[f] {
			return
		}
	}
	if len(kd.plugins) > 0 {
		return
	}
	composite := false
	for _, e := range kd.resources {
		switch {
		case e.remote:
			return
		case e.isDir() && e.sub.class != classFlat:
			composite = true
		}
	}
	for _, e := range kd.siteConfig {
		if e.isDir() && e.sub.class != classFlat {
			return
		}
	}
	if composite {
		kd.class = classComposite
	} else {
		kd.class = classFlat
	}
}

// refuse builds the error for a refused entry.
func (kd *kdir) refuse(field string, line int, raw, format string, args ...any) error {
	return &RefusedError{File: kd.file, Line: line, Field: field, Entry: clip(raw), Reason: fmt.Sprintf(format, args...)}
}

// checkFields checks every field kustomize acts on.
func (b *builder) checkFields(kd *kdir, chain []string) error {
	k := &kd.k
	if len(k.OpenAPI) > 0 {
		return kd.refuse("openapi", kd.line("openapi", -1), "",
			"custom OpenAPI schemas are not supported: kustomize keeps them in process-wide state shared by concurrent builds, and panics on a malformed one")
	}
	for _, f := range []string{"helmCharts", "helmGlobals", "helmChartInflationGenerator"} {
		if kd.fields[f] {
			return kd.refuse(f, kd.line(f, -1), "", "kustomize inflates Helm charts by running the helm program")
		}
	}
	kd.whole = kd.fields["vars"] || kd.fields["configurations"] || kd.fields["crds"]

	// Directories and files kustomize loads as resources, in its order.
	for i, raw := range k.Resources {
		e, err := b.resourceEntry(kd, "resources", i, raw, chain, false)
		if err != nil {
			return err
		}
		kd.resources = append(kd.resources, e)
	}
	for i, raw := range k.Bases {
		e, err := b.resourceEntry(kd, "bases", i, raw, chain, false)
		if err != nil {
			return err
		}
		kd.resources = append(kd.resources, e)
	}
	for _, e := range kd.resources {
		if e.isDir() && e.sub.isComponent {
			return fmt.Errorf("%s: %s entry %q is a Component; list it under components", posOf(kd.file, e.line), e.field, clip(e.raw))
		}
	}
	for i, raw := range k.Components {
		e, err := b.resourceEntry(kd, "components", i, raw, chain, true)
		if err != nil {
			return err
		}
		if !e.remote && !e.sub.isComponent {
			return fmt.Errorf("%s: components entry %q is a %s, not a Component", posOf(kd.file, e.line), clip(raw), kindOr(e.sub.k.Kind))
		}
		kd.components = append(kd.components, e)
	}

	// Plugin configurations.
	for _, f := range []struct {
		name    string
		entries []string
	}{{"generators", k.Generators}, {"transformers", k.Transformers}, {"validators", k.Validators}} {
		probes := b.probePlugins(kd, f.name, f.entries)
		for i, raw := range f.entries {
			e, err := b.pluginEntry(kd, f.name, i, raw, chain, &probes[i])
			if err != nil {
				return err
			}
			if e == nil {
				continue
			}
			if len(e.siteConfigs) > 0 {
				kd.siteConfig = append(kd.siteConfig, e)
			} else {
				kd.plugins = append(kd.plugins, e)
			}
		}
	}

	// Inline patches are YAML kustomize parses too.
	if err := inlineAliases(kd.file, k); err != nil {
		return err
	}

	// Files kustomize loads.
	for i, raw := range k.PatchesStrategicMerge {
		if err := b.patchOrInline(kd, "patchesStrategicMerge", kd.line("patchesStrategicMerge", i), string(raw)); err != nil {
			return err
		}
	}
	for _, f := range []struct {
		name    string
		patches []types.Patch
	}{{"patchesJson6902", k.PatchesJson6902}, {"patches", k.Patches}} {
		for i, p := range f.patches {
			if p.Path != "" {
				if err := b.fileEntry(kd, f.name, kd.line(f.name, i, "path"), p.Path); err != nil {
					return err
				}
			}
		}
	}
	for i, r := range k.Replacements {
		if r.Path != "" {
			if err := b.fileEntry(kd, "replacements", kd.line("replacements", i, "path"), r.Path); err != nil {
				return err
			}
		}
	}
	for _, f := range []string{"crds", "configurations"} {
		list := k.Crds
		if f == "configurations" {
			list = k.Configurations
		}
		for i, raw := range list {
			if err := b.fileEntry(kd, f, kd.line(f, i), raw); err != nil {
				return err
			}
		}
	}
	for i, g := range k.ConfigMapGenerator {
		if err := b.kvSources(kd, "configMapGenerator", i, g.KvPairSources); err != nil {
			return err
		}
	}
	for i, g := range k.SecretGenerator {
		if err := b.kvSources(kd, "secretGenerator", i, g.KvPairSources); err != nil {
			return err
		}
	}
	return nil
}

func kindOr(kind string) string {
	if kind == "" {
		return types.KustomizationKind
	}
	return kind
}

// kvSources checks the files a ConfigMap or Secret generator reads.
func (b *builder) kvSources(kd *kdir, field string, i int, s types.KvPairSources) error {
	check := func(sub, raw string) error {
		return b.fileEntry(kd, field, kd.line(field, i, sub), raw)
	}
	for _, src := range s.FileSources {
		// "key=path" or "path", as kustomize parses it.
		p := src
		if _, after, ok := strings.Cut(src, "="); ok {
			p = after
		}
		if err := check("files", p); err != nil {
			return err
		}
	}
	for _, p := range s.EnvSources {
		if err := check("envs", p); err != nil {
			return err
		}
	}
	if s.EnvSource != "" {
		return check("env", s.EnvSource)
	}
	return nil
}

// localPath turns an entry into a resolved path inside the root, refusing
// absolute paths and paths that leave the root (lexically or through a
// symlink).
func (b *builder) localPath(kd *kdir, field string, line int, raw string) (string, error) {
	if path.IsAbs(raw) || strings.HasPrefix(raw, `\`) || (len(raw) > 2 && raw[1] == ':' && (raw[2] == '\\' || raw[2] == '/')) {
		return "", kd.refuse(field, line, raw, "absolute paths are not allowed; give a path relative to the kustomization")
	}
	p := path.Join(kd.dir, raw)
	if escapes(p) {
		return "", kd.refuse(field, line, raw, "it leads outside the fleet root")
	}
	real, err := b.res.resolve(p)
	if errors.Is(err, errEscape) {
		return "", kd.refuse(field, line, raw, "%v", err)
	}
	if err != nil {
		return "", fmt.Errorf("%s: %s entry %q: %w", posOf(kd.file, line), field, clip(raw), err)
	}
	return real, nil
}

// locate finds where an entry leads: a remote entry (checked against the
// options) is marked remote, a local one gets its path inside the root,
// whose file info is returned. found is where the entry was looked up
// already (nil: it is looked up now).
func (b *builder) locate(kd *kdir, field string, e *entry, found *localFile) (fs.FileInfo, error) {
	if isRemoteBase(e.raw) {
		if err := b.checkRemoteEntry(kd, field, e.line, e.raw); err != nil {
			return nil, err
		}
		e.remote, kd.remote = true, true
		return nil, nil
	}
	if found == nil {
		f := b.findLocal(kd, field, e.line, e.raw)
		found = &f
	}
	if found.err != nil {
		return nil, found.err
	}
	e.path = found.real
	return found.st, nil
}

// localFile is where a local entry leads: its path inside the root and
// its file info, or the error that says why it leads nowhere.
type localFile struct {
	real string
	st   fs.FileInfo
	err  error
}

// findLocal looks a local entry up. It changes nothing of the plan, so
// that many entries can be looked up at once.
func (b *builder) findLocal(kd *kdir, field string, line int, raw string) localFile {
	real, err := b.localPath(kd, field, line, raw)
	if err != nil {
		return localFile{err: err}
	}
	st, err := fs.Stat(b.fsys, real)
	if err != nil {
		return localFile{err: fmt.Errorf("%s: %s entry %q: %w", posOf(kd.file, line), field, clip(raw), explainFSError(real, err))}
	}
	return localFile{real: real, st: st}
}

// resourceEntry checks an entry of resources, bases or components.
func (b *builder) resourceEntry(kd *kdir, field string, i int, raw string, chain []string, dirOnly bool) (*entry, error) {
	e := &entry{field: field, index: i, raw: raw, line: kd.line(field, i)}
	st, err := b.locate(kd, field, e, nil)
	if err != nil {
		return nil, err
	}
	if e.remote {
		return e, nil
	}
	real := e.path
	if st.IsDir() {
		if e.sub, err = b.planEdge(real, chain, kd, e); err != nil {
			return nil, err
		}
		return e, nil
	}
	if dirOnly {
		return nil, fmt.Errorf("%s: %s entry %q is a file; kustomize expects a directory", posOf(kd.file, e.line), field, clip(raw))
	}
	if err := kd.rootOnly(field, e.line, raw, real); err != nil {
		return nil, err
	}
	return e, nil
}

// rootOnly applies kustomize's root-only load restriction: a file must lie
// in or below the kustomization's directory (a directory may be anywhere).
func (kd *kdir) rootOnly(field string, line int, raw, real string) error {
	if contains(kd.dir, path.Dir(real)) {
		return nil
	}
	return kd.refuse(field, line, raw,
		"the file %s is outside the kustomization's directory; kustomize's root-only load restriction allows only files in or below it", real)
}

func (b *builder) checkRemoteEntry(kd *kdir, field string, line int, raw string) error {
	if !b.o.allowRemote {
		return kd.refuse(field, line, raw,
			"it is a remote location, which kustomize would fetch (running the git program for a repository); siteops builds only files of the fleet unless remote bases are allowed")
	}
	if reason := checkRemote(raw); reason != "" {
		return kd.refuse(field, line, raw, "%s", reason)
	}
	return nil
}

// fileEntry checks a path kustomize loads as a file and records it.
func (b *builder) fileEntry(kd *kdir, field string, line int, raw string) error {
	if isRemoteFile(raw) {
		if !b.o.allowRemote {
			return kd.refuse(field, line, raw,
				"it is a URL, which kustomize would fetch; siteops reads only files of the fleet unless remote bases are allowed")
		}
		if !strings.HasPrefix(strings.ToLower(raw), "https://") {
			return kd.refuse(field, line, raw, "only https URLs may be fetched")
		}
		kd.remote = true
		return nil
	}
	real, err := b.localPath(kd, field, line, raw)
	if errors.Is(err, fs.ErrNotExist) {
		// kustomize reports the missing file when it builds.
		kd.files = append(kd.files, path.Join(kd.dir, raw))
		return nil
	}
	if err != nil {
		return err
	}
	if err := kd.rootOnly(field, line, raw, real); err != nil {
		return err
	}
	kd.files = append(kd.files, real)
	return nil
}

// patchOrInline checks a patchesStrategicMerge entry, which kustomize
// reads as a file when it can and as an inline patch otherwise.
func (b *builder) patchOrInline(kd *kdir, field string, line int, raw string) error {
	if strings.Contains(raw, "\n") {
		return nil // inline
	}
	// kustomize's own test for a URL to fetch.
	if u, err := url.Parse(raw); err == nil && (u.Scheme == "http" || u.Scheme == "https") {
		return b.fileEntry(kd, field, line, raw)
	}
	if path.IsAbs(raw) {
		return kd.refuse(field, line, raw, "absolute paths are not allowed; give a path relative to the kustomization")
	}
	if p := path.Join(kd.dir, raw); escapes(p) {
		return kd.refuse(field, line, raw, "it leads outside the fleet root")
	}
	if _, err := fs.Stat(b.fsys, path.Join(kd.dir, raw)); err != nil {
		return nil // inline
	}
	return b.fileEntry(kd, field, line, raw)
}

// pluginProbe is the part of checking a plugin entry that changes
// nothing of the plan: parsing the entry, looking up the file it names and
// reading a generators file to see whether it is a SiteConfig. A list of
// thousands of SiteConfig generators is probed on every core, then
// checked in order (pluginEntry).
type pluginProbe struct {
	line int
	// aliasErr refuses the entry's own text; isInline says that the
	// entry reads as YAML objects (an inline configuration), inline.
	aliasErr error
	inline   []*resource.Resource
	isInline bool
	// found is where a local entry leads (nil when not looked up);
	// siteConfig, when read, whether that file is a SiteConfig, or
	// readErr why it could not be read.
	found      *localFile
	read       bool
	siteConfig bool
	readErr    error
}

// probePluginsMin is the number of entries from which a plugin list is
// probed on every core.
const probePluginsMin = 64

// probePlugins probes the entries of one plugin field, a long list on up
// to GOMAXPROCS goroutines, at most as many at once as the build has
// workers (each probe holds one: it reads a file of up to the size
// limit). Every entry is probed, even past one that turns out bad; the
// check stops at the first.
func (b *builder) probePlugins(kd *kdir, field string, entries []string) []pluginProbe {
	probes := make([]pluginProbe, len(entries))
	if len(entries) < probePluginsMin {
		for i, raw := range entries {
			probes[i] = b.probePlugin(kd, field, i, raw)
		}
		return probes
	}
	parallel.Each(len(entries), probePluginsMin/4, func(i int) {
		b.sem <- struct{}{}
		probes[i] = b.probePlugin(kd, field, i, entries[i])
		<-b.sem
	})
	return probes
}

func (b *builder) probePlugin(kd *kdir, field string, i int, raw string) pluginProbe {
	p := pluginProbe{line: kd.line(field, i)}
	if p.aliasErr = checkAliases(posOf(kd.file, p.line), []byte(raw)); p.aliasErr != nil {
		return p
	}
	if !pathOnly(raw) {
		rs, err := b.rf.SliceFromBytes([]byte(raw))
		p.inline, p.isInline = rs, err == nil
	}
	if p.isInline || isRemoteBase(raw) {
		return p
	}
	found := b.findLocal(kd, field, p.line, raw)
	p.found = &found
	if found.err == nil && !found.st.IsDir() && field == "generators" {
		p.read = true
		p.siteConfig, p.readErr = b.siteConfigFile(found.real, found.st.Mode().IsRegular())
	}
	return p
}

// pathOnly reports whether raw is a plugin entry that kustomize's resource
// factory cannot read as YAML objects, without asking it: one word of
// path characters, which YAML reads as a plain scalar (a string, number or
// boolean), never as objects. The factory costs as much as reading a small
// file, and a ZTP kustomization lists one SiteConfig file per site. A
// leading '-' ("---" is a document marker), a leading "..." (the document
// end) and the spellings of null, which the factory reads as no objects
// at all, are left to it; so is anything with another character.
func pathOnly(raw string) bool {
	switch {
	case raw == "", raw[0] == '-', strings.HasPrefix(raw, "..."), raw == "null", raw == "Null", raw == "NULL":
		return false
	}
	for i := 0; i < len(raw); i++ {
		switch c := raw[i]; {
		case 'a' <= c && c <= 'z', 'A' <= c && c <= 'Z', '0' <= c && c <= '9', c == '.', c == '_', c == '-', c == '/':
		default:
			return false
		}
	}
	return true
}

// siteConfigFile reports whether a generators file holds SiteConfigs
// only. A SiteConfig generator is only looked at, never built: the file is
// read without keeping it, so that a fleet of them costs no memory here.
// regular says that a stat has just found f a regular file: it is then
// opened at once (safefs.ReadListedFile), three system calls fewer.
func (b *builder) siteConfigFile(f string, regular bool) (bool, error) {
	read := readLimited
	if regular {
		read = safefs.ReadListedFile
	}
	data, err := read(b.fsys, f, b.o.maxFileSize)
	return err == nil && quickSiteConfig(data), err
}

// pluginEntry checks an entry of generators, transformers or validators,
// probed already. kustomize first tries to read the entry itself as YAML
// (an inline configuration) and otherwise loads it as a path. Each
// configuration names a plugin by apiVersion and kind; only kustomize's
// built-in plugins are allowed, and SiteConfigs under generators are set
// aside for the caller. It returns nil for an entry that holds nothing.
func (b *builder) pluginEntry(kd *kdir, field string, i int, raw string, chain []string, p *pluginProbe) (*entry, error) {
	e := &entry{field: field, index: i, raw: raw, line: p.line}
	if p.aliasErr != nil {
		return nil, p.aliasErr
	}
	if rs := p.inline; p.isInline {
		if len(rs) == 0 {
			return nil, nil
		}
		for _, r := range rs {
			if isSiteConfig(r) {
				return nil, kd.refuse(field, e.line, raw, "an inline SiteConfig is not supported; put it in a file and list the file")
			}
			if err := b.checkPluginConfig(kd, field, e.line, raw, r); err != nil {
				return nil, err
			}
		}
		e.inline = rs
		return e, nil
	}
	// A remote plugin configuration cannot be checked beforehand, but
	// krusty runs with plugins disabled and refuses anything that is not
	// built in.
	st, err := b.locate(kd, field, e, p.found)
	if err != nil {
		return nil, err
	}
	if e.remote {
		return e, nil
	}
	real := e.path
	var files []string
	if st.IsDir() {
		if e.sub, err = b.planEdge(real, chain, kd, e); err != nil {
			return nil, err
		}
		files = e.sub.resourceFiles(nil)
	} else {
		if err := kd.rootOnly(field, e.line, raw, real); err != nil {
			return nil, err
		}
		files = []string{real}
	}
	// Every object in the files is a plugin configuration.
	var siteConfigs, others int
	for _, f := range files {
		var siteConfig bool
		switch {
		case p.read && f == real:
			siteConfig, err = p.siteConfig, p.readErr
		case field == "generators":
			siteConfig, err = b.siteConfigFile(f, false)
		default:
			_, err = b.readFile(f)
		}
		if err != nil {
			return nil, fmt.Errorf("%s: %s entry %q: %w", posOf(kd.file, e.line), field, clip(raw), err)
		}
		if siteConfig {
			e.siteConfigs = append(e.siteConfigs, f)
			siteConfigs++
			continue
		}
		pf, err := b.parseFile(f)
		if err != nil {
			return nil, fmt.Errorf("%s: %s entry %q: %w", posOf(kd.file, e.line), field, clip(raw), err)
		}
		sc := 0
		for _, d := range pf.docs {
			if field == "generators" && isSiteConfig(d.res) {
				sc++
				continue
			}
			if err := b.checkPluginConfig(kd, field, e.line, raw, d.res); err != nil {
				return nil, err
			}
		}
		switch {
		case sc > 0 && sc == len(pf.docs):
			e.siteConfigs = append(e.siteConfigs, f)
			siteConfigs++
		case sc > 0:
			return nil, kd.refuse(field, e.line, raw, "%s mixes SiteConfigs with other plugin configurations; list them separately", f)
		default:
			others++
		}
	}
	if siteConfigs > 0 && others > 0 {
		return nil, kd.refuse(field, e.line, raw, "the directory mixes SiteConfigs with other plugin configurations; list them separately")
	}
	if siteConfigs > 0 && e.isDir() && e.sub.class != classFlat {
		return nil, kd.refuse(field, e.line, raw, "a directory of SiteConfig generators must be a plain list of files; its kustomization transforms them")
	}
	return e, nil
}

// resourceFiles appends the resource files of the tree.
func (kd *kdir) resourceFiles(out []string) []string {
	for _, list := range [][]*entry{kd.resources, kd.components} {
		for _, e := range list {
			switch {
			case e.isDir():
				out = e.sub.resourceFiles(out)
			case !e.remote:
				out = append(out, e.path)
			}
		}
	}
	return out
}

// clusterInstanceKind is the kind of a ClusterInstance, a plain resource
// that kustomize passes through.
const clusterInstanceKind = "ClusterInstance"

// clusterInstanceNotPlugin says where a ClusterInstance listed as a
// plugin configuration belongs.
func clusterInstanceNotPlugin(r *resource.Resource, field string) string {
	return fmt.Sprintf("ClusterInstance %q is a resource, not a %s plugin: list it under resources:", r.GetName(), strings.TrimSuffix(field, "s"))
}

func isSiteConfig(r *resource.Resource) bool {
	return isSiteConfigType(r.GetApiVersion(), r.GetKind())
}

// checkPluginConfig refuses a plugin configuration unless it names one of
// kustomize's built-in plugins, and checks the files that plugin reads.
func (b *builder) checkPluginConfig(kd *kdir, field string, line int, raw string, r *resource.Resource) error {
	anns := r.GetAnnotations()
	for _, a := range functionAnnotations {
		if _, ok := anns[a]; ok {
			return kd.refuse(field, line, raw,
				"%s %q is a KRM function (%s annotation), which kustomize would run as a container, an executable or a Starlark script; siteops runs no plugins",
				r.GetKind(), r.GetName(), a)
		}
	}
	if r.GetKind() == clusterInstanceKind {
		return kd.refuse(field, line, raw, "%s", clusterInstanceNotPlugin(r, field))
	}
	if r.GetApiVersion() != "builtin" || !builtinPlugins[r.GetKind()] {
		what := "an exec or Go plugin"
		if r.GetKind() == "HelmChartInflationGenerator" {
			what = "the helm program"
		}
		return kd.refuse(field, line, raw,
			"%s %q (apiVersion %q) is not one of kustomize's built-in plugins; kustomize would run %s for it, and siteops runs no plugins",
			r.GetKind(), r.GetName(), r.GetApiVersion(), what)
	}
	// The files a built-in plugin loads, by kind.
	m, err := r.Map()
	if err != nil {
		return fmt.Errorf("%s: %s entry %q: %w", posOf(kd.file, line), field, clip(raw), err)
	}
	for _, key := range []string{"patch", "patches"} {
		if text, ok := m[key].(string); ok {
			if err := checkAliases(posOf(kd.file, line), []byte(text)); err != nil {
				return err
			}
		}
	}
	var paths []string
	str := func(v any) {
		if s, ok := v.(string); ok && s != "" {
			paths = append(paths, s)
		}
	}
	strs := func(v any) {
		if l, ok := v.([]any); ok {
			for _, s := range l {
				str(s)
			}
		}
	}
	switch r.GetKind() {
	case "PatchTransformer", "PatchJson6902Transformer":
		str(m["path"])
	case "ValueAddTransformer":
		str(m["targetFilePath"])
	case "ReplacementTransformer":
		if l, ok := m["replacements"].([]any); ok {
			for _, x := range l {
				if rm, ok := x.(map[string]any); ok {
					str(rm["path"])
				}
			}
		}
	case "ConfigMapGenerator", "SecretGenerator":
		if l, ok := m["files"].([]any); ok {
			for _, s := range l {
				if s, ok := s.(string); ok {
					if _, after, ok := strings.Cut(s, "="); ok {
						s = after
					}
					str(s)
				}
			}
		}
		strs(m["envs"])
		str(m["env"])
	case "PatchStrategicMergeTransformer":
		if l, ok := m["paths"].([]any); ok {
			for _, s := range l {
				if s, ok := s.(string); ok {
					if err := b.patchOrInline(kd, field, line, s); err != nil {
						return err
					}
				}
			}
		}
	}
	for _, p := range paths {
		if err := b.fileEntry(kd, field, line, p); err != nil {
			return err
		}
	}
	return nil
}

// quickSiteConfig reports whether every document of data is a SiteConfig,
// judging from the top-level apiVersion and kind lines, so that a fleet of
// SiteConfig generators costs no YAML parsing here (the loader parses
// them). When it cannot tell, it says no and the caller parses the file.
func quickSiteConfig(data []byte) bool {
	docs := 0
	for _, chunk := range splitChunks(data) {
		// The lines are looked at as bytes: a string made of each line
		// was most of the cost of a file.
		var apiVersion, kind []byte
		content := false
		// A line keeps its line break: isFiller and the value's trimming
		// drop it with the other spaces.
		for l := range bytes.Lines(chunk.text) {
			if !content && isFiller(string(l)) {
				continue
			}
			content = true
			key, val, ok := bytes.Cut(l, []byte(":"))
			if !ok || string(key) != "apiVersion" && string(key) != "kind" {
				continue
			}
			val = bytes.TrimSpace(val)
			if i := bytes.Index(val, []byte(" #")); i >= 0 {
				val = bytes.TrimSpace(val[:i])
			}
			val = bytes.Trim(val, `"'`)
			if string(key) == "kind" {
				kind = val
			} else {
				apiVersion = val
			}
		}
		if !content {
			continue
		}
		if !isSiteConfigType(string(apiVersion), string(kind)) {
			return false
		}
		docs++
	}
	return docs > 0
}

// line returns the line of an entry of a kustomization field: the field
// itself for index -1, else item index of the list, else the key sub of
// that item. 0 when unknown.
func (kd *kdir) line(field string, index int, sub ...string) int {
	if index < 0 {
		return mapKeyLine(kd.root, field)
	}
	v := mapValue(kd.root, field)
	if v == nil {
		return 0
	}
	if v.Kind != yaml.SequenceNode || index >= len(v.Content) {
		return v.Line
	}
	item := v.Content[index]
	for _, s := range sub {
		if n := mapValue(item, s); n != nil {
			item = n
		}
	}
	return item.Line
}

// mapKeyLine returns the line of key in mapping m, or 0.
func mapKeyLine(m *yaml.Node, key string) int {
	if m == nil || m.Kind != yaml.MappingNode {
		return 0
	}
	for i := 0; i+1 < len(m.Content); i += 2 {
		if m.Content[i].Value == key {
			return m.Content[i].Line
		}
	}
	return 0
}

// mapValue returns the value of key in mapping m, or nil.
func mapValue(m *yaml.Node, key string) *yaml.Node {
	if m == nil || m.Kind != yaml.MappingNode {
		return nil
	}
	for i := 0; i+1 < len(m.Content); i += 2 {
		if m.Content[i].Value == key {
			return m.Content[i+1]
		}
	}
	return nil
}

// contentKey hashes everything a build of the tree reads, and the paths
// of the SiteConfig generators it sets aside.
func (b *builder) contentKey(kd *kdir) ([32]byte, error) {
	h := sha256.New()
	fmt.Fprintf(h, "siteops-kustomize-v1\x00%t\x00%d\x00%s\x00%d\x00", b.o.allowRemote, b.o.maxFileSize, kd.dir, len(kd.data))
	h.Write(kd.data)
	file := func(p string) {
		fmt.Fprintf(h, "\x00file\x00%s\x00", p)
		if sum, err := b.fileHash(p); err != nil {
			fmt.Fprintf(h, "error\x00%v", err)
		} else {
			h.Write(sum[:])
		}
	}
	for _, list := range [][]*entry{kd.resources, kd.components, kd.siteConfig, kd.plugins} {
		for _, e := range list {
			switch {
			case e.remote:
				fmt.Fprintf(h, "\x00remote\x00%s", e.raw)
			case e.isDir():
				fmt.Fprintf(h, "\x00dir\x00%s\x00", e.path)
				h.Write(e.sub.key[:])
			case len(e.siteConfigs) > 0:
				// A SiteConfig file: below.
			case e.path != "":
				file(e.path)
			}
			// A SiteConfig is set aside, not built: the build gives its
			// path alone, so its path is all the key needs. Reading and
			// hashing every one again would cost a fleet of them a second
			// read of each file before anything is decoded.
			for _, f := range e.siteConfigs {
				fmt.Fprintf(h, "\x00siteconfig\x00%s", f)
			}
		}
	}
	for _, f := range kd.files {
		file(f)
	}
	var key [32]byte
	h.Sum(key[:0])
	return key, nil
}

// inlineAliases checks the inline patches of a kustomization for alias
// bombs.
func inlineAliases(file string, k *types.Kustomization) error {
	texts := make([]string, 0, len(k.PatchesStrategicMerge)+len(k.Patches)+len(k.PatchesJson6902))
	for _, p := range k.PatchesStrategicMerge {
		texts = append(texts, string(p))
	}
	for _, p := range slices.Concat(k.Patches, k.PatchesJson6902) {
		texts = append(texts, p.Patch)
	}
	for _, t := range texts {
		if err := checkAliases(file, []byte(t)); err != nil {
			return err
		}
	}
	return nil
}
