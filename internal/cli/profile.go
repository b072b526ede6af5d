package cli

import (
	"cmp"
	"fmt"
	"io"
	"os"
	"runtime"
	"runtime/pprof"
	"runtime/trace"

	"github.com/spf13/cobra"
)

// Environment variables that turn profiling on for any command, as the
// hidden flags do: a profile of a run is one setting away, even where the
// command line is not one's own (a CI job, the Argo CD plugin).
const (
	envCPUProfile = "SITEOPS_CPUPROFILE"
	envMemProfile = "SITEOPS_MEMPROFILE"
	envTrace      = "SITEOPS_TRACE"
)

// profiler writes a CPU profile of the command and a heap profile at its
// end (docs/performance.md says how to read them).
type profiler struct {
	cpuFile, memFile, traceFile string
	cpu, trace                  *os.File
}

// addFlags adds the hidden --cpuprofile and --memprofile flags to
// every command, and starts the CPU profile before the command runs.
func (p *profiler) addFlags(root *cobra.Command) {
	fl := root.PersistentFlags()
	fl.StringVar(&p.cpuFile, "cpuprofile", "", "write a CPU profile of the command to this file (or $"+envCPUProfile+")")
	fl.StringVar(&p.memFile, "memprofile", "", "write a heap profile at the end of the command to this file (or $"+envMemProfile+")")
	fl.StringVar(&p.traceFile, "trace", "", "write an execution trace of the command to this file, for go tool trace (or $"+envTrace+")")
	fl.MarkHidden("cpuprofile")
	fl.MarkHidden("memprofile")
	fl.MarkHidden("trace")
	root.PersistentPreRunE = func(*cobra.Command, []string) error { return p.start() }
}

func (p *profiler) start() error {
	p.cpuFile = cmp.Or(p.cpuFile, os.Getenv(envCPUProfile))
	p.memFile = cmp.Or(p.memFile, os.Getenv(envMemProfile))
	p.traceFile = cmp.Or(p.traceFile, os.Getenv(envTrace))
	var err error
	// The execution trace shows where a run's cores sit idle, which a
	// CPU profile does not.
	if p.trace, err = startWriting(p.traceFile, "--trace", trace.Start); err != nil {
		return err
	}
	p.cpu, err = startWriting(p.cpuFile, "--cpuprofile", pprof.StartCPUProfile)
	return err
}

// startWriting creates file and starts writing to it with start; nil
// when no file is asked for. flag names the file in errors.
func startWriting(file, flag string, start func(io.Writer) error) (*os.File, error) {
	if file == "" {
		return nil, nil
	}
	f, err := os.Create(file)
	if err != nil {
		return nil, usageError("%s: %v", flag, err)
	}
	if err := start(f); err != nil {
		f.Close()
		return nil, usageError("%s: %v", flag, err)
	}
	return f, nil
}

// stop ends the CPU profile and the trace and writes the heap profile;
// problems are reported, the command's own result stands.
func (p *profiler) stop(report func(string)) {
	if p.trace != nil {
		trace.Stop()
		if err := p.trace.Close(); err != nil {
			report(fmt.Sprintf("--trace: %v", err))
		}
		p.trace = nil
	}
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
