package cli

import (
	"fmt"
	"io"
	"strconv"

	"github.com/spf13/cobra"

	"github.com/siteops/siteops/internal/krm"
	"github.com/siteops/siteops/render"
	"github.com/siteops/siteops/sites"
)

// runRenderKRM is `siteops render --krm`: the sites are the SiteConfig and
// ClusterInstance items of the ResourceList on stdin (and its
// functionConfig, which is how kustomize hands a generator its own
// file), the output is a ResourceList of their rendered objects, the
// other items unchanged, and a result per problem.
func runRenderKRM(cmd *cobra.Command, f *renderFlags, args []string, stdout, stderr io.Writer) error {
	if len(args) > 0 {
		return usageError("--krm reads a ResourceList on stdin and takes no paths (got %q)", args[0])
	}
	if f.outDir != "" {
		return usageError("--krm writes a ResourceList on stdout; --out-dir does not apply")
	}
	in, err := krm.Read(cmd.InOrStdin(), f.maxFileSize)
	if err != nil {
		return err
	}
	fleet, err := openFleet(fleetRoot{f.root, true}, []string{f.root}, f.manifestsDir)
	if err != nil {
		return err
	}
	defer fleet.root.Close()
	fleet.paths = nil // the root is where paths resolve; the sites are the items
	docs, passThrough, origins, err := krmSiteDocuments(in, func(it *krm.Item) (krm.Origin, bool) {
		return krm.FindOrigin(fleet.root.FS(), it, f.maxFileSize)
	})
	if err != nil {
		return err
	}

	stdout, stderr, flush := bufferPipe(stdout, stderr)
	defer flush()
	out := krm.NewWriter(stdout, in.APIVersion)
	var results []krm.Result
	onProblems := func(ps sites.Problems) {
		report(stderr, ps)
		for _, p := range ps {
			results = append(results, krmResult(p, origins[p.Pos.File]))
		}
	}
	r := render.New(fleet.renderOpts...)
	if err := r.CheckDefaultManifests(); err != nil {
		fmt.Fprintf(stderr, "--extra-manifests-dir %s: %v\n", f.manifestsDir, err)
		return errFailed
	}
	// Credentials are hidden as in every other output: what kustomize or
	// Argo CD receives from the plugin is printed and stored by them.
	failed, err := streamRendered(cmd.Context(), fleet, r, render.Redacting(krmEncoder{}), f.loadOptions(sites.WithDocuments(docs...)), stderr,
		onProblems, func(_ *sites.Site, res render.Result) error { return out.WriteItems(res.Encoded) })
	if err != nil {
		return err
	}
	for _, it := range passThrough {
		if err := out.WriteItem(it); err != nil {
			return err
		}
	}
	if err := out.Close(results); err != nil {
		return err
	}
	if err := flush(); err != nil {
		return err
	}
	if failed {
		return errFailed
	}
	return nil
}

// krmSiteDocuments splits the list into the site documents and the items
// passed through. The functionConfig is a site too unless it is also an
// item: kustomize passes a generator's config both ways. origin finds the
// file an item was written in, for positions; the items are returned by
// the file name problems will carry.
func krmSiteDocuments(in *krm.Input, origin func(*krm.Item) (krm.Origin, bool)) ([]sites.Document, []*krm.Item, map[string]*krm.Item, error) {
	var docs []sites.Document
	var rest []*krm.Item
	byName := map[string]*krm.Item{}
	add := func(it *krm.Item) error {
		data, err := it.YAML()
		if err != nil {
			return fmt.Errorf("%s: %w", it.Position, err)
		}
		doc := sites.Document{Name: it.Path, Data: data, Via: "in " + it.Position + " of the ResourceList on stdin"}
		if o, ok := origin(it); ok {
			doc.Name, doc.Line, doc.Exact = o.File, o.Line, o.Exact
		}
		if doc.Name == "" {
			doc.Name = it.Position
		}
		docs = append(docs, doc)
		byName[doc.Name] = it
		return nil
	}
	for _, it := range in.Items {
		if !sites.IsSiteKind(it.APIVersion, it.Kind) {
			rest = append(rest, it)
			// A Secret is passed through as it is, and read as a Secret
			// beside the sites is, so that its values are hidden
			// wherever a site copies them.
			if it.APIVersion == "v1" && it.Kind == "Secret" {
				if err := add(it); err != nil {
					return nil, nil, nil, err
				}
			}
			continue
		}
		if err := add(it); err != nil {
			return nil, nil, nil, err
		}
	}
	if fc := in.FunctionConfig; fc != nil && sites.IsSiteKind(fc.APIVersion, fc.Kind) {
		for _, it := range in.Items {
			if it.SameObject(fc) {
				return docs, rest, byName, nil
			}
		}
		if err := add(fc); err != nil {
			return nil, nil, nil, err
		}
	}
	return docs, rest, byName, nil
}

// krmResult is a problem as a KRM function result, about the item it came
// from (nil when none). The site and line (when known) go in tags, which
// results have no field for.
func krmResult(p sites.Problem, it *krm.Item) krm.Result {
	res := krm.Result{Message: p.Message, Severity: krm.SeverityError}
	if p.Hint != "" {
		res.Message += " (" + p.Hint + ")"
	}
	if p.Severity == sites.SeverityWarning {
		res.Severity = krm.SeverityWarning
	}
	if p.Field != "" {
		res.Field = &krm.Field{Path: p.Field}
	}
	if p.Pos.File != "" {
		res.File = &krm.File{Path: p.Pos.File}
	}
	if it != nil {
		res.ResourceRef = &krm.ResourceRef{APIVersion: it.APIVersion, Kind: it.Kind, Name: it.Name, Namespace: it.Namespace}
		if it.Index > 0 && it.Path == p.Pos.File {
			res.File.Index = it.Index
		}
	}
	res.Tags = map[string]string{}
	if p.Site != "" {
		res.Tags["site"] = p.Site
	}
	if p.Pos.Line > 0 {
		res.Tags["line"] = strconv.Itoa(p.Pos.Line)
	}
	if len(res.Tags) == 0 {
		res.Tags = nil
	}
	return res
}

// krmEncoder writes a bundle's objects as entries of a ResourceList's
// items.
type krmEncoder struct{}

func (krmEncoder) Header() []byte { return nil }
func (krmEncoder) Footer() []byte { return nil }
func (krmEncoder) Ext() string    { return ".yaml" }

func (krmEncoder) Encode(dst []byte, b *render.Bundle) ([]byte, error) {
	var doc []byte
	var err error
	for _, o := range b.Objects {
		if doc, err = o.AppendYAML(doc[:0]); err != nil {
			return nil, err
		}
		dst = krm.AppendItem(dst, doc)
	}
	return dst, nil
}
