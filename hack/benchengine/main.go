// Command benchengine measures the embedded installation engine
// (engine/sim) on synthetic fleets.
//
// Usage:
//
//	go run ./hack/benchengine [-runs sno:3500@60,sno:10000@max] [-work DIR] [-sync] [-memlimit SIZE]
//
// Each run is SHAPE:SITES@SPEED: a fleet of SITES sites of hack/fleetgen's
// SHAPE (sno or ha) installed at SPEED virtual seconds per second ("max":
// as fast as the engine goes). For each run benchengine writes the fleet
// as SiteConfig files, then starts itself as a child process that streams
// the fleet through the renderer into a fresh engine (state in a bbolt
// store under the work directory, as `siteops run` keeps it) and waits
// until every site's status is Installed. It prints one table row per run:
// the time to render and apply every site, the wall time from the first
// apply to the last site Installed, the CPU time the child used (user and
// system, all threads: rendering, the engine, its store and the garbage
// collector), the virtual time the fleet took, the engine's rate in
// simulation steps (timers) per wall second, the store transactions and
// the site states they wrote, and the child's peak resident set size
// (VmHWM, Linux only), with the heap live once every site is Installed
// and the part of the resident set that is mapped files then (the
// executable and the store). MB are 10^6 bytes. -memlimit gives the
// children a soft memory limit (debug.SetMemoryLimit, as GOMEMLIMIT
// does): the garbage collector then works harder instead of letting the
// heap grow to twice what is live. Commits skip fsync unless -sync
// is given: the store then survives a killed process but not a power
// loss.
//
// -cpuprofile, -memprofile and -trace write each child's CPU profile,
// heap profile (once every site is Installed, the fleet still held) and execution trace to files named
// after the run, for go tool pprof and go tool trace.
package main

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"math"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"runtime/debug"
	"runtime/pprof"
	"runtime/trace"
	"strconv"
	"strings"
	"text/tabwriter"
	"time"

	"github.com/siteops/siteops/engine"
	"github.com/siteops/siteops/engine/sim"
	"github.com/siteops/siteops/hack/fleetgen/gen"
	"github.com/siteops/siteops/render"
	"github.com/siteops/siteops/sites"
)

func main() {
	if err := run(os.Args[1:], os.Stdout, os.Stderr); err != nil {
		fmt.Fprintln(os.Stderr, "benchengine:", err)
		os.Exit(1)
	}
}

// spec is one run: a fleet shape and size, and the engine's speed.
type spec struct {
	shape gen.Shape
	sites int
	speed float64 // 0: max
}

func (s spec) String() string {
	sp := "max"
	if s.speed > 0 {
		sp = strconv.FormatFloat(s.speed, 'f', -1, 64)
	}
	return fmt.Sprintf("%s:%d@%s", s.shape, s.sites, sp)
}

func parseSpecs(v string) ([]spec, error) {
	var out []spec
	for _, part := range strings.Split(v, ",") {
		shape, rest, ok1 := strings.Cut(part, ":")
		n, speed, ok2 := strings.Cut(rest, "@")
		if !ok1 || !ok2 {
			return nil, fmt.Errorf("run %q: write SHAPE:SITES@SPEED, e.g. sno:10000@max", part)
		}
		sh, err := gen.ParseShape(shape)
		if err != nil {
			return nil, fmt.Errorf("run %q: %w", part, err)
		}
		sites, err := strconv.Atoi(n)
		if err != nil || sites <= 0 || sites > gen.MaxSites {
			return nil, fmt.Errorf("run %q: sites must be 1..%d", part, gen.MaxSites)
		}
		s := spec{shape: sh, sites: sites}
		if speed != "max" {
			if s.speed, err = strconv.ParseFloat(speed, 64); err != nil || s.speed <= 0 {
				return nil, fmt.Errorf("run %q: speed is a positive number or max", part)
			}
		}
		out = append(out, s)
	}
	return out, nil
}

// result is what a child reports.
type result struct {
	Sites      int     `json:"sites"`
	ApplySec   float64 `json:"applySec"`
	InstallSec float64 `json:"installSec"`
	VirtualMin float64 `json:"virtualMin"`
	Failed     int     `json:"failed"`
	// CPUSec is the child's user and system time.
	CPUSec float64 `json:"cpuSec"`
	// Steps, Commits, SitesWritten and StateBytes are the engine's
	// counters (sim.Stats).
	Steps        uint64 `json:"steps"`
	Commits      uint64 `json:"commits"`
	SitesWritten uint64 `json:"sitesWritten"`
	StateBytes   uint64 `json:"stateBytes"`
	// PeakRSS is the child's VmHWM in bytes, 0 where /proc does not say.
	PeakRSS int64 `json:"peakRSS"`
	// LiveHeap is the heap live after a collection once every site is
	// Installed; FileRSS is the resident part of mapped files then (the
	// store's bbolt file, RssFile), 0 where /proc does not say.
	LiveHeap uint64 `json:"liveHeap"`
	FileRSS  int64  `json:"fileRSS"`
}

// parseSize reads a size in bytes with an optional unit (KiB, MiB, GiB,
// or B), as GOMEMLIMIT writes it; "" is 0.
func parseSize(v string) (int64, error) {
	if v == "" {
		return 0, nil
	}
	mult := int64(1)
	for _, u := range []struct {
		suffix string
		mult   int64
	}{{"KiB", 1 << 10}, {"MiB", 1 << 20}, {"GiB", 1 << 30}, {"B", 1}} {
		if n, ok := strings.CutSuffix(v, u.suffix); ok {
			v, mult = n, u.mult
			break
		}
	}
	n, err := strconv.ParseInt(v, 10, 64)
	if err != nil || n <= 0 || n > math.MaxInt64/mult {
		return 0, fmt.Errorf("%q: write a positive size such as 3GiB, 3500MiB or 3758096384", v)
	}
	return n * mult, nil
}

// peakRSS reads the process's peak resident set size (VmHWM, Linux).
func peakRSS() int64 { return procStatus("VmHWM:") }

// procStatus reads one size of /proc/self/status in bytes (Linux), 0
// where it is missing.
func procStatus(field string) int64 {
	b, err := os.ReadFile("/proc/self/status")
	if err != nil {
		return 0
	}
	for _, line := range strings.Split(string(b), "\n") {
		if v, ok := strings.CutPrefix(line, field); ok {
			kb, _ := strconv.ParseInt(strings.TrimSpace(strings.TrimSuffix(strings.TrimSpace(v), "kB")), 10, 64)
			return kb * 1024
		}
	}
	return 0
}

func run(args []string, stdout, stderr io.Writer) error {
	fs := flag.NewFlagSet("benchengine", flag.ContinueOnError)
	fs.SetOutput(stderr)
	var (
		runs    = fs.String("runs", "sno:3500@60,sno:10000@max", "comma-separated runs, SHAPE:SITES@SPEED")
		work    = fs.String("work", "", "work directory for fleets and stores (default: a temporary one, removed)")
		syncs   = fs.Bool("sync", false, "fsync every commit")
		memlim  = fs.String("memlimit", "", "the children's soft memory limit (debug.SetMemoryLimit), e.g. 3GiB; none by default")
		child   = fs.Bool("child", false, "internal: run one measurement")
		dir     = fs.String("dir", "", "internal: the fleet directory")
		state   = fs.String("state", "", "internal: the state directory")
		speed   = fs.Float64("speed", 0, "internal: the speed, 0 for max")
		timeout = fs.Duration("timeout", 10*time.Minute, "give up on a run after this long")
		profile = fs.String("cpuprofile", "", "write the children's CPU profiles to this file prefix")
		memprof = fs.String("memprofile", "", "write the children's heap profiles to this file prefix")
		tracef  = fs.String("trace", "", "write the children's execution traces to this file prefix")
	)
	if err := fs.Parse(args); err != nil {
		return err
	}
	limit, err := parseSize(*memlim)
	if err != nil {
		return fmt.Errorf("-memlimit: %w", err)
	}
	if *child {
		if limit > 0 {
			debug.SetMemoryLimit(limit)
		}
		stop, err := startProfiles(*profile, *tracef)
		if err != nil {
			return err
		}
		var atEnd func() error
		if *memprof != "" {
			atEnd = func() error { return writeHeapProfile(*memprof) }
		}
		err = runChild(*dir, *state, *speed, !*syncs, *timeout, stdout, atEnd)
		stop()
		return err
	}
	specs, err := parseSpecs(*runs)
	if err != nil {
		return err
	}
	root := *work
	if root == "" {
		if root, err = os.MkdirTemp("", "benchengine-"); err != nil {
			return err
		}
		defer os.RemoveAll(root)
	}
	self, err := os.Executable()
	if err != nil {
		return err
	}
	tw := tabwriter.NewWriter(stdout, 0, 0, 2, ' ', tabwriter.AlignRight)
	fmt.Fprintln(tw, "run\tsites\tapply s\tinstall s (wall)\tCPU s\tvirtual min\tsteps per s\tcommits\tsites written\tstate MB\tlive heap MB\tfile RSS MB\tpeak RSS MB\tfailed\t")
	for _, s := range specs {
		fleet := filepath.Join(root, fmt.Sprintf("fleet-%s-%d", s.shape, s.sites))
		if _, err := os.Stat(fleet); err != nil {
			if _, err := gen.Generate(fleet, gen.Config{Sites: s.sites, Shape: s.shape, Layout: gen.LayoutFiles, Manifests: 5, Seed: 1}); err != nil {
				return fmt.Errorf("generate %s: %w", s, err)
			}
		}
		stateDir := filepath.Join(root, "state-"+strings.NewReplacer(":", "-", "@", "-").Replace(s.String()))
		os.RemoveAll(stateDir)
		cargs := []string{"-child", "-dir", fleet, "-state", stateDir, "-speed", strconv.FormatFloat(s.speed, 'f', -1, 64), "-timeout", timeout.String()}
		if *syncs {
			cargs = append(cargs, "-sync")
		}
		if limit > 0 {
			cargs = append(cargs, "-memlimit", strconv.FormatInt(limit, 10))
		}
		for flag, prefix := range map[string]string{"-cpuprofile": *profile, "-memprofile": *memprof, "-trace": *tracef} {
			if prefix != "" {
				cargs = append(cargs, flag, prefix+"."+strings.NewReplacer(":", "-", "@", "-").Replace(s.String()))
			}
		}
		cmd := exec.Command(self, cargs...)
		cmd.Stderr = stderr
		out, err := cmd.Output()
		if err != nil {
			return fmt.Errorf("run %s: %w", s, err)
		}
		var r result
		if err := json.Unmarshal(out, &r); err != nil {
			return fmt.Errorf("run %s: child printed %q: %w", s, out, err)
		}
		rss := "n/a"
		if r.PeakRSS > 0 {
			rss = fmt.Sprintf("%.0f", float64(r.PeakRSS)/1e6)
		}
		rate := float64(r.Steps) / r.InstallSec
		fmt.Fprintf(tw, "%s\t%d\t%.1f\t%.1f\t%.1f\t%.0f\t%.0f\t%d\t%d\t%.0f\t%.0f\t%.0f\t%s\t%d\t\n", s, r.Sites, r.ApplySec, r.InstallSec, r.CPUSec,
			r.VirtualMin, rate, r.Commits, r.SitesWritten, float64(r.StateBytes)/1e6, float64(r.LiveHeap)/1e6, float64(r.FileRSS)/1e6, rss, r.Failed)
		tw.Flush()
		os.RemoveAll(stateDir)
	}
	return tw.Flush()
}

// runChild streams the fleet through the renderer into an engine and
// waits for every site to be installed; atEnd, if set, runs then, while
// the engine still holds the fleet.
func runChild(dir, state string, speed float64, noSync bool, timeout time.Duration, stdout io.Writer, atEnd func() error) error {
	ctx, cancel := context.WithTimeout(context.Background(), timeout)
	defer cancel()
	if speed == 0 {
		speed = math.Inf(1)
	}
	e, err := sim.New(ctx, sim.Options{StateDir: state, Speed: speed, NoSync: noSync})
	if err != nil {
		return err
	}
	defer e.Close()
	md, err := sites.ReadManifestDir(os.DirFS(filepath.Join(dir, gen.ExtraManifestsDir)), ".")
	if err != nil {
		return err
	}
	r := render.New(render.WithDefaultManifests(md))
	changes := e.Subscribe(ctx)
	start := time.Now()
	virtualStart := e.Now()
	n := 0
	err = sites.Stream(ctx, os.DirFS(dir), []string{"."}, func(s *sites.Site) any {
		b, _ := r.Render(s)
		return b
	}, func(it sites.Item) error {
		b, _ := it.Result.(*render.Bundle)
		if b == nil {
			return fmt.Errorf("site %v did not render: %v", it.Site, it.Problems)
		}
		n++
		return e.Apply(ctx, b, "bench")
	})
	if err != nil {
		return err
	}
	applied := time.Since(start)
	done := map[string]bool{}
	failed := 0
	for len(done) < n {
		select {
		case <-ctx.Done():
			return fmt.Errorf("%d of %d sites installed when the time ran out", len(done), n)
		case name, ok := <-changes:
			if !ok {
				return errors.New("the engine stopped")
			}
			if done[name] {
				continue
			}
			st, err := e.Status(ctx, name)
			if err != nil {
				continue
			}
			switch st.Phase {
			case engine.PhaseInstalled:
				done[name] = true
			case engine.PhaseFailed:
				done[name] = true
				failed++
			}
		}
	}
	stats := e.Stats()
	var ms runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&ms)
	if atEnd != nil {
		if err := atEnd(); err != nil {
			return err
		}
	}
	res := result{
		Sites:        n,
		ApplySec:     applied.Seconds(),
		InstallSec:   time.Since(start).Seconds(),
		VirtualMin:   e.Now().Sub(virtualStart).Minutes(),
		Failed:       failed,
		PeakRSS:      peakRSS(),
		LiveHeap:     ms.HeapAlloc,
		FileRSS:      procStatus("RssFile:"),
		CPUSec:       cpuSeconds(),
		Steps:        stats.Steps,
		Commits:      stats.Commits,
		SitesWritten: stats.SitesWritten,
		StateBytes:   stats.StateBytes,
	}
	w := bufio.NewWriter(stdout)
	defer w.Flush()
	return json.NewEncoder(w).Encode(res)
}

// startProfiles starts the CPU profile and the execution trace a child
// was asked for; stop ends them.
func startProfiles(cpuPath, tracePath string) (stop func(), err error) {
	var stops []func()
	stop = func() {
		for _, f := range stops {
			f()
		}
	}
	if cpuPath != "" {
		f, err := os.Create(cpuPath)
		if err != nil {
			return stop, err
		}
		if err := pprof.StartCPUProfile(f); err != nil {
			f.Close()
			return stop, err
		}
		stops = append(stops, func() { pprof.StopCPUProfile(); f.Close() })
	}
	if tracePath != "" {
		f, err := os.Create(tracePath)
		if err != nil {
			stop()
			return func() {}, err
		}
		if err := trace.Start(f); err != nil {
			f.Close()
			stop()
			return func() {}, err
		}
		stops = append(stops, func() { trace.Stop(); f.Close() })
	}
	return stop, nil
}

// writeHeapProfile writes the heap profile of what is live after a
// collection.
func writeHeapProfile(path string) error {
	f, err := os.Create(path)
	if err != nil {
		return err
	}
	runtime.GC()
	if err := pprof.WriteHeapProfile(f); err != nil {
		f.Close()
		return err
	}
	return f.Close()
}
