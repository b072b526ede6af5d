package convert

import (
	"fmt"
	"slices"
	"strings"

	"github.com/siteops/siteops/render"
	"github.com/siteops/siteops/sites"
)

// Rows of the mapping table (mapping.go) for what the SiteConfig generator
// built from files and ClusterInstance leaves to the user: the
// extra-manifest ConfigMap, crTemplates, BIOS profiles and the v2 site
// ConfigMap (docs/convert.md).

// extraManifests: the generator built a ConfigMap named after the cluster
// from the extra-manifest directories and pointed the AgentClusterInstall
// at it (cnf-features-deploy
// ztp/siteconfig-generator/siteConfig/siteConfigBuilder.go).
// ClusterInstance only references ConfigMaps (extraManifestsRefs), and its
// controller refuses to render until each one exists. The reference keeps
// the generator's name, so the AgentClusterInstall points at the same
// ConfigMap as before.
func (c *converter) extraManifests() {
	name := c.site.Name
	refs := []any{map[string]any{"name": name}}
	if sites.AcceleratedZTP(c.cluster) {
		aztp := name + "-aztp"
		refs = append(refs, map[string]any{"name": aztp})
		c.note(keyPath(c.path("clusterLabels"), sites.AcceleratedZTPLabel), ManualStep,
			"accelerated ZTP added ConfigMap %s to the AgentClusterInstall, to be created later by TALM; the ClusterInstance lists it in extraManifestsRefs too, but its controller does not render the cluster until every listed ConfigMap exists: make sure %s exists, or remove it from the list", aztp, aztp)
	}
	c.spec["extraManifestsRefs"] = refs

	path := c.path("")
	switch {
	case c.cluster.ExtraManifests.SearchPaths != nil:
		path = c.path("extraManifests")
	case c.cluster.ExtraManifestPath != "":
		path = c.path("extraManifestPath")
	}
	if slices.Contains(c.cluster.CrSuppression, "ConfigMap") {
		c.note(path, ManualStep,
			"the SiteConfig suppressed its extra-manifest ConfigMap, so ConfigMap %s/%s is provided some other way; the ClusterInstance references it in extraManifestsRefs as the AgentClusterInstall did, and does not render until it exists", name, name)
		return
	}
	what := "ClusterInstance builds no extra-manifest ConfigMap, it only references one (extraManifestsRefs)"
	files, err := c.manifestFiles()
	switch {
	case err != nil:
		c.note(path, ManualStep, "%s: create ConfigMap %s/%s with the extra manifests the SiteConfig generator put in it (siteops could not list them: %v)", what, name, name, err)
	case len(files) == 0:
		c.note(path, ManualStep,
			"%s: create ConfigMap %s/%s with the extra manifests the SiteConfig generator put in it; with the extra-manifest set siteops was given it holds none, but ZTP's default set (the ztp-site-generate container's extra-manifest/ directory) fills it: pass that set (--extra-manifests-dir) to list the files, or remove the reference if the cluster needs none", what, name, name)
	default:
		c.note(path, ManualStep,
			"%s: create ConfigMap %s/%s holding the %d files the SiteConfig generator put in it (%s); `siteops render` prints that ConfigMap", what, name, name, len(files), strings.Join(files, ", "))
	}
}

// manifestFiles lists the keys of the ConfigMap the generator would have
// built, by rendering the site: the directories, filter, templates, merge
// and workload files all count, and only rendering gets them all right.
func (c *converter) manifestFiles() ([]string, error) {
	bundle, problems := c.o.renderer.Render(c.site)
	if bundle == nil {
		for _, p := range problems {
			if p.Severity == sites.SeverityError {
				return nil, fmt.Errorf("rendering the SiteConfig failed: %s", p.Message)
			}
		}
		return nil, fmt.Errorf("rendering the SiteConfig failed")
	}
	for _, o := range bundle.Objects {
		if o.Kind == render.KindConfigMap && o.Name == c.site.Name && o.Namespace == c.site.Name {
			data, _ := o.Content["data"].(map[string]any)
			return sortedKeys(data), nil
		}
	}
	return nil, nil
}

func (c *converter) mergeMachineConfigs() {
	if !c.cluster.MergeDefaultMachineConfigs {
		return
	}
	c.note(c.path("mergeDefaultMachineConfigs"), ManualStep,
		"ClusterInstance merges no MachineConfigs: the generator merged them while building the extra-manifest ConfigMap (predefined-extra-manifests-<role>.yaml), so create that ConfigMap from the merged files `siteops render` prints")
}

// siteConfigMap: the v2 site ConfigMap has no ClusterInstance counterpart.
func (c *converter) siteConfigMap() {
	scm := c.cluster.SiteConfigMap
	if scm == nil || (scm.Name == "" && len(scm.Data) == 0) {
		return // the generator rendered nothing for it either
	}
	name := scm.Name
	if name == "" {
		name = "ztp-site-" + c.site.Name
	}
	keys := "no data"
	if len(scm.Data) > 0 {
		keys = "keys " + strings.Join(sortedKeys(scm.Data), ", ")
	}
	c.note(c.path("siteConfigMap"), ManualStep,
		"ClusterInstance has no siteConfigMap: create ConfigMap %s/%s (%s) as a separate resource next to the ClusterInstance; `siteops render` prints it", scm.Namespace, name, keys)
}

// templateSet returns the default template set that renders a kind in
// ClusterInstance, and how to say where the kind goes.
func templateSet(kind string) (set, how string) {
	switch {
	case slices.Contains(ciClusterKinds, kind):
		return sites.DefaultTemplateRefs.Cluster, "edit its " + kind + " template"
	case slices.Contains(ciNodeKinds, kind):
		return sites.DefaultTemplateRefs.Node, "edit its " + kind + " template"
	case slices.Contains(sitecfgNodeKinds, kind):
		return sites.DefaultTemplateRefs.Node, "add a " + kind + " template"
	}
	return sites.DefaultTemplateRefs.Cluster, "add a " + kind + " template"
}

// crTemplate reports one override: ClusterInstance takes custom templates
// only as template ConfigMaps, which siteops does not write.
func (c *converter) crTemplate(path, kind, file, scope string) {
	set, how := templateSet(kind)
	refs := "spec.templateRefs"
	if set == sites.DefaultTemplateRefs.Node {
		refs = "spec.nodes[].templateRefs of " + scope
	}
	c.note(path, ManualStep,
		"ClusterInstance has no crTemplates: copy template ConfigMap %s/%s, %s the way %s overrides it (placeholders become .Spec and .SpecialVars.CurrentNode fields), and list the copy in %s in place of %s",
		c.o.templateNamespace, set, how, file, refs, set)
}

func (c *converter) siteCRTemplates() {
	for _, kind := range sortedKeys(c.sc.Spec.CrTemplates) {
		if _, own := c.cluster.CrTemplates[kind]; own {
			// The cluster's override wins, as in the generator
			// (siteConfigBuilder.go).
			continue
		}
		c.crTemplate(keyPath("spec.crTemplates", kind), kind, c.sc.Spec.CrTemplates[kind], "every node")
	}
}

func (c *converter) clusterCRTemplates() {
	for _, kind := range sortedKeys(c.cluster.CrTemplates) {
		c.crTemplate(keyPath(c.path("crTemplates"), kind), kind, c.cluster.CrTemplates[kind], "every node")
	}
}

func (c *converter) nodeCRTemplates(i int) {
	for _, kind := range sortedKeys(c.cluster.Nodes[i].CrTemplates) {
		c.crTemplate(keyPath(c.nodePath(i, "crTemplates"), kind), kind, c.cluster.Nodes[i].CrTemplates[kind], "this node")
	}
}

// BIOS profiles: the generator rendered a HostFirmwareSettings per node
// from the node's, else the cluster's, else the site's profile
// (cnf-features-deploy
// ztp/siteconfig-generator/siteConfig/siteConfigBuilder.go). Each level is
// reported where it was in effect.

func (c *converter) biosNote(path, file, scope string) {
	c.note(path, ManualStep,
		"ClusterInstance has no biosConfigRef, so the HostFirmwareSettings the SiteConfig rendered from %s for %s is gone: put a HostFirmwareSettings template with these settings in a custom node template ConfigMap and list it in those nodes' templateRefs next to %s",
		file, scope, sites.DefaultTemplateRefs.Node)
}

// nodesWithoutBIOS counts the nodes that fall back to a level above.
func (c *converter) nodesWithoutBIOS() int {
	n := 0
	for i := range c.cluster.Nodes {
		if c.cluster.Nodes[i].BiosConfigRef.FilePath == "" {
			n++
		}
	}
	return n
}

func (c *converter) siteBIOS() {
	file := c.sc.Spec.BiosConfigRef.FilePath
	if file == "" || c.cluster.BiosConfigRef.FilePath != "" || c.nodesWithoutBIOS() == 0 {
		return
	}
	c.biosNote("spec.biosConfigRef.filePath", file, "the nodes without their own profile")
}

func (c *converter) clusterBIOS() {
	file := c.cluster.BiosConfigRef.FilePath
	if file == "" || c.nodesWithoutBIOS() == 0 {
		return
	}
	c.biosNote(c.path("biosConfigRef.filePath"), file, "the nodes without their own profile")
}

func (c *converter) nodeBIOS(i int) {
	if file := c.cluster.Nodes[i].BiosConfigRef.FilePath; file != "" {
		c.biosNote(c.nodePath(i, "biosConfigRef.filePath"), file, "this node")
	}
}
