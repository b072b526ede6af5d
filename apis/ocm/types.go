// Package ocm has the Open Cluster Management types siteops renders:
// ManagedCluster (cluster.open-cluster-management.io/v1) and
// KlusterletAddonConfig (agent.open-cluster-management.io/v1).
package ocm

import (
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// API versions and kinds.
const (
	ManagedClusterAPIVersion        = "cluster.open-cluster-management.io/v1"
	KindManagedCluster              = "ManagedCluster"
	KlusterletAddonConfigAPIVersion = "agent.open-cluster-management.io/v1"
	KindKlusterletAddonConfig       = "KlusterletAddonConfig"
)

// ManagedCluster registers a cluster with the hub.
type ManagedCluster struct {
	metav1.TypeMeta   `json:",inline"`
	metav1.ObjectMeta `json:"metadata,omitempty"`
	Spec              ManagedClusterSpec `json:"spec"`
}

// ManagedClusterSpec is the hub's side of the registration.
type ManagedClusterSpec struct {
	HubAcceptsClient     bool  `json:"hubAcceptsClient"`
	LeaseDurationSeconds int32 `json:"leaseDurationSeconds,omitempty"`
}

// KlusterletAddonConfig selects the add-ons of a managed cluster.
type KlusterletAddonConfig struct {
	metav1.TypeMeta   `json:",inline"`
	metav1.ObjectMeta `json:"metadata,omitempty"`
	Spec              KlusterletAddonConfigSpec `json:"spec"`
}

// KlusterletAddonConfigSpec lists the add-ons.
type KlusterletAddonConfigSpec struct {
	ClusterName          string      `json:"clusterName"`
	ClusterNamespace     string      `json:"clusterNamespace"`
	ApplicationManager   AddonToggle `json:"applicationManager"`
	CertPolicyController AddonToggle `json:"certPolicyController"`
	IAMPolicyController  AddonToggle `json:"iamPolicyController"`
	PolicyController     AddonToggle `json:"policyController"`
	SearchCollector      AddonToggle `json:"searchCollector"`
}

// AddonToggle switches one add-on.
type AddonToggle struct {
	Enabled bool `json:"enabled"`
}
