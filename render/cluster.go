package render

import (
	"sort"

	hivev1 "github.com/openshift/hive/apis/hive/v1"
	"github.com/openshift/hive/apis/hive/v1/agent"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	aiv1beta1 "github.com/siteops/siteops/apis/agentinstall/v1beta1"
	extv1beta1 "github.com/siteops/siteops/apis/hiveext/v1beta1"
	"github.com/siteops/siteops/apis/ocm"
	"github.com/siteops/siteops/sites"
)

// Builders of the cluster-level resources of a SiteConfig site, one per kind,
// in the generator's template order (clusterCRsV1.go in
// openshift-kni/cnf-features-deploy ztp/siteconfig-generator/siteConfig).

func typeMeta(apiVersion, kind string) metav1.TypeMeta {
	return metav1.TypeMeta{APIVersion: apiVersion, Kind: kind}
}

func (r *siteRender) meta(kind, name, namespace string) metav1.ObjectMeta {
	return metav1.ObjectMeta{Name: name, Namespace: namespace,
		Annotations: map[string]string{AnnotationSyncWave: itoa(syncWaves[kind])}}
}

func (r *siteRender) namespace() (any, error) {
	c := r.cluster
	md := r.meta(KindNamespace, c.ClusterName, "")
	md.Labels = map[string]string{LabelNamespaceName: c.ClusterName}
	return &corev1.Namespace{TypeMeta: typeMeta("v1", KindNamespace), ObjectMeta: md}, nil
}

func (r *siteRender) agentClusterInstall() (any, error) {
	c, spec := r.cluster, r.site.Spec()
	overrides, err := installConfigOverrides(c)
	if err != nil {
		return nil, r.fieldError("installConfigOverrides", "%v", err)
	}
	md := r.meta(KindAgentClusterInstall, c.ClusterName, c.ClusterName)
	md.Annotations[AnnotationInstallConfigOverrides] = overrides
	aci := &extv1beta1.AgentClusterInstall{
		TypeMeta:   typeMeta(extv1beta1.SchemeGroupVersion.String(), KindAgentClusterInstall),
		ObjectMeta: md,
		Spec: extv1beta1.AgentClusterInstallSpec{
			ClusterDeploymentRef: extv1beta1.LocalObjectReference{Name: c.ClusterName},
			ImageSetRef:          &extv1beta1.ClusterImageSetReference{Name: imageSet(c, spec)},
			APIVIP:               c.ApiVIP,
			IngressVIP:           c.IngressVIP,
			APIVIPs:              c.ApiVIPs,
			IngressVIPs:          c.IngressVIPs,
			HoldInstallation:     c.HoldInstallation,
			SSHPublicKey:         spec.SshPublicKey,
			ProvisionRequirements: extv1beta1.ProvisionRequirements{
				ControlPlaneAgents: int(c.NumMasters),
				WorkerAgents:       int(c.NumWorkers),
			},
			Proxy: aciProxy(c.ProxySettings),
		},
	}
	for _, n := range c.MachineNetwork {
		aci.Spec.Networking.MachineNetwork = append(aci.Spec.Networking.MachineNetwork, extv1beta1.MachineNetworkEntry{CIDR: n.Cidr})
	}
	for _, n := range c.ClusterNetwork {
		aci.Spec.Networking.ClusterNetwork = append(aci.Spec.Networking.ClusterNetwork, extv1beta1.ClusterNetworkEntry{CIDR: n.Cidr, HostPrefix: int32(n.HostPrefix)})
	}
	aci.Spec.Networking.ServiceNetwork = c.ServiceNetwork
	// v1 names one manifests ConfigMap; v2, and v1 with accelerated ZTP,
	// use the list form (the generator's clusterCRsV2.go).
	if r.site.Format == sites.FormatSiteConfigV1 && !sites.AcceleratedZTP(c) {
		aci.Spec.ManifestsConfigMapRef = &extv1beta1.LocalObjectReference{Name: c.ClusterName}
	} else {
		for _, ref := range c.ManifestsConfigMapRefs {
			aci.Spec.ManifestsConfigMapRefs = append(aci.Spec.ManifestsConfigMapRefs, extv1beta1.ManifestsConfigMapReference{Name: ref.Name})
		}
	}
	return aci, nil
}

func imageSet(c *sites.Clusters, spec *sites.Spec) string {
	if c.ClusterImageSetNameRef != "" {
		return c.ClusterImageSetNameRef
	}
	return spec.ClusterImageSetNameRef
}

func aciProxy(p sites.ProxySettings) *extv1beta1.Proxy {
	if p == (sites.ProxySettings{}) {
		return nil
	}
	return &extv1beta1.Proxy{HTTPProxy: p.HttpProxy, HTTPSProxy: p.HttpsProxy, NoProxy: p.NoProxy}
}

func (r *siteRender) clusterDeployment() (any, error) {
	c, spec := r.cluster, r.site.Spec()
	cd := &hivev1.ClusterDeployment{
		TypeMeta:   typeMeta(hivev1.SchemeGroupVersion.String(), KindClusterDeployment),
		ObjectMeta: r.meta(KindClusterDeployment, c.ClusterName, c.ClusterName),
		Spec: hivev1.ClusterDeploymentSpec{
			ClusterName: c.ClusterName,
			BaseDomain:  spec.BaseDomain,
			ClusterInstallRef: &hivev1.ClusterInstallLocalReference{
				Group: extv1beta1.Group, Version: extv1beta1.Version,
				Kind: KindAgentClusterInstall, Name: c.ClusterName,
			},
			Platform: hivev1.Platform{AgentBareMetal: &agent.BareMetalPlatform{
				AgentSelector: metav1.LabelSelector{MatchLabels: map[string]string{LabelAgentCluster: c.ClusterName}},
			}},
			PullSecretRef: &corev1.LocalObjectReference{Name: spec.PullSecretRef.Name},
		},
	}
	return cd, nil
}

func (r *siteRender) infraEnv() (any, error) {
	c, spec := r.cluster, r.site.Spec()
	ie := &aiv1beta1.InfraEnv{
		TypeMeta:   typeMeta(aiv1beta1.SchemeGroupVersion.String(), KindInfraEnv),
		ObjectMeta: r.meta(KindInfraEnv, c.ClusterName, c.ClusterName),
		Spec: aiv1beta1.InfraEnvSpec{
			ClusterRef:                 &aiv1beta1.ClusterReference{Name: c.ClusterName, Namespace: c.ClusterName},
			SSHAuthorizedKey:           spec.SshPublicKey,
			PullSecretRef:              &aiv1beta1.LocalObjectReference{Name: spec.PullSecretRef.Name},
			IgnitionConfigOverride:     c.IgnitionConfigOverride,
			AdditionalNTPSources:       c.AdditionalNTPSources,
			NMStateConfigLabelSelector: metav1.LabelSelector{MatchLabels: map[string]string{LabelNMState: c.ClusterName}},
		},
	}
	ie.Spec.Proxy = (*aiv1beta1.Proxy)(aciProxy(c.ProxySettings)) // the same three fields
	return ie, nil
}

func (r *siteRender) managedCluster() (any, error) {
	c := r.cluster
	mc := &ocm.ManagedCluster{
		TypeMeta:   typeMeta(ocm.ManagedClusterAPIVersion, KindManagedCluster),
		ObjectMeta: r.meta(KindManagedCluster, c.ClusterName, ""),
		Spec:       ocm.ManagedClusterSpec{HubAcceptsClient: true},
	}
	if len(c.ClusterLabels) > 0 {
		mc.Labels = make(map[string]string, len(c.ClusterLabels))
		keys := make([]string, 0, len(c.ClusterLabels))
		for k := range c.ClusterLabels {
			keys = append(keys, k)
		}
		sort.Strings(keys)
		for _, k := range keys {
			mc.Labels[k] = c.ClusterLabels[k]
		}
	}
	return mc, nil
}

func (r *siteRender) klusterletAddonConfig() (any, error) {
	c := r.cluster
	return &ocm.KlusterletAddonConfig{
		TypeMeta:   typeMeta(ocm.KlusterletAddonConfigAPIVersion, KindKlusterletAddonConfig),
		ObjectMeta: r.meta(KindKlusterletAddonConfig, c.ClusterName, c.ClusterName),
		Spec: ocm.KlusterletAddonConfigSpec{
			ClusterName:      c.ClusterName,
			ClusterNamespace: c.ClusterName,
			PolicyController: ocm.AddonToggle{Enabled: true},
		},
	}, nil
}
