package engine

import (
	"errors"
	"time"
)

// ErrNotFound is returned for a site the engine does not hold.
var ErrNotFound = errors.New("no such site")

// Phase is the one-word summary of a site's installation.
type Phase string

// The phases of a site, in the order a site normally goes through them.
const (
	// PhasePending: applied, the hosts are not discovered yet or the
	// installation waits for its requirements.
	PhasePending Phase = "Pending"
	// PhasePolicyFailed: the loop did not apply the site because a deny
	// policy finding blocks it (set by the loop, never by an engine).
	PhasePolicyFailed Phase = "PolicyFailed"
	// PhaseProvisioning: hosts are booting the discovery image,
	// registering and being validated.
	PhaseProvisioning Phase = "Provisioning"
	PhaseInstalling   Phase = "Installing"
	PhaseInstalled    Phase = "Installed"
	PhaseFailed       Phase = "Failed"
	PhaseDeleting     Phase = "Deleting"
)

// Condition is a Kubernetes-style condition as the upstream controllers
// write it. LastTransitionTime is virtual time.
type Condition struct {
	Type               string    `json:"type"`
	Status             string    `json:"status"`
	Reason             string    `json:"reason,omitempty"`
	Message            string    `json:"message,omitempty"`
	LastTransitionTime time.Time `json:"lastTransitionTime"`
}

// ResourceStatus is the status of one applied object.
type ResourceStatus struct {
	Kind      string `json:"kind"`
	Namespace string `json:"namespace,omitempty"`
	Name      string `json:"name"`
	// ISODownloadURL is an InfraEnv's status.isoDownloadURL: where a host
	// that is not booted through a BareMetalHost gets its discovery image.
	ISODownloadURL string      `json:"isoDownloadURL,omitempty"`
	Conditions     []Condition `json:"conditions,omitempty"`
}

// Validation is one failing or pending validation of a host or cluster.
type Validation struct {
	ID      string `json:"id"`
	Status  string `json:"status"`
	Message string `json:"message"`
}

// HostStatus is one host of the site.
type HostStatus struct {
	// Name is the BareMetalHost's name; Agent the Agent's (the host UUID)
	// once it registered.
	Name     string `json:"name"`
	Agent    string `json:"agent,omitempty"`
	Hostname string `json:"hostname,omitempty"`
	Role     string `json:"role,omitempty"`
	// ProvisioningState is the BareMetalHost's.
	ProvisioningState string `json:"provisioningState,omitempty"`
	// State and StateInfo are the assisted-service host status and its
	// status-info text.
	State     string `json:"state,omitempty"`
	StateInfo string `json:"stateInfo,omitempty"`
	Stage     string `json:"stage,omitempty"`
	Percent   int    `json:"percent"`
	// Approved is the Agent's spec.approved.
	Approved bool `json:"approved,omitempty"`
	// Validations lists the validations that do not pass.
	Validations []Validation `json:"validations,omitempty"`
}

// ClusterMetadata is what the completion of an installation records
// (AgentClusterInstall spec.clusterMetadata): the cluster's ids and the
// names of the Secrets that hold the admin kubeconfig and password. It
// names Secrets; it never holds their contents.
type ClusterMetadata struct {
	ClusterID                string `json:"clusterID"`
	InfraID                  string `json:"infraID"`
	AdminKubeconfigSecretRef string `json:"adminKubeconfigSecretRef,omitempty"`
	AdminPasswordSecretRef   string `json:"adminPasswordSecretRef,omitempty"`
}

// ClusterStatus is the assisted-service cluster behind the site.
type ClusterStatus struct {
	State       string       `json:"state,omitempty"`
	StateInfo   string       `json:"stateInfo,omitempty"`
	Percent     int          `json:"percent"`
	Validations []Validation `json:"validations,omitempty"`
	// Installed is the ClusterDeployment's spec.installed, which Hive sets
	// when the installation completed; InstallStartedAt and InstalledAt
	// are its installStartedTimestamp and installedTimestamp.
	Installed        bool       `json:"installed,omitempty"`
	InstallStartedAt *time.Time `json:"installStartedAt,omitempty"`
	InstalledAt      *time.Time `json:"installedAt,omitempty"`
	// Metadata is set once the installation created the admin kubeconfig.
	Metadata *ClusterMetadata `json:"clusterMetadata,omitempty"`
}

// Event is something that happened to the site, at virtual time.
type Event struct {
	Time    time.Time `json:"time"`
	Object  string    `json:"object,omitempty"`
	Reason  string    `json:"reason,omitempty"`
	Message string    `json:"message"`
}

// MaxEvents is how many of the latest events a status keeps.
const MaxEvents = 20

// SiteStatus is what an engine reports of one site.
type SiteStatus struct {
	Site  string `json:"site"`
	Phase Phase  `json:"phase"`
	// Message says in one sentence why the site is in its phase, and what
	// to do when it is stuck.
	Message string `json:"message,omitempty"`
	// Revision is the revision of the bundle last applied.
	Revision  string           `json:"revision,omitempty"`
	Cluster   ClusterStatus    `json:"cluster"`
	Hosts     []HostStatus     `json:"hosts,omitempty"`
	Resources []ResourceStatus `json:"resources,omitempty"`
	Events    []Event          `json:"events,omitempty"`
}
