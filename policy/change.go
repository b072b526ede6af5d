package policy

import (
	"encoding/json"
	"fmt"
	"maps"
	"reflect"
	"slices"
	"strings"

	"github.com/siteops/siteops/engine"
	"github.com/siteops/siteops/engine/assisted"
	"github.com/siteops/siteops/policy/report"
	"github.com/siteops/siteops/sites"
)

// Change rules compare a fleet with the revision before it. They are
// Go, not Rego: they need two fleets and the installation status, which a
// per-site query does not see, and they cost one pass over the fleet.

// Change is the previous revision a check compares the fleet with.
//
//	rep, err := e.Check(ctx, fleet, bundles, policy.WithChange(policy.Change{
//		Base: baseFleet, BaseRevision: "origin/main",
//		Started: map[string]bool{"marlow-sno-01": true}, AllowDeletions: 0}))
type Change struct {
	// Base is the fleet of the previous revision, as sites.Load gives it.
	Base *sites.Fleet
	// BaseRevision names it in messages (a branch, tag or hash).
	BaseRevision string
	// Started holds the sites, by name, whose installation has started:
	// see InstallStarted. Their immutable fields may not change.
	Started map[string]bool
	// StartedHosts, when it has an entry for a site, holds the host names
	// of that site whose installation has started (see
	// HostInstallStarted); only those hosts' fields are immutable. A
	// started site without an entry has every host it had in Base
	// counted as started.
	StartedHosts map[string]map[string]bool
	// AllowDeletions is how many site deletions the change is marked as
	// intending (siteops check --allow-deletions N); deleting more sites
	// than DeletionBudget allows is a finding unless it covers them all.
	AllowDeletions int
}

// CheckOption configures one Check.
type CheckOption func(*checkOptions)

type checkOptions struct {
	change *Change
	facts  *Facts
}

// WithChange adds the change rules (change.immutable-field,
// change.deletion-budget): the fleet is compared with c.Base.
func WithChange(c Change) CheckOption { return func(o *checkOptions) { o.change = &c } }

// Engine rules of changes.
const (
	RuleImmutableField = "change.immutable-field"
	RuleDeletionBudget = "change.deletion-budget"
)

// InstallStarted reports whether a site whose status has this phase and
// cluster state has started installing: a phase from Installing on, or a
// cluster state from preparing-for-installation on. From then on its
// immutable fields may not change.
func InstallStarted(phase, clusterState string) bool {
	return engine.Phase(phase).Started() || assisted.ClusterStatus(clusterState).In(assisted.ClusterStartedStatuses...)
}

// HostInstallStarted reports whether a host in this assisted-service state
// has started installing.
func HostInstallStarted(state string) bool {
	return assisted.HostStatus(state).In(assisted.HostStartedStatuses...)
}

// DeletionBudget is how many sites one change may delete without being
// marked as intended: 10 % of the fleet before the change, at least 5.
func DeletionBudget(fleetSize int) int { return max(fleetSize/10, 5) }

// immutableField is a value the installer will not take once a site (or
// host) has started installing, with why and where that is written.
type immutableField struct {
	// key is the field's name in the input document (site.cluster.<key>
	// or node.<key>).
	key string
	// what names it in messages.
	what string
	// why says what refuses or ignores the change.
	why string
	// value reads it, as text, from a normalized site or node.
	cluster func(*view) string
	node    func(*sites.NodeModel) string
	// at, when set, names the part of a node field that changed (the
	// entry of a list, the key of a map), for the position: the key
	// itself when nil.
	at func(old, now *sites.NodeModel) string
}

// Why texts of the immutable fields, each naming the upstream code that
// refuses or ignores the change.
const (
	whyACI = "the AgentClusterInstall spec is immutable once installation has started " +
		"(assisted-service pkg/webhooks/hiveextension/v1beta1/agentclusterinstall_validation_hook.go; " +
		"ClusterInstance: the siteconfig operator's webhook, api/v1alpha1/clusterinstance_webhook.go)"
	whyCD = "the ClusterDeployment's cluster name and base domain name the installed cluster " +
		"(hive pkg/validating-webhooks/hive/v1/clusterdeployment_validating_admission_hook.go; ClusterInstance: " +
		"not a path that may change after provisioning, api/v1alpha1/clusterinstance_webhook.go)"
	whyInstallConfig = "install-config overrides are applied only while the cluster is insufficient, ready, " +
		"pending-for-input or adding-hosts (assisted-service internal/bminventory/inventory.go)"
	whyInfraEnv = "the InfraEnv's cpuArchitecture is immutable " +
		"(assisted-service pkg/webhooks/agentinstall/v1beta1/infraenv_admission_hook.go)"
	whyHost = "an installed host keeps its hardware identity; bmcAddress, bootMACAddress and interface MACs " +
		"change only with a reinstall (the siteconfig operator's webhook, api/v1alpha1/clusterinstance_webhook.go)"
	whyAgent = "an Agent's role and installation disk reach assisted-service only before the host installs " +
		"(assisted-service internal/controller/controllers/agent_controller.go); the ClusterInstance webhook " +
		"refuses the change (api/v1alpha1/clusterinstance_webhook.go)"
)

// immutableCluster and immutableNode are the fields the change rule
// compares, in message order.
var immutableCluster = []immutableField{
	{key: "name", what: "cluster name", why: whyCD, cluster: func(v *view) string { return v.m.Cluster.Name }},
	{key: "baseDomain", what: "base domain", why: whyCD, cluster: func(v *view) string { return v.m.Cluster.BaseDomain }},
	{key: "imageSet", what: "image set (the release installed)", why: whyACI + "; imageSetRef itself never changes",
		cluster: func(v *view) string { return v.m.Cluster.ImageSet }},
	{key: "networkType", what: "network type", why: whyACI, cluster: func(v *view) string { return v.m.Cluster.NetworkType }},
	{key: "clusterNetworks", what: "cluster networks", why: whyACI, cluster: func(v *view) string {
		list := make([]string, len(v.m.Cluster.ClusterNetworks))
		for i, n := range v.m.Cluster.ClusterNetworks {
			list[i] = fmt.Sprintf("%s/hostPrefix %d", n.Cidr, n.HostPrefix)
		}
		return listText(list)
	}},
	{key: "machineNetworks", what: "machine networks", why: whyACI, cluster: func(v *view) string { return listText(v.m.Cluster.MachineNetworks) }},
	{key: "serviceNetworks", what: "service networks", why: whyACI, cluster: func(v *view) string { return listText(v.m.Cluster.ServiceNetworks) }},
	{key: "apiVIPs", what: "API VIPs", why: whyACI, cluster: func(v *view) string { return listText(v.m.Cluster.APIVIPs) }},
	{key: "ingressVIPs", what: "ingress VIPs", why: whyACI, cluster: func(v *view) string { return listText(v.m.Cluster.IngressVIPs) }},
	{key: "platformType", what: "platform type", why: whyACI, cluster: func(v *view) string { return v.m.Cluster.PlatformType }},
	{key: "sshKey", what: "SSH public key", why: whyACI, cluster: func(v *view) string { return v.m.Cluster.SSHKey }},
	{key: "proxy", what: "proxy", why: whyACI, cluster: func(v *view) string {
		if p := v.m.Cluster.Proxy; p != nil {
			return fmt.Sprintf("httpProxy=%s httpsProxy=%s noProxy=%s", p.HttpProxy, p.HttpsProxy, p.NoProxy)
		}
		return ""
	}},
	{key: "installConfigOverrides", what: "installConfigOverrides", why: whyInstallConfig, cluster: func(v *view) string { return v.m.Cluster.InstallConfigOverrides }},
	{key: "cpuArchitecture", what: "CPU architecture", why: whyInfraEnv, cluster: func(v *view) string { return v.m.Cluster.CPUArchitecture }},
}

var immutableNode = []immutableField{
	{key: "bootMACAddress", what: "boot MAC", why: whyHost, node: func(n *sites.NodeModel) string { return normalizeMAC(n.BootMACAddress) }},
	{key: "bmcAddress", what: "BMC address", why: whyHost, node: func(n *sites.NodeModel) string { return strings.TrimSpace(n.BmcAddress) }},
	{key: "nodeNetwork.interfaces", what: "interface MACs", why: whyHost, node: func(n *sites.NodeModel) string {
		list := make([]string, len(n.Interfaces))
		for i, itf := range n.Interfaces {
			list[i] = itf.Name + "=" + normalizeMAC(itf.MacAddress)
		}
		slices.Sort(list)
		return listText(list)
	}, at: func(old, now *sites.NodeModel) string {
		for j, itf := range now.Interfaces {
			if !slices.ContainsFunc(old.Interfaces, func(o sites.Interfaces) bool {
				return o.Name == itf.Name && normalizeMAC(o.MacAddress) == normalizeMAC(itf.MacAddress)
			}) {
				return fmt.Sprintf("nodeNetwork.interfaces[%d].macAddress", j)
			}
		}
		return "nodeNetwork.interfaces"
	}},
	{key: "role", what: "role", why: whyAgent, node: func(n *sites.NodeModel) string { return n.Role }},
	{key: "rootDeviceHints", what: "root device hints", why: whyAgent, node: func(n *sites.NodeModel) string {
		if len(n.RootDeviceHints) == 0 {
			return ""
		}
		b, _ := json.Marshal(n.RootDeviceHints) // map keys sorted: stable text
		return string(b)
	}, at: func(old, now *sites.NodeModel) string {
		for _, k := range slices.Sorted(maps.Keys(now.RootDeviceHints)) {
			if !reflect.DeepEqual(old.RootDeviceHints[k], now.RootDeviceHints[k]) {
				return "rootDeviceHints." + k
			}
		}
		return "rootDeviceHints"
	}},
}

func listText(list []string) string {
	if len(list) == 0 {
		return ""
	}
	return "[" + strings.Join(list, ", ") + "]"
}

// changeFindings compares the fleet (its views, by site) with c.Base.
// heads holds the normalized sites of the fleet by name; problems are the
// fleet's load problems, so that a site that fails to load is not taken
// for a deleted one.
func (e *Engine) changeFindings(c *Change, heads map[string]*view, problems sites.Problems) []report.Finding {
	if c.Base == nil {
		return nil
	}
	var out []report.Finding
	for _, base := range c.Base.Sites {
		head, ok := heads[base.Name]
		if !ok || !c.Started[base.Name] {
			continue
		}
		out = append(out, e.immutableFindings(c, newView(base, nil, false), head)...)
	}
	return append(out, e.deletionFindings(c, heads, problems)...)
}

// immutableFindings lists the immutable fields of a started site that
// differ between the base and the head, one finding per field.
func (e *Engine) immutableFindings(c *Change, base, head *view) []report.Finding {
	var out []report.Finding
	s := head.site
	for _, f := range immutableCluster {
		old, now := f.cluster(base), f.cluster(head)
		if old == now {
			continue
		}
		out = append(out, e.immutableFinding(c, s, head.clusterField(f.key), base.site.Pos(base.clusterField(f.key)),
			fmt.Sprintf("the %s", f.what), old, now, f.why))
	}
	hosts, perHost := c.StartedHosts[s.Name]
	byName := map[string]*sites.NodeModel{}
	for i := range base.m.Nodes {
		byName[strings.ToLower(base.m.Nodes[i].HostName)] = &base.m.Nodes[i]
	}
	for i := range head.m.Nodes {
		n := &head.m.Nodes[i]
		old, ok := byName[strings.ToLower(n.HostName)]
		if !ok || perHost && !hosts[n.HostName] {
			continue // a new host (day 2), or one not installed yet
		}
		for _, f := range immutableNode {
			was, now := f.node(old), f.node(n)
			if was == now {
				continue
			}
			sub := f.key
			if f.at != nil {
				sub = f.at(old, n)
			}
			out = append(out, e.immutableFinding(c, s, n.Path+"."+sub, base.site.Pos(old.Path+"."+f.key),
				fmt.Sprintf("the %s of host %s", f.what, n.HostName), was, now, f.why))
		}
	}
	return out
}

func (e *Engine) immutableFinding(c *Change, s *sites.Site, field string, was sites.Position, what, old, now, why string) report.Finding {
	msg := fmt.Sprintf("%s of site %s changed from %s to %s (was at %s in %s), but the site has started installing: %s",
		what, s.Name, quoteValue(old), quoteValue(now), was, baseName(c), why)
	return e.finding(RuleImmutableField, s.Name, s, field, msg)
}

// quoteValue shows a value in a message, cutting long ones (an SSH key,
// an override) to what tells them apart.
func quoteValue(v string) string {
	if v == "" {
		return "(unset)"
	}
	if len(v) > 80 {
		v = v[:60] + "…" + v[len(v)-12:]
	}
	return fmt.Sprintf("%q", v)
}

func baseName(c *Change) string {
	if c.BaseRevision != "" {
		return c.BaseRevision
	}
	return "the base revision"
}

// clusterField is the document path a cluster field of the input is read
// from: the first entry's for a list, the cluster's own for an empty one.
func (v *view) clusterField(key string) string {
	for _, f := range clusterFields {
		switch {
		case f.key != key:
		case f.list == nil:
			return f.path(&v.m.Paths)
		case len(f.list(&v.m.Paths)) > 0:
			return f.list(&v.m.Paths)[0]
		}
	}
	return v.path
}

// deletionFindings reports the sites of the base that the fleet no longer
// has, when there are more than the deletion budget and the change is not
// marked as intending them all. A site that fails to load (or render) is
// not deleted: its problems say what is wrong.
func (e *Engine) deletionFindings(c *Change, heads map[string]*view, problems sites.Problems) []report.Finding {
	broken := map[string]bool{}
	for _, p := range problems {
		if p.Severity != sites.SeverityWarning {
			broken[p.Site] = true
			broken["file:"+p.Pos.File] = true
		}
	}
	var deleted []*sites.Site
	for _, s := range c.Base.Sites {
		if _, ok := heads[s.Name]; !ok && !broken[s.Name] && !broken["file:"+s.Source.File] {
			deleted = append(deleted, s)
		}
	}
	budget := DeletionBudget(len(c.Base.Sites))
	if len(deleted) <= budget || c.AllowDeletions >= len(deleted) {
		return nil
	}
	names := make([]string, len(deleted))
	for i, s := range deleted {
		names[i] = s.Name
	}
	allowed := ""
	if c.AllowDeletions > 0 {
		allowed = fmt.Sprintf(" (it is marked as intending %d)", c.AllowDeletions)
	}
	out := make([]report.Finding, len(deleted))
	for i, s := range deleted {
		msg := fmt.Sprintf("site %s, defined at %s in %s, is deleted: this change deletes %d of %d sites (%s), more than the deletion budget of %d%s; if that is intended, mark the change with --allow-deletions %d",
			s.Name, s.Source, baseName(c), len(deleted), len(c.Base.Sites), strings.Join(names, ", "), budget, allowed, len(deleted))
		r := e.byID[RuleDeletionBudget]
		out[i] = report.Finding{Rule: r.ID, Severity: r.Severity, Site: s.Name, Message: msg, Pos: s.Source,
			Remediation: r.Remediation, Reference: r.Reference}
	}
	return out
}
