package convert

// The field mapping, SiteConfig → ClusterInstance, in one place.
//
// Sources: the SiteConfig schema and what the generator does with each
// field are in cnf-features-deploy ztp/siteconfig-generator/siteConfig
// (siteConfig.go, siteConfigBuilder.go); the ClusterInstance schema is
// stolostron/siteconfig api/v1alpha1/clusterinstance_types.go and its
// default Assisted-Installer templates internal/templates/assisted-installer/
// template.go. docs/convert.md sets out the differences between the two
// APIs (fields dropped or renamed, crTemplates, crAnnotations,
// crSuppression, clusterLabels, extra manifests, ironicInspect, cluster
// type). The upstream converter (cnf-features-deploy
// ztp/tools/siteconfig-converter) maps the same way where the two agree;
// where this table differs it says why in the row's function.
//
// Every field of sites.SiteConfig, sites.Clusters and sites.Nodes has a row
// (TestEveryFieldHasARule); docs/convert.md shows this table
// (TestDocsMappingTable, go test ./convert -run DocsMapping -update).

// rule maps one site- or cluster-level SiteConfig field.
type rule struct {
	// from is the SiteConfig field: "spec.x" at site level,
	// "spec.clusters[].x" in the cluster.
	from string
	// to is the ClusterInstance field, or "" when nothing carries it.
	to string
	// how says in a few words what happens, for the docs table.
	how string
	// conv carries the field over and reports; nil when there is nothing
	// to do (the field never affected what the generator rendered).
	conv func(c *converter)
}

// nodeRule maps one field of a node, spec.clusters[].nodes[].x.
type nodeRule struct {
	from, to, how string
	conv          func(c *converter, i int)
}

var rules = []rule{
	{"apiVersion", "apiVersion", "always " + "`siteconfig.open-cluster-management.io/v1alpha1`", nil},
	{"kind", "kind", "always `ClusterInstance`", nil},
	{"metadata.name", "", "not carried: it only grouped the generator's output", nil},
	{"metadata.namespace", "", "not carried: the generator never used it", nil},
	{"metadata.labels", "", "not carried: the generator never used them", nil},
	{"metadata.annotations", "", "not carried: the generator never used them", nil},
	{"spec.clusters[].clusterName", "metadata.name, metadata.namespace, spec.clusterName", "same; the ClusterInstance lives in the cluster's namespace", (*converter).clusterName},
	{"spec.baseDomain", "spec.baseDomain", "same (required)", (*converter).baseDomain},
	{"spec.pullSecretRef.name", "spec.pullSecretRef.name", "same (required)", (*converter).pullSecret},
	{"spec.clusters[].clusterImageSetNameRef", "spec.clusterImageSetNameRef", "the cluster's, else the site's", (*converter).imageSet},
	{"spec.clusterImageSetNameRef", "spec.clusterImageSetNameRef", "used when the cluster sets none", nil},
	{"spec.sshPublicKey", "spec.sshPublicKey", "same", (*converter).sshPublicKey},
	{"spec.sshPrivateKeySecretRef", "", "dropped (never rendered)", (*converter).sshPrivateKey},
	{"spec.clusters", "(one ClusterInstance per entry)", "each cluster is converted on its own", nil},
	{"spec.clusters[].nodes", "spec.nodes", "one entry per node, see the node rows", nil},
	{"(master count of spec.clusters[].nodes)", "spec.clusterType", "`SNO` with exactly one master, else `HighlyAvailable`", (*converter).clusterType},
	{"(none)", "spec.templateRefs, spec.nodes[].templateRefs", "the default `ai-cluster-templates-v1` / `ai-node-templates-v1` (namespace: --template-namespace)", (*converter).templateRefs},
	{"spec.clusters[].apiVIPs", "spec.apiVIPs", "same", (*converter).apiVIPs},
	{"spec.clusters[].apiVIP", "spec.apiVIPs", "renamed: a list of one", (*converter).apiVIP},
	{"spec.clusters[].ingressVIPs", "spec.ingressVIPs", "same", (*converter).ingressVIPs},
	{"spec.clusters[].ingressVIP", "spec.ingressVIPs", "renamed: a list of one", (*converter).ingressVIP},
	{"spec.clusters[].holdInstallation", "spec.holdInstallation", "same (written when true)", (*converter).holdInstallation},
	{"spec.clusters[].additionalNTPSources", "spec.additionalNTPSources", "same", (*converter).ntpSources},
	{"spec.clusters[].machineNetwork", "spec.machineNetwork", "same (`{cidr}`)", (*converter).machineNetwork},
	{"spec.clusters[].clusterNetwork", "spec.clusterNetwork", "same (`{cidr, hostPrefix}`)", (*converter).clusterNetwork},
	{"spec.clusters[].serviceNetwork", "spec.serviceNetwork", "each CIDR string becomes `{cidr}`", (*converter).serviceNetwork},
	{"spec.clusters[].networkType", "spec.networkType", "same; must be OVNKubernetes or OpenShiftSDN", (*converter).networkType},
	{"spec.clusters[].installConfigOverrides", "spec.installConfigOverrides", "same (merged with networkType the same way)", (*converter).installConfigOverrides},
	{"spec.clusters[].cpuPartitioningMode", "spec.cpuPartitioningMode", "same (written when AllNodes)", (*converter).cpuPartitioning},
	{"spec.clusters[].ignitionConfigOverride", "spec.ignitionConfigOverride", "same; must be JSON", (*converter).ignitionOverride},
	{"spec.clusters[].proxy", "spec.proxy", "same", (*converter).proxy},
	{"spec.clusters[].diskEncryption", "spec.diskEncryption", "changed: type tpm2 → tpmv2, nbde → tang; tpm2.pcrList dropped; unused by the default templates", (*converter).diskEncryption},
	{"spec.clusters[].clusterLabels", "spec.extraLabels.ManagedCluster", "renamed; vendor/cloud now always auto-detect", (*converter).clusterLabels},
	{"spec.crAnnotations", "spec.extraAnnotations", "per kind, when the cluster does not name the kind", nil},
	{"spec.clusters[].crAnnotations", "spec.extraAnnotations", "per kind (cluster level wins over site level as a whole, as before); kinds ClusterInstance does not render are dropped", (*converter).crAnnotations},
	{"spec.clusters[].crSuppression", "spec.suppressedManifests", "cluster kinds only, as before; node kinds had no effect and are dropped", (*converter).crSuppression},
	{"spec.clusters[].extraManifests", "spec.extraManifestsRefs", "manual step: a ConfigMap named after the cluster, which the user creates", (*converter).extraManifests},
	{"spec.clusters[].extraManifestPath", "spec.extraManifestsRefs", "manual step: its files go into that ConfigMap", nil},
	{"spec.clusters[].mergeDefaultMachineConfigs", "", "manual step: put the merged MachineConfigs in that ConfigMap", (*converter).mergeMachineConfigs},
	{"spec.crTemplates", "spec.templateRefs", "manual step: custom template ConfigMaps", (*converter).siteCRTemplates},
	{"spec.clusters[].crTemplates", "spec.templateRefs", "manual step: custom template ConfigMaps", (*converter).clusterCRTemplates},
	{"spec.biosConfigRef", "", "manual step: a HostFirmwareSettings node template", (*converter).siteBIOS},
	{"spec.clusters[].biosConfigRef", "", "manual step: a HostFirmwareSettings node template", (*converter).clusterBIOS},
	{"spec.clusters[].siteConfigMap", "", "manual step: create the ConfigMap as a separate resource (v2)", (*converter).siteConfigMap},
	{"(AgentClusterInstall shape)", "", "changed: manifestsConfigMapRef (v1), apiVIP and ingressVIP are no longer rendered", (*converter).agentClusterInstall},
	{"(Namespace object)", "", "manual step: ClusterInstance renders no Namespace; create it", (*converter).namespace},
}

var nodeRules = []nodeRule{
	{"spec.clusters[].nodes[].hostName", "spec.nodes[].hostName", "same (required)", (*converter).hostName},
	{"spec.clusters[].nodes[].role", "spec.nodes[].role", "master and worker as is; `\"\"` → master, anything else → worker", (*converter).role},
	{"spec.clusters[].nodes[].bmcAddress", "spec.nodes[].bmcAddress", "same (required)", (*converter).bmcAddress},
	{"spec.clusters[].nodes[].bmcCredentialsName", "spec.nodes[].bmcCredentialsName", "same (required)", (*converter).bmcCredentials},
	{"spec.clusters[].nodes[].bootMACAddress", "spec.nodes[].bootMACAddress", "same; must be a MAC address", (*converter).bootMAC},
	{"spec.clusters[].nodes[].bootMode", "spec.nodes[].bootMode", "same; UEFI, UEFISecureBoot or legacy", (*converter).bootMode},
	{"spec.clusters[].nodes[].automatedCleaningMode", "spec.nodes[].automatedCleaningMode", "same; metadata or disabled", (*converter).cleaningMode},
	{"spec.clusters[].nodes[].rootDeviceHints", "spec.nodes[].rootDeviceHints", "same", (*converter).rootDeviceHints},
	{"spec.clusters[].nodes[].nodeNetwork", "spec.nodes[].nodeNetwork", "same; interface MACs must be MAC addresses", (*converter).nodeNetwork},
	{"spec.clusters[].nodes[].nodeLabels", "spec.nodes[].nodeLabels", "same", (*converter).nodeLabels},
	{"spec.clusters[].nodes[].installerArgs", "spec.nodes[].installerArgs", "same; must be JSON", (*converter).installerArgs},
	{"spec.clusters[].nodes[].ignitionConfigOverride", "spec.nodes[].ignitionConfigOverride", "same; must be JSON", (*converter).nodeIgnitionOverride},
	{"spec.clusters[].nodes[].ironicInspect", "spec.nodes[].ironicInspect", "`enabled` → `\"\"` (inspection on), `disabled` as is", (*converter).ironicInspect},
	{"spec.clusters[].nodes[].crAnnotations", "spec.nodes[].extraAnnotations", "BareMetalHost and NMStateConfig; other kinds had no effect and are dropped", (*converter).nodeCRAnnotations},
	{"spec.clusters[].nodes[].crSuppression", "spec.nodes[].suppressedManifests", "BareMetalHost and NMStateConfig; other kinds had no effect and are dropped", (*converter).nodeCRSuppression},
	{"spec.clusters[].nodes[].crTemplates", "spec.nodes[].templateRefs", "manual step: custom node template ConfigMaps", (*converter).nodeCRTemplates},
	{"spec.clusters[].nodes[].biosConfigRef", "", "manual step: a HostFirmwareSettings node template", (*converter).nodeBIOS},
	{"spec.clusters[].nodes[].userData", "", "dropped; manual step: a custom BareMetalHost template", (*converter).userData},
	{"spec.clusters[].nodes[].cpuset", "", "dropped: its MachineConfig lives in the extra-manifest ConfigMap; use cpuPartitioningMode", (*converter).cpuset},
	{"spec.clusters[].nodes[].diskPartition", "", "dropped: its MachineConfig lives in the extra-manifest ConfigMap", (*converter).diskPartition},
}
