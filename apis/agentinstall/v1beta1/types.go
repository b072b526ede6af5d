// Package v1beta1 has the agent-install.openshift.io/v1beta1 types siteops
// renders: InfraEnv and NMStateConfig.
package v1beta1

import (
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
)

// Group, version and kinds.
const (
	Group             = "agent-install.openshift.io"
	Version           = "v1beta1"
	KindInfraEnv      = "InfraEnv"
	KindNMStateConfig = "NMStateConfig"
)

// SchemeGroupVersion is the group and version of these types.
var SchemeGroupVersion = metav1.GroupVersion{Group: Group, Version: Version}

// InfraEnv describes a discovery image and the hosts that boot it.
type InfraEnv struct {
	metav1.TypeMeta   `json:",inline"`
	metav1.ObjectMeta `json:"metadata,omitempty"`
	Spec              InfraEnvSpec `json:"spec"`
}

// InfraEnvSpec is the desired discovery environment.
type InfraEnvSpec struct {
	Proxy                      *Proxy                `json:"proxy,omitempty"`
	AdditionalNTPSources       []string              `json:"additionalNTPSources,omitempty"`
	SSHAuthorizedKey           string                `json:"sshAuthorizedKey,omitempty"`
	PullSecretRef              *LocalObjectReference `json:"pullSecretRef"`
	AgentLabels                map[string]string     `json:"agentLabels,omitempty"`
	NMStateConfigLabelSelector metav1.LabelSelector  `json:"nmStateConfigLabelSelector,omitempty"`
	ClusterRef                 *ClusterReference     `json:"clusterRef,omitempty"`
	IgnitionConfigOverride     string                `json:"ignitionConfigOverride,omitempty"`
	CpuArchitecture            string                `json:"cpuArchitecture,omitempty"`
	KernelArguments            []KernelArgument      `json:"kernelArguments,omitempty"`
	AdditionalTrustBundle      string                `json:"additionalTrustBundle,omitempty"`
	ImageType                  string                `json:"imageType,omitempty"`
}

// Proxy is the proxy the discovery agent uses.
type Proxy struct {
	HTTPProxy  string `json:"httpProxy,omitempty"`
	HTTPSProxy string `json:"httpsProxy,omitempty"`
	NoProxy    string `json:"noProxy,omitempty"`
}

// LocalObjectReference names an object in the same namespace. An empty
// reference renders as {} (the generator's output when no pull secret is
// named), so Name is omitempty.
type LocalObjectReference struct {
	Name string `json:"name,omitempty"`
}

// ClusterReference names the ClusterDeployment the hosts join.
type ClusterReference struct {
	Name      string `json:"name"`
	Namespace string `json:"namespace"`
}

// KernelArgument is one discovery kernel argument operation.
type KernelArgument struct {
	Operation string `json:"operation,omitempty"`
	Value     string `json:"value,omitempty"`
}

// NMStateConfig is the static network of one host, in nmstate format.
type NMStateConfig struct {
	metav1.TypeMeta   `json:",inline"`
	metav1.ObjectMeta `json:"metadata,omitempty"`
	Spec              NMStateConfigSpec `json:"spec"`
}

// NMStateConfigSpec is the network of one host.
type NMStateConfigSpec struct {
	// Interfaces maps NIC names used in Config to MAC addresses.
	Interfaces []*Interface `json:"interfaces,omitempty"`
	// Config is the nmstate document, kept verbatim.
	Config runtime.RawExtension `json:"config,omitempty"`
}

// Interface maps a NIC name to its MAC address.
type Interface struct {
	Name       string `json:"name"`
	MacAddress string `json:"macAddress"`
}
