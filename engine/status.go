package engine

import (
	"errors"
	"time"
)

// Bounds are how long a site may wait before it needs attention, in the
// engine's time. A zero bound takes its default (DefaultBounds), a
// negative one is off.
type Bounds struct {
	// StuckAfter: no host registered this long after the site was
	// applied (or last moved). assisted-service itself never gives up on
	// a host that does not register; the default is the longest host
	// stage timeout before the cluster operators (internal/host/config.go:
	// 90 minutes waiting for the control plane).
	StuckAfter time.Duration
	// NoProgressAfter: an installation that made no progress this long.
	// The same 90 minutes: every host stage but the last ones times out
	// within it upstream, so a longer silence is not a slow stage.
	NoProgressAfter time.Duration
	// SettleAfter: failing validations need attention once the site did
	// not move for this long. Hosts pass through insufficient while their
	// first checks run (assisted-service refreshes validations every
	// minute): a failure that lasts is one a person must fix.
	SettleAfter time.Duration
}

// DefaultBounds are the bounds the loop uses unless told otherwise.
var DefaultBounds = Bounds{StuckAfter: 90 * time.Minute, NoProgressAfter: 90 * time.Minute, SettleAfter: 5 * time.Minute}

// WithDefaults fills each zero bound with its default.
func (b Bounds) WithDefaults() Bounds {
	fill := func(d *time.Duration, def time.Duration) {
		if *d == 0 {
			*d = def
		}
	}
	fill(&b.StuckAfter, DefaultBounds.StuckAfter)
	fill(&b.NoProgressAfter, DefaultBounds.NoProgressAfter)
	fill(&b.SettleAfter, DefaultBounds.SettleAfter)
	return b
}

// ErrNotFound is returned for a site the engine does not hold.
var ErrNotFound = errors.New("no such site")

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
	// DiskProblems says, for each disk that cannot hold the installation,
	// why not ("sda: Disk is too small (disk only has 64 GB, but 100 GB
	// are required)").
	DiskProblems []string `json:"diskProblems,omitempty"`
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
	// Reason says in one word why the site needs attention, or names a
	// deliberate wait; empty while the site moves on by itself.
	Reason Reason `json:"reason,omitempty"`
	// Message says in one sentence why the site is in its phase, and what
	// to do when it is stuck.
	Message string `json:"message,omitempty"`
	// Revision is the revision of the bundle the engine accepted last:
	// the one it installs.
	Revision string `json:"revision,omitempty"`
	// RefusedRevision is the latest revision the engine refused, whole or
	// in part, while it keeps Revision; empty once a revision is taken
	// whole.
	RefusedRevision string `json:"refusedRevision,omitempty"`
	// LastProgressAt is when the installation last moved (a host
	// registered or changed status or stage, the cluster changed status
	// or percent), in the engine's time.
	LastProgressAt *time.Time       `json:"lastProgressAt,omitempty"`
	Cluster        ClusterStatus    `json:"cluster"`
	Hosts          []HostStatus     `json:"hosts,omitempty"`
	Resources      []ResourceStatus `json:"resources,omitempty"`
	Events         []Event          `json:"events,omitempty"`
}
