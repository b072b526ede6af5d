package engine

// Phase is the one-word summary of a site: where its installation is, or
// why the loop does not install it.
type Phase string

// The phases, most in need of a person first. phaseTable gives each its
// place and its predicates; docs/status.md says what to do about each.
const (
	// PhaseFailed: the installation failed (cluster error or cancelled),
	// the AgentClusterInstall cannot be synced, or the site's first
	// bundle was refused. Nothing moves until the site changes.
	PhaseFailed Phase = "Failed"
	// PhaseInvalid: the loop did not apply the site because its files do
	// not load or render (set by the loop, never by an engine). The last
	// good bundle stays applied.
	PhaseInvalid Phase = "Invalid"
	// PhasePolicyFailed: the loop did not apply the site because a deny
	// policy finding blocks it (set by the loop, never by an engine). The
	// last good bundle stays applied.
	PhasePolicyFailed Phase = "PolicyFailed"
	// PhaseDeleting: the site is being torn down in the upstream
	// finalizer order; the installed cluster is not touched.
	PhaseDeleting Phase = "Deleting"
	// PhaseInstalling: the cluster is preparing, installing, waiting for
	// a user action or finalizing.
	PhaseInstalling Phase = "Installing"
	// PhaseProvisioning: hosts are booting the discovery image,
	// registering and being validated.
	PhaseProvisioning Phase = "Provisioning"
	// PhasePending: applied, and nothing is booting yet (the cluster is
	// being registered, the discovery image built), or the installation
	// waits for its requirements (approval, hold, host counts).
	PhasePending Phase = "Pending"
	// PhaseInstalled: the cluster is installed (day 2 included).
	PhaseInstalled Phase = "Installed"
)

// phaseInfo is what the program knows of a phase.
type phaseInfo struct {
	phase Phase
	// terminal: the phase does not change without a change to the site.
	terminal bool
	// failed: the installation itself failed.
	failed bool
	// blocked: the loop holds the site's revision back.
	blocked bool
	// started: the installation was triggered (immutable fields apply).
	started bool
}

// phaseTable lists every phase in order: the one that most needs a person
// first, installed last.
var phaseTable = []phaseInfo{
	{phase: PhaseFailed, terminal: true, failed: true, started: true},
	{phase: PhaseInvalid, blocked: true},
	{phase: PhasePolicyFailed, blocked: true},
	{phase: PhaseDeleting},
	{phase: PhaseInstalling, started: true},
	{phase: PhaseProvisioning},
	{phase: PhasePending},
	{phase: PhaseInstalled, terminal: true, started: true},
}

func (p Phase) info() (phaseInfo, int) {
	for i, pi := range phaseTable {
		if pi.phase == p {
			return pi, i
		}
	}
	return phaseInfo{phase: p}, len(phaseTable)
}

// Phases lists every phase in order, the one that most needs a person
// first.
func Phases() []Phase {
	out := make([]Phase, len(phaseTable))
	for i, pi := range phaseTable {
		out[i] = pi.phase
	}
	return out
}

// Known reports whether p is one of the phases.
func (p Phase) Known() bool { _, i := p.info(); return i < len(phaseTable) }

// Terminal reports whether the phase stays until the site changes.
func (p Phase) Terminal() bool { pi, _ := p.info(); return pi.terminal }

// Failed reports whether the installation failed.
func (p Phase) Failed() bool { pi, _ := p.info(); return pi.failed }

// Blocked reports whether the loop holds the site's revision back (the
// engine keeps the last good one).
func (p Phase) Blocked() bool { pi, _ := p.info(); return pi.blocked }

// Started reports whether the installation was triggered: from then on
// the installer takes no change to the cluster's immutable fields.
func (p Phase) Started() bool { pi, _ := p.info(); return pi.started }

// Rank is the phase's place in Phases; an unknown phase ranks after all
// of them.
func (p Phase) Rank() int { _, i := p.info(); return i }

// Reason says in one machine-readable word why a site needs attention, or
// names a deliberate wait. Empty when the site moves on by itself.
type Reason string

// The reasons, most severe first (reasonTable gives each its place and
// whether it needs attention).
const (
	// ReasonInstallFailed: the installation failed or was cancelled.
	ReasonInstallFailed Reason = "InstallFailed"
	// ReasonInputError: the engine cannot take the site as it is (the
	// AgentClusterInstall cannot be synced: a missing pull secret or
	// image set, an invalid value).
	ReasonInputError Reason = "InputError"
	// ReasonLoadFailed: the site's files do not load (syntax, schema,
	// kustomize build).
	ReasonLoadFailed Reason = "LoadFailed"
	// ReasonRenderFailed: the site loads but cannot be rendered.
	ReasonRenderFailed Reason = "RenderFailed"
	// ReasonPolicyDenied: a deny finding blocks the site.
	ReasonPolicyDenied Reason = "PolicyDenied"
	// ReasonChangeRefused: the engine refused the latest revision (or
	// part of it) and keeps the one it had accepted.
	ReasonChangeRefused Reason = "ChangeRefused"
	// ReasonPrerequisiteMissing: an object the site names and does not
	// carry (ClusterImageSet, pull secret, BMC Secret) is missing on the
	// hub.
	ReasonPrerequisiteMissing Reason = "PrerequisiteMissing"
	// ReasonApplyConflict: another field manager owns fields the site
	// sets on the hub.
	ReasonApplyConflict Reason = "ApplyConflict"
	// ReasonDeletionStuck: a finalizer holds the teardown past its
	// timeout.
	ReasonDeletionStuck Reason = "DeletionStuck"
	// ReasonPartiallyInstalled: the cluster installed (or installs) without
	// some hosts that failed.
	ReasonPartiallyInstalled Reason = "PartiallyInstalled"
	// ReasonHostNeedsAction: a host waits on a person: disconnected, boot
	// order, missing input, failed preparation.
	ReasonHostNeedsAction Reason = "HostNeedsAction"
	// ReasonValidationsFailing: a host or cluster validation fails, so the
	// installation cannot start.
	ReasonValidationsFailing Reason = "ValidationsFailing"
	// ReasonNotRegistering: no host registered within the stuck bound
	// after the site was applied.
	ReasonNotRegistering Reason = "NotRegistering"
	// ReasonNoProgress: the installation made no progress within the
	// progress bound.
	ReasonNoProgress Reason = "NoProgress"
	// ReasonAwaitingApproval: the installation waits for agents to be
	// approved.
	ReasonAwaitingApproval Reason = "AwaitingApproval"
	// ReasonOverDeletionBudget: the site left the repository, and
	// deleting it would exceed the deletion budget.
	ReasonOverDeletionBudget Reason = "OverDeletionBudget"
	// ReasonOrphaned: the site left the repository and is not deleted
	// (pruning is off).
	ReasonOrphaned Reason = "Orphaned"
	// ReasonEngineError: the engine could not report the site.
	ReasonEngineError Reason = "EngineError"
	// ReasonHeld: the installation is held on purpose
	// (holdInstallation, the reconcile-pause annotation).
	ReasonHeld Reason = "Held"
)

// reasonInfo is what the program knows of a reason.
type reasonInfo struct {
	reason Reason
	// attention: a person has to act.
	attention bool
	// summary says what the reason means, in a few words that follow
	// the site's name.
	summary string
}

// reasonTable lists every reason, most severe first.
var reasonTable = []reasonInfo{
	{ReasonInstallFailed, true, "the installation failed"},
	{ReasonInputError, true, "the engine cannot take the site as it is"},
	{ReasonLoadFailed, true, "the site's files do not load"},
	{ReasonRenderFailed, true, "the site does not render"},
	{ReasonPolicyDenied, true, "a deny finding blocks the site"},
	{ReasonChangeRefused, true, "the engine refused the latest revision"},
	{ReasonPrerequisiteMissing, true, "an object the site needs is missing on the hub"},
	{ReasonApplyConflict, true, "another field manager owns fields the site sets"},
	{ReasonDeletionStuck, true, "a finalizer holds the deletion"},
	{ReasonPartiallyInstalled, true, "some hosts failed while the cluster installed"},
	{ReasonHostNeedsAction, true, "a host waits on a person"},
	{ReasonValidationsFailing, true, "validations fail, so the installation cannot start"},
	{ReasonNotRegistering, true, "no host registered within the stuck bound"},
	{ReasonNoProgress, true, "the installation made no progress within the progress bound"},
	{ReasonAwaitingApproval, true, "the installation waits for agents to be approved"},
	{ReasonOverDeletionBudget, true, "removed from the repository, kept: over the deletion budget"},
	{ReasonOrphaned, true, "removed from the repository, not deleted"},
	{ReasonEngineError, true, "the engine could not take or report the site"},
	{ReasonHeld, false, "the installation is held on purpose"},
}

func (r Reason) info() (reasonInfo, int) {
	for i, ri := range reasonTable {
		if ri.reason == r {
			return ri, i
		}
	}
	return reasonInfo{reason: r}, len(reasonTable)
}

// Reasons lists every reason, most severe first.
func Reasons() []Reason {
	out := make([]Reason, len(reasonTable))
	for i, ri := range reasonTable {
		out[i] = ri.reason
	}
	return out
}

// AttentionReasons lists the reasons that need a person, most severe
// first.
func AttentionReasons() []Reason {
	var out []Reason
	for _, ri := range reasonTable {
		if ri.attention {
			out = append(out, ri.reason)
		}
	}
	return out
}

// Rank is the reason's place in Reasons, the most severe first; an
// unknown reason ranks after all of them.
func (r Reason) Rank() int { _, i := r.info(); return i }

// Summary says what the reason means in a few words; "" for an unknown
// reason.
func (r Reason) Summary() string { ri, _ := r.info(); return ri.summary }

// NeedsAttention reports whether a site with this reason waits on a
// person. An unknown, non-empty reason does, to be safe.
func (r Reason) NeedsAttention() bool {
	if r == "" {
		return false
	}
	ri, i := r.info()
	return ri.attention || i == len(reasonTable)
}

// Worse returns the more severe of a and b; an empty reason is the least.
func Worse(a, b Reason) Reason {
	switch {
	case a == "":
		return b
	case b == "":
		return a
	}
	_, ia := a.info()
	_, ib := b.info()
	if ib < ia {
		return b
	}
	return a
}
