package convert

import (
	"fmt"
	"slices"
)

// crAnnotations and crSuppression rows of the mapping table (mapping.go).
//
// Both APIs key these by kind, but they reach different objects. The
// SiteConfig generator looked cluster-level entries up for every object and
// node-level entries only for node objects (NMStateConfig, BareMetalHost,
// HostFirmwareSettings); cluster-level crSuppression only ever suppressed
// cluster objects (cnf-features-deploy
// ztp/siteconfig-generator/siteConfig/siteConfigBuilder.go). In
// ClusterInstance a cluster-level entry reaches every object of the kind
// and a node-level entry reaches that node's InfraEnv, NMStateConfig and
// BareMetalHost (stolostron/siteconfig
// api/v1alpha1/clusterinstance_types.go, stolostron/siteconfig
// internal/templates/assisted-installer/template.go). Entries that had no
// effect before are not carried over, since they would take effect now.

// Kinds the default Assisted-Installer templates render
// (stolostron/siteconfig
// internal/templates/assisted-installer/template.go), per template set.
var (
	ciClusterKinds = []string{"AgentClusterInstall", "ClusterDeployment", "ManagedCluster", "KlusterletAddonConfig"}
	ciNodeKinds    = []string{"InfraEnv", "NMStateConfig", "BareMetalHost"}
	// sitecfgNodeKinds are the kinds the generator rendered per node.
	sitecfgNodeKinds = []string{"NMStateConfig", "BareMetalHost", "HostFirmwareSettings"}
	// sitecfgOnlyKinds are the generator's kinds ClusterInstance does not
	// render, with what replaces them.
	sitecfgOnlyKinds = map[string]string{
		"Namespace":            "the Namespace is created by hand now",
		"ConfigMap":            "the extra-manifest and site ConfigMaps are created by hand now",
		"HostFirmwareSettings": "BIOS settings need a custom node template now",
	}
)

func renderedByCI(kind string) bool {
	return slices.Contains(ciClusterKinds, kind) || slices.Contains(ciNodeKinds, kind)
}

// Sync-wave annotations: each API's templates write their own key, and a
// template key wins over an added annotation in both.
const (
	argoSyncWave = "argocd.argoproj.io/sync-wave"
	ciSyncWave   = "siteconfig.open-cluster-management.io/sync-wave"
)

// crAnnotations: for each kind, the cluster's entry or else the site's,
// as the generator looked them up (the first level naming a kind wins as a
// whole). ClusterInstance has no site level, so the site's entries are
// copied into every cluster.
func (c *converter) crAnnotations() {
	site, cluster := c.sc.Spec.CrAnnotations.Add, c.cluster.CrAnnotations.Add
	kinds := sortedKeys(site)
	for _, k := range sortedKeys(cluster) {
		if _, ok := site[k]; !ok {
			kinds = append(kinds, k)
		}
	}
	slices.Sort(kinds)
	out := map[string]any{}
	for _, kind := range kinds {
		ann, path := site[kind], keyPath("spec.crAnnotations.add", kind)
		if a, ok := cluster[kind]; ok {
			ann, path = a, keyPath(c.path("crAnnotations.add"), kind)
		}
		if !renderedByCI(kind) {
			c.dropKind(path, kind, "these annotations have")
			continue
		}
		c.checkSyncWave(path, ann)
		out[kind] = stringMap(ann)
	}
	if len(out) > 0 {
		c.spec["extraAnnotations"] = out
	}
}

func (c *converter) nodeCRAnnotations(i int) {
	add := c.cluster.Nodes[i].CrAnnotations.Add
	out := map[string]any{}
	for _, kind := range sortedKeys(add) {
		path := keyPath(c.nodePath(i, "crAnnotations.add"), kind)
		switch {
		case !slices.Contains(sitecfgNodeKinds, kind):
			c.noEffect(path, kind, "these annotations", "node-level crAnnotations")
		case !renderedByCI(kind):
			c.dropKind(path, kind, "these annotations have")
		default:
			c.checkSyncWave(path, add[kind])
			out[kind] = stringMap(add[kind])
		}
	}
	if len(out) > 0 {
		c.node(i)["extraAnnotations"] = out
	}
}

// checkSyncWave reports the one annotation key whose meaning flips
// between the two template sets.
func (c *converter) checkSyncWave(path string, ann map[string]string) {
	if _, ok := ann[argoSyncWave]; ok {
		c.note(keyPath(path, argoSyncWave), Changed,
			"the SiteConfig generator's own sync-wave annotation won over this one; the ClusterInstance templates write none, so it is added now, and it orders nothing: the operator applies by %s", ciSyncWave)
	}
	if _, ok := ann[ciSyncWave]; ok {
		c.note(keyPath(path, ciSyncWave), Changed,
			"the ClusterInstance templates write this annotation themselves and theirs wins, so this value is ignored now")
	}
}

// crSuppression: cluster-level entries suppressed only cluster objects.
func (c *converter) crSuppression() {
	c.suppression(c.cluster.CrSuppression, func(j int) string { return c.path(fmt.Sprintf("crSuppression[%d]", j)) },
		false, c.spec)
}

// nodeCRSuppression: node-level entries suppressed only node objects.
func (c *converter) nodeCRSuppression(i int) {
	c.suppression(c.cluster.Nodes[i].CrSuppression, func(j int) string { return c.nodePath(i, fmt.Sprintf("crSuppression[%d]", j)) },
		true, c.node(i))
}

// suppression carries a crSuppression list over to suppressedManifests in
// into: an entry for a kind of the other level never had an effect, and
// one for a kind ClusterInstance does not render is dropped.
func (c *converter) suppression(list []string, path func(j int) string, nodeLevel bool, into map[string]any) {
	level := "cluster-level crSuppression"
	if nodeLevel {
		level = "node-level crSuppression"
	}
	var out []string
	for j, kind := range list {
		switch {
		case slices.Contains(sitecfgNodeKinds, kind) != nodeLevel:
			c.noEffect(path(j), kind, "this suppression", level)
		case !renderedByCI(kind):
			c.dropKind(path(j), kind, "this suppression has")
		case !slices.Contains(out, kind):
			out = append(out, kind)
		}
	}
	if len(out) > 0 {
		into["suppressedManifests"] = stringList(out)
	}
}

// dropKind reports an entry for a kind ClusterInstance does not render;
// what is the entry as a subject with its verb ("this suppression has").
func (c *converter) dropKind(path, kind, what string) {
	if why, ok := sitecfgOnlyKinds[kind]; ok {
		c.note(path, Dropped, "the default ClusterInstance templates render no %s (%s), so %s nothing to apply to", kind, why, what)
		return
	}
	c.note(path, Dropped, "neither API renders %s objects, so %s nothing to apply to", kind, what)
}

// noEffect reports an entry the generator ignored but ClusterInstance
// would act on.
func (c *converter) noEffect(path, kind, what, level string) {
	c.note(path, Dropped, "%s never reached %s objects, so %s had no effect; in ClusterInstance it would, so it is not carried over", level, kind, what)
}
