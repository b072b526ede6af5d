package sim

import (
	"log/slog"

	"github.com/siteops/siteops/engine"
	"math"
	"time"
)

// SpeedMax makes the engine jump from one event to the next at once
// (--speed max). A Speed of 0 means the same.
var SpeedMax = math.Inf(1)

// DefaultSpeed is the demo speed: one virtual minute per real second.
const DefaultSpeed = 60

// ApproveMode says who approves the agents of a site.
type ApproveMode string

const (
	// ApproveAuto approves an agent when it matches a BareMetalHost of its
	// site by MAC, as the bare-metal agent controller does.
	ApproveAuto ApproveMode = "auto"
	// ApproveManual leaves approval to the user (Engine.Approve).
	ApproveManual ApproveMode = "manual"
)

// Options configure an Engine.
type Options struct {
	// StateDir holds the engine's store (engine.db). Empty keeps the state
	// in memory only.
	StateDir string
	// Speed is how many virtual seconds pass per real second; 0 or
	// SpeedMax jumps to the next event at once. Ignored when Stepped.
	Speed float64
	// Stepped makes virtual time move only through Advance: the clock a
	// test steps.
	Stepped bool
	// Approve is ApproveAuto (the default) or ApproveManual.
	Approve ApproveMode
	// Start is the virtual time a new store starts at (default
	// DefaultStart). A store that already exists resumes at its own time.
	Start time.Time
	// Logger receives the engine's logs (default: discarded).
	Logger *slog.Logger
	// BatchEvents bounds how many events one commit covers at SpeedMax
	// (default 50,000).
	BatchEvents int
	// AdmitWithin is how many sites may change within one batch of the
	// runner at SpeedMax, those the last commit left installing counted,
	// before sites applied meanwhile wait for a later batch (default 32,
	// admitWithin in admit.go).
	AdmitWithin int
	// Bounds say when a site that does not move needs attention (a zero
	// bound takes its default, a negative one is off).
	Bounds engine.Bounds
	// NoSync skips fsync on commit: the store survives a killed process
	// but not a power loss. Benchmarks use it.
	NoSync bool
	// SoftTimeouts is the service's ENABLE_SOFT_TIMEOUTS, off by default
	// as upstream: with it a cluster fails after 24 hours of installing or
	// finalizing, and host stage timeouts and disconnections during the
	// installation only warn; without it the finalizing timeout (5 h) and
	// host stage timeouts fail the installation.
	SoftTimeouts bool
	// Store keeps the state instead of the bbolt file of StateDir (the hub
	// simulator keeps it in the API server). The engine closes it.
	Store Store
}

// DefaultStart is the virtual time of a new engine: fixed, so that the same
// history gives the same status documents.
var DefaultStart = time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)

func (o *Options) defaults() {
	if o.Speed == 0 {
		o.Speed = SpeedMax
	}
	if o.Approve == "" {
		o.Approve = ApproveAuto
	}
	if o.Start.IsZero() {
		o.Start = DefaultStart
	}
	if o.Logger == nil {
		o.Logger = slog.New(slog.DiscardHandler)
	}
	o.Bounds = o.Bounds.WithDefaults()
	if o.BatchEvents <= 0 {
		o.BatchEvents = 50000
	}
	if o.AdmitWithin <= 0 {
		o.AdmitWithin = admitWithin
	}
}
