package policy

import (
	"slices"

	"github.com/open-policy-agent/opa/v1/ast"

	"github.com/siteops/siteops/render"
)

// The discovery Ignition of each InfraEnv a site renders is built by
// render (render.DiscoveryIgnition) when the input document is built, once
// per site and only when some loaded policy reads input.site.discovery.
// Its packed size, what assisted-service compares with 256 KiB, costs a
// compression: it is computed only when its cheap upper bound is over the
// warning threshold, which no usual site comes near.

// discoveryView is what the input document says of one InfraEnv:
//
//	discovery:
//	  - infraEnv: marlow-sno-01/marlow-sno-01
//	    nmStateConfigs: 1        # the NMStateConfigs of the site its selector matches
//	    bytes: 11934             # the config as served
//	    archiveBytesAtMost: 12288
//	    archiveBytes: 5842       # only when archiveBytesAtMost > warnAbove
//	    limit: 262144            # render.DiscoveryIgnitionLimit
//	    warnAbove: 209715        # render.DiscoveryIgnitionWarn
//	    error: ""                # why the config could not be built
type discoveryView struct {
	infraEnv       string
	nmStateConfigs int
	bytes, bound   int
	archive        int // -1 when not computed
	err            string
}

// AST keys of the discovery entries, interned once.
var discoveryKeys = struct {
	infraEnv, nmStateConfigs, bytes, bound, archive, limit, warn, err *ast.Term
}{ast.StringTerm("infraEnv"), ast.StringTerm("nmStateConfigs"), ast.StringTerm("bytes"),
	ast.StringTerm("archiveBytesAtMost"), ast.StringTerm("archiveBytes"), ast.StringTerm("limit"),
	ast.StringTerm("warnAbove"), ast.StringTerm("error")}

// discoveryViews builds the discovery Ignition of every InfraEnv of a
// bundle with the bundle's NMStateConfigs its selector matches.
func discoveryViews(b *render.Bundle) []discoveryView {
	if b == nil {
		return nil
	}
	var out []discoveryView
	var nmState []*render.Object
	for _, o := range b.Objects {
		if o.Kind == render.KindNMStateConfig {
			nmState = append(nmState, o)
		}
	}
	for _, ie := range b.Objects {
		if ie.Kind != render.KindInfraEnv {
			continue
		}
		matched := slices.DeleteFunc(slices.Clone(nmState), func(o *render.Object) bool { return !render.NMStateSelectorMatches(ie, o) })
		dv := discoveryView{infraEnv: ie.Namespace + "/" + ie.Name, nmStateConfigs: len(matched), archive: -1}
		d, err := render.DiscoveryIgnition(ie, matched)
		if err != nil {
			dv.err = err.Error()
			out = append(out, dv)
			continue
		}
		dv.bytes, dv.bound = len(d.JSON), d.ArchiveSizeBound()
		if dv.bound > render.DiscoveryIgnitionWarn {
			dv.archive = d.ArchiveSize()
		}
		d.Release()
		out = append(out, dv)
	}
	return out
}

// discoveryTerm is input.site.discovery.
func discoveryTerm(list []discoveryView) *ast.Term {
	k := &discoveryKeys
	terms := make([]*ast.Term, len(list))
	for i, d := range list {
		obj := ast.NewObject(
			[2]*ast.Term{k.infraEnv, ast.StringTerm(d.infraEnv)},
			[2]*ast.Term{k.nmStateConfigs, ast.InternedTerm(d.nmStateConfigs)},
			[2]*ast.Term{k.bytes, ast.InternedTerm(d.bytes)},
			[2]*ast.Term{k.bound, ast.InternedTerm(d.bound)},
			[2]*ast.Term{k.limit, ast.InternedTerm(render.DiscoveryIgnitionLimit)},
			[2]*ast.Term{k.warn, ast.InternedTerm(render.DiscoveryIgnitionWarn)},
			[2]*ast.Term{k.err, ast.StringTerm(d.err)},
		)
		if d.archive >= 0 {
			obj.Insert(k.archive, ast.InternedTerm(d.archive))
		}
		terms[i] = ast.NewTerm(obj)
	}
	return ast.ArrayTerm(terms...)
}
