package policy

import (
	"fmt"
	"maps"
	"slices"
	"strings"
	"sync"

	"github.com/open-policy-agent/opa/v1/ast"

	"github.com/siteops/siteops/internal/parallel"
	"github.com/siteops/siteops/sites"
)

// The fleet index is what cross-site rules read as data.siteops.fleet: for
// each kind of fact that must be unique (MAC, host name, BMC, VIP, cluster
// name), a map from the normalized value to every place that uses it.
// It is built once per check, so that a rule looks up each of its site's
// values instead of scanning every other site: O(sites) for the fleet,
// not O(sites²).
//
//	data.siteops.fleet.macs["0a:5e:00:01:01:00"] == [
//	  {"site": "marlow-sno-01", "node": "spec.clusters[0].nodes[0]",
//	   "field": "spec.clusters[0].nodes[0].bootMACAddress", "pos": "marlow-sno.yaml:50:27",
//	   "key": "0a:5e:00:01:01:00", "value": "0A:5E:00:01:01:00", "hostname": "marlow-0.example.net"},
//	  ...]
//
// data.siteops.fleet.shared[kind] holds the keys whose uses span more than
// one node (for cluster-level facts, more than one site), with the number
// of nodes: most values are used once, and a rule that first asks
// shared.macs[key] skips them with one lookup.
//
// data.siteops.fleet.bySite[site][kind] lists the uses of one site, empty
// values included: a rule reads its own site's facts there, so that the
// fleet-wide rules need nothing else of the site (see Run).

// Fact kinds, as keys of data.siteops.fleet.
const (
	factMACs         = "macs"         // boot and interface MACs, lower case
	factHostnames    = "hostnames"    // node host names, lower case
	factBMCs         = "bmcAddresses" // BMC keys (see bmcScheme)
	factVIPs         = "vips"         // API and ingress VIPs, as written
	factClusterNames = "clusterNames" // cluster names, lower case
)

// fact is one use of a value that must be unique.
type fact struct {
	kind int // index into factKinds
	// key is the normalized value, value the value as written.
	key, value string
	// node is the document path of the node, hostname its host name as
	// written; both empty for cluster facts.
	node, hostname string
	field          string
	pos            sites.Position
	// itf is the index of the interface entry of an interface MAC (-1
	// otherwise), name the interface's name.
	itf  int
	name string
}

// factKinds says how each kind of fact is read from a site: add is called
// with every use, its key normalized.
var factKinds = []struct {
	name    string
	collect func(v *view, add func(fact))
}{
	{factMACs, func(v *view, add func(fact)) {
		for i := range v.m.Nodes {
			n := &v.m.Nodes[i]
			add(fact{key: normalizeMAC(n.BootMACAddress), value: n.BootMACAddress, node: n.Path, hostname: n.HostName,
				field: n.Path + ".bootMACAddress", itf: -1})
			for j, itf := range n.Interfaces {
				add(fact{key: normalizeMAC(itf.MacAddress), value: itf.MacAddress, node: n.Path, hostname: n.HostName,
					field: fmt.Sprintf("%s.nodeNetwork.interfaces[%d].macAddress", n.Path, j), itf: j, name: itf.Name})
			}
		}
	}},
	{factHostnames, func(v *view, add func(fact)) {
		for i := range v.m.Nodes {
			n := &v.m.Nodes[i]
			add(fact{key: strings.ToLower(strings.TrimSpace(n.HostName)), value: n.HostName, node: n.Path,
				hostname: n.HostName, field: n.Path + ".hostName", itf: -1})
		}
	}},
	{factBMCs, func(v *view, add func(fact)) {
		for i := range v.m.Nodes {
			n := &v.m.Nodes[i]
			_, key := bmcScheme(n.BmcAddress)
			add(fact{key: key, value: n.BmcAddress, node: n.Path, hostname: n.HostName, field: n.Path + ".bmcAddress", itf: -1})
		}
	}},
	{factVIPs, func(v *view, add func(fact)) {
		for i, vip := range v.m.Cluster.APIVIPs {
			add(fact{key: strings.TrimSpace(vip), value: vip, field: v.m.Paths.APIVIPs[i], itf: -1})
		}
		for i, vip := range v.m.Cluster.IngressVIPs {
			add(fact{key: strings.TrimSpace(vip), value: vip, field: v.m.Paths.IngressVIPs[i], itf: -1})
		}
	}},
	{factClusterNames, func(v *view, add func(fact)) {
		name := v.m.Cluster.Name
		add(fact{key: strings.ToLower(name), value: name, field: v.m.Paths.Name, itf: -1})
	}},
}

// normalizeMAC is the form MACs are compared in: rules look them up with
// lower(trim_space(mac)).
func normalizeMAC(mac string) string { return strings.ToLower(strings.TrimSpace(mac)) }

// facts lists every use of a unique value by the site, kind by kind: all
// the fleet index needs of it. A Run keeps every site's facts until the
// fleet rules run, so the list is collected in a scratch slice and kept
// at its length: grown by appending, it could hold up to twice that.
func (v *view) facts() []fact {
	scratch := factScratch.Get().(*[]fact)
	out := (*scratch)[:0]
	for k, kind := range factKinds {
		kind.collect(v, func(f fact) {
			f.kind, f.pos = k, v.site.Pos(f.field)
			out = append(out, f)
		})
	}
	kept := slices.Clone(out)
	clear(out)
	*scratch = out
	factScratch.Put(scratch)
	return kept
}

var factScratch = sync.Pool{New: func() any { return new([]fact) }}

// siteFacts are the facts of one site.
type siteFacts struct {
	site  string
	facts []fact
}

// fleetData builds data.siteops.fleet from the facts of every site (in
// site name order, which orders each value's uses) and the sorted site
// names.
func fleetData(all []siteFacts, names []string) ast.Value {
	// One term per use, shared by the index by value and by site.
	// On every core: on one, 10,000 sites' terms took half a second
	// with the other core idle.
	uses := make([][]*ast.Term, len(all))
	parallel.Each(len(all), 64, func(i int) { uses[i] = useTerms(all[i]) })
	terms := make([][2]*ast.Term, len(factKinds))
	shared := make([][2]*ast.Term, len(factKinds))
	var wg sync.WaitGroup
	for k, kind := range factKinds {
		wg.Go(func() {
			obj, sh := indexKind(all, uses, k)
			terms[k] = item(kind.name, ast.NewTerm(obj))
			shared[k] = item(kind.name, ast.NewTerm(sh))
		})
	}
	bySite := ast.NewObject()
	for i, sf := range all {
		kinds := make([][]*ast.Term, len(factKinds))
		for j := range sf.facts {
			k := sf.facts[j].kind
			kinds[k] = append(kinds[k], uses[i][j])
		}
		obj := ast.NewObject()
		for k, kind := range factKinds {
			obj.Insert(ast.InternedTerm(kind.name), ast.ArrayTerm(kinds[k]...))
		}
		bySite.Insert(ast.StringTerm(sf.site), ast.NewTerm(obj))
	}
	wg.Wait()
	out := ast.NewObject(terms...)
	out.Insert(keyTerm("sites"), strings2(names))
	out.Insert(keyTerm("shared"), ast.ObjectTerm(shared...))
	out.Insert(keyTerm("bySite"), ast.NewTerm(bySite))
	return out
}

// useTerms makes the use objects of a site's facts, in order.
func useTerms(sf siteFacts) []*ast.Term {
	site := ast.StringTerm(sf.site)
	nodes := map[string]*ast.Term{}
	out := make([]*ast.Term, len(sf.facts))
	for i := range sf.facts {
		f := &sf.facts[i]
		node, ok := nodes[f.node]
		if !ok {
			node = ast.StringTerm(f.node)
			nodes[f.node] = node
		}
		obj := ast.NewObject(item("site", site), item("node", node), str("field", f.field), str("pos", f.pos.String()),
			str("key", f.key), str("value", f.value))
		if f.node != "" {
			obj.Insert(keyTerm("hostname"), ast.StringTerm(f.hostname))
		}
		if f.itf >= 0 {
			obj.Insert(keyTerm("interface"), ast.InternedTerm(f.itf))
			obj.Insert(keyTerm("name"), ast.StringTerm(f.name))
		}
		out[i] = ast.NewTerm(obj)
	}
	return out
}

// indexKind maps each value of one kind to its uses, and lists the values
// used by more than one node (or site) with how many. Empty values are
// left out.
func indexKind(all []siteFacts, uses [][]*ast.Term, kind int) (byKey, shared ast.Object) {
	type owner struct{ site, node string }
	type entry struct {
		uses   []*ast.Term
		owners []owner // most values have one
	}
	entries := map[string]*entry{}
	for i, sf := range all {
		for j := range sf.facts {
			f := &sf.facts[j]
			if f.kind != kind || f.key == "" {
				continue
			}
			e := entries[f.key]
			if e == nil {
				e = &entry{}
				entries[f.key] = e
			}
			e.uses = append(e.uses, uses[i][j])
			if o := (owner{sf.site, f.node}); !slices.Contains(e.owners, o) {
				e.owners = append(e.owners, o)
			}
		}
	}
	byKey, shared = ast.NewObject(), ast.NewObject()
	for _, key := range slices.Sorted(maps.Keys(entries)) {
		e := entries[key]
		k := ast.StringTerm(key)
		byKey.Insert(k, ast.ArrayTerm(e.uses...))
		if len(e.owners) > 1 {
			shared.Insert(k, ast.InternedTerm(len(e.owners)))
		}
	}
	return byKey, shared
}

// readsFleet reports whether evaluating ref may read data.siteops.fleet:
// whether a rule it reaches, through the compiler's dependency graph,
// refers to the index or to data in a way that may select it. Those rules
// wait until every site is known; the others run as each site arrives.
func readsFleet(c *ast.Compiler, ref ast.Ref) bool {
	found := false
	for _, r := range reached(c, ref) {
		ast.WalkRefs(r, func(x ast.Ref) bool {
			found = found || mayReachFleet(x)
			return found
		})
	}
	return found
}

// reached lists the rules evaluating ref may evaluate: those it names and,
// through the compiler's dependency graph, every rule and function they
// use.
func reached(c *ast.Compiler, ref ast.Ref) []*ast.Rule {
	return reachedFrom(c, c.GetRules(ref)...)
}

// reachedFrom lists the given rules and every rule and function they use.
func reachedFrom(c *ast.Compiler, rules ...*ast.Rule) []*ast.Rule {
	seen := map[*ast.Rule]bool{}
	var out []*ast.Rule
	todo := slices.Clone(rules)
	for len(todo) > 0 {
		r := todo[len(todo)-1]
		todo = todo[:len(todo)-1]
		if seen[r] {
			continue
		}
		seen[r] = true
		out = append(out, r)
		for d := range c.Graph.Dependencies(r) {
			if dr, ok := d.(*ast.Rule); ok {
				todo = append(todo, dr)
			}
		}
	}
	return out
}

// mayReachFleet holds for data, data.siteops, data.siteops.fleet... and
// refs whose first keys are computed.
func mayReachFleet(ref ast.Ref) bool {
	if !ref.HasPrefix(ast.DefaultRootRef) {
		return false
	}
	for i, want := range []string{"siteops", "fleet"} {
		if len(ref) <= i+1 {
			return true
		}
		k, ok := ref[i+1].Value.(ast.String)
		if !ok {
			return true
		}
		if string(k) != want {
			return false
		}
	}
	return true
}

// projection is the part of the input document some rules can read: every
// key of input.site in site, every other key of input in root, or all of
// it.
type projection struct {
	all        bool
	root, site map[string]bool
}

// inputRead finds what of the input the rules ref names can read. A rule
// reaches the input only through refs rooted at input, so a ref whose
// first keys are written out (input.site.name, input.site.nodes[_]) reads
// that part only, whatever it does with the value; a ref to input or
// input.site as a whole, or with a computed key there, reads all of it.
func inputRead(c *ast.Compiler, refs []ast.Ref) projection {
	p := projection{root: map[string]bool{}, site: map[string]bool{}}
	key := func(ref ast.Ref, i int) (string, bool) {
		if len(ref) <= i {
			return "", false
		}
		s, ok := ref[i].Value.(ast.String)
		return string(s), ok
	}
	for _, ref := range refs {
		for _, r := range reached(c, ref) {
			ast.WalkRefs(r, func(x ast.Ref) bool {
				if !x.HasPrefix(ast.InputRootRef) {
					return false
				}
				k, ok := key(x, 1)
				switch {
				case !ok:
					p.all = true
				case k != "site":
					p.root[k] = true
				default:
					if k2, ok := key(x, 2); ok {
						p.site[k2] = true
					} else {
						p.all = true
					}
				}
				return false
			})
		}
	}
	return p
}

// project keeps of an input document what p says rules can read, as a
// copy: the document's terms are allocated in blocks (see terms), and a
// term shared with it would keep its whole block, and the site's other
// values with it, until the fleet rules run (30 MB of a 10,000-site
// check, to keep each site's name).
func (p projection) project(input ast.Value) ast.Value {
	doc, ok := input.(ast.Object)
	if p.all || !ok {
		return input
	}
	out := ast.NewObject()
	doc.Foreach(func(k, v *ast.Term) {
		name, _ := k.Value.(ast.String)
		switch {
		case string(name) == "site":
			site, ok := v.Value.(ast.Object)
			if !ok {
				out.Insert(k.Copy(), v.Copy())
				return
			}
			kept := ast.NewObject()
			site.Foreach(func(k2, v2 *ast.Term) {
				if n, _ := k2.Value.(ast.String); p.site[string(n)] {
					kept.Insert(k2.Copy(), v2.Copy())
				}
			})
			out.Insert(k.Copy(), ast.NewTerm(kept))
		case p.root[string(name)]:
			out.Insert(k.Copy(), v.Copy())
		}
	})
	return out
}
