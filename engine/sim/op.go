package sim

import (
	"context"
	"crypto/sha256"
	"fmt"
	"log/slog"
	"time"

	"github.com/siteops/siteops/engine"
	"github.com/siteops/siteops/engine/assisted"
)

// op is one step of one site at one virtual instant: a timer firing, an
// Apply, a Delete or an approval. It runs the change, lets the simulated
// controllers react until nothing moves (settle), recomputes the
// conditions, and schedules what comes next.
type op struct {
	e   *Engine
	s   *site
	st  *siteState
	now time.Time
	// changed is set by any change the monitors and controllers should
	// look at; dirty by any change to keep.
	changed bool
	dirty   bool
	// ignition are the discovery ignitions Apply measured beforehand.
	ignition []ignitionHint
}

func (e *Engine) op(s *site) *op {
	return &op{e: e, s: s, st: s.st, now: e.now}
}

// finish settles the site and queues it for the next commit.
func (o *op) finish() {
	o.settle()
	if o.dirty || o.changed {
		o.e.markDirty(o.s)
	}
	o.e.listDeleting(o.s)
	if o.st.Gone {
		e := o.e
		delete(e.sites, o.st.Name)
		e.index(o.st.Name, o.st.Desired, nil)
		e.gone = append(e.gone, o.st.Name)
	}
}

// fire runs a timer.
func (o *op) fire(t timer) {
	o.dirty = true
	switch t.Kind {
	case tkReconcile:
	case tkAttention:
		o.st.Stalled = true
	case tkSettle:
		o.st.Settled = true
	case tkHostMonitor:
		o.hostMonitor()
	case tkClusterMonitor:
		o.clusterMonitor()
	case tkImageReady:
		o.imageReady(t.Target)
	case tkBMO:
		o.bmoStep(t.Target)
	case tkBoot:
		o.hostBooted(t.Target)
	case tkInventory:
		o.sendInventory(t.Target)
	case tkConnectivity:
		o.connectivityReport()
	case tkPrepareChecks:
		o.prepareChecks(t.Target)
	case tkManifests:
		o.manifestsGenerated()
	case tkInstallPickup:
		o.installPickup(t.Target)
	case tkStage:
		o.stageDone(t.Target)
	case tkFail:
		o.injectFailure(t.Target)
	case tkFinalize:
		o.finalizeStep()
	case tkDay2:
		o.day2Conversion()
	case tkTeardown:
		o.teardownStep()
	case tkNodeRemoval:
		o.nodeRemovalStep(t.Target)
	case tkAgentRestart:
		o.agentRestart(t.Target)
	}
}

// settle runs the controllers until none changes anything, then schedules
// the monitors and deadlines and recomputes the conditions.
func (o *op) settle() {
	if o.st.Gone {
		return
	}
	any := o.changed
	for range 10 {
		o.changed = false
		o.reconcileCluster()
		o.reconcileInfraEnvs()
		o.reconcileBMHs()
		o.reconcileAgents()
		o.reconcileStages()
		if !o.changed {
			break
		}
		any = true
	}
	o.changed = any
	if any {
		o.dirty = true
		o.scheduleMonitors()
		// Conditions are a function of the state: they move only when
		// the state did.
		o.updateConditions()
	}
	o.scheduleDeadlines()
}

// hw is the machine a hardware annotation describes. Annotations repeat
// across hosts (most have none), so parses are kept.
func (o *op) hw(value string) hardware {
	if h, ok := o.e.hwCache[value]; ok {
		return h
	}
	h, _ := parseHardware(value)
	if len(o.e.hwCache) > 4096 {
		clear(o.e.hwCache)
	}
	o.e.hwCache[value] = h
	return h
}

// --- timers ---

// schedule sets the site's timer of a kind and target, replacing any.
func (o *op) schedule(kind timerKind, target string, at time.Time) {
	o.cancel(kind, target)
	o.st.NextTimer++
	t := timer{ID: o.st.NextTimer, At: at, Kind: kind, Target: target}
	o.st.Timers = append(o.st.Timers, t)
	o.e.q.push(o.s, t)
	o.dirty = true
}

// scheduleBy sets the timer unless one of the same kind and target is
// already due no later than at.
func (o *op) scheduleBy(kind timerKind, target string, at time.Time) {
	if t, ok := o.pending(kind, target); ok && !t.At.After(at) {
		return
	}
	o.schedule(kind, target, at)
}

func (o *op) cancel(kind timerKind, target string) {
	ts := o.st.Timers
	for i, t := range ts {
		if t.Kind == kind && t.Target == target {
			o.st.Timers = append(ts[:i], ts[i+1:]...)
			o.dirty = true
			return
		}
	}
}

func (o *op) pending(kind timerKind, target string) (timer, bool) {
	for _, t := range o.st.Timers {
		if t.Kind == kind && t.Target == target {
			return t, true
		}
	}
	return timer{}, false
}

// cancelTarget drops every timer of a target (a removed host or BMH).
func (o *op) cancelTarget(target string) {
	kept := o.st.Timers[:0]
	for _, t := range o.st.Timers {
		if t.Target != target {
			kept = append(kept, t)
		}
	}
	o.st.Timers = kept
	o.dirty = true
}

// after is now plus a host's share of a simulated duration.
func (o *op) after(d time.Duration, key string) time.Time {
	return o.now.Add(time.Duration(jitter(float64(d), key)).Round(time.Second))
}

// tickAfter is the first monitor tick strictly after t: monitors run on a
// fixed period, as upstream's do.
func tickAfter(t time.Time, period time.Duration) time.Time {
	return t.Truncate(period).Add(period)
}

func (o *op) scheduleMonitors() {
	if o.st.Cluster != nil || len(o.st.Hosts) > 0 {
		o.scheduleBy(tkHostMonitor, "", tickAfter(o.now, assisted.HostMonitorInterval))
	}
	if o.st.Cluster != nil {
		o.scheduleBy(tkClusterMonitor, "", tickAfter(o.now, assisted.ClusterMonitorInterval))
	}
}

// --- events ---

// eventsRoom is the length of the array a site's latest events slide
// over (appendEvent).
const eventsRoom = engine.MaxEvents + engine.MaxEvents/4

// appendEvent adds an event to a site's latest events and lets the oldest
// go past engine.MaxEvents. The list is a window that only moves forward
// over its array: an event is written after the window, never over an
// element of it, so a published status shares the list instead of copying
// it (one list per site rather than two). Once the array is full the
// window moves to a new one; a new list for every event would be most of
// what a step allocates.
func appendEvent(evs []engine.Event, ev engine.Event) []engine.Event {
	if len(evs) == cap(evs) {
		n := min(len(evs), engine.MaxEvents-1)
		moved := make([]engine.Event, n, eventsRoom)
		copy(moved, evs[len(evs)-n:])
		evs = moved
	}
	evs = append(evs, ev)
	if n := len(evs); n > engine.MaxEvents {
		evs = evs[n-engine.MaxEvents:]
	}
	return evs
}

// event records something that happened to the site.
func (o *op) event(object, reason, message string) {
	o.st.Events = appendEvent(o.st.Events, engine.Event{Time: o.now, Object: object, Reason: reason, Message: message})
	o.dirty = true
	if l := o.e.opts.Logger; l.Enabled(context.Background(), slog.LevelDebug) {
		l.Debug(message, "site", o.st.Name, "object", object, "reason", reason, "time", o.now)
	}
}

// Event reasons.
const (
	evApplied         = "Applied"
	evRefused         = "Refused"
	evRegistered      = "Registered"
	evDeregistered    = "Deregistered"
	evStatusChanged   = "StatusChanged"
	evStage           = "InstallationStage"
	evImage           = "ImageCreated"
	evProvisioning    = "Provisioning"
	evRegistration    = "AgentRegistered"
	evApproved        = "Approved"
	evDetached        = "Detached"
	evCompleted       = "InstallationCompleted"
	evSecret          = "SecretCreated"
	evDeleting        = "Deleting"
	evNodeRemoved     = "NodeRemoved"
	evInjected        = "FailureInjected"
	evHardwareDetails = "HardwareDetails"
	evBound           = "Bound"
	evSpokeObjects    = "SpokeObjects"
	evFinalizing      = "Finalizing"
)

// --- identities ---

// uuidFor derives a stable UUID (version 5 layout) from the parts, so that
// the same site always gets the same host, cluster and infra-env ids.
func uuidFor(parts ...string) string {
	h := sha256.New()
	for _, p := range parts {
		h.Write([]byte(p))
		h.Write([]byte{0})
	}
	b := h.Sum(nil)[:16]
	b[6] = b[6]&0x0f | 0x50
	b[8] = b[8]&0x3f | 0x80
	return fmt.Sprintf("%x-%x-%x-%x-%x", b[0:4], b[4:6], b[6:8], b[8:10], b[10:16])
}

// hostName is how status texts and events name a host: its requested
// hostname, else its inventory's, else its id.
func (h *host) name() string {
	if h.Hostname != "" {
		return h.Hostname
	}
	if h.Inventory != nil && h.Inventory.Hostname != "" {
		return h.Inventory.Hostname
	}
	return h.ID
}

// agentRef names a host's Agent in events, built once per host: most
// events of a site name one of its Agents or its AgentClusterInstall, and
// a string per event would be a fifth of what the site's events hold.
func agentRef(h *host) string {
	if h.ref == "" {
		h.ref = "Agent " + h.Namespace + "/" + h.ID
	}
	return h.ref
}

func bmhRef(ns, name string) string { return "BareMetalHost " + ns + "/" + name }

// setHostStatus moves a host, recording an event when the status changes.
func (o *op) setHostStatus(h *host, s assisted.HostStatus, info string) {
	if h.Status == s && h.StatusInfo == info {
		return
	}
	old := h.Status
	h.Status, h.StatusInfo = s, info
	o.changed = true
	if old != s {
		h.StatusAt = o.now
		from := string(old)
		if from == "" {
			from = "new"
		}
		o.event(agentRef(h), evStatusChanged, fmt.Sprintf("Host %s: updated status from %s to %s (%s)", h.name(), from, s, info))
		o.onHostStatus(h, old)
	}
}

// setClusterStatus moves the cluster, recording an event on a change.
func (o *op) setClusterStatus(s assisted.ClusterStatus, info string) {
	c := o.st.Cluster
	if c.Status == s && c.StatusInfo == info {
		return
	}
	old := c.Status
	c.Status, c.StatusInfo = s, info
	o.changed = true
	if old != s {
		c.StatusAt = o.now
		o.event(o.aciRef(), evStatusChanged, fmt.Sprintf("Updated status of the cluster %s to %s (%s)", o.clusterName(), s, info))
		o.onClusterStatus(old)
	}
}

// aciRef names the site's AgentClusterInstall in events, built once per
// accepted spec (agentRef says why).
func (o *op) aciRef() string {
	d := o.st.Desired
	if d == nil || d.ACI == nil {
		return "AgentClusterInstall"
	}
	if o.st.aciRefOf != d.ACI {
		o.st.aciRef, o.st.aciRefOf = "AgentClusterInstall "+d.ACI.Namespace+"/"+d.ACI.Name, d.ACI
	}
	return o.st.aciRef
}

func (o *op) clusterName() string {
	if d := o.st.Desired; d != nil && d.CD != nil {
		return d.CD.ClusterName
	}
	return o.st.Name
}
