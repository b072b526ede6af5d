// Package sim is the embedded installation engine: a discrete-event
// simulation of what a hub does with a site's rendered resources. It plays
// the InfraEnv controller and the image service, the bare-metal operator
// and its agent controller (BMAC), the machines and the agents on them,
// assisted-service's host and cluster state machines with their
// validations, the installation stages, Hive's ClusterDeployment
// controller, and the conditions users read. The facts it reproduces
// (statuses, texts, validation ids and thresholds, condition reasons,
// stages, timeouts) live in engine/assisted.
//
// # Using it
//
//	e, err := sim.New(ctx, sim.Options{
//		StateDir: "/var/lib/siteops", // the bbolt store; "" keeps state in memory
//		Speed:    60,                 // virtual seconds per second; 0 or sim.SpeedMax: as fast as possible
//		Approve:  sim.ApproveAuto,    // or sim.ApproveManual, then e.Approve(ctx, site, agent)
//	})
//	defer e.Close()
//	err = e.Apply(ctx, bundle, "main@sha1:1a2b3c")
//	for site := range e.Subscribe(ctx) {
//		st, _ := e.Status(ctx, site) // engine.SiteStatus, see docs/status.md
//	}
//
// *Engine implements engine.Engine. Approve, Advance, Flush and Now are its
// own.
//
// # Time
//
// Nothing runs in a goroutine per host. Each site holds timers (a machine
// finishing its boot, an agent reporting, a stage's work ending, a monitor
// pass, a timeout); one queue orders the timers of every site by virtual
// time, and one runner pops them. At a finite Speed the runner sleeps until
// the wall clock reaches the next timer; at SpeedMax it jumps there at
// once. With Options.Stepped the clock moves only when a test calls
// Advance, which runs every timer due on the way and commits.
//
// At SpeedMax, Apply and ApplyBatch do not wait for the runner: what they
// hand over while it runs a chunk of events is taken in between chunks,
// as many sites as keep a batch's changed sites under
// Options.AdmitWithin, and the rest wait in the order they came (admit.go).
// A large fleet applied at once then installs a few dozen sites at a
// time, each written to the store about once, rather than all of them in
// lockstep with every commit writing them all.
//
// The host monitor (every 8 s upstream) and the cluster monitor (10 s) run
// only when something changed, and at the first tick after each timeout
// they must check: between those moments they would change nothing. The
// durations of simulated work are the simulation's own (timing.go, picked
// so that a single-node site installs in about 45 virtual minutes); each
// host's are spread by a stable ±15 %.
//
// # State and crash safety
//
// A site's state is plain data (siteState): its accepted bundle reduced to
// what the controllers read, and what the controllers made of it,
// including its pending timers. Changes are committed in batches, one
// bbolt transaction each, and statuses are published (and subscribers
// told) only after their state is committed: a process killed at any
// moment resumes from the last commit, and nothing it reported is undone.
//
// # Simulated hardware and failures
//
// A BareMetalHost's sim.siteops.io/hardware annotation describes its
// machine as comma-separated key=value pairs (cpus, memoryMiB, diskGB,
// diskType, vendor, product, virtual, interfaces as MACs separated by
// ';', hostname, ...) and injects failures (failAt=<stage>,
// disconnectAt=<stage>|discovery|preparing, register=never,
// bootOrder=iso, imagePull=fail, diskSpeedMs, latencyMs, packetLossPct,
// dns=fail, ntp=unsynced, defaultRoute=false). Without it a machine has 16
// cores, 64 GiB and a 960 GB SSD, enough for any role. docs/engine.md
// describes every key.
package sim
