package render

import (
	"fmt"
	"maps"
	"slices"
	"strings"

	metal3 "github.com/metal3-io/baremetal-operator/apis/metal3.io/v1alpha1"

	"github.com/siteops/siteops/internal/redact"
	"github.com/siteops/siteops/internal/tomap"
	"github.com/siteops/siteops/sites"
)

// A ClusterInstance renders to what the SiteConfig operator's default
// Assisted-Installer templates (ai-cluster-templates-v1 and
// ai-node-templates-v1) produce (stolostron/siteconfig
// internal/templates/assisted-installer/template.go). The templates are written
// here as Go builders of the same data, value types included: the operator
// sends `networking: null` when no network is set, empty strings for an unset
// SSH key or ignition override, and explicit zeros and falses.

// ciRender is the state of rendering one ClusterInstance.
type ciRender struct {
	site     *sites.Site
	ci       *sites.ClusterInstance
	spec     *sites.ClusterInstanceSpec
	owner    string
	objs     []*Object
	suppress []string
}

func (r *Renderer) renderClusterInstance(s *sites.Site) (*Bundle, sites.Problems) {
	ci := s.Instance
	ns := ci.Metadata.Namespace
	if ns == "" {
		ns = ci.Spec.ClusterName
	}
	cr := &ciRender{site: s, ci: ci, spec: &ci.Spec, owner: ns + "_" + ci.Metadata.Name}
	if err := cr.render(); err != nil {
		var p sites.Problem
		if pp, ok := err.(sites.Problem); ok {
			p = pp
		} else {
			p = s.Problem(s.FieldPath(""), "%v", err)
		}
		return nil, sites.Problems{p}
	}
	SortByWaveAndKind(cr.objs)
	return &Bundle{Site: s.Name, Objects: cr.objs, Suppressed: cr.suppress}, nil
}

func (cr *ciRender) render() error {
	for _, b := range []struct {
		kind  string
		build func() (map[string]any, error)
	}{
		{KindAgentClusterInstall, cr.agentClusterInstall},
		{KindClusterDeployment, cr.clusterDeployment},
		{KindManagedCluster, cr.managedCluster},
		{KindKlusterletAddonConfig, cr.klusterletAddonConfig},
	} {
		content, err := b.build()
		if err != nil {
			return err
		}
		cr.add(b.kind, -1, content)
	}
	for i := range cr.spec.Nodes {
		for _, b := range []struct {
			kind  string
			build func(int) (map[string]any, error)
		}{
			{KindBareMetalHost, cr.bareMetalHost},
			{KindInfraEnv, cr.infraEnv},
			{KindNMStateConfig, cr.nmStateConfig},
		} {
			content, err := b.build(i)
			if err != nil {
				return err
			}
			if content != nil {
				cr.add(b.kind, i, content)
			}
		}
	}
	return nil
}

// add applies what every rendered object gets (stolostron/siteconfig
// internal/controller/clusterinstance/template_engine.go): suppression and
// pruning, the kind's extra annotations and labels (keys the template wrote
// win), and the owned-by label.
func (cr *ciRender) add(kind string, node int, content map[string]any) {
	md := content["metadata"].(map[string]any)
	ref := kind + " " + str(content, "metadata", "namespace") + "/" + str(content, "metadata", "name")
	if cr.suppressed(kind, str(content, "apiVersion"), node) {
		cr.suppress = append(cr.suppress, ref)
		return
	}
	annotations, labels := cr.spec.ExtraAnnotations[kind], cr.spec.ExtraLabels[kind]
	if node >= 0 {
		n := &cr.spec.Nodes[node]
		if a, ok := n.ExtraAnnotations[kind]; ok {
			annotations = a // a node's entry for a kind replaces the cluster's
		}
		if l, ok := n.ExtraLabels[kind]; ok {
			labels = l
		}
	}
	mergeMissing(ensureMap(md, "annotations"), annotations)
	l := ensureMap(md, "labels")
	mergeMissing(l, labels)
	l[LabelCIOwnedBy] = cr.owner
	cr.objs = append(cr.objs, &Object{
		APIVersion: str(content, "apiVersion"), Kind: kind,
		Namespace: str(content, "metadata", "namespace"), Name: str(content, "metadata", "name"),
		Wave: waveOf(content), Content: content,
	})
}

func mergeMissing(dst map[string]any, src map[string]string) {
	for _, k := range slices.Sorted(maps.Keys(src)) {
		if _, taken := dst[k]; !taken {
			dst[k] = src[k]
		}
	}
}

// suppressed reports whether suppressedManifests (kinds) or pruneManifests
// (apiVersion and kind), of the cluster or of the node, drop an object.
func (cr *ciRender) suppressed(kind, apiVersion string, node int) bool {
	kinds, prune := cr.spec.SuppressedManifests, cr.spec.PruneManifests
	if node >= 0 {
		kinds = append(slices.Clip(kinds), cr.spec.Nodes[node].SuppressedManifests...)
		prune = append(slices.Clip(prune), cr.spec.Nodes[node].PruneManifests...)
	}
	if slices.Contains(kinds, kind) {
		return true
	}
	return slices.ContainsFunc(prune, func(p sites.ResourceRef) bool { return p.Kind == kind && p.APIVersion == apiVersion })
}

func ciMeta(kind, name, namespace string) map[string]any {
	md := map[string]any{
		"name":        name,
		"annotations": map[string]any{AnnotationCISyncWave: itoa(ciWaves[kind])},
	}
	if namespace != "" {
		md["namespace"] = namespace
	}
	return md
}

func (cr *ciRender) agentClusterInstall() (map[string]any, error) {
	s := cr.spec
	overrides, err := mergeInstallConfig(s.NetworkType, s.InstallConfigOverrides, s.CPUPartitioning, true)
	if err != nil {
		return nil, cr.site.Problem("spec.installConfigOverrides", "%v", err)
	}
	// The template writes the annotation in single quotes.
	if overrides, err = quoted(overrides, '\''); err != nil {
		return nil, cr.site.Problem("spec.installConfigOverrides", "%v", err)
	}
	md := ciMeta(KindAgentClusterInstall, s.ClusterName, s.ClusterName)
	md["annotations"].(map[string]any)[AnnotationInstallConfigOverrides] = overrides
	workers := int64(s.Count(sites.RoleWorker))
	if s.ClusterType == sites.ClusterTypeCISNO {
		workers = 0 // so that adding workers to an SNO later leaves the ACI alone
	}
	spec := map[string]any{
		"clusterDeploymentRef": map[string]any{"name": s.ClusterName},
		"holdInstallation":     s.HoldInstallation,
		"imageSetRef":          map[string]any{"name": s.ClusterImageSetNameRef},
		"networking":           ciNetworking(s),
		"provisionRequirements": map[string]any{
			"controlPlaneAgents": int64(s.Count(sites.RoleMaster)),
			"workerAgents":       workers,
			"arbiterAgents":      int64(s.Count(sites.RoleArbiter)),
		},
		"sshPublicKey": foldQuoted(s.SSHPublicKey),
	}
	if len(s.ApiVIPs) > 0 {
		spec["apiVIPs"] = stringList(s.ApiVIPs)
	}
	if len(s.IngressVIPs) > 0 {
		spec["ingressVIPs"] = stringList(s.IngressVIPs)
	}
	if p := ciProxy(s.Proxy); p != nil {
		spec["proxy"] = p
	}
	if s.PlatformType != "" {
		spec["platformType"] = s.PlatformType
	}
	if len(s.ExtraManifestsRefs) > 0 {
		refs := make([]any, len(s.ExtraManifestsRefs))
		for i, r := range s.ExtraManifestsRefs {
			refs[i] = map[string]any{"name": r.Name}
		}
		spec["manifestsConfigMapRefs"] = refs
	}
	return map[string]any{"apiVersion": "extensions.hive.openshift.io/v1beta1", "kind": KindAgentClusterInstall,
		"metadata": md, "spec": spec}, nil
}

// ciNetworking is the ACI's networking: nil (the template writes an empty
// "networking:") when no network is set.
func ciNetworking(s *sites.ClusterInstanceSpec) any {
	n := map[string]any{}
	if len(s.ClusterNetwork) > 0 {
		l := make([]any, len(s.ClusterNetwork))
		for i, c := range s.ClusterNetwork {
			e := map[string]any{"cidr": c.CIDR}
			if c.HostPrefix != 0 {
				e["hostPrefix"] = int64(c.HostPrefix)
			}
			l[i] = e
		}
		n["clusterNetwork"] = l
	}
	if len(s.MachineNetwork) > 0 {
		l := make([]any, len(s.MachineNetwork))
		for i, m := range s.MachineNetwork {
			l[i] = map[string]any{"cidr": m.CIDR}
		}
		n["machineNetwork"] = l
	}
	if len(s.ServiceNetwork) > 0 {
		l := make([]any, len(s.ServiceNetwork))
		for i, m := range s.ServiceNetwork {
			l[i] = m.CIDR // the ACI takes plain strings
		}
		n["serviceNetwork"] = l
	}
	if len(n) == 0 {
		return nil
	}
	return n
}

// ciProxy is the proxy as the templates write it: whenever the field is
// set, even to {}.
func ciProxy(p *sites.ProxySettings) map[string]any {
	if p == nil {
		return nil
	}
	m := map[string]any{}
	for k, v := range map[string]string{"httpProxy": p.HttpProxy, "httpsProxy": p.HttpsProxy, "noProxy": p.NoProxy} {
		if v != "" {
			m[k] = v
		}
	}
	return m
}

func stringList(s []string) []any {
	l := make([]any, len(s))
	for i, v := range s {
		l[i] = v
	}
	return l
}

func (cr *ciRender) clusterDeployment() (map[string]any, error) {
	s := cr.spec
	return map[string]any{"apiVersion": "hive.openshift.io/v1", "kind": KindClusterDeployment,
		"metadata": ciMeta(KindClusterDeployment, s.ClusterName, s.ClusterName),
		"spec": map[string]any{
			"baseDomain": s.BaseDomain,
			"clusterInstallRef": map[string]any{"group": "extensions.hive.openshift.io", "kind": KindAgentClusterInstall,
				"name": s.ClusterName, "version": "v1beta1"},
			"clusterName": s.ClusterName,
			"platform": map[string]any{"agentBareMetal": map[string]any{"agentSelector": map[string]any{
				"matchLabels": map[string]any{LabelAgentCluster: s.ClusterName}}}},
			"pullSecretRef": map[string]any{"name": s.PullSecretRef.Name},
		}}, nil
}

func (cr *ciRender) managedCluster() (map[string]any, error) {
	md := ciMeta(KindManagedCluster, cr.spec.ClusterName, "")
	md["labels"] = map[string]any{LabelCloud: LabelValueAutoDetect, LabelVendor: LabelValueAutoDetect}
	return map[string]any{"apiVersion": "cluster.open-cluster-management.io/v1", "kind": KindManagedCluster,
		"metadata": md, "spec": map[string]any{"hubAcceptsClient": true}}, nil
}

func (cr *ciRender) klusterletAddonConfig() (map[string]any, error) {
	s := cr.spec
	off := func() map[string]any { return map[string]any{"enabled": false} }
	return map[string]any{"apiVersion": "agent.open-cluster-management.io/v1", "kind": KindKlusterletAddonConfig,
		"metadata": ciMeta(KindKlusterletAddonConfig, s.ClusterName, s.ClusterName),
		"spec": map[string]any{
			"clusterName": s.ClusterName, "clusterNamespace": s.ClusterName,
			"applicationManager": off(), "certPolicyController": off(), "iamPolicyController": off(),
			"policyController": map[string]any{"enabled": true}, "searchCollector": off(),
		}}, nil
}

// hostObject is the name and namespace of a node's host objects: the
// hostRef when the node names one.
func (cr *ciRender) hostObject(i int) (name, namespace string) {
	n := &cr.spec.Nodes[i]
	if n.HostRef != nil && n.HostRef.Name != "" {
		return n.HostRef.Name, n.HostRef.Namespace
	}
	return n.HostName, cr.spec.ClusterName
}

// architecture is the node's CPU architecture, or the cluster's unless it
// is "multi" (then none).
func (cr *ciRender) architecture(i int) string {
	if a := cr.spec.Nodes[i].CPUArchitecture; a != "" {
		return a
	}
	if a := cr.spec.CPUArchitecture; a != CIArchitectureMulti {
		return a
	}
	return ""
}

func (cr *ciRender) infraEnv(i int) (map[string]any, error) {
	s := cr.spec
	name, ns := cr.hostObject(i)
	ignition, err := quoted(s.IgnitionConfigOverride, '\'')
	if err != nil {
		return nil, cr.site.Problem("spec.ignitionConfigOverride", "%v", err)
	}
	spec := map[string]any{
		"clusterRef":                 map[string]any{"name": s.ClusterName, "namespace": s.ClusterName},
		"sshAuthorizedKey":           foldQuoted(s.SSHPublicKey),
		"pullSecretRef":              map[string]any{"name": s.PullSecretRef.Name},
		"ignitionConfigOverride":     ignition, // the cluster's; a node's goes to its BMH
		"nmStateConfigLabelSelector": map[string]any{"matchLabels": map[string]any{LabelNMState: name}},
	}
	if a := cr.architecture(i); a != "" {
		spec["cpuArchitecture"] = a
	}
	if p := ciProxy(s.Proxy); p != nil {
		spec["proxy"] = p
	}
	if len(s.AdditionalNTPSources) > 0 {
		spec["additionalNTPSources"] = stringList(s.AdditionalNTPSources)
	}
	return map[string]any{"apiVersion": "agent-install.openshift.io/v1beta1", "kind": KindInfraEnv,
		"metadata": ciMeta(KindInfraEnv, name, ns), "spec": spec}, nil
}

func (cr *ciRender) nmStateConfig(i int) (map[string]any, error) {
	n := &cr.spec.Nodes[i]
	if n.NodeNetwork == nil {
		return nil, nil // rendered only with a static network
	}
	name, ns := cr.hostObject(i)
	md := ciMeta(KindNMStateConfig, name, ns)
	md["labels"] = map[string]any{LabelNMState: name}
	spec := map[string]any{"config": nil, "interfaces": nil}
	if n.NodeNetwork.Config != nil {
		spec["config"] = tomap.Copy(n.NodeNetwork.Config)
	}
	if len(n.NodeNetwork.Interfaces) > 0 {
		l := make([]any, len(n.NodeNetwork.Interfaces))
		for j, itf := range n.NodeNetwork.Interfaces {
			l[j] = map[string]any{"name": itf.Name, "macAddress": itf.MacAddress}
		}
		spec["interfaces"] = l
	}
	return map[string]any{"apiVersion": "agent-install.openshift.io/v1beta1", "kind": KindNMStateConfig,
		"metadata": md, "spec": spec}, nil
}

func (cr *ciRender) bareMetalHost(i int) (map[string]any, error) {
	n := &cr.spec.Nodes[i]
	name, ns := cr.hostObject(i)
	md := ciMeta(KindBareMetalHost, name, ns)
	ann := md["annotations"].(map[string]any)
	ann[AnnotationInspect] = n.IronicInspect
	for k, v := range n.NodeLabels {
		ann[AnnotationBMACNodeLabelPrefix+k] = v
	}
	ann[AnnotationBMACHostname] = n.HostName
	for _, a := range []struct{ key, value, field string }{
		{AnnotationBMACInstallerArgs, n.InstallerArgs, "installerArgs"},
		{AnnotationBMACIgnitionOverride, n.IgnitionConfigOverride, "ignitionConfigOverride"},
	} {
		if a.value == "" {
			continue
		}
		v, err := quoted(a.value, '\'')
		if err != nil {
			return nil, cr.site.Problem(fmt.Sprintf("spec.nodes[%d].%s", i, a.field), "%v", err)
		}
		ann[a.key] = v
	}
	ann[AnnotationBMACRole] = n.Role
	md["labels"] = map[string]any{LabelInfraEnv: name, LabelBackup: LabelBackupValue}
	spec := map[string]any{
		"bootMode": n.BootMode,
		"bmc": map[string]any{"address": redact.URL(n.BmcAddress), "disableCertificateVerification": true,
			"credentialsName": n.BmcCredentialsName.Name},
		"bootMACAddress":        n.BootMACAddress,
		"automatedCleaningMode": n.AutomatedCleaningMode,
		"online":                true,
	}
	if a := cr.architecture(i); a != "" {
		spec["architecture"] = a
	}
	if n.RootDeviceHints != nil { // written whenever set, even to {}
		hints := &metal3.RootDeviceHints{}
		if err := strictConvert(n.RootDeviceHints, hints); err != nil {
			return nil, cr.site.Problem(fmt.Sprintf("spec.nodes[%d].rootDeviceHints", i), "%v", err)
		}
		m, err := tomap.Convert(hints)
		if err != nil {
			return nil, err
		}
		spec["rootDeviceHints"] = m
	}
	return map[string]any{"apiVersion": "metal3.io/v1alpha1", "kind": KindBareMetalHost,
		"metadata": md, "spec": spec}, nil
}

// foldQuoted is what a YAML parser makes of s written inside a quoted
// scalar of a template line, as the operator's templates write these
// fields: line breaks fold to spaces (an empty line keeps one), and white
// space around a break goes.
func foldQuoted(s string) string {
	if !strings.ContainsAny(s, "\n\r") {
		return s
	}
	lines := strings.Split(strings.ReplaceAll(s, "\r\n", "\n"), "\n")
	var b strings.Builder
	for i, ln := range lines {
		if i > 0 {
			ln = strings.TrimLeft(ln, " \t")
		}
		if i < len(lines)-1 {
			ln = strings.TrimRight(ln, " \t")
		}
		switch {
		case i == 0:
		case ln == "" && i < len(lines)-1:
			b.WriteByte('\n')
			continue
		default:
			if !strings.HasSuffix(b.String(), "\n") {
				b.WriteByte(' ')
			}
		}
		b.WriteString(ln)
	}
	return b.String()
}

// quoted checks that s can sit inside the template's quotes, and folds it
// as the YAML parser would.
func quoted(s string, quote byte) (string, error) {
	if strings.IndexByte(s, quote) >= 0 {
		return "", fmt.Errorf("the value contains %c, which ends the quoted value in the operator's template (its YAML would not parse)", quote)
	}
	return foldQuoted(s), nil
}
