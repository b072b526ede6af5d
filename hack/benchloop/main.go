// Command benchloop measures `siteops run` on a large fleet repository
// served by `git daemon` on loopback: the first full pass (wall time and
// memory), the time to install the whole fleet at --speed max, and the
// time from a commit that changes one site to that site's status pushed
// back to the repository.
//
// Usage:
//
//	go run ./hack/benchloop -bin bin/siteops [-sites 10000,50000] [-shape sno] \
//	  [-layout generators] [-manifests 20] [-changes 5] [-speed max] \
//	  [-work DIR] [-keep]
//
// Each size in -sites is measured in turn, by a siteops of its own. Each
// one-site change is a real commit pushed to the daemon, followed by a
// signed POST /hooks/git as a Git server would send it; the latency ends
// when siteops logs that it pushed the status of that revision. The
// process's RSS is read after each commit, to show whether status writes
// leave memory behind. siteops's log is kept in the work directory
// (siteops.log, with -keep or -work).
package main

import (
	"bufio"
	"bytes"
	"context"
	"crypto/hmac"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"os/exec"
	"os/signal"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"syscall"
	"time"

	"github.com/siteops/siteops/hack/fleetgen/gen"
	"github.com/siteops/siteops/hack/internal/benchutil"
)

func main() {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	err := run(ctx, os.Args[1:], os.Stdout, os.Stderr)
	stop()
	if err != nil {
		fmt.Fprintln(os.Stderr, "benchloop:", err)
		os.Exit(1)
	}
}

type config struct {
	bin       string
	sizes     []int
	sites     int // the size measured
	shape     string
	layout    string
	manifests int
	changes   int
	work      string
	keep      bool
	speed     string
	timeout   time.Duration
}

func parseFlags(args []string, stderr io.Writer) (config, error) {
	fs := flag.NewFlagSet("benchloop", flag.ContinueOnError)
	fs.SetOutput(stderr)
	var c config
	fs.StringVar(&c.bin, "bin", "", "path of the siteops binary (required)")
	sizes := fs.String("sites", "10000", "numbers of sites in the repository, comma-separated: each is measured in turn")
	fs.StringVar(&c.shape, "shape", string(gen.ShapeSNO), "cluster shape: sno, ha or mixed")
	fs.StringVar(&c.layout, "layout", string(gen.LayoutGenerators), "fleet layout: files or generators")
	fs.IntVar(&c.manifests, "manifests", gen.DefaultManifests, "extra-manifest files")
	fs.IntVar(&c.changes, "changes", 5, "one-site commits to time")
	fs.StringVar(&c.work, "work", "", "work directory (default: a temporary one, removed at the end)")
	fs.BoolVar(&c.keep, "keep", false, "keep the work directory")
	fs.StringVar(&c.speed, "speed", "max", "siteops --speed: at max the fleet installs during the first pass and the commits are timed once every site is Installed; at another speed they are timed at once, while the sites install slowly")
	fs.DurationVar(&c.timeout, "timeout", 20*time.Minute, "limit for the whole measurement")
	if err := fs.Parse(args); err != nil {
		return c, err
	}
	if c.bin == "" {
		return c, errors.New("-bin is required")
	}
	for _, f := range strings.Split(*sizes, ",") {
		n, err := strconv.Atoi(strings.TrimSpace(f))
		if err != nil || n < 1 {
			return c, fmt.Errorf("-sites %q: give positive numbers, comma-separated", *sizes)
		}
		c.sizes = append(c.sizes, n)
	}
	if c.changes < 1 {
		return c, errors.New("-changes must be positive")
	}
	return c, nil
}

func run(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	cfg, err := parseFlags(args, stderr)
	if err != nil {
		return err
	}
	bin, err := filepath.Abs(cfg.bin)
	if err != nil {
		return err
	}
	ctx, cancel := context.WithTimeout(ctx, cfg.timeout)
	defer cancel()
	work := cfg.work
	if work == "" {
		if work, err = os.MkdirTemp("", "benchloop-"); err != nil {
			return err
		}
		if !cfg.keep {
			defer os.RemoveAll(work)
		}
	}
	for i, n := range cfg.sizes {
		if i > 0 {
			fmt.Fprintln(stdout)
		}
		c := cfg
		c.sites = n
		dir := filepath.Join(work, strconv.Itoa(n))
		if err := os.MkdirAll(dir, 0o755); err != nil {
			return err
		}
		if err := measure(ctx, c, bin, dir, stdout, stderr); err != nil {
			return fmt.Errorf("%d sites: %w", n, err)
		}
	}
	if cfg.keep || cfg.work != "" {
		fmt.Fprintf(stderr, "work directory kept: %s\n", work)
	}
	return nil
}

// measure runs siteops on a fleet of cfg.sites sites in work and prints
// the figures.
func measure(ctx context.Context, cfg config, bin, work string, stdout, stderr io.Writer) error {
	b := &bench{cfg: cfg, work: work, log: stderr, env: gitEnv(work)}

	progress(stderr, "generating %d %s sites (%s layout)", cfg.sites, cfg.shape, cfg.layout)
	stats, err := b.generate()
	if err != nil {
		return fmt.Errorf("generate the fleet: %w", err)
	}
	port, err := b.startDaemon(ctx)
	if err != nil {
		return fmt.Errorf("start git daemon: %w", err)
	}
	defer b.stopDaemon()
	url := fmt.Sprintf("git://127.0.0.1:%d/fleet.git", port)

	progress(stderr, "starting siteops run --repo %s --speed %s", url, cfg.speed)
	r, err := b.startLoop(ctx, bin, url)
	if err != nil {
		return err
	}
	defer r.stop()

	first, err := r.waitFor(ctx, func(e logEntry) bool { return e.Msg == "pass finished" && e.Kind == "full" })
	if err != nil {
		return fmt.Errorf("wait for the first pass: %w", err)
	}
	firstWall := first.at.Sub(r.started)
	// The parts of the first pass, from the log: the clone (to the first
	// revision), loading, rendering, checking and applying (to the start
	// of the status write), and the status write.
	rev, _ := r.waitFor(ctx, func(e logEntry) bool { return e.Msg == "new revision" })
	write, _ := r.waitFor(ctx, func(e logEntry) bool { return e.Msg == "status written" })
	writeTook := time.Duration(write.Duration)
	applied := write.at.Add(-writeTook)
	firstRSS, firstPeak := r.memory()
	firstCPU := r.cpu()
	installed := time.Duration(-1)
	if cfg.speed == "max" {
		progress(stderr, "first pass in %s; waiting for the fleet to install", firstWall.Round(time.Millisecond))
		installedAt, err := r.waitInstalled(ctx, cfg.sites)
		if err != nil {
			return fmt.Errorf("wait for the fleet to install: %w", err)
		}
		installed = installedAt.Sub(r.started)
	}
	// Let the status writes of the installation finish before timing.
	if _, err := r.waitQuiet(ctx, 3*time.Second); err != nil {
		return err
	}
	afterRSS, _ := r.memory()

	var latencies, passes, fetches, writes, pushes, cpus []time.Duration
	var rss []string
	for i := range cfg.changes {
		cpu0 := r.cpu()
		file := stats.Files[(i*7919)%len(stats.Files)]
		rev, err := b.commitChange(file, i)
		if err != nil {
			return fmt.Errorf("commit a change: %w", err)
		}
		t0 := time.Now()
		if err := r.webhook(ctx, rev); err != nil {
			return fmt.Errorf("webhook: %w", err)
		}
		seen, err := r.waitFor(ctx, func(e logEntry) bool { return e.Msg == "new revision" && e.Revision == rev })
		if err != nil {
			return fmt.Errorf("wait for %s to be fetched: %w", rev, err)
		}
		pass, err := r.waitFor(ctx, func(e logEntry) bool { return e.Msg == "pass finished" && e.Revision == rev })
		if err != nil {
			return fmt.Errorf("wait for the pass over %s: %w", rev, err)
		}
		pushed, err := r.waitFor(ctx, func(e logEntry) bool { return e.Msg == "status written" && e.Revision == rev })
		if err != nil {
			return fmt.Errorf("wait for the status of %s: %w", rev, err)
		}
		latencies = append(latencies, pushed.at.Sub(t0))
		fetches = append(fetches, seen.at.Sub(t0))
		writes = append(writes, time.Duration(pushed.Duration))
		pushes = append(pushes, time.Duration(pushed.SourceDuration))
		cpus = append(cpus, r.cpu()-cpu0)
		passes = append(passes, time.Duration(pass.Duration))
		now, _ := r.memory()
		rss = append(rss, benchutil.MB(now))
		progress(stderr, "change %d (%s): status pushed %s after the push", i+1, filepath.Base(file), pushed.at.Sub(t0).Round(time.Millisecond))
	}
	endRSS, endPeak := r.memory()

	fmt.Fprintf(stdout, "siteops run, %d %s sites (%s layout, %d extra manifests), git daemon on loopback, --speed %s\n\n",
		cfg.sites, cfg.shape, cfg.layout, cfg.manifests, cfg.speed)
	fmt.Fprintf(stdout, "  %-44s %s\n", "first full pass (start to pass finished)", firstWall.Round(time.Millisecond))
	fmt.Fprintf(stdout, "  %-44s %s (at least %.1f s wall on two cores)\n", "  CPU time of siteops (user + system)", firstCPU.Round(10*time.Millisecond), firstCPU.Seconds()/2)
	fmt.Fprintf(stdout, "  %-44s %s, %s, %s (commit and push %s)\n", "  clone; load to applied; status written", rev.at.Sub(r.started).Round(time.Millisecond),
		applied.Sub(rev.at).Round(time.Millisecond), writeTook.Round(time.Millisecond), time.Duration(write.SourceDuration).Round(time.Millisecond))
	if steps := first.stepsText(); steps != "" {
		fmt.Fprintf(stdout, "  %-44s %s\n", "  steps of the pass", steps)
	}
	fmt.Fprintf(stdout, "  %-44s %s\n", "RSS after the first pass (peak so far)", mb(firstRSS)+" ("+mb(firstPeak)+")")
	if installed >= 0 {
		fmt.Fprintf(stdout, "  %-44s %s\n", "every site Installed (from start)", installed.Round(time.Millisecond))
		fmt.Fprintf(stdout, "  %-44s %s\n", "RSS once installed", mb(afterRSS))
	} else {
		fmt.Fprintf(stdout, "  %-44s %s\n", "RSS before the commits (sites installing)", mb(afterRSS))
	}
	fmt.Fprintf(stdout, "  %-44s median %s, max %s (%d commits)\n", "one-site commit to its status pushed", median(latencies), slices.Max(latencies).Round(time.Millisecond), len(latencies))
	fmt.Fprintf(stdout, "  %-44s median %s\n", "incremental pass (load to status pushed)", median(passes))
	fmt.Fprintf(stdout, "  %-44s median %s\n", "  webhook to revision fetched and compared", median(fetches))
	fmt.Fprintf(stdout, "  %-44s median %s (commit and push %s)\n", "  status written", median(writes), median(pushes))
	fmt.Fprintf(stdout, "  %-44s median %s\n", "  CPU time of siteops per commit", median(cpus))
	fmt.Fprintf(stdout, "  %-44s %s MB\n", "RSS after each one-site commit", strings.Join(rss, ", "))
	fmt.Fprintf(stdout, "  %-44s %s (peak %s): %+.1f %% from the first pass, %+.1f %% from once installed\n", "RSS after the one-site commits",
		mb(endRSS), mb(endPeak), 100*(float64(endRSS)/float64(firstRSS)-1), 100*(float64(endRSS)/float64(afterRSS)-1))
	if installed < 0 {
		fmt.Fprintln(stdout, "  (the last figure: from before the commits)")
	}
	return nil
}

func progress(w io.Writer, format string, args ...any) {
	fmt.Fprintf(w, "benchloop: "+format+"\n", args...)
}

func mb(b int64) string { return benchutil.MB(b) + " MB" }

func median(ds []time.Duration) time.Duration {
	_, m := benchutil.BestMedian(ds)
	return m.Round(time.Millisecond)
}

// bench holds the fleet, its repository and the daemon.
type bench struct {
	cfg    config
	work   string
	log    io.Writer
	env    []string
	daemon *exec.Cmd
}

func (b *bench) fleetDir() string { return filepath.Join(b.work, "fleet") }

// gitEnv isolates git from the user's and the system's configuration.
func gitEnv(work string) []string {
	return append(os.Environ(), "HOME="+filepath.Join(work, "home"), "GIT_CONFIG_NOSYSTEM=1",
		"GIT_AUTHOR_NAME=bench", "GIT_AUTHOR_EMAIL=bench@localhost",
		"GIT_COMMITTER_NAME=bench", "GIT_COMMITTER_EMAIL=bench@localhost")
}

func (b *bench) git(dir string, args ...string) (string, error) {
	cmd := exec.Command("git", args...)
	cmd.Dir, cmd.Env = dir, b.env
	out, err := cmd.CombinedOutput()
	if err != nil {
		return "", fmt.Errorf("git %s: %v: %s", strings.Join(args, " "), err, out)
	}
	return strings.TrimSpace(string(out)), nil
}

// generate writes the fleet, commits it and makes the bare repository the
// daemon serves.
func (b *bench) generate() (gen.Stats, error) {
	shape, err := gen.ParseShape(b.cfg.shape)
	if err != nil {
		return gen.Stats{}, err
	}
	layout, err := gen.ParseLayout(b.cfg.layout)
	if err != nil {
		return gen.Stats{}, err
	}
	stats, err := gen.Generate(b.fleetDir(), gen.Config{Sites: b.cfg.sites, Shape: shape, Layout: layout,
		Format: gen.DefaultFormat(layout), Manifests: b.cfg.manifests, Seed: 1})
	if err != nil {
		return stats, err
	}
	// No automatic gc in the working copy: it would run detached, and
	// compete with siteops for the CPU while the first pass is timed.
	for _, args := range [][]string{{"init", "-q", "-b", "main"}, {"config", "gc.auto", "0"}, {"config", "maintenance.auto", "false"},
		{"add", "-A"}, {"commit", "-q", "-m", "fleet"}} {
		if _, err := b.git(b.fleetDir(), args...); err != nil {
			return stats, err
		}
	}
	srv := filepath.Join(b.work, "srv")
	if err := os.MkdirAll(srv, 0o755); err != nil {
		return stats, err
	}
	bare := filepath.Join(srv, "fleet.git")
	if _, err := b.git(b.work, "clone", "-q", "--bare", b.fleetDir(), bare); err != nil {
		return stats, err
	}
	// The served repository packed, as a server's is, before the clock
	// starts: a clone of loose objects times the server's packing.
	if _, err := b.git(bare, "gc", "-q"); err != nil {
		return stats, err
	}
	return stats, nil
}

func freePort() (int, error) {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return 0, err
	}
	defer l.Close()
	return l.Addr().(*net.TCPAddr).Port, nil
}

func (b *bench) startDaemon(ctx context.Context) (int, error) {
	port, err := freePort()
	if err != nil {
		return 0, err
	}
	srv := filepath.Join(b.work, "srv")
	cmd := exec.Command("git", "daemon", "--reuseaddr", "--listen=127.0.0.1", "--port="+strconv.Itoa(port),
		"--base-path="+srv, "--export-all", "--enable=receive-pack", srv)
	cmd.Env = b.env
	// git daemon forks a process per connection and a listener: they are
	// stopped as a group.
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	if err := cmd.Start(); err != nil {
		return 0, err
	}
	b.daemon = cmd
	deadline := time.Now().Add(10 * time.Second)
	for {
		c, err := net.Dial("tcp", fmt.Sprintf("127.0.0.1:%d", port))
		if err == nil {
			c.Close()
			break
		}
		if time.Now().After(deadline) || ctx.Err() != nil {
			return 0, fmt.Errorf("git daemon does not listen on %d", port)
		}
		time.Sleep(20 * time.Millisecond)
	}
	_, err = b.git(b.fleetDir(), "remote", "add", "origin", fmt.Sprintf("git://127.0.0.1:%d/fleet.git", port))
	return port, err
}

func (b *bench) stopDaemon() {
	if b.daemon != nil && b.daemon.Process != nil {
		syscall.Kill(-b.daemon.Process.Pid, syscall.SIGKILL)
		b.daemon.Wait()
	}
}

// commitChange changes one site's file (a cluster label), commits and
// pushes it, and returns the new revision.
func (b *bench) commitChange(file string, i int) (string, error) {
	p := filepath.Join(b.fleetDir(), file)
	data, err := os.ReadFile(p)
	if err != nil {
		return "", err
	}
	marker := "benchloop-change: "
	lines := strings.Split(string(data), "\n")
	done := false
	for j, ln := range lines {
		if strings.Contains(ln, marker) {
			lines[j] = ln[:strings.Index(ln, marker)] + marker + `"` + strconv.Itoa(i) + `"`
			done = true
			break
		}
		if t := strings.TrimSpace(ln); t == "clusterLabels:" {
			indent := ln[:len(ln)-len(strings.TrimLeft(ln, " "))] + "  "
			lines = slices.Insert(lines, j+1, indent+marker+`"`+strconv.Itoa(i)+`"`)
			done = true
			break
		}
	}
	if !done {
		return "", fmt.Errorf("%s has no clusterLabels to change", file)
	}
	if err := os.WriteFile(p, []byte(strings.Join(lines, "\n")), 0o644); err != nil {
		return "", err
	}
	if _, err := b.git(b.fleetDir(), "commit", "-q", "-am", "change "+file); err != nil {
		return "", err
	}
	// The status commits of siteops are on the remote branch: rebase on
	// them, and again when one lands between the rebase and the push.
	err = nil
	for range 10 {
		if _, err = b.git(b.fleetDir(), "pull", "-q", "--rebase", "origin", "main"); err != nil {
			return "", err
		}
		if _, err = b.git(b.fleetDir(), "push", "-q", "origin", "HEAD:main"); err == nil {
			return b.git(b.fleetDir(), "rev-parse", "HEAD")
		}
	}
	return "", err
}

// loop is the running siteops process.
type loop struct {
	cmd     *exec.Cmd
	started time.Time
	listen  string
	secret  []byte
	entries chan logEntry
	seen    []logEntry
	stderr  *bytes.Buffer
}

// logEntry is what benchloop reads of a JSON log line.
type logEntry struct {
	Msg      string `json:"msg"`
	Kind     string `json:"kind"`
	Revision string `json:"revision"`
	// Duration is slog's encoding of a time.Duration: nanoseconds.
	Duration float64 `json:"duration"`
	// SourceDuration is the source's part of a status write.
	SourceDuration float64 `json:"source_duration"`
	// Steps are a pass's steps and their durations (nanoseconds), in
	// the order of the line.
	Steps stepDurations `json:"steps"`
	at    time.Time
}

// stepDurations keeps the steps of a "pass finished" line in their order.
type stepDurations []stepDuration

type stepDuration struct {
	name string
	d    time.Duration
}

func (s *stepDurations) UnmarshalJSON(data []byte) error {
	dec := json.NewDecoder(bytes.NewReader(data))
	if t, err := dec.Token(); err != nil || t != json.Delim('{') {
		return fmt.Errorf("steps: want an object, got %s", data)
	}
	for dec.More() {
		t, err := dec.Token()
		if err != nil {
			return err
		}
		var ns float64
		if err := dec.Decode(&ns); err != nil {
			return err
		}
		*s = append(*s, stepDuration{t.(string), time.Duration(ns)})
	}
	return nil
}

// stepsText lists the steps that took a millisecond or more.
func (e logEntry) stepsText() string {
	var parts []string
	for _, st := range e.Steps {
		if st.d >= time.Millisecond {
			parts = append(parts, st.name+" "+st.d.Round(time.Millisecond).String())
		}
	}
	return strings.Join(parts, ", ")
}

func (b *bench) startLoop(ctx context.Context, bin, url string) (*loop, error) {
	port, err := freePort()
	if err != nil {
		return nil, err
	}
	secret := []byte("benchloop-secret")
	secretFile := filepath.Join(b.work, "webhook-secret")
	if err := os.WriteFile(secretFile, secret, 0o600); err != nil {
		return nil, err
	}
	l := &loop{listen: fmt.Sprintf("127.0.0.1:%d", port), secret: secret, entries: make(chan logEntry, 1024), stderr: &bytes.Buffer{}}
	l.cmd = exec.Command(bin, "run", "--repo", url, "--branch", "main", "--speed", b.cfg.speed,
		"--state-dir", filepath.Join(b.work, "state"), "--listen", l.listen, "--interval", "1h",
		"--webhook-secret-file", secretFile, "--status-interval", "2s", "--log-format", "json",
		"--extra-manifests-dir", filepath.Join(b.fleetDir(), gen.ExtraManifestsDir))
	l.cmd.Env = b.env
	pipe, err := l.cmd.StderrPipe()
	if err != nil {
		return nil, err
	}
	l.started = time.Now()
	if err := l.cmd.Start(); err != nil {
		return nil, err
	}
	// The whole log is kept in the work directory, for a run that goes
	// wrong (-keep).
	logFile, err := os.Create(filepath.Join(b.work, "siteops.log"))
	if err != nil {
		return nil, err
	}
	go func() {
		defer logFile.Close()
		sc := bufio.NewScanner(pipe)
		sc.Buffer(make([]byte, 1<<20), 1<<20)
		for sc.Scan() {
			logFile.Write(append(sc.Bytes(), '\n'))
			var e logEntry
			if json.Unmarshal(sc.Bytes(), &e) != nil {
				l.stderr.WriteString(sc.Text() + "\n")
				continue
			}
			e.at = time.Now()
			l.entries <- e
		}
		close(l.entries)
	}()
	return l, nil
}

// waitFor returns the first log entry, seen or to come, that match accepts.
func (l *loop) waitFor(ctx context.Context, match func(logEntry) bool) (logEntry, error) {
	for _, e := range l.seen {
		if match(e) {
			return e, nil
		}
	}
	for {
		select {
		case <-ctx.Done():
			return logEntry{}, ctx.Err()
		case e, ok := <-l.entries:
			if !ok {
				return logEntry{}, fmt.Errorf("siteops exited: %v\n%s", l.cmd.Wait(), l.stderr)
			}
			l.seen = append(l.seen, e)
			if match(e) {
				return e, nil
			}
		}
	}
}

// waitQuiet waits until no log entry came for d.
func (l *loop) waitQuiet(ctx context.Context, d time.Duration) (time.Time, error) {
	for {
		select {
		case <-ctx.Done():
			return time.Time{}, ctx.Err()
		case e, ok := <-l.entries:
			if !ok {
				return time.Time{}, fmt.Errorf("siteops exited: %v\n%s", l.cmd.Wait(), l.stderr)
			}
			l.seen = append(l.seen, e)
		case <-time.After(d):
			return time.Now(), nil
		}
	}
}

// waitInstalled polls /metrics until n sites are Installed.
func (l *loop) waitInstalled(ctx context.Context, n int) (time.Time, error) {
	want := fmt.Sprintf(`siteops_sites{phase="Installed"} %d`, n)
	for {
		resp, err := http.Get("http://" + l.listen + "/metrics")
		if err == nil {
			body, _ := io.ReadAll(resp.Body)
			resp.Body.Close()
			if bytes.Contains(body, []byte(want)) {
				return time.Now(), nil
			}
		}
		select {
		case <-ctx.Done():
			return time.Time{}, ctx.Err()
		case <-time.After(100 * time.Millisecond):
		}
		// Keep the log reader from blocking.
		for drained := false; !drained; {
			select {
			case e, ok := <-l.entries:
				if !ok {
					return time.Time{}, fmt.Errorf("siteops exited: %v\n%s", l.cmd.Wait(), l.stderr)
				}
				l.seen = append(l.seen, e)
			default:
				drained = true
			}
		}
	}
}

// webhook sends a signed push notification of revision rev, as a Git
// server sends one: each delivery is new (the loop refuses replays).
func (l *loop) webhook(ctx context.Context, rev string) error {
	body := []byte(`{"ref":"refs/heads/main","after":"` + rev + `"}`)
	mac := hmac.New(sha256.New, l.secret)
	mac.Write(body)
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, "http://"+l.listen+"/hooks/git", bytes.NewReader(body))
	if err != nil {
		return err
	}
	req.Header.Set("X-Hub-Signature-256", "sha256="+hex.EncodeToString(mac.Sum(nil)))
	req.Header.Set("X-GitHub-Delivery", "benchloop-"+rev)
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		return err
	}
	resp.Body.Close()
	if resp.StatusCode != http.StatusAccepted {
		return fmt.Errorf("POST /hooks/git: %s", resp.Status)
	}
	return nil
}

// cpu reads the CPU time the process has used, user and system.
func (l *loop) cpu() time.Duration {
	data, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", l.cmd.Process.Pid))
	if err != nil {
		return -1
	}
	// The command name, in parentheses, may hold spaces: fields are
	// counted after it. utime and stime are fields 14 and 15, in clock
	// ticks (100 a second on Linux).
	rest := string(data[bytes.LastIndexByte(data, ')')+2:])
	f := strings.Fields(rest)
	if len(f) < 13 {
		return -1
	}
	utime, _ := strconv.ParseInt(f[11], 10, 64)
	stime, _ := strconv.ParseInt(f[12], 10, 64)
	return time.Duration(utime+stime) * 10 * time.Millisecond
}

// memory reads the process's resident set size and its peak, in bytes.
func (l *loop) memory() (rss, peak int64) {
	data, err := os.ReadFile(fmt.Sprintf("/proc/%d/status", l.cmd.Process.Pid))
	if err != nil {
		return -1, -1
	}
	rss, peak = -1, -1
	for _, ln := range strings.Split(string(data), "\n") {
		f := strings.Fields(ln)
		if len(f) < 2 {
			continue
		}
		v, err := strconv.ParseInt(f[1], 10, 64)
		if err != nil {
			continue
		}
		switch f[0] {
		case "VmRSS:":
			rss = v * 1024
		case "VmHWM:":
			peak = v * 1024
		}
	}
	return rss, peak
}

func (l *loop) stop() {
	if l.cmd.Process != nil {
		l.cmd.Process.Signal(syscall.SIGTERM)
		done := make(chan struct{})
		go func() {
			for range l.entries {
			}
			close(done)
		}()
		select {
		case <-done:
		case <-time.After(30 * time.Second):
			l.cmd.Process.Kill()
		}
		l.cmd.Wait()
	}
}
