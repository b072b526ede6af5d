// Command benchrender measures `siteops render` on synthetic fleets.
//
// Usage:
//
//	go run ./hack/benchrender -bin PATH [-sizes 1000,10000] [-shapes sno,ha] \
//	  [-layouts files,generators,overlays] [-manifests 20] [-runs 3]
//
// For every size, shape and layout it writes a fleet with the generator of
// hack/fleetgen (package github.com/siteops/siteops/hack/fleetgen/gen) and
// then runs, -runs times,
//
//	PATH render --root DIR --extra-manifests-dir DIR/extra-manifests DIR -o yaml
//
// with stdout counted and discarded: the same command line for every layout. A
// layout is files (SiteConfig files, no kustomization), generators (the same
// files plus a ZTP kustomization listing them under generators:), overlays (a
// kustomize tree of ClusterInstances: a base and one overlay per site, by
// region), or LAYOUT/FORMAT for another format than the layout's default, e.g.
// files/clusterinstance. It measures the wall time of each run and the peak
// resident set size of the child (ru_maxrss from wait4, Linux only), and prints
// one table row per size, shape and layout: the best and median wall time,
// sites per second at the median, the output size, the highest peak RSS over
// the runs, and the exit code. The method is the one the upstream SiteConfig
// generator was measured with (single process over the whole fleet, output
// discarded, several runs because wall times on shared machines are noisy).
//
// Each row also gives the median CPU time (user + system) of the child,
// which on a shared machine varies less than wall time. For the overlays
// layout, kustomize itself builds the same fleet (`kustomize build DIR`,
// -runs times) in a row of its own, and a line after the table gives the
// ratio of the two by CPU and by wall time. The kustomize binary is -kustomize,
// else kustomize on PATH, else the release built on the same kustomize API
// as siteops, installed with go install into the user cache on first use;
// benchrender says when it cannot be had and measures siteops alone.
//
// A run that exits non-zero ends the runs of that size, shape and layout,
// its exit code goes into the table and the tail of its stderr is printed;
// after the table, benchrender exits 1. A render that exits 0 without
// printing anything (a binary that does not read the layout finds no
// sites) is marked "0 (no output)" in the table. MB in the table are 10^6
// bytes.
package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"os/exec"
	"os/signal"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"text/tabwriter"
	"time"

	"github.com/siteops/siteops/hack/fleetgen/gen"
	"github.com/siteops/siteops/hack/internal/benchutil"
)

// errRunFailed reports that at least one render exited non-zero.
var errRunFailed = errors.New("some renders failed")

func main() {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt)
	err := run(ctx, os.Args[1:], os.Stdout, os.Stderr)
	stop()
	if err != nil {
		fmt.Fprintln(os.Stderr, "benchrender:", err)
		os.Exit(1)
	}
}

// config holds the parsed flags.
type config struct {
	bin       string
	sizes     []int
	shapes    []gen.Shape
	layouts   []variant
	manifests int
	runs      int
	seed      int64
	work      string
	keep      bool
	timeout   time.Duration
	kustomize string // the peer for the overlays layout; "none" for none
}

// variant is a layout and format of the generated fleet.
type variant struct {
	layout gen.Layout
	format gen.Format
}

// parseVariant reads LAYOUT or LAYOUT/FORMAT.
func parseVariant(s string) (variant, error) {
	l, f, withFormat := strings.Cut(strings.TrimSpace(s), "/")
	layout, err := gen.ParseLayout(l)
	if err != nil {
		return variant{}, err
	}
	v := variant{layout: layout, format: gen.DefaultFormat(layout)}
	if withFormat {
		if v.format, err = gen.ParseFormat(f); err != nil {
			return variant{}, err
		}
	}
	if err := gen.CheckLayout(v.layout, v.format); err != nil {
		return variant{}, err
	}
	return v, nil
}

// String is the layout as the table shows it: the layout name, with the
// format when it is not the layout's default.
func (v variant) String() string {
	if v.format == gen.DefaultFormat(v.layout) {
		return string(v.layout)
	}
	return string(v.layout) + "/" + string(v.format)
}

// result is one table row.
type result struct {
	size      int
	shape     gen.Shape
	layout    variant
	runs      int             // renders started
	walls     []time.Duration // one per successful run
	cpus      []time.Duration // user + system time of each successful run
	outBytes  int64           // stdout bytes of the last run
	peakRSS   int64           // bytes; -1 when unknown
	exitCode  int
	exitNote  string // "timeout" or "signal" when the child did not exit normally, "no output" when it printed nothing
	generated time.Duration
	dir       string // the fleet
	isPeer    bool   // a kustomize build row
	// peer is kustomize build on the same fleet, for the overlays layout.
	peer *result
}

func run(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	cfg, err := parseFlags(args, stderr)
	if err != nil {
		return fmt.Errorf("parse flags: %w", err)
	}
	bin, err := exec.LookPath(cfg.bin)
	if err != nil {
		return fmt.Errorf("find siteops binary: %w", err)
	}
	if bin, err = filepath.Abs(bin); err != nil {
		return fmt.Errorf("find siteops binary: %w", err)
	}

	work := cfg.work
	if work == "" {
		if work, err = os.MkdirTemp("", "benchrender-"); err != nil {
			return fmt.Errorf("create work directory: %w", err)
		}
		if !cfg.keep {
			defer os.RemoveAll(work)
		}
	}

	peer := ""
	if slices.ContainsFunc(cfg.layouts, func(v variant) bool { return v.layout == gen.LayoutOverlays }) {
		peer = findKustomize(ctx, cfg.kustomize, stderr)
	}

	var results []result
	for _, size := range cfg.sizes {
		for _, shape := range cfg.shapes {
			for _, layout := range cfg.layouts {
				if err := ctx.Err(); err != nil {
					return err
				}
				r, err := measure(ctx, cfg, bin, work, size, shape, layout, stderr)
				if err != nil {
					return fmt.Errorf("%s %s x %d: %w", layout, shape, size, err)
				}
				if layout.layout == gen.LayoutOverlays && peer != "" {
					pr := measurePeer(ctx, cfg, peer, r, stderr)
					r.peer = &pr
				}
				results = append(results, r)
			}
		}
	}

	if err := printTable(stdout, results); err != nil {
		return fmt.Errorf("print table: %w", err)
	}
	printRatios(stdout, results)
	if cfg.keep || cfg.work != "" {
		fmt.Fprintf(stderr, "fleets kept in %s\n", work)
	}
	for _, r := range results {
		if r.exitCode != 0 || (r.peer != nil && r.peer.exitCode != 0) {
			return errRunFailed
		}
	}
	return nil
}

func parseFlags(args []string, stderr io.Writer) (config, error) {
	fs := flag.NewFlagSet("benchrender", flag.ContinueOnError)
	fs.SetOutput(stderr)
	var (
		cfg     config
		sizes   = fs.String("sizes", "1000,10000", "comma-separated fleet sizes (number of sites)")
		shapes  = fs.String("shapes", "sno,ha", "comma-separated cluster shapes: sno, ha, mixed")
		layouts = fs.String("layouts", "files", "comma-separated fleet layouts: files, generators, overlays, or LAYOUT/FORMAT such as files/clusterinstance")
	)
	fs.StringVar(&cfg.bin, "bin", "", "path of the siteops binary (required)")
	fs.IntVar(&cfg.manifests, "manifests", gen.DefaultManifests, "number of extra-manifest files per fleet")
	fs.IntVar(&cfg.runs, "runs", 3, "renders per size, shape and layout")
	fs.Int64Var(&cfg.seed, "seed", 1, "fleet generator seed")
	fs.StringVar(&cfg.work, "work", "", "directory for the generated fleets (default: a temporary directory, removed at the end)")
	fs.BoolVar(&cfg.keep, "keep", false, "keep the temporary directory with the generated fleets")
	fs.DurationVar(&cfg.timeout, "timeout", 30*time.Minute, "limit for one render; 0 means none")
	fs.StringVar(&cfg.kustomize, "kustomize", "", "kustomize binary run on the overlays layout for comparison (default: kustomize on PATH, else "+
		kustomizePeer.Module+"@"+kustomizePeer.Version+" installed with go install into the user cache); none to skip it")
	fs.Usage = func() {
		fmt.Fprintln(fs.Output(), "usage: benchrender -bin PATH [-sizes 1000,10000] [-shapes sno,ha] [-layouts files,generators,overlays] [-manifests 20] [-runs 3]")
		fs.PrintDefaults()
	}
	if err := fs.Parse(args); err != nil {
		return cfg, err
	}
	if fs.NArg() > 0 {
		return cfg, fmt.Errorf("unexpected arguments %q", fs.Args())
	}
	if cfg.bin == "" {
		return cfg, errors.New("-bin is required")
	}
	if cfg.runs < 1 {
		return cfg, fmt.Errorf("-runs %d: want at least 1", cfg.runs)
	}
	for _, s := range strings.Split(*sizes, ",") {
		n, err := strconv.Atoi(strings.TrimSpace(s))
		if err != nil || n < 1 || n > gen.MaxSites {
			return cfg, fmt.Errorf("-sizes: %q is not a size in 1..%d", s, gen.MaxSites)
		}
		cfg.sizes = append(cfg.sizes, n)
	}
	for _, s := range strings.Split(*shapes, ",") {
		sh, err := gen.ParseShape(strings.TrimSpace(s))
		if err != nil {
			return cfg, fmt.Errorf("-shapes: %w", err)
		}
		cfg.shapes = append(cfg.shapes, sh)
	}
	for _, s := range strings.Split(*layouts, ",") {
		v, err := parseVariant(s)
		if err != nil {
			return cfg, fmt.Errorf("-layouts: %w", err)
		}
		if slices.Contains(cfg.layouts, v) {
			return cfg, fmt.Errorf("-layouts: %s given twice", v)
		}
		cfg.layouts = append(cfg.layouts, v)
	}
	for _, n := range cfg.sizes {
		if n == gen.MaxSites && slices.ContainsFunc(cfg.layouts, func(v variant) bool { return v.layout == gen.LayoutOverlays }) {
			return cfg, fmt.Errorf("-sizes: layout overlays takes at most %d sites", gen.MaxSites-1)
		}
	}
	return cfg, nil
}

// measure generates one fleet and renders it cfg.runs times.
func measure(ctx context.Context, cfg config, bin, work string, size int, shape gen.Shape, layout variant, stderr io.Writer) (result, error) {
	r := result{size: size, shape: shape, layout: layout, peakRSS: -1}
	dir := filepath.Join(work, fmt.Sprintf("%s-%s-%d", strings.ReplaceAll(layout.String(), "/", "-"), shape, size))
	label := fmt.Sprintf("%s %s x %d", layout, shape, size)

	start := time.Now()
	if _, err := gen.Generate(dir, gen.Config{Sites: size, Shape: shape, Layout: layout.layout, Format: layout.format,
		Manifests: cfg.manifests, Seed: cfg.seed}); err != nil {
		return r, fmt.Errorf("generate fleet: %w", err)
	}
	r.generated = time.Since(start)
	fmt.Fprintf(stderr, "%s: fleet written to %s in %s\n", label, dir, r.generated.Round(time.Millisecond))

	r.dir = dir
	runs(ctx, cfg, &r, label, renderArgs(bin, dir), stderr)
	if r.exitCode == 0 && len(r.walls) > 0 && r.outBytes == 0 {
		// A render that finds no site exits 0 too; do not let its row pass
		// for a measurement of the fleet.
		r.exitNote = "no output"
		fmt.Fprintf(stderr, "%s: the render printed nothing; the binary may not read this layout\n", label)
	}
	return r, nil
}

// measurePeer runs kustomize build on the fleet of r cfg.runs times.
func measurePeer(ctx context.Context, cfg config, kustomize string, r result, stderr io.Writer) result {
	p := result{size: r.size, shape: r.shape, layout: r.layout, peakRSS: -1, dir: r.dir, isPeer: true}
	runs(ctx, cfg, &p, fmt.Sprintf("kustomize build %s %s x %d", r.layout, r.shape, r.size), []string{kustomize, "build", r.dir}, stderr)
	return p
}

// runs runs the command line cfg.runs times, recording each run in r.
func runs(ctx context.Context, cfg config, r *result, label string, argv []string, stderr io.Writer) {
	for i := range cfg.runs {
		rr, err := runOnce(ctx, argv, cfg.timeout)
		if err != nil {
			r.exitCode, r.exitNote = -1, "not started"
			fmt.Fprintf(stderr, "%s: run %d: %v\n", label, i+1, err)
			return
		}
		r.runs++
		r.peakRSS = max(r.peakRSS, rr.peakRSS)
		r.exitCode, r.exitNote = rr.exitCode, rr.exitNote
		if rr.exitCode != 0 {
			if rr.stderrTail == "" {
				rr.stderrTail = "(empty)"
			}
			fmt.Fprintf(stderr, "%s: run %d exited %d after %s; stderr tail:\n%s\n",
				label, i+1, rr.exitCode, rr.wall.Round(time.Millisecond), rr.stderrTail)
			break
		}
		r.walls = append(r.walls, rr.wall)
		r.cpus = append(r.cpus, rr.cpu)
		r.outBytes = rr.outBytes
		fmt.Fprintf(stderr, "%s: run %d: %s (CPU %s), %.1f MB out, peak RSS %s\n",
			label, i+1, rr.wall.Round(time.Millisecond), rr.cpu.Round(time.Millisecond), float64(rr.outBytes)/1e6, benchutil.MB(rr.peakRSS))
	}
}

// runResult is one render.
type runResult struct {
	wall       time.Duration
	cpu        time.Duration // user + system
	outBytes   int64
	peakRSS    int64 // bytes; -1 when unknown
	exitCode   int
	exitNote   string
	stderrTail string
}

// renderArgs is the siteops render command line on the fleet in dir.
func renderArgs(bin, dir string) []string {
	return []string{bin, "render",
		"--root", dir,
		"--extra-manifests-dir", filepath.Join(dir, gen.ExtraManifestsDir),
		dir,
		"-o", "yaml"}
}

// runOnce runs a command line with its output counted. It returns an
// error only when the child could not be started; a child that fails is
// reported through exitCode.
func runOnce(ctx context.Context, argv []string, timeout time.Duration) (runResult, error) {
	if timeout > 0 {
		var cancel context.CancelFunc
		ctx, cancel = context.WithTimeout(ctx, timeout)
		defer cancel()
	}
	var (
		out  countWriter
		tail = tailWriter{max: 4 << 10}
	)
	cmd := exec.CommandContext(ctx, argv[0], argv[1:]...)
	cmd.Stdout = &out
	cmd.Stderr = &tail
	// After a timeout kill, do not wait forever for grandchildren that
	// still hold the output pipes.
	cmd.WaitDelay = 5 * time.Second

	start := time.Now()
	err := cmd.Run()
	res := runResult{wall: time.Since(start), outBytes: out.n, peakRSS: -1, stderrTail: string(tail.b)}
	var exitErr *exec.ExitError
	if err != nil && !errors.As(err, &exitErr) {
		return res, fmt.Errorf("start %s: %w", filepath.Base(argv[0]), err)
	}
	if ps := cmd.ProcessState; ps != nil {
		res.cpu = ps.UserTime() + ps.SystemTime()
		if rss, ok := benchutil.PeakRSS(ps); ok {
			res.peakRSS = rss
		}
		res.exitCode = ps.ExitCode()
		if res.exitCode == -1 {
			res.exitNote = "signal"
			if ctx.Err() != nil {
				res.exitNote = "timeout"
			}
		}
	}
	return res, nil
}

func printTable(w io.Writer, results []result) error {
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', tabwriter.AlignRight)
	fmt.Fprintln(tw, "SIZE\tLAYOUT\tSHAPE\tRUNS\tBEST\tMEDIAN\tCPU\tSITES/S\tOUTPUT MB\tPEAK RSS MB\tEXIT\t")
	row := func(r result) {
		best, median, cpu, rate, outMB := "-", "-", "-", "-", "-"
		if len(r.walls) > 0 {
			b, m := benchutil.BestMedian(r.walls)
			_, c := benchutil.BestMedian(r.cpus)
			best, median, cpu = formatSeconds(b), formatSeconds(m), formatSeconds(c)
			rate = fmt.Sprintf("%.0f", float64(r.size)/m.Seconds())
			outMB = fmt.Sprintf("%.1f", float64(r.outBytes)/1e6)
		}
		exit := strconv.Itoa(r.exitCode)
		if r.exitNote != "" {
			exit += " (" + r.exitNote + ")"
		}
		layout := r.layout.String()
		if r.isPeer {
			layout += ":kustomize-build"
		}
		fmt.Fprintf(tw, "%d\t%s\t%s\t%d\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t\n",
			r.size, layout, r.shape, r.runs, best, median, cpu, rate, outMB, benchutil.MB(r.peakRSS), exit)
	}
	for _, r := range results {
		row(r)
		if r.peer != nil {
			row(*r.peer)
		}
	}
	return tw.Flush()
}

// printRatios says how many times faster siteops render is than kustomize
// build on each overlays fleet, by median CPU time and median wall time.
func printRatios(w io.Writer, results []result) {
	for _, r := range results {
		p := r.peer
		if p == nil || len(r.walls) == 0 || len(p.walls) == 0 {
			continue
		}
		_, rw := benchutil.BestMedian(r.walls)
		_, rc := benchutil.BestMedian(r.cpus)
		_, pw := benchutil.BestMedian(p.walls)
		_, pc := benchutil.BestMedian(p.cpus)
		fmt.Fprintf(w, "%s %s x %d: siteops render is %.1fx kustomize build by CPU (%s vs %s), %.1fx by wall time (%s vs %s)\n",
			r.layout, r.shape, r.size, ratio(pc, rc), formatSeconds(rc), formatSeconds(pc), ratio(pw, rw), formatSeconds(rw), formatSeconds(pw))
	}
}

func ratio(peer, own time.Duration) float64 {
	if own <= 0 {
		return 0
	}
	return peer.Seconds() / own.Seconds()
}

func formatSeconds(d time.Duration) string { return fmt.Sprintf("%.2fs", d.Seconds()) }

// countWriter counts and discards what is written to it.
type countWriter struct{ n int64 }

func (c *countWriter) Write(p []byte) (int, error) {
	c.n += int64(len(p))
	return len(p), nil
}

// tailWriter keeps the last max bytes written to it.
type tailWriter struct {
	max int
	b   []byte
}

func (t *tailWriter) Write(p []byte) (int, error) {
	t.b = append(t.b, p...)
	if over := len(t.b) - t.max; over > 0 {
		t.b = append(t.b[:0], t.b[over:]...)
	}
	return len(p), nil
}
