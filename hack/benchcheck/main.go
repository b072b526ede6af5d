// Command benchcheck measures `siteops check` on synthetic fleets, and
// conftest on the same fleets' rendered objects.
//
// Usage:
//
//	go run ./hack/benchcheck -bin PATH [-sizes 1000,10000] [-shape mixed] \
//	  [-manifests 20] [-runs 3] [-conftest auto|PATH|none] [-floor=true] \
//	  [-work DIR] [-keep]
//
// For every size it writes a fleet with hack/fleetgen's generator (plain
// SiteConfig files) and runs, -runs times,
//
//	PATH check --root DIR --extra-manifests-dir DIR/extra-manifests DIR -o json
//
// with the built-in rule library, cross-site rules included. It measures
// each run's wall time and the child's peak resident set size (ru_maxrss,
// Linux), and reads the JSON summary (a generated fleet has no deny
// finding; a run that exits non-zero fails the benchmark).
//
// With -conftest auto it runs conftest from PATH or, when there is none,
// installs conftest v0.71.1 with go install into the user's cache directory
// (~/.cache/siteops/bench, or $SITEOPS_BENCH_CACHE) and says so; when that
// fails it measures siteops check alone. It renders the fleet once into
// one file per site (siteops render --out-dir) and runs, -runs times,
//
//	conftest test --no-color -o json --policy POLICY OUT
//
// with conftest/rules.rego: per-document equivalents of five built-in
// rules. The table gives both tools' wall time per rendered document and
// their ratio. siteops check's time includes loading and rendering the
// sites; conftest starts from the rendered YAML. A 10,000-site mixed fleet
// gets a line of its own against the target of 4 s wall.
//
// With -floor (the default) it then runs the policy package's
// BenchmarkEvaluate and prints the CPU time of one OPA evaluation per
// site: an empty query, one rule that finds nothing (the floor of any
// per-site policy) and the built-in library.
package main

import (
	"bytes"
	"context"
	"embed"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"io/fs"
	"os"
	"os/exec"
	"os/signal"
	"path/filepath"
	"strconv"
	"strings"
	"text/tabwriter"
	"time"

	"github.com/siteops/siteops/hack/fleetgen/gen"
	"github.com/siteops/siteops/hack/internal/benchutil"
)

//go:embed conftest/*.rego
var conftestPolicy embed.FS

func main() {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt)
	err := run(ctx, os.Args[1:], os.Stdout, os.Stderr)
	stop()
	if err != nil {
		fmt.Fprintln(os.Stderr, "benchcheck:", err)
		os.Exit(1)
	}
}

type config struct {
	bin, conftest string
	sizes         []int
	shape         gen.Shape
	manifests     int
	runs          int
	seed          int64
	work          string
	keep          bool
	floor         bool
}

func parseFlags(args []string, stderr io.Writer) (config, error) {
	fl := flag.NewFlagSet("benchcheck", flag.ContinueOnError)
	fl.SetOutput(stderr)
	var (
		cfg   config
		sizes = fl.String("sizes", "1000,10000", "comma-separated fleet sizes (number of sites)")
		shape = fl.String("shape", string(gen.ShapeMixed), "cluster shape: sno, ha or mixed (1 in 4 HA)")
	)
	fl.StringVar(&cfg.bin, "bin", "", "path of the siteops binary (required)")
	fl.StringVar(&cfg.conftest, "conftest", "auto", "conftest binary: auto (from PATH, skipped when missing), a path, or none")
	fl.IntVar(&cfg.manifests, "manifests", gen.DefaultManifests, "extra-manifest files per fleet")
	fl.IntVar(&cfg.runs, "runs", 3, "runs of each tool per size")
	fl.Int64Var(&cfg.seed, "seed", 1, "fleet generator seed")
	fl.StringVar(&cfg.work, "work", "", "directory for the fleets (default: a temporary directory, removed at the end)")
	fl.BoolVar(&cfg.keep, "keep", false, "keep the temporary directory")
	fl.BoolVar(&cfg.floor, "floor", true, "also measure one OPA evaluation per site (go test -bench BenchmarkEvaluate ./policy/)")
	if err := fl.Parse(args); err != nil {
		return cfg, err
	}
	switch {
	case fl.NArg() > 0:
		return cfg, fmt.Errorf("unexpected arguments %q", fl.Args())
	case cfg.bin == "":
		return cfg, errors.New("-bin is required")
	case cfg.runs < 1:
		return cfg, fmt.Errorf("-runs %d: want at least 1", cfg.runs)
	}
	var err error
	if cfg.shape, err = gen.ParseShape(*shape); err != nil {
		return cfg, fmt.Errorf("-shape: %w", err)
	}
	for _, s := range strings.Split(*sizes, ",") {
		n, err := strconv.Atoi(strings.TrimSpace(s))
		if err != nil || n < 1 || n > gen.MaxSites {
			return cfg, fmt.Errorf("-sizes: %q is not a size in 1..%d", s, gen.MaxSites)
		}
		cfg.sizes = append(cfg.sizes, n)
	}
	return cfg, nil
}

// row is one line of the table: one tool on one fleet.
type row struct {
	size    int
	tool    string
	walls   []time.Duration
	cpus    []time.Duration // user + system time of each run
	docs    int
	peakRSS int64 // bytes; -1 when unknown
	note    string
}

func run(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	cfg, err := parseFlags(args, stderr)
	if err != nil {
		return fmt.Errorf("parse flags: %w", err)
	}
	bin, err := absBinary(cfg.bin)
	if err != nil {
		return fmt.Errorf("find siteops: %w", err)
	}
	conftest := ""
	switch cfg.conftest {
	case "none":
	case "auto":
		conftest = findConftest(ctx, stderr)
	default:
		if conftest, err = absBinary(cfg.conftest); err != nil {
			return fmt.Errorf("find conftest: %w", err)
		}
	}
	work := cfg.work
	if work == "" {
		if work, err = os.MkdirTemp("", "benchcheck-"); err != nil {
			return err
		}
		if !cfg.keep {
			defer os.RemoveAll(work)
		}
	}
	policyDir := filepath.Join(work, "conftest-policy")
	if conftest != "" {
		if err := writePolicy(policyDir); err != nil {
			return err
		}
	}
	var rows []row
	for _, size := range cfg.sizes {
		dir := filepath.Join(work, fmt.Sprintf("%s-%d", cfg.shape, size))
		if _, err := gen.Generate(dir, gen.Config{Sites: size, Shape: cfg.shape, Layout: gen.LayoutFiles,
			Format: gen.FormatSiteConfig, Manifests: cfg.manifests, Seed: cfg.seed}); err != nil {
			return fmt.Errorf("generate %d sites: %w", size, err)
		}
		manifests := filepath.Join(dir, gen.ExtraManifestsDir)
		// The rendered objects: conftest's input, and the document count
		// both tools are divided by.
		out := filepath.Join(work, fmt.Sprintf("rendered-%d", size))
		if res := runChild(ctx, bin, "render", "--root", dir, "--extra-manifests-dir", manifests, dir, "--out-dir", out); res.err != nil {
			return fmt.Errorf("render %d sites: %w", size, res.err)
		}
		docs, err := countDocuments(out)
		if err != nil {
			return err
		}
		r := row{size: size, tool: "siteops check", docs: docs, peakRSS: -1}
		for i := range cfg.runs {
			res := runChild(ctx, bin, "check", "--root", dir, "--extra-manifests-dir", manifests, dir, "-o", "json")
			if res.err != nil {
				return fmt.Errorf("siteops check, %d sites: %w", size, res.err)
			}
			var rep struct {
				Summary map[string]int `json:"summary"`
			}
			if err := json.Unmarshal(res.stdout, &rep); err != nil {
				return fmt.Errorf("siteops check, %d sites: the report is not JSON: %w", size, err)
			}
			r.walls, r.cpus, r.peakRSS = append(r.walls, res.wall), append(r.cpus, res.cpu), max(r.peakRSS, res.peakRSS)
			r.note = fmt.Sprintf("%d deny, %d warn", rep.Summary["deny"], rep.Summary["warn"])
			fmt.Fprintf(stderr, "%d sites: siteops check run %d: %s (CPU %s), peak RSS %s MB, %s\n",
				size, i+1, res.wall.Round(time.Millisecond), res.cpu.Round(time.Millisecond), benchutil.MB(res.peakRSS), r.note)
		}
		rows = append(rows, r)
		if conftest == "" {
			continue
		}
		c := row{size: size, tool: "conftest", docs: docs, peakRSS: -1}
		for i := range cfg.runs {
			res := runChild(ctx, conftest, "test", "--no-color", "-o", "json", "--policy", policyDir, out)
			if res.err != nil {
				return fmt.Errorf("conftest, %d sites: %w", size, res.err)
			}
			c.walls, c.cpus, c.peakRSS = append(c.walls, res.wall), append(c.cpus, res.cpu), max(c.peakRSS, res.peakRSS)
			c.note = conftestNote(res.stdout)
			fmt.Fprintf(stderr, "%d sites: conftest run %d: %s (CPU %s), peak RSS %s MB, %s\n",
				size, i+1, res.wall.Round(time.Millisecond), res.cpu.Round(time.Millisecond), benchutil.MB(res.peakRSS), c.note)
		}
		rows = append(rows, c)
	}
	if err := printTable(stdout, rows); err != nil {
		return err
	}
	if cfg.shape == gen.ShapeMixed {
		printTarget(stdout, rows)
	}
	if cfg.floor {
		figures, err := measureFloor(ctx)
		if err != nil {
			return fmt.Errorf("measure the evaluation floor: %w", err)
		}
		printFloor(stdout, figures)
	}
	return nil
}

// Wall-time target of siteops check on a 10,000-site mixed fleet.
const (
	targetSites = 10000
	targetWall  = 4 * time.Second
)

// printTarget prints the 10,000-site mixed fleet's check against its
// target.
func printTarget(w io.Writer, rows []row) {
	for _, r := range rows {
		if r.size != targetSites || r.tool != "siteops check" {
			continue
		}
		best, median := benchutil.BestMedian(r.walls)
		_, cpu := benchutil.BestMedian(r.cpus)
		verdict := "met"
		if median >= targetWall {
			verdict = "not met"
		}
		fmt.Fprintf(w, "%d mixed sites (one in four HA): siteops check %.2f s wall (median; best %.2f s), %.2f s CPU: target under %s wall %s\n",
			r.size, median.Seconds(), best.Seconds(), cpu.Seconds(), targetWall, verdict)
	}
}

func absBinary(p string) (string, error) {
	p, err := exec.LookPath(p)
	if err != nil {
		return "", err
	}
	return filepath.Abs(p)
}

func writePolicy(dir string) error {
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return err
	}
	return fs.WalkDir(conftestPolicy, "conftest", func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		b, err := conftestPolicy.ReadFile(p)
		if err != nil {
			return err
		}
		return os.WriteFile(filepath.Join(dir, filepath.Base(p)), b, 0o644)
	})
}

// countDocuments counts the YAML documents of the rendered files: each
// starts with a top-level kind.
func countDocuments(dir string) (int, error) {
	n := 0
	err := filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		b, err := os.ReadFile(p)
		if err != nil {
			return err
		}
		n += bytes.Count(b, []byte("\nkind: "))
		if bytes.HasPrefix(b, []byte("kind: ")) {
			n++
		}
		return nil
	})
	return n, err
}

// conftestNote sums conftest's JSON output: failures, warnings and
// successes over every document.
func conftestNote(out []byte) string {
	var results []struct {
		Successes int               `json:"successes"`
		Failures  []json.RawMessage `json:"failures"`
		Warnings  []json.RawMessage `json:"warnings"`
	}
	if err := json.Unmarshal(out, &results); err != nil {
		return "output not JSON"
	}
	var ok, failed int
	for _, r := range results {
		ok += r.Successes
		failed += len(r.Failures)
	}
	return fmt.Sprintf("%d files, %d failures, %d successes", len(results), failed, ok)
}

// childResult is one run of a command.
type childResult struct {
	wall    time.Duration
	cpu     time.Duration
	stdout  []byte
	peakRSS int64
	err     error
}

// runChild runs a command and measures it. A command that exits non-zero
// is an error with the tail of its stderr: a benchmark of a failing run
// measures nothing.
func runChild(ctx context.Context, bin string, args ...string) childResult {
	var stdout, stderr bytes.Buffer
	cmd := exec.CommandContext(ctx, bin, args...)
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	start := time.Now()
	err := cmd.Run()
	res := childResult{wall: time.Since(start), stdout: stdout.Bytes(), peakRSS: -1}
	if cmd.ProcessState != nil {
		if rss, ok := benchutil.PeakRSS(cmd.ProcessState); ok {
			res.peakRSS = rss
		}
		res.cpu = cmd.ProcessState.UserTime() + cmd.ProcessState.SystemTime()
	}
	if err != nil {
		tail := stderr.Bytes()
		if len(tail) > 2048 {
			tail = tail[len(tail)-2048:]
		}
		res.err = fmt.Errorf("%s %s: %w\n%s", filepath.Base(bin), args[0], err, tail)
	}
	return res
}

func printTable(w io.Writer, rows []row) error {
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', tabwriter.AlignRight)
	fmt.Fprintln(tw, "SITES\tTOOL\tRUNS\tBEST\tMEDIAN\tCPU\tSITES/S\tDOCS\tµs/DOC\tCPU µs/DOC\tPEAK RSS MB\tRESULT\t")
	type key struct {
		size int
		tool string
	}
	wall, cpu := map[key]float64{}, map[key]float64{}
	for _, r := range rows {
		best, median := benchutil.BestMedian(r.walls)
		_, medianCPU := benchutil.BestMedian(r.cpus)
		docs := float64(max(r.docs, 1))
		k := key{r.size, r.tool}
		wall[k], cpu[k] = float64(median.Microseconds())/docs, float64(medianCPU.Microseconds())/docs
		fmt.Fprintf(tw, "%d\t%s\t%d\t%.2fs\t%.2fs\t%.2fs\t%.0f\t%d\t%.1f\t%.1f\t%s\t%s\t\n", r.size, r.tool, len(r.walls),
			best.Seconds(), median.Seconds(), medianCPU.Seconds(), float64(r.size)/median.Seconds(), r.docs, wall[k], cpu[k],
			benchutil.MB(r.peakRSS), r.note)
	}
	if err := tw.Flush(); err != nil {
		return err
	}
	for _, r := range rows {
		s, c := key{r.size, "siteops check"}, key{r.size, "conftest"}
		if r.tool == "conftest" && wall[s] > 0 && cpu[s] > 0 {
			fmt.Fprintf(w, "%d sites: per document, conftest takes %.1f× the wall time and %.1f× the CPU time of siteops check\n",
				r.size, wall[c]/wall[s], cpu[c]/cpu[s])
		}
	}
	return nil
}
