package policy

import (
	"slices"

	"github.com/open-policy-agent/opa/v1/ast"
)

// The built-in fleet-wide rules report only values used more than once: a
// MAC, host name or BMC that another node or site uses too (the keys of
// data.siteops.fleet.shared), or a MAC that two interface entries of one
// node repeat (rules/mac_unique.rego). Most sites of a fleet have neither,
// and evaluating those rules for them would cost a second evaluation per
// site that cannot find anything. So, when no user rule reads the fleet,
// only the sites with a repeated value are evaluated again once the index
// is built.
//
// builtinFleetRules are the rules that reasoning covers. A built-in rule
// that reads the fleet and is not listed turns the skipping off: a new
// fleet rule is evaluated for every site until it is listed here, after
// checking that it too reports only repeated values.
var builtinFleetRules = []string{"ztp.bmc.address-unique", "ztp.nodes.hostname-unique", "ztp.nodes.mac-unique"}

// skipsQuietSites reports whether Finish may leave out of the fleet
// evaluation the sites without a repeated value: the fleet rules are
// built-in ones, all listed in builtinFleetRules.
func (e *Engine) skipsQuietSites() bool {
	for _, r := range e.fleet.rules {
		if r.user || !slices.Contains(builtinFleetRules, r.ID) {
			return false
		}
	}
	return true
}

// sharedKeys are data.siteops.fleet.shared, kind by kind (in the order of
// factKinds): the keys used by more than one node or site.
func sharedKeys(fleet ast.Value) []ast.Object {
	out := make([]ast.Object, len(factKinds))
	doc, _ := fleet.(ast.Object)
	if doc == nil {
		return out
	}
	shared, _ := doc.Get(keyTerm("shared")).Value.(ast.Object)
	for k, kind := range factKinds {
		if shared != nil {
			if t := shared.Get(keyTerm(kind.name)); t != nil {
				out[k], _ = t.Value.(ast.Object)
			}
		}
	}
	return out
}

// repeatsValue reports whether a site uses a value more than once as the
// built-in fleet rules see it: one of its keys is shared, or two interface
// entries of one node have one MAC (empty ones too, as the rule compares
// them).
func repeatsValue(facts []fact, shared []ast.Object) bool {
	type itfMAC struct{ node, key string }
	var seen map[itfMAC]bool
	for i := range facts {
		f := &facts[i]
		if f.key != "" && shared[f.kind] != nil && shared[f.kind].Get(ast.InternedTerm(f.key)) != nil {
			return true
		}
		if factKinds[f.kind].name != factMACs || f.itf < 0 {
			continue
		}
		k := itfMAC{f.node, f.key}
		if seen[k] {
			return true
		}
		if seen == nil {
			seen = map[itfMAC]bool{}
		}
		seen[k] = true
	}
	return false
}
