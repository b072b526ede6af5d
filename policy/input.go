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

// view is a site normalized to one shape for both formats: what the
// input document's "site" holds, and what the fleet index is built from.
type view struct {
	site *sites.Site
	// path is the document path of the cluster: spec.clusters[i] or spec.
	path        string
	annotations map[string]string
	cluster     clusterView
	nodes       []nodeView
	// fields maps a normalized cluster field to the document path it
	// comes from: a string, or a []string for list fields (one per entry).
	fields map[string]any
	// discovery describes the discovery Ignition of each InfraEnv of the
	// bundle; withDiscovery says whether it was built (see inputNeeds).
	discovery     []discoveryView
	withDiscovery bool
}

type clusterView struct {
	name, baseDomain, imageSet, pullSecret, sshKey  string
	networkType, platformType, clusterType, cpuArch string
	installConfigOverrides, ignitionConfigOverride  string
	apiVIPs, ingressVIPs                            []string
	machineNetworks, serviceNetworks, ntpSources    []string
	clusterNetworks                                 []clusterNetwork
	labels                                          map[string]string
	holdInstallation                                bool
	proxy                                           *sites.ProxySettings
}

type clusterNetwork struct {
	cidr       string
	hostPrefix int
}

type nodeView struct {
	path                                    string
	hostname, role, bootMAC, bootMode       string
	bmcAddress, bmcCredentials              string
	installerArgs, ignitionConfigOverride   string
	cpuArch                                 string
	interfaces                              []sites.Interfaces
	nmstate, rootDeviceHints                map[string]any
	labels                                  map[string]string
	disableCertVerification, certVerifKnown bool
}

// newView normalizes a site. bundle may be nil (the site did not render).
// withDiscovery builds the discovery Ignition of its InfraEnvs.
func newView(s *sites.Site, b *render.Bundle, withDiscovery bool) *view {
	v := &view{site: s, path: s.FieldPath(""), fields: map[string]any{}, withDiscovery: withDiscovery}
	if s.Instance != nil {
		v.fromClusterInstance(s.Instance)
	} else {
		v.fromSiteConfig(s)
	}
	if b != nil {
		v.certVerification(b)
	}
	if withDiscovery {
		v.discovery = discoveryViews(b)
	}
	return v
}

func (v *view) fromSiteConfig(s *sites.Site) {
	c, spec := s.Cluster, s.Spec()
	cp := v.path + "."
	v.annotations = s.Config.Metadata.Annotations
	cv := &v.cluster
	cv.name, cv.baseDomain, cv.pullSecret, cv.sshKey = c.ClusterName, spec.BaseDomain, spec.PullSecretRef.Name, spec.SshPublicKey
	cv.networkType, cv.installConfigOverrides, cv.ignitionConfigOverride = c.NetworkType, c.InstallConfigOverrides, c.IgnitionConfigOverride
	cv.labels, cv.holdInstallation, cv.ntpSources = c.ClusterLabels, c.HoldInstallation, c.AdditionalNTPSources
	if c.ProxySettings != (sites.ProxySettings{}) {
		p := c.ProxySettings
		cv.proxy = &p
	}
	v.fields["name"] = cp + "clusterName"
	v.fields["baseDomain"] = "spec.baseDomain"
	v.fields["pullSecret"] = "spec.pullSecretRef.name"
	v.fields["sshKey"] = "spec.sshPublicKey"
	v.fields["networkType"] = cp + "networkType"
	v.fields["installConfigOverrides"] = cp + "installConfigOverrides"
	v.fields["ignitionConfigOverride"] = cp + "ignitionConfigOverride"
	v.fields["labels"] = cp + "clusterLabels"
	v.fields["annotations"] = "metadata.annotations"
	v.fields["nodes"] = cp + "nodes"
	v.fields["platformType"] = v.path // SiteConfig has no such field
	v.fields["cpuArchitecture"] = v.path
	v.fields["clusterType"] = cp + "nodes" // derived from the nodes' roles
	v.fields["holdInstallation"] = cp + "holdInstallation"
	v.fields["additionalNTPSources"] = cp + "additionalNTPSources"
	v.fields["proxy"] = cp + "proxy"
	if c.ClusterImageSetNameRef != "" {
		cv.imageSet, v.fields["imageSet"] = c.ClusterImageSetNameRef, cp+"clusterImageSetNameRef"
	} else {
		cv.imageSet, v.fields["imageSet"] = spec.ClusterImageSetNameRef, "spec.clusterImageSetNameRef"
	}
	cv.apiVIPs, v.fields["apiVIPs"] = vips(c.ApiVIPs, c.ApiVIP, cp+"apiVIPs", cp+"apiVIP")
	cv.ingressVIPs, v.fields["ingressVIPs"] = vips(c.IngressVIPs, c.IngressVIP, cp+"ingressVIPs", cp+"ingressVIP")
	mn, cn, sn := []string{}, []string{}, []string{}
	for i, n := range c.MachineNetwork {
		cv.machineNetworks = append(cv.machineNetworks, n.Cidr)
		mn = append(mn, fmt.Sprintf("%smachineNetwork[%d].cidr", cp, i))
	}
	for i, n := range c.ClusterNetwork {
		cv.clusterNetworks = append(cv.clusterNetworks, clusterNetwork{n.Cidr, n.HostPrefix})
		cn = append(cn, fmt.Sprintf("%sclusterNetwork[%d].cidr", cp, i))
	}
	for i, n := range c.ServiceNetwork {
		cv.serviceNetworks = append(cv.serviceNetworks, n)
		sn = append(sn, fmt.Sprintf("%sserviceNetwork[%d]", cp, i))
	}
	v.fields["machineNetworks"], v.fields["clusterNetworks"], v.fields["serviceNetworks"] = mn, cn, sn
	// SiteConfig has no platform field: the generator leaves it to
	// assisted-service, which picks bare metal for a multi-node cluster.
	cv.clusterType = siteConfigClusterType(c)
	for i := range c.Nodes {
		n := &c.Nodes[i]
		role := n.Role
		if role == "" {
			role = sites.RoleMaster // "" counts as master (siteconfig-v1.md §2.4)
		}
		v.nodes = append(v.nodes, nodeView{
			path: fmt.Sprintf("%snodes[%d]", cp, i), hostname: n.HostName, role: role,
			bootMAC: n.BootMACAddress, bootMode: n.BootMode, bmcAddress: n.BmcAddress,
			bmcCredentials: n.BmcCredentialsName.Name, installerArgs: n.InstallerArgs,
			ignitionConfigOverride: n.IgnitionConfigOverride, interfaces: n.NodeNetwork.Interfaces,
			nmstate: n.NodeNetwork.Config, rootDeviceHints: n.RootDeviceHints, labels: n.NodeLabels,
		})
	}
}

// siteConfigClusterType names a SiteConfig cluster's shape in the
// ClusterInstance vocabulary, so that rules see one set of values.
func siteConfigClusterType(c *sites.Clusters) string {
	masters, arbiters := 0, 0
	for i := range c.Nodes {
		switch {
		case sites.IsMaster(&c.Nodes[i]):
			masters++
		case c.Nodes[i].Role == "arbiter":
			arbiters++
		}
	}
	switch {
	case masters == 1:
		return "SNO"
	case arbiters > 0:
		return "HighlyAvailableArbiter"
	}
	return "HighlyAvailable"
}

// vips returns the VIP list of a SiteConfig cluster, which has both a
// list field and a legacy single one (the list wins), with field paths.
func vips(list []string, single, listPath, singlePath string) ([]string, []string) {
	paths := []string{}
	if len(list) > 0 {
		for i := range list {
			paths = append(paths, fmt.Sprintf("%s[%d]", listPath, i))
		}
		return list, paths
	}
	if single != "" {
		return []string{single}, []string{singlePath}
	}
	return nil, paths
}

func (v *view) fromClusterInstance(ci *sites.ClusterInstance) {
	s := &ci.Spec
	v.annotations = ci.Metadata.Annotations
	cv := &v.cluster
	cv.name, cv.baseDomain, cv.imageSet, cv.pullSecret, cv.sshKey = s.ClusterName, s.BaseDomain, s.ClusterImageSetNameRef, s.PullSecretRef.Name, s.SSHPublicKey
	cv.networkType, cv.platformType, cv.cpuArch = s.NetworkType, s.PlatformType, s.CPUArchitecture
	cv.installConfigOverrides, cv.ignitionConfigOverride = s.InstallConfigOverrides, s.IgnitionConfigOverride
	cv.labels, cv.holdInstallation, cv.ntpSources, cv.proxy = s.ExtraLabels["ManagedCluster"], s.HoldInstallation, s.AdditionalNTPSources, s.Proxy
	cv.apiVIPs, cv.ingressVIPs = s.ApiVIPs, s.IngressVIPs
	cv.clusterType = s.ClusterType
	if cv.clusterType == "" {
		cv.clusterType = "HighlyAvailable"
		if s.Count(sites.RoleMaster) == 1 {
			cv.clusterType = "SNO"
		}
	}
	for k, f := range map[string]string{"name": "clusterName", "baseDomain": "baseDomain", "imageSet": "clusterImageSetNameRef",
		"pullSecret": "pullSecretRef.name", "sshKey": "sshPublicKey", "networkType": "networkType", "platformType": "platformType",
		"clusterType": "clusterType", "installConfigOverrides": "installConfigOverrides",
		"ignitionConfigOverride": "ignitionConfigOverride", "labels": `extraLabels.ManagedCluster`, "nodes": "nodes",
		"cpuArchitecture": "cpuArchitecture", "holdInstallation": "holdInstallation",
		"additionalNTPSources": "additionalNTPSources", "proxy": "proxy"} {
		v.fields[k] = "spec." + f
	}
	v.fields["annotations"] = "metadata.annotations"
	list := func(n int, format string) []string {
		out := make([]string, n)
		for i := range out {
			out[i] = fmt.Sprintf(format, i)
		}
		return out
	}
	v.fields["apiVIPs"] = list(len(s.ApiVIPs), "spec.apiVIPs[%d]")
	v.fields["ingressVIPs"] = list(len(s.IngressVIPs), "spec.ingressVIPs[%d]")
	v.fields["machineNetworks"] = list(len(s.MachineNetwork), "spec.machineNetwork[%d].cidr")
	v.fields["clusterNetworks"] = list(len(s.ClusterNetwork), "spec.clusterNetwork[%d].cidr")
	v.fields["serviceNetworks"] = list(len(s.ServiceNetwork), "spec.serviceNetwork[%d].cidr")
	for _, n := range s.MachineNetwork {
		cv.machineNetworks = append(cv.machineNetworks, n.CIDR)
	}
	for _, n := range s.ClusterNetwork {
		cv.clusterNetworks = append(cv.clusterNetworks, clusterNetwork{n.CIDR, n.HostPrefix})
	}
	for _, n := range s.ServiceNetwork {
		cv.serviceNetworks = append(cv.serviceNetworks, n.CIDR)
	}
	for i := range s.Nodes {
		n := &s.Nodes[i]
		nv := nodeView{
			path: fmt.Sprintf("spec.nodes[%d]", i), hostname: n.HostName, role: n.Role,
			bootMAC: n.BootMACAddress, bootMode: n.BootMode, bmcAddress: n.BmcAddress,
			bmcCredentials: n.BmcCredentialsName.Name, installerArgs: n.InstallerArgs,
			ignitionConfigOverride: n.IgnitionConfigOverride, rootDeviceHints: n.RootDeviceHints,
			labels: n.NodeLabels, cpuArch: n.CPUArchitecture,
		}
		if n.NodeNetwork != nil {
			nv.interfaces, nv.nmstate = n.NodeNetwork.Interfaces, n.NodeNetwork.Config
		}
		v.nodes = append(v.nodes, nv)
	}
}

// certVerification reads spec.bmc.disableCertificateVerification from each
// node's rendered BareMetalHost: the default templates hard-code it, so
// the rendered object, not the site, is where the fact is.
func (v *view) certVerification(b *render.Bundle) {
	byHost := map[string]map[string]any{}
	for _, o := range b.Objects {
		if o.Kind != render.KindBareMetalHost {
			continue
		}
		host := o.Name
		if md, ok := o.Content["metadata"].(map[string]any); ok {
			if ann, ok := md["annotations"].(map[string]any); ok {
				if h, ok := ann[render.AnnotationBMACHostname].(string); ok && h != "" {
					host = h
				}
			}
		}
		byHost[host] = o.Content
	}
	for i := range v.nodes {
		n := &v.nodes[i]
		spec, _ := byHost[n.hostname]["spec"].(map[string]any)
		bmc, _ := spec["bmc"].(map[string]any)
		if d, ok := bmc["disableCertificateVerification"].(bool); ok {
			n.disableCertVerification, n.certVerifKnown = d, true
		}
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
	fields := make([][2]*ast.Term, 0, len(v.fields))
	for k, f := range v.fields {
		switch f := f.(type) {
		case string:
			fields = append(fields, item(k, b.string(f)))
		case []string:
			fields = append(fields, item(k, b.strings(f)))
		}
	}
	// Objects are made with all their items at once: an insert later
	// costs an allocation of its own.
	c := &v.cluster
	cn := make([]*ast.Term, len(c.clusterNetworks))
	for i, n := range c.clusterNetworks {
		cn[i] = ast.ObjectTerm(b.str("cidr", n.cidr), item("hostPrefix", ast.InternedTerm(n.hostPrefix)))
	}
	cluster := [][2]*ast.Term{
		b.str("name", c.name), b.str("baseDomain", c.baseDomain), b.str("imageSet", c.imageSet),
		b.str("pullSecret", c.pullSecret), b.str("sshKey", c.sshKey), b.str("networkType", c.networkType),
		b.str("platformType", c.platformType), b.str("clusterType", c.clusterType), b.str("cpuArchitecture", c.cpuArch),
		b.str("installConfigOverrides", c.installConfigOverrides), b.str("ignitionConfigOverride", c.ignitionConfigOverride),
		item("apiVIPs", b.strings(c.apiVIPs)), item("ingressVIPs", b.strings(c.ingressVIPs)),
		item("machineNetworks", b.strings(c.machineNetworks)), item("serviceNetworks", b.strings(c.serviceNetworks)),
		item("additionalNTPSources", b.strings(c.ntpSources)), item("labels", b.stringMap(c.labels)),
		item("holdInstallation", ast.InternedTerm(c.holdInstallation)), item("clusterNetworks", ast.ArrayTerm(cn...)),
	}
	if c.proxy != nil {
		cluster = append(cluster, item("proxy", ast.ObjectTerm(b.str("httpProxy", c.proxy.HttpProxy),
			b.str("httpsProxy", c.proxy.HttpsProxy), b.str("noProxy", c.proxy.NoProxy))))
	}
	nodes := make([]*ast.Term, len(v.nodes))
	for i := range v.nodes {
		n := &v.nodes[i]
		scheme, key := bmcScheme(n.bmcAddress)
		bmc := [][2]*ast.Term{b.str("address", n.bmcAddress), b.str("credentialsName", n.bmcCredentials),
			b.str("scheme", scheme), b.str("key", key)}
		if n.certVerifKnown {
			bmc = append(bmc, item("disableCertificateVerification", ast.InternedTerm(n.disableCertVerification)))
		}
		itfs := make([]*ast.Term, len(n.interfaces))
		for j, itf := range n.interfaces {
			itfs[j] = ast.ObjectTerm(b.str("name", itf.Name), b.str("macAddress", itf.MacAddress))
		}
		node := [][2]*ast.Term{
			b.str("path", n.path), b.str("hostname", n.hostname), b.str("role", n.role),
			b.str("bootMACAddress", n.bootMAC), b.str("bootMode", n.bootMode), item("bmc", ast.ObjectTerm(bmc...)),
			item("interfaces", ast.ArrayTerm(itfs...)), b.str("installerArgs", n.installerArgs),
			b.str("ignitionConfigOverride", n.ignitionConfigOverride), b.str("cpuArchitecture", n.cpuArch),
			item("labels", b.stringMap(n.labels)),
		}
		if n.nmstate != nil {
			node = append(node, item("nmstate", anyTerm(n.nmstate)))
		}
		if n.rootDeviceHints != nil {
			node = append(node, item("rootDeviceHints", anyTerm(n.rootDeviceHints)))
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
	for _, f := range v.fields {
		switch f := f.(type) {
		case string:
			yield(f)
		case []string:
			for _, p := range f {
				yield(p)
			}
		}
	}
	for i := range v.nodes {
		n := &v.nodes[i]
		yield(n.path)
		for _, f := range nodeFields {
			yield(n.path + "." + f)
		}
		for j := range n.interfaces {
			p := fmt.Sprintf("%s.nodeNetwork.interfaces[%d]", n.path, j)
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

// nodeFields are the node keys, the same in both formats, whose
// positions the input document carries.
var nodeFields = []string{"hostName", "role", "bmcAddress", "bmcCredentialsName.name", "bootMACAddress",
	"nodeNetwork.config", "rootDeviceHints", "installerArgs", "ignitionConfigOverride"}

// objectsTerm converts rendered objects, in bundle order.
func objectsTerm(b *render.Bundle) (*ast.Term, error) {
	if b == nil {
		return ast.ArrayTerm(), nil
	}
	terms := make([]*ast.Term, len(b.Objects))
	for i, o := range b.Objects {
		val, err := ast.InterfaceToValue(o.Content)
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

// anyTerm converts decoded YAML; a value that does not convert (it
// cannot happen with what sites decodes) becomes null rather than
// failing the whole site.
func anyTerm(x any) *ast.Term {
	v, err := ast.InterfaceToValue(x)
	if err != nil {
		return ast.NullTerm()
	}
	return ast.NewTerm(v)
}
