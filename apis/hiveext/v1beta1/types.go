// Package v1beta1 has the extensions.hive.openshift.io/v1beta1 types
// siteops renders: AgentClusterInstall.
package v1beta1

import (
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// Group, version and kinds.
const (
	Group                   = "extensions.hive.openshift.io"
	Version                 = "v1beta1"
	KindAgentClusterInstall = "AgentClusterInstall"
)

// SchemeGroupVersion is the group and version of these types.
var SchemeGroupVersion = metav1.GroupVersion{Group: Group, Version: Version}

// AgentClusterInstall asks assisted-service to install a cluster from the
// agents bound to it.
type AgentClusterInstall struct {
	metav1.TypeMeta   `json:",inline"`
	metav1.ObjectMeta `json:"metadata,omitempty"`
	Spec              AgentClusterInstallSpec `json:"spec"`
}

// AgentClusterInstallSpec is the desired installation.
type AgentClusterInstallSpec struct {
	ImageSetRef            *ClusterImageSetReference     `json:"imageSetRef,omitempty"`
	ClusterDeploymentRef   LocalObjectReference          `json:"clusterDeploymentRef"`
	ClusterMetadata        *ClusterMetadata              `json:"clusterMetadata,omitempty"`
	ManifestsConfigMapRef  *LocalObjectReference         `json:"manifestsConfigMapRef,omitempty"`
	ManifestsConfigMapRefs []ManifestsConfigMapReference `json:"manifestsConfigMapRefs,omitempty"`
	Networking             Networking                    `json:"networking"`
	SSHPublicKey           string                        `json:"sshPublicKey,omitempty"`
	ProvisionRequirements  ProvisionRequirements         `json:"provisionRequirements"`
	APIVIP                 string                        `json:"apiVIP,omitempty"`
	APIVIPs                []string                      `json:"apiVIPs,omitempty"`
	IngressVIP             string                        `json:"ingressVIP,omitempty"`
	IngressVIPs            []string                      `json:"ingressVIPs,omitempty"`
	HoldInstallation       bool                          `json:"holdInstallation,omitempty"`
	Proxy                  *Proxy                        `json:"proxy,omitempty"`
	PlatformType           string                        `json:"platformType,omitempty"`
	MastersSchedulable     bool                          `json:"mastersSchedulable,omitempty"`
}

// ClusterImageSetReference names a ClusterImageSet.
type ClusterImageSetReference struct {
	Name string `json:"name"`
}

// LocalObjectReference names an object in the same namespace.
type LocalObjectReference struct {
	Name string `json:"name"`
}

// ManifestsConfigMapReference names a ConfigMap of extra install manifests.
type ManifestsConfigMapReference struct {
	Name string `json:"name"`
}

// ClusterMetadata points at the installed cluster's credentials.
type ClusterMetadata struct {
	ClusterID                string                `json:"clusterID"`
	InfraID                  string                `json:"infraID"`
	AdminKubeconfigSecretRef LocalObjectReference  `json:"adminKubeconfigSecretRef"`
	AdminPasswordSecretRef   *LocalObjectReference `json:"adminPasswordSecretRef,omitempty"`
}

// Networking is the cluster's networks.
type Networking struct {
	MachineNetwork        []MachineNetworkEntry `json:"machineNetwork,omitempty"`
	ClusterNetwork        []ClusterNetworkEntry `json:"clusterNetwork,omitempty"`
	ServiceNetwork        []string              `json:"serviceNetwork,omitempty"`
	NetworkType           string                `json:"networkType,omitempty"`
	UserManagedNetworking *bool                 `json:"userManagedNetworking,omitempty"`
}

// MachineNetworkEntry is one machine network.
type MachineNetworkEntry struct {
	CIDR string `json:"cidr"`
}

// ClusterNetworkEntry is one pod network.
type ClusterNetworkEntry struct {
	CIDR       string `json:"cidr"`
	HostPrefix int32  `json:"hostPrefix"`
}

// ProvisionRequirements is how many agents of each role the install waits for.
type ProvisionRequirements struct {
	ControlPlaneAgents int `json:"controlPlaneAgents"`
	WorkerAgents       int `json:"workerAgents,omitempty"`
	ArbiterAgents      int `json:"arbiterAgents,omitempty"`
}

// Proxy is the cluster-wide proxy.
type Proxy struct {
	HTTPProxy  string `json:"httpProxy,omitempty"`
	HTTPSProxy string `json:"httpsProxy,omitempty"`
	NoProxy    string `json:"noProxy,omitempty"`
}
