package convert

import (
	"cmp"
	"errors"
	"fmt"
	"slices"

	"github.com/siteops/siteops/render"
	"github.com/siteops/siteops/sites"
)

// DefaultTemplateNamespace is where the SiteConfig operator keeps its
// default template ConfigMaps: the operator's own namespace,
// open-cluster-management in an ACM install (stolostron/siteconfig
// cmd/main.go).
const DefaultTemplateNamespace = "open-cluster-management"

// ErrNotSiteConfig is returned for a site that is not a SiteConfig cluster
// (a ClusterInstance needs no conversion).
var ErrNotSiteConfig = errors.New("not a SiteConfig cluster")

// Option configures Convert.
type Option func(*options)

type options struct {
	templateNamespace string
	renderer          *render.Renderer
}

// WithTemplateNamespace sets the namespace of the default template
// ConfigMaps the ClusterInstance references (templateRefs).
func WithTemplateNamespace(ns string) Option {
	return func(o *options) { o.templateNamespace = ns }
}

// WithRenderer sets the renderer used to list the extra manifests the
// SiteConfig generator would have put in the cluster's ConfigMap; give it
// the fleet's default extra-manifest set (render.WithDefaultManifests) so
// the list is complete. One renderer can serve every site.
func WithRenderer(r *render.Renderer) Option {
	return func(o *options) { o.renderer = r }
}

// Result is one converted cluster.
type Result struct {
	// Name is the cluster name, which is also the ClusterInstance's name
	// and namespace.
	Name string
	// ClusterInstance is the document as JSON-compatible data
	// (map[string]any, []any, string, bool, nil, int64 for integers and,
	// inside free-form values, float64), ready for yamlenc.
	ClusterInstance map[string]any
	// Report lists everything that does not carry over unchanged, in
	// source order.
	Report []Note
}

// Convert turns one SiteConfig cluster into one ClusterInstance. It fails
// with *Error when a value would be rejected by ClusterInstance's schema
// or admission checks, and with ErrNotSiteConfig for a site that is not a
// SiteConfig cluster. It does no I/O (the site carries its files) and is
// safe for concurrent use.
func Convert(site *sites.Site, opts ...Option) (Result, error) {
	if site == nil || site.Config == nil || site.Cluster == nil {
		return Result{}, fmt.Errorf("convert: %w", ErrNotSiteConfig)
	}
	o := options{templateNamespace: DefaultTemplateNamespace}
	for _, opt := range opts {
		opt(&o)
	}
	if o.templateNamespace == "" {
		return Result{}, errors.New("convert: the template namespace is empty")
	}
	if o.renderer == nil {
		o.renderer = render.New()
	}
	c := newConverter(site, o)
	for _, r := range rules {
		if r.conv != nil {
			r.conv(c)
		}
	}
	for i := range c.cluster.Nodes {
		for _, r := range nodeRules {
			if r.conv != nil {
				r.conv(c, i)
			}
		}
	}
	doc := c.document()
	if len(c.problems) == 0 {
		c.problems = selfCheck(site, doc)
	}
	// Source order reads best next to the file; ties keep the table order.
	if len(c.problems) > 0 {
		slices.SortStableFunc(c.problems, func(a, b sites.Problem) int { return comparePos(a.Pos, b.Pos) })
		return Result{}, &Error{Site: site.Name, Problems: c.problems}
	}
	slices.SortStableFunc(c.report, func(a, b Note) int { return comparePos(a.Pos, b.Pos) })
	return Result{Name: site.Name, ClusterInstance: doc, Report: c.report}, nil
}

func comparePos(a, b sites.Position) int {
	return cmp.Or(cmp.Compare(a.File, b.File), cmp.Compare(a.Line, b.Line), cmp.Compare(a.Column, b.Column))
}

// converter is the state of converting one cluster.
type converter struct {
	o       options
	site    *sites.Site
	sc      *sites.SiteConfig
	cluster *sites.Clusters
	meta    map[string]any
	spec    map[string]any
	nodes   []map[string]any
	report  []Note
	// problems are values ClusterInstance would reject.
	problems sites.Problems
}

func newConverter(site *sites.Site, o options) *converter {
	c := &converter{o: o, site: site, sc: site.Config, cluster: site.Cluster,
		meta: map[string]any{}, spec: map[string]any{}}
	c.nodes = make([]map[string]any, len(site.Cluster.Nodes))
	for i := range c.nodes {
		c.nodes[i] = map[string]any{}
	}
	return c
}

// document assembles the ClusterInstance.
func (c *converter) document() map[string]any {
	nodes := make([]any, len(c.nodes))
	for i, n := range c.nodes {
		nodes[i] = n
	}
	c.spec["nodes"] = nodes
	return map[string]any{
		"apiVersion": sites.ClusterInstanceAPIVersion,
		"kind":       "ClusterInstance",
		"metadata":   c.meta,
		"spec":       c.spec,
	}
}

// path returns the document path of a cluster field ("" for the cluster).
func (c *converter) path(field string) string { return c.site.FieldPath(field) }

// nodePath returns the document path of a field of node i.
func (c *converter) nodePath(i int, field string) string {
	if field == "" {
		return c.path(fmt.Sprintf("nodes[%d]", i))
	}
	return c.path(fmt.Sprintf("nodes[%d].%s", i, field))
}

// written reports whether a field is written in the file: a field that
// is not resolves to the position of its parent. The one blind spot is a
// field written as the first key of a list entry, which starts where the
// entry does; it reads as not written, which only costs a note.
func (c *converter) written(path, parent string) bool {
	return c.site.Pos(path) != c.site.Pos(parent)
}

func (c *converter) note(path string, kind NoteKind, format string, args ...any) {
	c.report = append(c.report, Note{Pos: c.site.Pos(path), Site: c.site.Name, Field: path,
		Kind: kind, Message: fmt.Sprintf(format, args...)})
}

// fail records a value ClusterInstance would reject.
func (c *converter) fail(path, hint, format string, args ...any) {
	p := c.site.Problem(path, format, args...)
	p.Hint = hint
	c.problems = append(c.problems, p)
}

// node returns the output map of node i.
func (c *converter) node(i int) map[string]any { return c.nodes[i] }
