// Package kustomize builds the kustomize trees of a fleet repository in
// process, safely, so that the SiteConfig and ClusterInstance documents
// they output (patched by overlays or not) can become sites.
//
// # What it builds
//
// Build takes an fs.FS rooted at the fleet root (safefs.OpenRoot(root).FS()
// or an os.Root's, so that no path or symlink leaves it) and the slash path of a directory
// holding a kustomization file, and returns the objects kustomize outputs
// for it, one YAML document each, in kustomize's order, serialized exactly
// as `kustomize build` serializes them. Builds use
// sigs.k8s.io/kustomize/api/krusty with plugins disabled and the root-only
// load restriction, on a read-only kyaml file system backed by the fs.FS:
// kustomize never touches the disk, every file is read with the size
// limit, and writes are refused.
//
// The ZTP layout lists SiteConfig files under generators:, which upstream
// runs as an exec plugin. Those are never handed to krusty: Build reports
// them in Result.SiteConfigGenerators, with the kustomization that lists
// them (relative paths in a SiteConfig resolve against its directory), so
// that the loader reads them itself. If a kustomization above them
// transforms what it builds, a Warning says the transformation does not
// reach those sites.
//
// # What it refuses, and why
//
// Repository content is untrusted: a pull request can change any file.
// kustomize can run programs (exec and Go plugins, KRM functions in
// containers, executables or Starlark, helm for helmCharts), clone remote
// bases by running the git program, and fetch URLs over HTTP. Before
// anything is built, every kustomization the build can reach is read and
// each field that names a file, a directory or a plugin is checked; a
// violation is a *RefusedError naming the kustomization file, the line,
// the field and the entry, and nothing has run or been fetched:
//
//   - generators, transformers and validators entries (files, directories
//     or inline YAML) whose objects are not kustomize's built-in plugins
//     (apiVersion "builtin"), or that carry a config.kubernetes.io/function
//     annotation; built-in plugins run in-process and are allowed (except
//     HelmChartInflationGenerator), and the paths they load are checked
//     like the kustomization's own;
//   - helmCharts, helmGlobals and helmChartInflationGenerator (they run
//     helm), and openapi (kustomize keeps custom schemas in process-wide
//     state and panics on a malformed one);
//   - remote resources, bases and components (anything kustomize's git URL
//     parser accepts: https://, ssh://, git@host:, github.com/..., file://)
//     and URLs in any field kustomize loads files from, unless
//     WithAllowRemote(true). Even then only https and ssh are allowed, refs
//     must be plain names (kustomize passes them to git fetch as
//     arguments), and the kustomization files of cloned repositories are
//     checked by the same rules as they are read;
//   - absolute paths, paths that leave the fleet root (also through a
//     symlink), and files outside their kustomization's directory (the
//     root-only restriction kustomize applies too).
//
// A kustomization that includes itself, directly, through other
// directories or through a symlink, or a directory containing it, is an
// error (kustomize's own rule), found while checking, so it cannot hang.
//
// krusty itself is a second line of defence: it runs with plugins
// disabled, and its file system refuses to serve a kustomization file that
// was not checked.
//
// # Origins
//
// Each Document has an Origin: the file the object came from, relative to
// the fleet root, and the line where the object starts in it. Resource
// files are served to krusty with one annotation added to each object,
// recording its file and position; the annotation survives patches, name
// prefixes and the like, and is read back and removed after the build,
// so the output is what kustomize would output without it. Objects
// kustomize makes (configMapGenerator, ...) or fetches have no such
// annotation; their origin comes from kustomize's
// config.kubernetes.io/origin annotation, which the build turns on for
// trees that generate or fetch objects (it costs kustomize work on every
// object) and removes again unless the top kustomization asks for it in
// buildMetadata. Document.Modified tells whether the object
// differs from the one in its file. Line numbers are left 0 when a file
// holds a List, whose items do not map to lines.
//
// # Speed
//
// One krusty run costs milliseconds, and kustomize accumulates objects in
// quadratic time (a kustomization listing 1,000 resources takes minutes),
// so krusty is used only where nothing else gives its output:
//
//   - a flat directory, whose kustomization only lists resource files and
//     flat directories (and SiteConfig generators), is not built: its files
//     are parsed with kustomize's own resource factory, giving the very
//     objects krusty would, in linear time;
//   - a flat directory used by an overlay is handed to krusty as one file
//     of its objects instead of a base to build, so a base shared by a
//     thousand overlays is read and parsed once;
//   - a composite directory, a plain list of directories some of which
//     transform (a region listing its site overlays), is built directory by
//     directory, concurrently, and the outputs are concatenated, with
//     kustomize's duplicate check. kustomize would also rewrite references
//     across those directories to objects one of them renames; when that
//     can happen (a renamed ConfigMap, Secret, ... next to objects that can
//     refer to one) or the tree uses vars, configurations or crds, the
//     directory is built by krusty as one instead;
//   - an overlay of the common shapes (namespace, name prefix and suffix,
//     labels, annotations, strategic-merge and JSON 6902 patches, over
//     files, flat directories and other such overlays) is built natively
//     (native.go): the objects of its bases are copies of the ones already
//     parsed or built, and its transformations run as kustomize's built-in
//     plugins in krusty's order, or, for patches entries, as the same
//     operations on the objects without kustomize's JSON round trip
//     (patches.go, json6902.go). Whatever it does not reproduce (rewriting
//     references to renamed objects, the selector and template fields of
//     workload kinds) is guarded: such a tree, and any tree on which the
//     native path fails, is built by krusty, whose errors are then the
//     ones reported, except for a patch kustomize's own code fails to
//     apply: that is a *PatchError naming the kustomization file, line and
//     entry around kustomize's message. Output objects are serialized as
//     kustomize serializes them, without its YAML-JSON-YAML round trip
//     (yamlout.go, yamlv2.go);
//   - resource and patch files without anchors, aliases or merge keys are
//     read without kyaml's anchor resolution, which copies every mapping
//     (parse.go), JSON patches of one string per line without a YAML
//     parser (json6902.go), and strategic-merge patches over kinds without
//     a schema are merged on the nodes by the rules merge2 follows for them
//     (smmerge.go);
//   - results are cached by a hash of the content of everything a build
//     reads (of a SiteConfig generator, which is set aside, its path), per
//     Build call or across calls with WithCache.
//
// Known limitation: kustomize prints its deprecation warnings (for
// commonLabels, patchesStrategicMerge, ...) to standard error itself.
package kustomize
