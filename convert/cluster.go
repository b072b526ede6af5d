package convert

import (
	"slices"
	"strings"

	"github.com/siteops/siteops/sites"
)

// Cluster- and site-level rows of the mapping table (mapping.go).

func (c *converter) clusterName() {
	name := c.site.Name
	c.meta["name"] = name
	// The default templates put every object in namespace <clusterName>
	// and the controller looks up the pull and BMC Secrets in the
	// ClusterInstance's own namespace: the two must be the same.
	c.meta["namespace"] = name
	c.spec["clusterName"] = name
}

func (c *converter) baseDomain() {
	if d := c.sc.Spec.BaseDomain; d != "" {
		c.spec["baseDomain"] = d
		return
	}
	c.fail("spec.baseDomain", "set spec.baseDomain; ClusterInstance requires it",
		"baseDomain is empty, and a ClusterInstance requires one")
}

func (c *converter) pullSecret() {
	if n := c.sc.Spec.PullSecretRef.Name; n != "" {
		c.spec["pullSecretRef"] = map[string]any{"name": n}
		return
	}
	c.fail("spec.pullSecretRef.name", "name the pull-secret Secret in spec.pullSecretRef.name",
		"pullSecretRef.name is empty, and a ClusterInstance requires one")
}

// imageSet: the cluster's ref, else the site's; the site model resolves
// it that way for every reader.
func (c *converter) imageSet() { c.spec["clusterImageSetNameRef"] = c.site.Model().Cluster.ImageSet }

func (c *converter) sshPublicKey() { setString(c.spec, "sshPublicKey", c.sc.Spec.SshPublicKey) }

func (c *converter) sshPrivateKey() {
	if c.sc.Spec.SshPrivateKeySecretRef.Name == "" {
		return
	}
	c.note("spec.sshPrivateKeySecretRef.name", Dropped,
		"ClusterInstance has no sshPrivateKeySecretRef; the SiteConfig generator never rendered it either, so nothing changes: remove it")
}

// clusterType is explicit in ClusterInstance; SiteConfig derived it from
// the master count (cnf-features-deploy
// ztp/siteconfig-generator/siteConfig/siteConfig.go), which is what the
// webhook's node-count rules check against (stolostron/siteconfig
// api/v1alpha1/clusterinstance_webhook.go).
func (c *converter) clusterType() {
	t := sites.ClusterTypeCIHA
	if c.cluster.NumMasters == 1 {
		t = sites.ClusterTypeCISNO
	}
	c.spec["clusterType"] = t
}

func (c *converter) templateRefs() {
	ref := func(name string) []any {
		return []any{map[string]any{"name": name, "namespace": c.o.templateNamespace}}
	}
	c.spec["templateRefs"] = ref(sites.DefaultTemplateRefs.Cluster)
	for i := range c.nodes {
		c.node(i)["templateRefs"] = ref(sites.DefaultTemplateRefs.Node)
	}
}

// vipList carries a VIP list over; ClusterInstance allows one per IP family.
func (c *converter) vipList(field string, vips []string) {
	if len(vips) == 0 {
		return
	}
	if len(vips) > 2 {
		c.fail(c.path(field), "keep one VIP per IP family", "%s has %d entries; ClusterInstance allows at most 2 (one per IP family)", field, len(vips))
	}
	c.spec[field] = stringList(vips)
}

func (c *converter) apiVIPs()     { c.vipList("apiVIPs", c.cluster.ApiVIPs) }
func (c *converter) ingressVIPs() { c.vipList("ingressVIPs", c.cluster.IngressVIPs) }
func (c *converter) apiVIP()      { c.singularVIP("apiVIP", "apiVIPs", c.cluster.ApiVIP, c.cluster.ApiVIPs) }
func (c *converter) ingressVIP() {
	c.singularVIP("ingressVIP", "ingressVIPs", c.cluster.IngressVIP, c.cluster.IngressVIPs)
}

// singularVIP folds apiVIP/ingressVIP into the list ClusterInstance has.
// The generator copied both forms into the AgentClusterInstall; when they
// disagree, the list wins, as in the upstream converter.
func (c *converter) singularVIP(field, list, vip string, vips []string) {
	if vip == "" {
		return
	}
	path := c.path(field)
	switch {
	case len(vips) == 0:
		c.spec[list] = []any{vip}
		c.note(path, Renamed, "ClusterInstance has only %s: written as %s with this one address", list, list)
	case vips[0] == vip:
		c.note(path, Renamed, "ClusterInstance has only %s, whose first entry is this address already: left out", list)
	default:
		c.note(path, Changed, "ClusterInstance has only %s, and this address is not its first entry: left out, so the AgentClusterInstall no longer carries it; add it to %s if it is the other IP family's VIP", list, list)
	}
}

func (c *converter) holdInstallation() {
	if c.cluster.HoldInstallation {
		c.spec["holdInstallation"] = true
	}
}

func (c *converter) ntpSources() {
	if s := c.cluster.AdditionalNTPSources; len(s) > 0 {
		c.spec["additionalNTPSources"] = stringList(s)
	}
}

func (c *converter) machineNetwork() {
	nets := c.cluster.MachineNetwork
	if len(nets) == 0 {
		return
	}
	out := make([]any, len(nets))
	for i, n := range nets {
		out[i] = map[string]any{"cidr": n.Cidr}
	}
	c.spec["machineNetwork"] = out
}

func (c *converter) clusterNetwork() {
	nets := c.cluster.ClusterNetwork
	if len(nets) == 0 {
		return
	}
	out := make([]any, len(nets))
	for i, n := range nets {
		e := map[string]any{"cidr": n.Cidr}
		if n.HostPrefix != 0 {
			e["hostPrefix"] = int64(n.HostPrefix)
		}
		out[i] = e
	}
	c.spec["clusterNetwork"] = out
}

func (c *converter) serviceNetwork() {
	if s := c.cluster.ServiceNetwork; len(s) > 0 {
		c.spec["serviceNetwork"] = cidrList(s)
	}
}

var networkTypes = []string{"OVNKubernetes", "OpenShiftSDN"}

func (c *converter) networkType() {
	t := c.cluster.NetworkType
	if !slices.Contains(networkTypes, t) {
		c.fail(c.path("networkType"), "use OVNKubernetes or OpenShiftSDN",
			"networkType is not one ClusterInstance accepts (the SiteConfig generator copied any text into the install-config overrides)")
		return
	}
	c.spec["networkType"] = t
}

func (c *converter) installConfigOverrides() {
	setString(c.spec, "installConfigOverrides", c.cluster.InstallConfigOverrides)
}

func (c *converter) cpuPartitioning() {
	if c.cluster.CPUPartitioning == sites.CPUPartitioningAllNodes {
		c.spec["cpuPartitioningMode"] = string(sites.CPUPartitioningAllNodes)
	}
}

func (c *converter) ignitionOverride() {
	s := c.cluster.IgnitionConfigOverride
	if s == "" {
		return
	}
	if !validJSON(s) {
		c.fail(c.path("ignitionConfigOverride"), "write the override as a JSON ignition config",
			"ignitionConfigOverride is not valid JSON; the SiteConfig generator copied it as is, the ClusterInstance webhook rejects it")
		return
	}
	c.spec["ignitionConfigOverride"] = s
}

func (c *converter) proxy() {
	p := c.cluster.ProxySettings
	m := map[string]any{}
	setString(m, "httpProxy", p.HttpProxy)
	setString(m, "httpsProxy", p.HttpsProxy)
	setString(m, "noProxy", p.NoProxy)
	if len(m) > 0 {
		c.spec["proxy"] = m
	}
}

// diskEncryptionTypes maps SiteConfig's encryption types to
// ClusterInstance's (cnf-features-deploy
// ztp/siteconfig-generator/siteConfig/siteConfig.go, stolostron/siteconfig
// api/v1alpha1/clusterinstance_types.go).
var diskEncryptionTypes = map[string]string{"none": "none", "tpm2": "tpmv2", "nbde": "tang"}

// diskEncryption carries the settings over, but their effect does not
// come along: the generator only fed them to the disk-encryption
// extra-manifest template, and the default ClusterInstance templates do
// not read them at all.
func (c *converter) diskEncryption() {
	de := c.cluster.DiskEncryption
	if (de.Type == "" || de.Type == sites.DefaultDiskEncryptionType) && len(de.Tang) == 0 && de.Tpm2.PCRList == "" {
		return
	}
	out := map[string]any{}
	if t, ok := diskEncryptionTypes[de.Type]; ok {
		out["type"] = t
		if t != de.Type {
			c.note(c.path("diskEncryption.type"), Renamed, "ClusterInstance spells type %q as %q", de.Type, t)
		}
	} else {
		c.note(c.path("diskEncryption.type"), Dropped, "this type is not one ClusterInstance knows (none, tpmv2, tang): left out")
	}
	if len(de.Tang) > 0 {
		tang := make([]any, len(de.Tang))
		for i, t := range de.Tang {
			e := map[string]any{}
			setString(e, "url", t.URL)
			setString(e, "thumbprint", t.Thumbprint)
			tang[i] = e
		}
		out["tang"] = tang
	}
	if de.Tpm2.PCRList != "" {
		c.note(c.path("diskEncryption.tpm2.pcrList"), Dropped,
			"ClusterInstance has no PCR list; put it in the disk-encryption MachineConfig of the extra-manifest ConfigMap")
	}
	c.spec["diskEncryption"] = out
	c.note(c.path("diskEncryption"), Changed,
		"the SiteConfig generator used diskEncryption only as data for the disk-encryption extra-manifest template, and the default ClusterInstance templates do not read it: the encryption MachineConfig must be in the extra-manifest ConfigMap the ClusterInstance references")
}

// Labels the default ManagedCluster template writes itself; template keys
// win over extraLabels (stolostron/siteconfig
// internal/templates/assisted-installer/template.go).
var managedClusterTemplateLabels = []string{"vendor", "cloud"}

func (c *converter) clusterLabels() {
	labels := c.cluster.ClusterLabels
	if len(labels) == 0 {
		return
	}
	extraLabels(c.spec)["ManagedCluster"] = stringMap(labels)
	for _, k := range managedClusterTemplateLabels {
		if v, ok := labels[k]; ok && v != "auto-detect" {
			c.note(keyPath(c.path("clusterLabels"), k), Changed,
				"the ClusterInstance ManagedCluster template sets %s: auto-detect itself and its value wins over extraLabels, so this value no longer reaches the ManagedCluster; use a custom cluster template to keep it", k)
		}
	}
}

func extraLabels(spec map[string]any) map[string]any {
	m, ok := spec["extraLabels"].(map[string]any)
	if !ok {
		m = map[string]any{}
		spec["extraLabels"] = m
	}
	return m
}

// namespace: the generator rendered the cluster's Namespace;
// ClusterInstance lives in that namespace and renders none
// (stolostron/siteconfig
// internal/templates/assisted-installer/template.go).
func (c *converter) namespace() {
	c.note(c.path("clusterName"), ManualStep,
		"ClusterInstance renders no Namespace and is itself created in namespace %s: create that Namespace (the SiteConfig rendered it) before the ClusterInstance, with the pull and BMC Secrets in it as before", c.site.Name)
}

// agentClusterInstall warns about the AgentClusterInstall fields whose
// shape changes: assisted-service refuses spec changes once installation
// has started, so migrating an installed cluster needs care (upstream
// converter README, "Live cluster migration").
func (c *converter) agentClusterInstall() {
	var changes []string
	if c.site.Format == sites.FormatSiteConfigV1 {
		changes = append(changes, "manifestsConfigMapRef becomes manifestsConfigMapRefs")
	}
	if c.cluster.ApiVIP != "" {
		changes = append(changes, "apiVIP is no longer set")
	}
	if c.cluster.IngressVIP != "" {
		changes = append(changes, "ingressVIP is no longer set")
	}
	if len(changes) == 0 {
		return
	}
	c.note(c.path(""), Changed,
		"the AgentClusterInstall the ClusterInstance renders differs from the SiteConfig's (%s), and assisted-service refuses that change on a cluster whose installation has started: for an installed cluster, add AgentClusterInstall to spec.suppressedManifests or reference a custom cluster template that keeps the old fields",
		strings.Join(changes, "; "))
}
