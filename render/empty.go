package render

import "reflect"

// The generator copies a field of the site into its object whenever the field
// is set, and leaves it out only when it is unset: a list or mapping written
// empty ("apiVIPs: []", "rootDeviceHints: {}") is rendered empty (the generator
// renders untyped maps), while the typed objects siteops builds drop empty
// values. copiedValues lists, per kind, the fields copied whole, and where each
// goes.

// copied is one field copied whole into an object: its value and its path.
type copied struct {
	value any
	path  []string
}

var copiedValues = map[string]func(r *siteRender, node int) []copied{
	KindAgentClusterInstall: func(r *siteRender, _ int) []copied {
		c := r.cluster
		return []copied{
			{c.ApiVIPs, []string{"spec", "apiVIPs"}},
			{c.IngressVIPs, []string{"spec", "ingressVIPs"}},
			{c.ClusterNetwork, []string{"spec", "networking", "clusterNetwork"}},
			{c.MachineNetwork, []string{"spec", "networking", "machineNetwork"}},
			{c.ServiceNetwork, []string{"spec", "networking", "serviceNetwork"}},
		}
	},
	KindInfraEnv: func(r *siteRender, _ int) []copied {
		return []copied{{r.cluster.AdditionalNTPSources, []string{"spec", "additionalNTPSources"}}}
	},
	KindNMStateConfig: func(r *siteRender, node int) []copied {
		n := &r.cluster.Nodes[node]
		return []copied{
			{n.NodeNetwork.Config, []string{"spec", "config"}},
			{n.NodeNetwork.Interfaces, []string{"spec", "interfaces"}},
		}
	},
	KindBareMetalHost: func(r *siteRender, node int) []copied {
		n := &r.cluster.Nodes[node]
		return []copied{
			{n.RootDeviceHints, []string{"spec", "rootDeviceHints"}},
			{n.UserData, []string{"spec", "userData"}},
		}
	},
}

// emptyCopies are the fields of copiedValues that are set but empty.
func (r *siteRender) emptyCopies(kind string, node int) []copied {
	fields, ok := copiedValues[kind]
	if !ok {
		return nil
	}
	var empty []copied
	for _, f := range fields(r, node) {
		if v := reflect.ValueOf(f.value); !v.IsNil() && v.Len() == 0 {
			empty = append(empty, f)
		}
	}
	return empty
}

// keepEmpty writes the fields of copiedValues that are set but empty.
func (r *siteRender) keepEmpty(kind string, node int, content map[string]any) {
	for _, f := range r.emptyCopies(kind, node) {
		parent := ensureMap(content, f.path[:len(f.path)-1]...)
		if reflect.ValueOf(f.value).Kind() == reflect.Map {
			parent[f.path[len(f.path)-1]] = map[string]any{}
		} else {
			parent[f.path[len(f.path)-1]] = []any{}
		}
	}
}
