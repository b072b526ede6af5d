package hub

import (
	"github.com/siteops/siteops/engine/assisted"
	"github.com/siteops/siteops/render"
)

// What siteops writes on every object it applies, and how it applies.
const (
	// FieldManager is the server-side apply field manager: siteops owns
	// exactly the fields it renders (user need 12: no fights with ACM
	// over fields it does not render).
	FieldManager = "siteops"
	// LabelManagedBy with ManagedByValue marks an object siteops created;
	// siteops never modifies or deletes an object without it. The key is
	// the Kubernetes recommended label (kubernetes.io/docs, "Recommended
	// Labels").
	LabelManagedBy = "app.kubernetes.io/managed-by"
	ManagedByValue = "siteops"
	// LabelSite names the site an object belongs to.
	LabelSite = "siteops.io/site"
	// LabelInstance names the siteops (one per fleet repository) that
	// applied the object: an engine sees, changes and deletes only the
	// objects of its own instance, so that two fleets on one hub never
	// prune each other's sites.
	LabelInstance = "siteops.io/instance"
	// DefaultInstance is the instance of an engine not told otherwise.
	DefaultInstance = "default"
	// AnnotationBundleHash is render.Bundle.Hash of the bundle the object
	// was last applied from: when every object of a site carries the
	// hash of the bundle in hand, Apply sends nothing, even after a
	// restart.
	AnnotationBundleHash = "siteops.io/bundle-hash"
	// AnnotationRevision is the revision that bundle was rendered from.
	AnnotationRevision = "siteops.io/revision"
)

// Kinds siteops reads but never writes, with the API versions the status
// mapping decodes (assisted-service api/v1beta1/agent_types.go, Hive
// apis/hive/v1/clusterimageset_types.go).
const (
	KindAgent           = "Agent"
	KindClusterImageSet = "ClusterImageSet"
	KindSecret          = "Secret"
)

// teardownSteps is the order Delete removes a site's objects in: the
// ClusterDeployment first (its finalizer deletes the AgentClusterInstall,
// whose finalizer deletes or unbinds the Agents), then what the
// ClusterDeployment's removal leaves, BareMetalHosts, InfraEnvs with their
// NMStateConfigs and everything else, and the Namespace last
// (assisted-service internal/controller/controllers/
// clusterdeployments_controller.go, agentclusterinstall finalizer;
// bmh_agent_controller.go; infraenv_controller.go). A kind not listed
// goes with the "everything else" step.
var teardownSteps = []teardownStep{
	{"the ClusterDeployment (its finalizer deletes the AgentClusterInstall and the Agents)", []string{render.KindClusterDeployment}},
	{"the AgentClusterInstall", []string{render.KindAgentClusterInstall}},
	{"the ManagedCluster and KlusterletAddonConfig", []string{render.KindManagedCluster, render.KindKlusterletAddonConfig}},
	{"the BareMetalHosts", []string{render.KindBareMetalHost, render.KindHostFirmwareSettings}},
	{"the InfraEnvs, NMStateConfigs and the other objects", nil},
	{"the Namespace", []string{render.KindNamespace}},
}

type teardownStep struct {
	what  string
	kinds []string
}

// otherStep is the index of the step that takes kinds no step lists.
const otherStep = 4

// stepOf is the teardown step of a kind.
func stepOf(kind string) int {
	for i, s := range teardownSteps {
		for _, k := range s.kinds {
			if k == kind {
				return i
			}
		}
	}
	return otherStep
}

// finalizerOwners names the controller that removes each upstream
// finalizer, for the message of a deletion that does not finish
// (assisted-service internal/controller/controllers/:
// clusterdeployments_controller.go, agent_controller.go,
// infraenv_controller.go, bmh_agent_controller.go; the namespace
// finalizer is Kubernetes' own).
var finalizerOwners = map[string]string{
	assisted.FinalizerClusterDeployment: "assisted-service (ClusterDeployments controller)",
	assisted.FinalizerACI:               "assisted-service (ClusterDeployments controller)",
	assisted.FinalizerAgent:             "assisted-service (Agent controller)",
	assisted.FinalizerInfraEnv:          "assisted-service (InfraEnv controller)",
	assisted.FinalizerBMAC:              "assisted-service (BareMetalHost agent controller)",
	"kubernetes":                        "the namespace controller of kube-controller-manager",
}
