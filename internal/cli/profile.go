package cli

import (
	"cmp"
	"fmt"
	"os"
	"runtime"
	"runtime/pprof"

	"github.com/spf13/cobra"
)

// Environment variables that turn profiling on for any command, as the
// hidden flags do: a profile of a run is one setting away, even where the
// command line is not one's own (a CI job, the Argo CD plugin).
const (
	envCPUProfile = "SITEOPS_CPUPROFILE"
	envMemProfile = "SITEOPS_MEMPROFILE"
)

// profiler writes a CPU profile of the command and a heap profile at its
// end (docs/performance.md says how to read them).
type profiler struct {
	cpuFile, memFile string
	cpu              *os.File
}

// addFlags adds the hidden --cpuprofile and --memprofile flags to
// every command, and starts the CPU profile before the command runs.
func (p *profiler) addFlags(root *cobra.Command) {
	fl := root.PersistentFlags()
	fl.StringVar(&p.cpuFile, "cpuprofile", "", "write a CPU profile of the command to this file (or $"+envCPUProfile+")")
	fl.StringVar(&p.memFile, "memprofile", "", "write a heap profile at the end of the command to this file (or $"+envMemProfile+")")
	fl.MarkHidden("cpuprofile")
	fl.MarkHidden("memprofile")
	root.PersistentPreRunE = func(*cobra.Command, []string) error { return p.start() }
}

func (p *profiler) start() error {
	p.cpuFile = cmp.Or(p.cpuFile, os.Getenv(envCPUProfile))
	p.memFile = cmp.Or(p.memFile, os.Getenv(envMemProfile))
	if p.cpuFile == "" {
		return nil
	}
	f, err := os.Create(p.cpuFile)
	if err != nil {
		return usageError("--cpuprofile: %v", err)
	}
	if err := pprof.StartCPUProfile(f); err != nil {
		f.Close()
		return usageError("--cpuprofile: %v", err)
	}
	p.cpu = f
	return nil
}

// stop ends the CPU profile and writes the heap profile; problems are
// reported, the command's own result stands.
func (p *profiler) stop(report func(string)) {
	if p.cpu != nil {
		pprof.StopCPUProfile()
		if err := p.cpu.Close(); err != nil {
			report(fmt.Sprintf("--cpuprofile: %v", err))
		}
		p.cpu = nil
	}
	if p.memFile == "" {
		return
	}
	f, err := os.Create(p.memFile)
	if err != nil {
		report(fmt.Sprintf("--memprofile: %v", err))
		return
	}
	defer f.Close()
	runtime.GC() // the heap as it is live, not as garbage
	if err := pprof.Lookup("heap").WriteTo(f, 0); err != nil {
		report(fmt.Sprintf("--memprofile: %v", err))
	}
}
