package policy

import (
	"fmt"
	"net"
	"net/url"
	"strings"
	"sync"

	"github.com/open-policy-agent/opa/v1/ast"

	"github.com/siteops/siteops/render"
	"github.com/siteops/siteops/sites"
)

// The input document is built as AST values directly, not as Go maps that
// OPA would convert (or round-trip through JSON) on every evaluation: for
// a fleet of ten thousand sites the conversion would cost about as much as
// the rules. Only free-form values (nmstate, root device hints) and the
// rendered objects, which render already holds as JSON-compatible maps, go
// through ast.InterfaceToValue; the objects only when a policy reads them.

// AnnotationWaive is the site annotation that waives rules for the site:
// "<rule-id>: <reason>", several separated by newlines or commas.
const AnnotationWaive = "siteops.io/waive"

// view is what a site's input document and fleet facts are built from:
// the normalized site (sites.Model) and what only the rendered bundle
// tells.
type view struct {
	site *sites.Site
	m    *sites.Model
	// path is the document path of the cluster: spec.clusters[i] or spec.
	path        string
	annotations map[string]string
	// certs holds, per node of m, spec.bmc.disableCertificateVerification
	// of its rendered BareMetalHost; nil when the site did not render.
	certs []bmcCert
	// discovery describes the discovery Ignition of each InfraEnv of the
	// bundle; withDiscovery says whether it was built (see inputNeeds).
	discovery     []discoveryView
	withDiscovery bool
}

// bmcCert is a node's disableCertificateVerification, and whether its
// BareMetalHost says.
type bmcCert struct{ disabled, known bool }

// newView normalizes a site. bundle may be nil (the site did not render).
// withDiscovery builds the discovery Ignition of its InfraEnvs.
func newView(s *sites.Site, b *render.Bundle, withDiscovery bool) *view {
	m := s.Model()
	v := &view{site: s, m: m, path: m.Path, annotations: m.Annotations, withDiscovery: withDiscovery}
	if b != nil {
		v.certVerification(b)
	}
	if withDiscovery {
		v.discovery = discoveryViews(b)
	}
	return v
}

// clusterFields are the keys of input.site.fields, each with the path the
// model keeps for it: one path, or one per entry for a list.
var clusterFields = []struct {
	key  string
	path func(*sites.ClusterPaths) string
	list func(*sites.ClusterPaths) []string
}{
	{key: "name", path: func(p *sites.ClusterPaths) string { return p.Name }},
	{key: "baseDomain", path: func(p *sites.ClusterPaths) string { return p.BaseDomain }},
	{key: "imageSet", path: func(p *sites.ClusterPaths) string { return p.ImageSet }},
	{key: "pullSecret", path: func(p *sites.ClusterPaths) string { return p.PullSecret }},
	{key: "sshKey", path: func(p *sites.ClusterPaths) string { return p.SSHKey }},
	{key: "networkType", path: func(p *sites.ClusterPaths) string { return p.NetworkType }},
	{key: "platformType", path: func(p *sites.ClusterPaths) string { return p.PlatformType }},
	{key: "cpuArchitecture", path: func(p *sites.ClusterPaths) string { return p.CPUArchitecture }},
	{key: "clusterType", path: func(p *sites.ClusterPaths) string { return p.ClusterType }},
	{key: "installConfigOverrides", path: func(p *sites.ClusterPaths) string { return p.InstallConfigOverrides }},
	{key: "ignitionConfigOverride", path: func(p *sites.ClusterPaths) string { return p.IgnitionConfigOverride }},
	{key: "labels", path: func(p *sites.ClusterPaths) string { return p.Labels }},
	{key: "holdInstallation", path: func(p *sites.ClusterPaths) string { return p.HoldInstallation }},
	{key: "additionalNTPSources", path: func(p *sites.ClusterPaths) string { return p.AdditionalNTPSources }},
	{key: "proxy", path: func(p *sites.ClusterPaths) string { return p.Proxy }},
	{key: "annotations", path: func(p *sites.ClusterPaths) string { return p.Annotations }},
	{key: "nodes", path: func(p *sites.ClusterPaths) string { return p.Nodes }},
	{key: "apiVIPs", list: func(p *sites.ClusterPaths) []string { return p.APIVIPs }},
	{key: "ingressVIPs", list: func(p *sites.ClusterPaths) []string { return p.IngressVIPs }},
	{key: "machineNetworks", list: func(p *sites.ClusterPaths) []string { return p.MachineNetworks }},
	{key: "clusterNetworks", list: func(p *sites.ClusterPaths) []string { return p.ClusterNetworks }},
	{key: "serviceNetworks", list: func(p *sites.ClusterPaths) []string { return p.ServiceNetworks }},
}

// certVerification reads spec.bmc.disableCertificateVerification from each
// node's rendered BareMetalHost: the default templates hard-code it, so
// the rendered object, not the site, is where the fact is.
func (v *view) certVerification(b *render.Bundle) {
	byHost := map[string]bmcCert{}
	for _, o := range b.Objects {
		if o.Kind != render.KindBareMetalHost {
			continue
		}
		host, disabled, set := render.BareMetalHostBMC(o)
		byHost[host] = bmcCert{disabled: disabled, known: set}
	}
	v.certs = make([]bmcCert, len(v.m.Nodes))
	for i := range v.m.Nodes {
		v.certs[i] = byHost[v.m.Nodes[i].HostName]
	}
}

// bmcScheme and bmcKey read a BMC address the way the bare-metal operator
// does (pkg/hardwareutils/bmc GetParsedURL): an address without a scheme
// is IPMI, "host:port" included. The key is what identifies the BMC
// whatever the driver: lower-case host and port, and the path (a Redfish
// system), so that redfish://h/x and idrac-redfish://H/x collide.
func bmcScheme(addr string) (scheme, key string) {
	addr = strings.TrimSpace(addr)
	if addr == "" {
		return "", ""
	}
	u, err := url.Parse(addr)
	switch {
	case err != nil:
		if _, _, err := net.SplitHostPort(addr); err != nil && strings.Contains(addr, ":") {
			return "", strings.ToLower(addr)
		}
		u = &url.URL{Scheme: "ipmi", Host: addr}
	case u.Opaque != "":
		if u2, err := url.Parse(strings.Replace(addr, ":", "://", 1)); err == nil {
			u = u2
		}
	case u.Scheme == "" && u.Host == "":
		if u2, err := url.Parse("ipmi://" + addr); err == nil {
			u = u2
		}
	}
	if u.Scheme == "" {
		u.Scheme = "ipmi"
	}
	return strings.ToLower(u.Scheme), strings.ToLower(u.Host) + strings.TrimSuffix(u.EscapedPath(), "/")
}

// value builds the input document of a site. objects, when not nil, are
// the rendered objects; withPositions adds the positions map. Both are
// left out when no loaded policy reads them (see inputNeeds): a policy
// cannot tell, and they are the costliest parts to build.
func (v *view) value(objects *ast.Term, withPositions bool) ast.Value {
	s := v.site
	var b terms
	fields := make([][2]*ast.Term, len(clusterFields))
	for i, f := range clusterFields {
		if f.list != nil {
			fields[i] = item(f.key, b.strings(f.list(&v.m.Paths)))
		} else {
			fields[i] = item(f.key, b.string(f.path(&v.m.Paths)))
		}
	}
	// Objects are made with all their items at once: an insert later
	// costs an allocation of its own.
	c := &v.m.Cluster
	cn := make([]*ast.Term, len(c.ClusterNetworks))
	for i, n := range c.ClusterNetworks {
		cn[i] = ast.ObjectTerm(b.str("cidr", n.Cidr), item("hostPrefix", ast.InternedTerm(n.HostPrefix)))
	}
	cluster := [][2]*ast.Term{
		b.str("name", c.Name), b.str("baseDomain", c.BaseDomain), b.str("imageSet", c.ImageSet),
		b.str("pullSecret", c.PullSecret), b.str("sshKey", c.SSHKey), b.str("networkType", c.NetworkType),
		b.str("platformType", c.PlatformType), b.str("clusterType", c.ClusterType), b.str("cpuArchitecture", c.CPUArchitecture),
		b.str("installConfigOverrides", c.InstallConfigOverrides), b.str("ignitionConfigOverride", c.IgnitionConfigOverride),
		item("apiVIPs", b.strings(c.APIVIPs)), item("ingressVIPs", b.strings(c.IngressVIPs)),
		item("machineNetworks", b.strings(c.MachineNetworks)), item("serviceNetworks", b.strings(c.ServiceNetworks)),
		item("additionalNTPSources", b.strings(c.AdditionalNTPSources)), item("labels", b.stringMap(c.Labels)),
		item("holdInstallation", ast.InternedTerm(c.HoldInstallation)), item("clusterNetworks", ast.ArrayTerm(cn...)),
	}
	if c.Proxy != nil {
		cluster = append(cluster, item("proxy", ast.ObjectTerm(b.str("httpProxy", c.Proxy.HttpProxy),
			b.str("httpsProxy", c.Proxy.HttpsProxy), b.str("noProxy", c.Proxy.NoProxy))))
	}
	nodes := make([]*ast.Term, len(v.m.Nodes))
	for i := range v.m.Nodes {
		n := &v.m.Nodes[i]
		scheme, key := bmcScheme(n.BmcAddress)
		bmc := [][2]*ast.Term{b.str("address", n.BmcAddress), b.str("credentialsName", n.BmcCredentialsName),
			b.str("scheme", scheme), b.str("key", key)}
		if v.certs != nil && v.certs[i].known {
			bmc = append(bmc, item("disableCertificateVerification", ast.InternedTerm(v.certs[i].disabled)))
		}
		itfs := make([]*ast.Term, len(n.Interfaces))
		for j, itf := range n.Interfaces {
			itfs[j] = ast.ObjectTerm(b.str("name", itf.Name), b.str("macAddress", itf.MacAddress))
		}
		node := [][2]*ast.Term{
			b.str("path", n.Path), b.str("hostname", n.HostName), b.str("role", n.Role),
			b.str("bootMACAddress", n.BootMACAddress), b.str("bootMode", n.BootMode), item("bmc", ast.ObjectTerm(bmc...)),
			item("interfaces", ast.ArrayTerm(itfs...)), b.str("installerArgs", n.InstallerArgs),
			b.str("ignitionConfigOverride", n.IgnitionConfigOverride), b.str("cpuArchitecture", n.CPUArchitecture),
			item("labels", b.stringMap(n.Labels)),
		}
		if n.NMState != nil {
			node = append(node, item("nmstate", b.value(n.NMState)))
		}
		if n.RootDeviceHints != nil {
			node = append(node, item("rootDeviceHints", b.value(n.RootDeviceHints)))
		}
		nodes[i] = ast.ObjectTerm(node...)
	}
	site := [][2]*ast.Term{
		b.str("name", s.Name), b.str("namespace", s.Namespace), b.str("format", string(s.Format)),
		b.str("path", v.path), item("annotations", b.stringMap(v.annotations)),
		item("source", ast.ObjectTerm(b.str("file", s.Source.File), item("line", ast.InternedTerm(s.Source.Line)),
			item("column", ast.InternedTerm(s.Source.Column)))),
		item("cluster", ast.ObjectTerm(cluster...)), item("nodes", ast.ArrayTerm(nodes...)),
		item("fields", ast.ObjectTerm(fields...)),
	}
	if v.withDiscovery {
		site = append(site, item("discovery", discoveryTerm(v.discovery)))
	}
	doc := ast.NewObject(item("site", ast.ObjectTerm(site...)))
	if objects != nil {
		doc.Insert(keyTerm("objects"), objects)
	}
	if withPositions {
		positions := ast.NewObject()
		v.positionPaths(func(path string) {
			if positions.Get(ast.InternedTerm(path)) != nil {
				return
			}
			p := s.Pos(path)
			positions.Insert(ast.StringTerm(path), ast.ObjectTerm(
				ast.Item(keyTerm("file"), ast.StringTerm(p.File)),
				ast.Item(keyTerm("line"), ast.InternedTerm(p.Line)),
				ast.Item(keyTerm("column"), ast.InternedTerm(p.Column)),
			))
		})
		doc.Insert(keyTerm("positions"), ast.NewTerm(positions))
	}
	return doc
}

// positionPaths calls yield with every path input.positions holds: the
// cluster, its fields, the nodes, their fields and interface entries (a
// path may come more than once).
func (v *view) positionPaths(yield func(path string)) {
	yield(v.path)
	for _, f := range clusterFields {
		if f.list != nil {
			for _, p := range f.list(&v.m.Paths) {
				yield(p)
			}
		} else {
			yield(f.path(&v.m.Paths))
		}
	}
	for i := range v.m.Nodes {
		n := &v.m.Nodes[i]
		yield(n.Path)
		for _, f := range sites.NodeFieldKeys {
			yield(n.Path + "." + f)
		}
		for j := range n.Interfaces {
			p := fmt.Sprintf("%s.nodeNetwork.interfaces[%d]", n.Path, j)
			yield(p + ".name")
			yield(p + ".macAddress")
		}
	}
}

// needs says which costly parts of the input document some loaded policy
// reads: they are built only then.
type needs struct {
	// objects: input.objects, the rendered objects.
	objects bool
	// positions: input.positions.
	positions bool
	// discovery: input.site.discovery, the discovery Ignition sizes.
	discovery bool
}

// inputNeeds reports which costly parts of the input any compiled policy
// may read: a reference to input (or input.site) as a whole, or with a
// computed key, counts as reading all of them.
func inputNeeds(c *ast.Compiler) needs {
	var n needs
	all := func() { n = needs{true, true, true} }
	key := func(t *ast.Term) (string, bool) {
		s, ok := t.Value.(ast.String)
		return string(s), ok
	}
	for _, m := range c.Modules {
		ast.WalkRefs(m, func(ref ast.Ref) bool {
			if !ref.HasPrefix(ast.InputRootRef) {
				return false
			}
			if len(ref) == 1 {
				all()
				return false
			}
			k, ok := key(ref[1])
			switch {
			case !ok:
				all()
			case k == "objects":
				n.objects = true
			case k == "positions":
				n.positions = true
			case k == "site" && len(ref) == 2:
				n.discovery = true
			case k == "site":
				if k2, ok := key(ref[2]); !ok || k2 == "discovery" {
					n.discovery = true
				}
			}
			return false
		})
	}
	return n
}

// objectsTerm converts rendered objects, in bundle order.
func objectsTerm(b *render.Bundle) (*ast.Term, error) {
	if b == nil {
		return ast.ArrayTerm(), nil
	}
	terms := make([]*ast.Term, len(b.Objects))
	for i, o := range b.Objects {
		val, err := ast.InterfaceToValue(o.Map())
		if err != nil {
			return nil, fmt.Errorf("convert %s: %w", o.Ref(), err)
		}
		terms[i] = ast.NewTerm(val)
	}
	return ast.ArrayTerm(terms...), nil
}

func item(k string, v *ast.Term) [2]*ast.Term { return ast.Item(keyTerm(k), v) }

// keyTerms holds a term for each key of the documents built here: keys
// come from a fixed set, and a term made per use would be a good part of
// what building a document allocates.
var keyTerms sync.Map

func keyTerm(k string) *ast.Term {
	if t, ok := keyTerms.Load(k); ok {
		return t.(*ast.Term)
	}
	t, _ := keyTerms.LoadOrStore(k, ast.StringTerm(k))
	return t.(*ast.Term)
}

func str(k, v string) [2]*ast.Term { return item(k, ast.StringTerm(v)) }

func strings2(list []string) *ast.Term {
	var b terms
	return b.strings(list)
}

// terms makes the string terms of one document from blocks of terms: a
// document has hundreds, and one allocation for each term and one for its
// value would be most of what building it costs.
type terms struct{ block []ast.Term }

func (b *terms) string(s string) *ast.Term {
	if s == "" {
		return ast.InternedEmptyString
	}
	if len(b.block) == 0 {
		b.block = make([]ast.Term, 64)
	}
	t := &b.block[0]
	b.block = b.block[1:]
	t.Value = ast.String(s)
	return t
}

func (b *terms) str(k, v string) [2]*ast.Term { return item(k, b.string(v)) }

func (b *terms) strings(list []string) *ast.Term {
	if len(list) == 0 {
		return ast.InternedEmptyArray
	}
	out := make([]*ast.Term, len(list))
	for i, s := range list {
		out[i] = b.string(s)
	}
	return ast.ArrayTerm(out...)
}

func (b *terms) stringMap(m map[string]string) *ast.Term {
	if len(m) == 0 {
		return ast.InternedEmptyObject
	}
	items := make([][2]*ast.Term, 0, len(m))
	for k, v := range m {
		items = append(items, ast.Item(b.string(k), b.string(v)))
	}
	return ast.ObjectTerm(items...)
}

// value converts decoded YAML as ast.InterfaceToValue does, with the
// strings (keys included) taken from b's block: the nmstate document of
// every node is most of a site's free-form values. Numbers and any other
// type go through InterfaceToValue; a value that does not convert (it
// cannot happen with what sites decodes) becomes null rather than
// failing the whole site.
func (b *terms) value(x any) *ast.Term {
	switch x := x.(type) {
	case nil:
		return ast.NullTerm()
	case string:
		return b.string(x)
	case bool:
		return ast.InternedTerm(x)
	case map[string]any:
		items := make([][2]*ast.Term, 0, len(x))
		for k, v := range x {
			items = append(items, ast.Item(b.string(k), b.value(v)))
		}
		return ast.ObjectTerm(items...)
	case []any:
		elems := make([]*ast.Term, len(x))
		for i, v := range x {
			elems[i] = b.value(v)
		}
		return ast.ArrayTerm(elems...)
	}
	v, err := ast.InterfaceToValue(x)
	if err != nil {
		return ast.NullTerm()
	}
	return ast.NewTerm(v)
}
