package plan

import (
	"slices"

	"github.com/siteops/siteops/policy/report"
	"github.com/siteops/siteops/render"
	"github.com/siteops/siteops/sites"
)

// Change is what a change does to a site or an object.
type Change string

// The changes.
const (
	Added   Change = "added"
	Removed Change = "removed"
	Changed Change = "changed"
	// Broken: the site does not load or render at the head revision; its
	// problems say why. It is neither deleted nor applied.
	Broken Change = "broken"
)

// Revision is one side of the comparison: the sites that loaded and
// rendered, their bundles by site, and the load problems.
type Revision struct {
	Name    string
	Fleet   *sites.Fleet
	Bundles map[string]*render.Bundle
}

// Plan is what a change does to a fleet.
type Plan struct {
	// Base and Head name the two revisions.
	Base string `json:"base"`
	Head string `json:"head"`
	// Sites are the sites the change adds, removes, changes or breaks,
	// by name.
	Sites []SitePlan `json:"sites"`
	// Unchanged counts the sites whose rendered objects are the same.
	Unchanged int `json:"unchanged"`
	// Problems are the head's load problems that concern no site.
	Problems []sites.Problem `json:"problems,omitempty"`
}

// SitePlan is what the change does to one site.
type SitePlan struct {
	Site   string         `json:"site"`
	Change Change         `json:"change"`
	Source sites.Position `json:"source"`
	// Objects are the rendered objects added, removed or changed, in
	// bundle order (a removed one where it was).
	Objects []ObjectChange `json:"objects,omitempty"`
	// Findings are the change rules' findings on the site: immutable
	// fields of a started installation, deletions over the budget.
	Findings []report.Finding `json:"findings,omitempty"`
	// Problems say why a broken site does not load or render.
	Problems []sites.Problem `json:"problems,omitempty"`
}

// ObjectChange is one rendered object added, removed or changed.
type ObjectChange struct {
	// Ref is "Kind namespace/name".
	Ref    string        `json:"ref"`
	Change Change        `json:"change"`
	Fields []FieldChange `json:"fields,omitempty"`
}

// Count is how many sites a plan has of each change.
func (p *Plan) Count(c Change) int {
	n := 0
	for _, s := range p.Sites {
		if s.Change == c {
			n++
		}
	}
	return n
}

// New compares head with base. findings are the head's check findings
// with the change rules; those of the rules named in changeRules are
// kept beside their sites.
func New(base, head Revision, findings []report.Finding, changeRules ...string) *Plan {
	p := &Plan{Base: base.Name, Head: head.Name}
	baseSites := byName(base.Fleet)
	headSites := byName(head.Fleet)
	broken := map[string][]sites.Problem{}
	brokenFiles := map[string][]sites.Problem{}
	for _, pr := range head.Fleet.Problems {
		if pr.Severity == sites.SeverityWarning {
			continue
		}
		switch {
		case pr.Site != "":
			broken[pr.Site] = append(broken[pr.Site], pr)
		case pr.Pos.File != "":
			brokenFiles[pr.Pos.File] = append(brokenFiles[pr.Pos.File], pr)
		}
		if pr.Site == "" {
			p.Problems = append(p.Problems, pr)
		}
	}
	names := map[string]bool{}
	for n := range baseSites {
		names[n] = true
	}
	for n := range headSites {
		names[n] = true
	}
	for n := range broken {
		names[n] = true
	}
	for _, name := range sortedKeys(names) {
		b, h := baseSites[name], headSites[name]
		sp := SitePlan{Site: name}
		switch {
		case h == nil && (broken[name] != nil || b != nil && brokenFiles[b.Source.File] != nil):
			sp.Change, sp.Problems = Broken, append(broken[name], brokenFiles[sourceFile(b)]...)
			if b != nil {
				sp.Source = b.Source
			} else if len(sp.Problems) > 0 {
				sp.Source = sp.Problems[0].Pos
			}
		case h == nil:
			sp.Change, sp.Source = Removed, b.Source
			sp.Objects = wholeBundle(base.Bundles[name], Removed)
		case b == nil:
			sp.Change, sp.Source = Added, h.Source
			sp.Objects = wholeBundle(head.Bundles[name], Added)
		default:
			sp.Source = h.Source
			sp.Objects = diffBundles(base.Bundles[name], head.Bundles[name])
			if len(sp.Objects) == 0 {
				p.Unchanged++
				continue
			}
			sp.Change = Changed
		}
		p.Sites = append(p.Sites, sp)
	}
	for _, f := range findings {
		if !slices.Contains(changeRules, f.Rule) {
			continue
		}
		for i := range p.Sites {
			if p.Sites[i].Site == f.Site {
				p.Sites[i].Findings = append(p.Sites[i].Findings, f)
			}
		}
	}
	return p
}

func sourceFile(s *sites.Site) string {
	if s == nil {
		return ""
	}
	return s.Source.File
}

func byName(f *sites.Fleet) map[string]*sites.Site {
	out := map[string]*sites.Site{}
	if f == nil {
		return out
	}
	for _, s := range f.Sites {
		out[s.Name] = s
	}
	return out
}

func sortedKeys(m map[string]bool) []string {
	out := make([]string, 0, len(m))
	for k := range m {
		out = append(out, k)
	}
	slices.Sort(out)
	return out
}

// wholeBundle lists every object of b as added or removed.
func wholeBundle(b *render.Bundle, c Change) []ObjectChange {
	if b == nil {
		return nil
	}
	out := make([]ObjectChange, len(b.Objects))
	for i, o := range b.Objects {
		out[i] = ObjectChange{Ref: o.Ref(), Change: c}
	}
	return out
}

// diffBundles lists the objects that differ between a and b: those of b
// in its order, each removed one after the object it followed in a.
func diffBundles(a, b *render.Bundle) []ObjectChange {
	old := map[string]*render.Object{}
	if a != nil {
		for _, o := range a.Objects {
			old[o.Ref()] = o
		}
	}
	kept := map[string]bool{}
	var out []ObjectChange
	if b != nil {
		for _, o := range b.Objects {
			ref := o.Ref()
			kept[ref] = true
			was, ok := old[ref]
			if !ok {
				out = append(out, ObjectChange{Ref: ref, Change: Added})
				continue
			}
			if fields := diffContent(o.Kind, was.Content, o.Content); len(fields) > 0 {
				out = append(out, ObjectChange{Ref: ref, Change: Changed, Fields: fields})
			}
		}
	}
	if a != nil {
		for _, o := range a.Objects {
			if !kept[o.Ref()] {
				out = append(out, ObjectChange{Ref: o.Ref(), Change: Removed})
			}
		}
	}
	return out
}
