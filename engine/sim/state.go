package sim

import (
	"time"

	"github.com/siteops/siteops/engine"
	"github.com/siteops/siteops/engine/assisted"
)

// siteState is everything the engine knows of one site: what the bundle
// asks for and what the simulated controllers, machines and agents made of
// it. It is plain data, kept in the store as JSON; everything else
// (indexes, the event queue, statuses) is derived from it.
type siteState struct {
	Name     string `json:"name"`
	Revision string `json:"revision,omitempty"`
	// Desired is the accepted bundle; nil when the first bundle was
	// refused.
	Desired  *desired  `json:"desired,omitempty"`
	Refusals []refusal `json:"refusals,omitempty"`
	// RefusedRevision is the latest revision refused whole or in part
	// while Revision stays in force; empty once one is taken whole.
	RefusedRevision string `json:"refusedRevision,omitempty"`
	// ProgressKey sums up the last published progress (assisted.
	// ProgressKey) and ProgressAt is when it last changed; Stalled is set
	// when the attention timer found it unchanged past its bound.
	ProgressKey string    `json:"progressKey,omitempty"`
	ProgressAt  time.Time `json:"progressAt,omitzero"`
	Stalled     bool      `json:"stalled,omitempty"`
	// Settled is set when the settle timer found the progress unchanged.
	Settled bool     `json:"settled,omitempty"`
	Cluster *cluster `json:"cluster,omitempty"`
	// ClusterSync is the AgentClusterInstall's sync error while its
	// backend cluster cannot be registered.
	ClusterSync *assisted.SyncError `json:"clusterSync,omitempty"`
	// ClusterGen counts backend cluster registrations (re-creating the
	// AgentClusterInstall registers a new cluster).
	ClusterGen int         `json:"clusterGen,omitempty"`
	InfraEnvs  []*infraEnv `json:"infraEnvs,omitempty"`
	BMHs       []*bmh      `json:"bmhs,omitempty"`
	Hosts      []*host     `json:"hosts,omitempty"`
	// Nodes are the spoke cluster's nodes, by hostname.
	Nodes []string `json:"nodes,omitempty"`
	// Secrets are the Secrets the completion created (names only).
	Secrets    []string        `json:"secrets,omitempty"`
	Conditions []resourceConds `json:"conditions,omitempty"`
	Events     []engine.Event  `json:"events,omitempty"`
	Timers     []timer         `json:"timers,omitempty"`
	// NextTimer numbers timers; with the site name it orders timers that
	// fall at the same instant.
	NextTimer uint64 `json:"nextTimer"`
	// Deleting is set once Delete was called; the teardown runs in steps.
	Deleting *teardown `json:"deleting,omitempty"`
	// Gone is set when the teardown finished: the site is removed from
	// the store at the next commit.
	Gone bool `json:"-"`
	// aciRef is what op.aciRef built for the spec aciRefOf.
	aciRef   string
	aciRefOf *aciSpec
}

// resourceConds are the conditions of one object.
type resourceConds struct {
	Kind       string             `json:"kind"`
	Namespace  string             `json:"namespace,omitempty"`
	Name       string             `json:"name"`
	Conditions []engine.Condition `json:"conditions"`
}

// timer is a scheduled event of the site.
type timer struct {
	ID     uint64    `json:"id"`
	At     time.Time `json:"at"`
	Kind   timerKind `json:"kind"`
	Target string    `json:"target,omitempty"`
}

// timerKind names what happens when a timer fires.
type timerKind string

const (
	tkReconcile      timerKind = "reconcile"       // controllers react
	tkHostMonitor    timerKind = "host-monitor"    // host refresh pass
	tkClusterMonitor timerKind = "cluster-monitor" // cluster refresh pass
	tkImageReady     timerKind = "image-ready"     // InfraEnv ISO generated (target InfraEnv)
	tkBMO            timerKind = "bmo"             // BareMetalHost state step (target BMH)
	tkBoot           timerKind = "boot"            // host booted the ISO (target BMH)
	tkInventory      timerKind = "inventory"       // agent sends inventory (target host)
	tkConnectivity   timerKind = "connectivity"    // connectivity report of the cluster
	tkPrepareChecks  timerKind = "prepare-checks"  // agent reports preparation checks (target host)
	tkManifests      timerKind = "manifests"       // manifests generated
	tkInstallPickup  timerKind = "install-pickup"  // agent starts installing (target host)
	tkStage          timerKind = "stage"           // host stage work done (target host)
	tkFail           timerKind = "fail"            // injected failure (target host)
	tkFinalize       timerKind = "finalize"        // finalizing step
	tkDay2           timerKind = "day2"            // Hive installed + day-2 conversion
	tkTeardown       timerKind = "teardown"        // next teardown step
	tkNodeRemoval    timerKind = "node-removal"    // next node-removal step (target BMH)
	tkAgentRestart   timerKind = "agent-restart"   // agent exits and registers again (target host)
	tkAttention      timerKind = "attention"       // a stall bound passed with no progress
	tkSettle         timerKind = "settle"          // the settle bound passed with no progress
)

// cluster is the assisted-service cluster behind the site's
// ClusterDeployment and AgentClusterInstall.
type cluster struct {
	ID          string                 `json:"id"`
	OpenShiftID string                 `json:"openshiftID"`
	Kind        assisted.ClusterKind   `json:"kind"`
	CD          string                 `json:"cd"` // namespace/name
	Status      assisted.ClusterStatus `json:"status"`
	StatusInfo  string                 `json:"statusInfo"`
	StatusAt    time.Time              `json:"statusAt"`
	// Validations are the latest non-passing results; Validated is false
	// until the first computation.
	Validations []assisted.Result   `json:"validations,omitempty"`
	Validated   bool                `json:"validated,omitempty"`
	Sync        *assisted.SyncError `json:"sync,omitempty"`
	// Effective settings (after the service's defaults and auto-fill).
	SNO             bool     `json:"sno,omitempty"`
	UMN             bool     `json:"umn,omitempty"`
	Platform        string   `json:"platform"`
	NetworkType     string   `json:"networkType,omitempty"`
	Version         string   `json:"version,omitempty"`
	MachineNetworks []string `json:"machineNetworks,omitempty"`
	APIVIPs         []string `json:"apiVIPs,omitempty"`
	IngressVIPs     []string `json:"ingressVIPs,omitempty"`
	// Connectivity is set once the hosts exchanged connectivity reports
	// (majority groups computed, VIPs verified).
	Connectivity bool   `json:"connectivity,omitempty"`
	PrepStatus   string `json:"prepStatus,omitempty"`
	PrepReason   string `json:"prepReason,omitempty"`
	// BeforePending is the status to return to when no host is pending
	// user action any more.
	BeforePending    assisted.ClusterStatus `json:"beforePending,omitempty"`
	InstallStartedAt time.Time              `json:"installStartedAt,omitzero"`
	CompletedAt      time.Time              `json:"completedAt,omitzero"`
	// InstalledInfo is the status info the cluster had when it was
	// installed, kept after the day-2 conversion.
	InstalledInfo   string                   `json:"installedInfo,omitempty"`
	PrepPercent     int                      `json:"prepPercent,omitempty"`
	InstallPercent  int                      `json:"installPercent,omitempty"`
	FinalizePercent int                      `json:"finalizePercent,omitempty"`
	TotalPercent    int                      `json:"totalPercent,omitempty"`
	FinalizingStage assisted.FinalizingStage `json:"finalizingStage,omitempty"`
	FinalizingAt    time.Time                `json:"finalizingAt,omitzero"`
	// Kubeconfig is true once the installer controller uploaded it.
	Kubeconfig bool `json:"kubeconfig,omitempty"`
	// Operators maps monitored operators to "available" or "progressing".
	Operators map[string]string `json:"operators,omitempty"`
	// Metadata is ACI.spec.clusterMetadata, set by the controller.
	Metadata *engine.ClusterMetadata `json:"metadata,omitempty"`
	// Installed is the ClusterDeployment's spec.installed (Hive).
	Installed   bool      `json:"installed,omitempty"`
	InstalledAt time.Time `json:"installedAt,omitzero"`
	// RequirementsMetAt is when RequirementsMet turned True (Hive's
	// installStartedTimestamp).
	RequirementsMetAt time.Time `json:"requirementsMetAt,omitzero"`
}

// infraEnv is the service's infra-env behind an InfraEnv.
type infraEnv struct {
	Namespace string `json:"namespace"`
	Name      string `json:"name"`
	ID        string `json:"id"`
	// Digest identifies the spec the current image was built from.
	Digest string `json:"digest"`
	// ISOURL and CreatedAt are set when the image is available.
	ISOURL    string    `json:"isoURL,omitempty"`
	CreatedAt time.Time `json:"createdAt,omitzero"`
	// Generating is true between a (re)registration and the image.
	Generating bool `json:"generating,omitempty"`
	// Error is an image creation error (a client error).
	Error string `json:"error,omitempty"`
	// MissingCluster is the MissingClusterDeployment error, if any.
	MissingCluster string `json:"missingCluster,omitempty"`
	// IgnitionBytes is the size of the discovery ignition.
	IgnitionBytes int `json:"ignitionBytes,omitempty"`
}

// bmh is a BareMetalHost as the bare-metal operator and BMAC keep it.
type bmh struct {
	Namespace string `json:"namespace"`
	Name      string `json:"name"`
	// State is status.provisioning.state.
	State     string `json:"state"`
	PoweredOn bool   `json:"poweredOn,omitempty"`
	// ImageURL is spec.image.url as BMAC set it; Provisioned is the URL
	// the operator booted.
	ImageURL    string `json:"imageURL,omitempty"`
	Provisioned string `json:"provisioned,omitempty"`
	// Detached is the baremetalhost.metal3.io/detached annotation.
	Detached        bool `json:"detached,omitempty"`
	InspectDisabled bool `json:"inspectDisabled,omitempty"`
	HardwareDetails bool `json:"hardwareDetails,omitempty"`
	// Booted counts the times the host booted the discovery image.
	Booted int `json:"booted,omitempty"`
	// Agent is the matched Agent (host id).
	Agent string `json:"agent,omitempty"`
	// Removing is the step of the BMH's removal, empty while it stays.
	Removing string `json:"removing,omitempty"`
}

// host is the service's host record and its Agent.
type host struct {
	ID        string `json:"id"` // Agent name
	Namespace string `json:"namespace"`
	// Machine is the BareMetalHost whose machine runs the agent; BMH is
	// the BareMetalHost BMAC matched to the Agent by MAC (usually the
	// same, empty when no boot MAC matches).
	Machine  string `json:"machine"`
	BMH      string `json:"bmh,omitempty"`
	InfraEnv string `json:"infraEnv"`
	// Bound is true when the host belongs to the site's cluster.
	Bound      bool                `json:"bound,omitempty"`
	Day2       bool                `json:"day2,omitempty"`
	Status     assisted.HostStatus `json:"status"`
	StatusInfo string              `json:"statusInfo"`
	StatusAt   time.Time           `json:"statusAt"`
	// Agent spec as BMAC, the bundle or the user set it; the backend host
	// takes role, hostname and machine-config pool from it only in the
	// statuses that allow updates.
	SpecRole     assisted.Role `json:"specRole,omitempty"`
	SpecHostname string        `json:"specHostname,omitempty"`
	SpecMCP      string        `json:"specMCP,omitempty"`
	// Backend host.
	Role          assisted.Role       `json:"role"`
	SuggestedRole assisted.Role       `json:"suggestedRole,omitempty"`
	Hostname      string              `json:"hostname,omitempty"`
	Approved      bool                `json:"approved,omitempty"`
	MCP           string              `json:"mcp,omitempty"`
	InstallerArgs string              `json:"installerArgs,omitempty"`
	IgnitionOvr   string              `json:"ignitionOverrides,omitempty"`
	NodeLabels    map[string]string   `json:"nodeLabels,omitempty"`
	Labels        map[string]string   `json:"labels,omitempty"`
	ClusterRef    string              `json:"clusterRef,omitempty"`
	Sync          *assisted.SyncError `json:"sync,omitempty"`
	// Machine and agent.
	Hardware  string              `json:"hardware,omitempty"` // the annotation value
	Inventory *assisted.Inventory `json:"inventory,omitempty"`
	AgentUp   bool                `json:"agentUp,omitempty"`
	// MediaDisconnected is set when the agent reported that the
	// discovery media went away.
	MediaDisconnected bool                     `json:"mediaDisconnected,omitempty"`
	LastSeen          time.Time                `json:"lastSeen,omitzero"`
	Bootstrap         bool                     `json:"bootstrap,omitempty"`
	InstallDisk       string                   `json:"installDisk,omitempty"`
	DiskSpeed         assisted.DiskSpeed       `json:"diskSpeed,omitzero"`
	ImagesDone        bool                     `json:"imagesDone,omitempty"`
	ImagesFailed      []string                 `json:"imagesFailed,omitempty"`
	APIConn           assisted.APIConnectivity `json:"apiConn,omitzero"`
	// Progress.
	Stage          assisted.Stage `json:"stage,omitempty"`
	StageStartedAt time.Time      `json:"stageStartedAt,omitzero"`
	StageUpdatedAt time.Time      `json:"stageUpdatedAt,omitzero"`
	ProgressInfo   string         `json:"progressInfo,omitempty"`
	// Waiting is true while the next stage waits for another host.
	Waiting bool `json:"waiting,omitempty"`
	// Validations are the latest non-passing results; Validated is false
	// until the first computation.
	Validations []assisted.Result `json:"validations,omitempty"`
	// DiskProblems are the reasons its disks cannot hold the installation.
	DiskProblems []string `json:"diskProblems,omitempty"`
	Validated    bool     `json:"validated,omitempty"`
	// Removing is set while the node is being removed from the site.
	Removing string `json:"removing,omitempty"`
	// ref is what agentRef built.
	ref string
}

// teardown tracks a site's deletion, in the upstream finalizer order.
type teardown struct {
	Step int `json:"step"`
}

func (s *siteState) hostByID(id string) *host {
	for _, h := range s.Hosts {
		if h.ID == id {
			return h
		}
	}
	return nil
}

func (s *siteState) hostByBMH(ns, name string) *host {
	for _, h := range s.Hosts {
		if h.Namespace == ns && h.BMH == name {
			return h
		}
	}
	return nil
}

func (s *siteState) bmh(ns, name string) *bmh {
	for _, b := range s.BMHs {
		if b.Namespace == ns && b.Name == name {
			return b
		}
	}
	return nil
}

func (s *siteState) infraEnv(ns, name string) *infraEnv {
	for _, ie := range s.InfraEnvs {
		if ie.Namespace == ns && ie.Name == name {
			return ie
		}
	}
	return nil
}

// clusterHosts are the hosts bound to the site's cluster.
func (s *siteState) clusterHosts() []*host {
	var out []*host
	for _, h := range s.Hosts {
		if h.Bound {
			out = append(out, h)
		}
	}
	return out
}
