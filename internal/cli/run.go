package cli

import (
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net"
	"net/http"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/spf13/cobra"

	"github.com/siteops/siteops/engine"
	"github.com/siteops/siteops/engine/sim"
	"github.com/siteops/siteops/examples"
	"github.com/siteops/siteops/internal/redact"
	"github.com/siteops/siteops/policy"
	"github.com/siteops/siteops/reconciler"
	"github.com/siteops/siteops/reconciler/source"
	"github.com/siteops/siteops/reconciler/status"
	"github.com/siteops/siteops/render"
	"github.com/siteops/siteops/sites"
)

type runFlags struct {
	dir, statusDir             string
	repo, branch, statusBranch string
	interval                   time.Duration
	auth                       source.GitAuth
	stateDir                   string
	speed, approve             string
	prune                      bool
	policies, dataDirs         []string
	namespace                  string
	listen                     string
	untilInstalled             bool
	timeout                    time.Duration
	allowedHosts               []string
	manifestsDir               string
	logFormat, logLevel        string
	webhookSecretFile          string
	statusInterval             time.Duration
	stuckAfter, noProgress     time.Duration
	settleAfter                time.Duration
	strict, allowRemote        bool
	authorName, authorEmail    string
	eng                        engineFlags
	leader                     leaderFlags
}

func newRunCommand(stdout, stderr io.Writer) *cobra.Command {
	f := &runFlags{}
	cmd := &cobra.Command{
		Use:   "run",
		Short: "Reconcile a fleet repository: install its sites and commit their status back",
		Long: `Run is the loop: it takes each new revision of a fleet repository (--repo, a
Git remote fetched every --interval and on a signed POST /hooks/git) or of a
local directory (--dir, watched for changes), loads and renders the sites that
changed, checks them with the built-in rules and --policy, hands them to the
installation engine (--engine sim, the default: the embedded simulation of
assisted-service and the bare-metal operator; --engine hub: a Kubernetes hub
running them, reached through --kubeconfig, server-side apply with field
manager siteops), and writes each site's status to status/<site>.yaml and
a fleet table to status/README.md: one commit per pass, pushed.

A deny finding blocks its site only (phase PolicyFailed; the engine keeps
what it had). A site removed from the repository is deleted only with
--prune and within the deletion budget; otherwise its status says orphaned.

Without --repo or --dir, run installs the example fleet bundled into the
binary, from a Git repository it makes under the state directory, at demo
speed, with the dashboard on http://127.0.0.1:8080/.

Exit status: 0 stopped by a signal, or with --until-installed every site
installed; 1 a site failed (--until-installed), --timeout passed, or the
source could not be read; 2 usage error.`,
		Example: `  siteops run
  siteops run --repo https://git.example.com/fleet.git --branch main --git-token-file token --prune
  siteops run --dir examples/fleet --extra-manifests-dir examples/extra-manifests --speed max --until-installed
  siteops run --engine hub --kubeconfig hub.kubeconfig --repo https://git.example.com/fleet.git --prune`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			if err := checkEngineFlags(&f.eng, cmd.Flags().Changed); err != nil {
				return usageError("%v", err)
			}
			if err := f.leader.check(&f.eng); err != nil {
				return usageError("%v", err)
			}
			return runRun(cmd.Context(), f, stderr)
		},
	}
	fl := cmd.Flags()
	f.eng.register(fl)
	f.leader.register(fl)
	fl.StringVar(&f.dir, "dir", "", "reconcile this local directory, watched for changes")
	fl.StringVar(&f.statusDir, "status-dir", "", "with --dir: where the status files go, relative to the working directory (default DIR/status)")
	fl.StringVar(&f.repo, "repo", "", "reconcile this Git repository (https://, ssh://, git://, file://)")
	fl.StringVar(&f.branch, "branch", source.DefaultBranch, "with --repo: the branch to reconcile")
	fl.StringVar(&f.statusBranch, "status-branch", "", "with --repo: commit the status to this branch instead of --branch")
	fl.DurationVar(&f.interval, "interval", source.DefaultInterval, "with --repo: how often to fetch")
	bindGitAuthFlags(fl, &f.auth)
	fl.StringVar(&f.authorName, "git-author-name", source.DefaultAuthorName, "author and committer name of status commits")
	fl.StringVar(&f.authorEmail, "git-author-email", source.DefaultAuthorEmail, "author and committer e-mail of status commits")
	fl.StringVar(&f.stateDir, "state-dir", defaultStateDir(), "where the clone, the engine's state and the loop's memory are kept (one process at a time)")
	fl.StringVar(&f.speed, "speed", strconv.Itoa(sim.DefaultSpeed), "virtual seconds of installation per real second, or max")
	fl.StringVar(&f.approve, "approve", string(sim.ApproveAuto), "auto: approve agents that match a BareMetalHost by MAC; manual: leave it to the user")
	fl.DurationVar(&f.stuckAfter, "stuck-after", engine.DefaultBounds.StuckAfter, "a site none of whose hosts registered this long (in the engine's time) needs attention (reason NotRegistering); 0: never")
	fl.DurationVar(&f.noProgress, "no-progress-after", engine.DefaultBounds.NoProgressAfter, "an installation that made no progress this long (in the engine's time) needs attention (reason NoProgress); 0: never")
	fl.DurationVar(&f.settleAfter, "settle-after", engine.DefaultBounds.SettleAfter, "a failing host or cluster validation needs attention (reason ValidationsFailing) once the site did not move this long (in the engine's time); 0: never")
	fl.BoolVar(&f.prune, "prune", false, "delete, through the engine, sites removed from the repository (within the deletion budget)")
	fl.StringArrayVar(&f.policies, "policy", nil, "directory of user policies (repeatable), as for check")
	fl.StringVar(&f.namespace, "namespace", "main", "package of the user policies' rules")
	fl.StringArrayVar(&f.dataDirs, "data", nil, "directory of YAML/JSON data for user policies (repeatable)")
	fl.StringVar(&f.listen, "listen", "127.0.0.1:8080", "address of the dashboard, /metrics, /healthz, /readyz and /hooks/git (empty: none)")
	fl.BoolVar(&f.untilInstalled, "until-installed", false, "exit 0 once every site is Installed, 1 as soon as one fails")
	fl.DurationVar(&f.timeout, "timeout", 0, "give up after this long (exit 1); 0: never")
	fl.StringArrayVar(&f.allowedHosts, "allowed-host", nil, "a host name the dashboard and API answer to besides IP addresses and localhost, such as a reverse proxy's (repeatable)")
	fl.StringVar(&f.manifestsDir, "extra-manifests-dir", "", "default extra-manifest directory, as for render")
	fl.StringVar(&f.logFormat, "log-format", "text", "log format on stderr: text or json")
	fl.StringVar(&f.logLevel, "log-level", "info", "least severe level logged: debug, info, warn or error")
	fl.StringVar(&f.webhookSecretFile, "webhook-secret-file", "", "file holding the secret that signs POST /hooks/git (X-Hub-Signature-256); without it the webhook is refused")
	fl.DurationVar(&f.statusInterval, "status-interval", reconciler.DefaultStatusInterval, "shortest time between two status commits caused by installation progress alone")
	fl.BoolVar(&f.strict, "strict", false, "treat unknown fields as errors")
	fl.BoolVar(&f.allowRemote, "allow-remote-bases", false, "let kustomizations use remote bases")
	return cmd
}

// defaultStateDir is $XDG_STATE_HOME/siteops, or ~/.local/state/siteops.
func defaultStateDir() string {
	if d := os.Getenv("XDG_STATE_HOME"); d != "" {
		return filepath.Join(d, "siteops")
	}
	home, err := os.UserHomeDir()
	if err != nil {
		return ".siteops-state"
	}
	return filepath.Join(home, ".local", "state", "siteops")
}

// parseSpeed reads --speed.
func parseSpeed(s string) (float64, error) {
	if s == "max" {
		return sim.SpeedMax, nil
	}
	v, err := strconv.ParseFloat(s, 64)
	if err != nil || v <= 0 || v != v {
		return 0, fmt.Errorf("--speed %q: give a positive number of virtual seconds per second, or max", s)
	}
	return v, nil
}

func newLogger(format, level string, w io.Writer) (*slog.Logger, error) {
	var lv slog.Level
	if err := lv.UnmarshalText([]byte(level)); err != nil {
		return nil, fmt.Errorf("--log-level %q: use debug, info, warn or error", level)
	}
	opts := &slog.HandlerOptions{Level: lv}
	switch format {
	case "text":
		return slog.New(redact.NewHandler(slog.NewTextHandler(w, opts))), nil
	case "json":
		return slog.New(redact.NewHandler(slog.NewJSONHandler(w, opts))), nil
	}
	return nil, fmt.Errorf("--log-format %q: use text or json", format)
}

func runRun(ctx context.Context, f *runFlags, stderr io.Writer) error {
	if f.dir != "" && f.repo != "" {
		return usageError("give --dir or --repo, not both")
	}
	if f.statusDir != "" && f.dir == "" {
		return usageError("--status-dir goes with --dir; with --repo the status is committed to status/ (see --status-branch)")
	}
	speed, err := parseSpeed(f.speed)
	if err != nil {
		return usageError("%v", err)
	}
	if f.stuckAfter < 0 || f.noProgress < 0 || f.settleAfter < 0 {
		return usageError("--stuck-after, --no-progress-after and --settle-after take a duration such as 90m, or 0 to turn the bound off")
	}
	approve := sim.ApproveMode(f.approve)
	if approve != sim.ApproveAuto && approve != sim.ApproveManual {
		return usageError("--approve %q: use auto or manual", f.approve)
	}
	log, err := newLogger(f.logFormat, f.logLevel, stderr)
	if err != nil {
		return usageError("%v", err)
	}
	// --timeout bounds everything from here: the first clone, loading and
	// the loop.
	parent := ctx
	if f.timeout > 0 {
		var cancel context.CancelFunc
		ctx, cancel = context.WithTimeout(ctx, f.timeout)
		defer cancel()
	}
	var webhookSecret []byte
	if f.webhookSecretFile != "" {
		data, err := os.ReadFile(f.webhookSecretFile)
		if err != nil {
			return usageError("--webhook-secret-file: %v", err)
		}
		if webhookSecret = []byte(strings.TrimSpace(string(data))); len(webhookSecret) == 0 {
			return usageError("--webhook-secret-file %s is empty", f.webhookSecretFile)
		}
		redact.Register(string(webhookSecret))
	}
	if err := os.MkdirAll(f.stateDir, 0o700); err != nil {
		return fmt.Errorf("--state-dir: %w", err)
	}
	lock, err := source.Lock(f.stateDir)
	if err != nil {
		return err
	}
	defer lock.Unlock()
	if err := claimStateDir(f.stateDir, f); err != nil {
		return err
	}

	var renderOpts []render.Option
	manifests, err := defaultManifests(f)
	if err != nil {
		return usageError("%v", err)
	}
	if manifests != nil {
		renderOpts = append(renderOpts, render.WithDefaultManifests(manifests))
	}
	pol, err := policy.Load(ctx, policy.WithUserPolicies(f.policies...), policy.WithNamespace(f.namespace), policy.WithDataDirs(f.dataDirs...))
	if err != nil {
		return usageError("load policies: %v", err)
	}

	reg := prometheus.NewRegistry()
	src, name, err := openSource(ctx, f, reg, log)
	if err != nil {
		return err
	}
	defer src.Close()
	eng, err := openEngine(parent, f, speed, approve, log)
	if err != nil {
		var ue *exitError
		if errors.As(err, &ue) {
			return err
		}
		return fmt.Errorf("start the engine: %w", err)
	}
	defer eng.Close()

	loop := reconciler.New(src, eng,
		reconciler.WithLogger(log),
		reconciler.WithRegistry(reg),
		reconciler.WithPolicy(pol),
		reconciler.WithRenderOptions(renderOpts...),
		reconciler.WithLoadOptions(sites.WithStrict(f.strict), sites.WithAllowRemoteBases(f.allowRemote)),
		reconciler.WithPrune(f.prune),
		reconciler.WithStatusInterval(f.statusInterval),
		reconciler.WithStateDir(f.stateDir),
		reconciler.WithUntilInstalled(f.untilInstalled),
		reconciler.WithWebhookSecret(webhookSecret),
		reconciler.WithSourceName(name),
		reconciler.WithAllowedHosts(f.allowedHosts...),
	)
	if f.listen != "" {
		stop, err := serve(f.listen, loop.Handler(), log)
		if err != nil {
			return err
		}
		defer stop()
	}

	log.Info("siteops run started", "source", name, "state-dir", f.stateDir, "speed", f.speed, "prune", f.prune)
	err = runLeading(ctx, f, log, loop.Run)
	switch {
	case err == nil:
		return nil
	case errors.Is(err, reconciler.ErrSitesFailed):
		return &exitError{code: ExitFailure, err: err}
	case errors.Is(err, context.DeadlineExceeded) && parent.Err() == nil:
		if allInstalled(loop.Documents()) {
			return &exitError{code: ExitFailure, err: fmt.Errorf("every site is installed, but --timeout %s passed before their status was committed: the status push failed (see the log)", f.timeout)}
		}
		return &exitError{code: ExitFailure, err: fmt.Errorf("--timeout %s passed before every site was installed", f.timeout)}
	case errors.Is(err, context.Canceled) && parent.Err() != nil:
		log.Info("stopped")
		return nil
	}
	return &exitError{code: ExitFailure, err: err}
}

// allInstalled reports whether the loop holds documents and every one
// says Installed: what --until-installed waits for, so that a run that
// times out then waited on its status push, not on the installation.
func allInstalled(docs []status.Document) bool {
	for _, d := range docs {
		if d.Phase != engine.PhaseInstalled {
			return false
		}
	}
	return len(docs) > 0
}

// defaultManifests reads --extra-manifests-dir, or for the embedded
// default the bundled set.
func defaultManifests(f *runFlags) (*sites.ManifestDir, error) {
	switch {
	case f.manifestsDir != "":
		dir, err := sites.ReadManifestDir(os.DirFS(f.manifestsDir), ".")
		if err != nil {
			return nil, fmt.Errorf("--extra-manifests-dir %s: %v", f.manifestsDir, err)
		}
		dir.Path = f.manifestsDir
		return dir, nil
	case f.dir == "" && f.repo == "":
		return sites.ReadManifestDir(examples.FS, examples.ExtraManifestsDir)
	}
	return nil, nil
}

// openSource opens the source the flags name and returns it with the
// name the dashboard shows (no credentials).
func openSource(ctx context.Context, f *runFlags, reg prometheus.Registerer, log *slog.Logger) (source.Source, string, error) {
	if f.dir != "" {
		// Like every path flag, a relative --status-dir is relative to
		// the working directory (the source would take it relative to
		// --dir).
		statusDir := f.statusDir
		if statusDir != "" {
			abs, err := filepath.Abs(statusDir)
			if err != nil {
				return nil, "", usageError("--status-dir %s: %v", statusDir, err)
			}
			statusDir = abs
		}
		src, err := source.NewDir(ctx, source.DirOptions{Dir: f.dir, StatusDir: statusDir, Logger: log})
		if err != nil {
			return nil, "", err
		}
		return src, f.dir, nil
	}
	url, branch := f.repo, f.branch
	if url == "" {
		var err error
		url, err = seedRepository(filepath.Join(f.stateDir, demoRepoDir), examples.FS, examples.FleetDir)
		if err != nil {
			return nil, "", err
		}
		branch = demoBranch
		log.Info("running the example fleet", "repository", url,
			"hint", "clone it to see the status commits; siteops run --repo URL runs your own fleet")
	}
	src, err := source.NewGit(ctx, source.GitOptions{URL: url, Branch: branch, StatusBranch: f.statusBranch,
		StateDir: f.stateDir, Interval: f.interval, Auth: f.auth, AuthorName: f.authorName, AuthorEmail: f.authorEmail,
		Logger: log, Registerer: reg})
	if err != nil {
		return nil, "", err
	}
	return src, redact.URL(url) + " " + branch, nil
}

// serve starts the HTTP surface on addr and returns a function that stops
// it.
func serve(addr string, h http.Handler, log *slog.Logger) (func(), error) {
	ln, err := net.Listen("tcp", addr)
	if err != nil {
		return nil, fmt.Errorf("--listen %s: %w", addr, err)
	}
	// Every connection is bounded: a client that sends its headers or
	// body slowly, or keeps an idle connection, is cut off (and each
	// handler bounds the body it reads).
	srv := &http.Server{Handler: h, ReadHeaderTimeout: 10 * time.Second, ReadTimeout: 30 * time.Second,
		WriteTimeout: time.Minute, IdleTimeout: 2 * time.Minute, MaxHeaderBytes: 64 << 10}
	go srv.Serve(ln)
	log.Info("serving the dashboard", "url", "http://"+ln.Addr().String()+"/")
	return func() {
		ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
		defer cancel()
		srv.Shutdown(ctx)
	}, nil
}

// offIfZero maps a flag's 0 (off) to the engine's negative bound (off),
// since the engine takes 0 for its default.
func offIfZero(d time.Duration) time.Duration {
	if d == 0 {
		return -1
	}
	return d
}
