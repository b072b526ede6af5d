package hubsim

import (
	"k8s.io/apimachinery/pkg/runtime/schema"

	"github.com/siteops/siteops/engine/assisted"
	"github.com/siteops/siteops/render"
)

// watched is one kind the simulator reads, with the finalizer its
// controller puts on it (assisted-service
// internal/controller/controllers/: clusterdeployments_controller.go,
// infraenv_controller.go, bmh_agent_controller.go; Hive
// apis/hive/v1/clusterdeployment_types.go, clusterimageset_types.go;
// baremetal-operator apis/metal3.io/v1alpha1/baremetalhost_types.go).
type watched struct {
	kind       string
	gvr        schema.GroupVersionResource
	namespaced bool
	finalizer  string
}

var (
	gvrCD       = schema.GroupVersionResource{Group: "hive.openshift.io", Version: "v1", Resource: "clusterdeployments"}
	gvrACI      = schema.GroupVersionResource{Group: "extensions.hive.openshift.io", Version: "v1beta1", Resource: "agentclusterinstalls"}
	gvrInfraEnv = schema.GroupVersionResource{Group: "agent-install.openshift.io", Version: "v1beta1", Resource: "infraenvs"}
	gvrNMState  = schema.GroupVersionResource{Group: "agent-install.openshift.io", Version: "v1beta1", Resource: "nmstateconfigs"}
	gvrBMH      = schema.GroupVersionResource{Group: "metal3.io", Version: "v1alpha1", Resource: "baremetalhosts"}
	gvrImageSet = schema.GroupVersionResource{Group: "hive.openshift.io", Version: "v1", Resource: "clusterimagesets"}
	gvrAgent    = schema.GroupVersionResource{Group: "agent-install.openshift.io", Version: "v1beta1", Resource: "agents"}
	gvrSecret   = schema.GroupVersionResource{Version: "v1", Resource: "secrets"}
	gvrConfig   = schema.GroupVersionResource{Version: "v1", Resource: "configmaps"}
	gvrNS       = schema.GroupVersionResource{Version: "v1", Resource: "namespaces"}
)

// watchedKinds are the kinds a site is made of, in the order a bundle
// lists them.
var watchedKinds = []watched{
	{render.KindClusterDeployment, gvrCD, true, assisted.FinalizerClusterDeployment},
	{render.KindAgentClusterInstall, gvrACI, true, assisted.FinalizerACI},
	{render.KindInfraEnv, gvrInfraEnv, true, assisted.FinalizerInfraEnv},
	{render.KindNMStateConfig, gvrNMState, true, ""},
	{render.KindBareMetalHost, gvrBMH, true, assisted.FinalizerBMAC},
	{kindImageSet, gvrImageSet, false, ""},
}

const (
	kindImageSet = "ClusterImageSet"
	kindAgent    = "Agent"
)

// Field managers: each write is made under the name of the controller
// that makes it upstream, so that `kubectl get -o yaml --show-managed-fields`
// tells who wrote what.
const (
	managerAssisted = "assisted-service"
	managerHive     = "hive"
	managerBMO      = "baremetal-operator"
	managerBMAC     = "bmac"
	managerSim      = "siteops-hub-sim"
)

// Labels and annotations the simulator reads on objects it did not write.
const (
	// labelSite is siteops's site label (engine/hub LabelSite): the
	// site's name when siteops applied it.
	labelSite = "siteops.io/site"
	// ownAnnotationPrefix marks siteops's own bookkeeping annotations
	// (bundle hash, revision), which no controller reads.
	ownAnnotationPrefix = "siteops.io/"
	// annotationRevision is the revision siteops applied (engine/hub
	// AnnotationRevision).
	annotationRevision = "siteops.io/revision"
	// annotationLastApplied is kubectl's copy of the applied object.
	annotationLastApplied = "kubectl.kubernetes.io/last-applied-configuration"
)

// The simulator's own objects.
const (
	// DefaultStateNamespace holds one ConfigMap of state per site.
	DefaultStateNamespace = "siteops-hub-sim"
	// labelState marks the state ConfigMaps.
	labelState = "hubsim.siteops.io/state"
	// stateClockName is the ConfigMap of the virtual clock.
	stateClockName = "clock"
)

// Placeholder contents of the Secrets the completion creates: the
// simulated cluster has no real credentials.
const (
	placeholderKubeconfig = "# siteops hub-sim: placeholder kubeconfig of a simulated cluster\napiVersion: v1\nkind: Config\nclusters: []\ncontexts: []\nusers: []\n"
	placeholderUser       = "kubeadmin"
	placeholderPassword   = "simulated-cluster-has-no-password"
)
