package policy

import (
	"fmt"
	"maps"
	"slices"
	"strings"
	"sync"

	"github.com/open-policy-agent/opa/v1/ast"
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
//	   "field": "spec.clusters[0].nodes[0].bootMACAddress", "pos": "marlow-sno.yaml:50:27"},
//	  ...]
//
// data.siteops.fleet.shared[kind] holds the keys whose uses span more than
// one node (for cluster-level facts, more than one site), with the number
// of nodes: most values are used once, and a rule that first asks
// shared.macs[key] skips them with one lookup.

// Fact kinds, as keys of data.siteops.fleet.
const (
	factMACs         = "macs"         // boot and interface MACs, lower case
	factHostnames    = "hostnames"    // node host names, lower case
	factBMCs         = "bmcAddresses" // BMC keys (see bmcScheme)
	factVIPs         = "vips"         // API and ingress VIPs, as written
	factClusterNames = "clusterNames" // cluster names, lower case
)

// factKinds says how each kind of fact is read from a site: add is called
// with the normalized value, the node (empty for cluster facts) and the
// field path of every use.
var factKinds = []struct {
	name    string
	collect func(v *view, add func(key, node, field string))
}{
	{factMACs, func(v *view, add func(key, node, field string)) {
		for i := range v.nodes {
			n := &v.nodes[i]
			add(normalizeMAC(n.bootMAC), n.path, n.path+".bootMACAddress")
			for j, itf := range n.interfaces {
				add(normalizeMAC(itf.MacAddress), n.path, fmt.Sprintf("%s.nodeNetwork.interfaces[%d].macAddress", n.path, j))
			}
		}
	}},
	{factHostnames, func(v *view, add func(key, node, field string)) {
		for i := range v.nodes {
			n := &v.nodes[i]
			add(strings.ToLower(strings.TrimSpace(n.hostname)), n.path, n.path+".hostName")
		}
	}},
	{factBMCs, func(v *view, add func(key, node, field string)) {
		for i := range v.nodes {
			n := &v.nodes[i]
			_, key := bmcScheme(n.bmcAddress)
			add(key, n.path, n.path+".bmcAddress")
		}
	}},
	{factVIPs, func(v *view, add func(key, node, field string)) {
		for i, vip := range v.cluster.apiVIPs {
			add(strings.TrimSpace(vip), "", v.fields["apiVIPs"].([]string)[i])
		}
		for i, vip := range v.cluster.ingressVIPs {
			add(strings.TrimSpace(vip), "", v.fields["ingressVIPs"].([]string)[i])
		}
	}},
	{factClusterNames, func(v *view, add func(key, node, field string)) {
		add(strings.ToLower(v.cluster.name), "", v.fields["name"].(string))
	}},
}

// normalizeMAC is the form MACs are compared in: rules look them up with
// lower(trim_space(mac)).
func normalizeMAC(mac string) string { return strings.ToLower(strings.TrimSpace(mac)) }

// fleetData builds data.siteops.fleet from every site, one goroutine per
// kind of fact: the index is the only part of a check that cannot be
// split by site.
func fleetData(views []*view, names []string) ast.Value {
	terms := make([][2]*ast.Term, len(factKinds))
	shared := make([][2]*ast.Term, len(factKinds))
	var wg sync.WaitGroup
	for i, kind := range factKinds {
		wg.Add(1)
		go func() {
			defer wg.Done()
			obj, sh := indexKind(views, kind.collect)
			terms[i] = item(kind.name, ast.NewTerm(obj))
			shared[i] = item(kind.name, ast.NewTerm(sh))
		}()
	}
	wg.Wait()
	out := ast.NewObject(terms...)
	out.Insert(ast.InternedTerm("sites"), strings2(names))
	out.Insert(ast.InternedTerm("shared"), ast.ObjectTerm(shared...))
	return out
}

// indexKind maps each value of one kind to its uses, and lists the values
// used by more than one node (or site) with how many.
func indexKind(views []*view, collect func(*view, func(key, node, field string))) (uses, shared ast.Object) {
	type use struct {
		node, field *ast.Term
		site        *ast.Term
		pos         string
	}
	byKey := map[string][]use{}
	for _, v := range views {
		site := ast.StringTerm(v.site.Name)
		nodes := map[string]*ast.Term{}
		collect(v, func(key, node, field string) {
			if key == "" {
				return
			}
			nt, ok := nodes[node]
			if !ok {
				nt = ast.StringTerm(node)
				nodes[node] = nt
			}
			byKey[key] = append(byKey[key], use{node: nt, field: ast.StringTerm(field), site: site, pos: v.site.Pos(field).String()})
		})
	}
	uses, shared = ast.NewObject(), ast.NewObject()
	for _, key := range slices.Sorted(maps.Keys(byKey)) {
		list := byKey[key]
		terms := make([]*ast.Term, len(list))
		owners := map[[2]*ast.Term]bool{}
		for i, u := range list {
			terms[i] = ast.ObjectTerm(item("site", u.site), item("node", u.node), item("field", u.field), str("pos", u.pos))
			owners[[2]*ast.Term{u.site, u.node}] = true
		}
		k := ast.StringTerm(key)
		uses.Insert(k, ast.ArrayTerm(terms...))
		if len(owners) > 1 {
			shared.Insert(k, ast.InternedTerm(len(owners)))
		}
	}
	return uses, shared
}
