package cli

import (
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"runtime"
	"runtime/debug"
	"slices"
	"sync"
	"time"

	"github.com/spf13/cobra"

	"github.com/siteops/siteops/engine/hub"
	"github.com/siteops/siteops/policy"
	findings "github.com/siteops/siteops/policy/report"
	"github.com/siteops/siteops/reconciler/status"
	"github.com/siteops/siteops/render"
	"github.com/siteops/siteops/sites"
)

type checkFlags struct {
	root         string
	manifestsDir string
	output       string
	policies     []string
	namespace    string
	dataDirs     []string
	listRules    bool
	failOnWarn   bool
	strict       bool
	allowRemote  bool
	siteTimeout  time.Duration
	// base is the revision --base compares with; allowDeletions and
	// statusDir go with it.
	base           string
	allowDeletions int
	statusDir      string
	dryRun         dryRunFlags
}

func newCheckCommand(stdout, stderr io.Writer) *cobra.Command {
	f := &checkFlags{}
	cmd := &cobra.Command{
		Use:   "check [PATH...]",
		Short: "Check sites with the built-in ZTP rules and your policies",
		Long: `Check loads and renders the sites under PATH (as render does) and evaluates
the built-in rule library and any user policies (conftest-compatible: packages
under --namespace with deny, violation and warn rules) on every site, with
fleet-wide rules (unique MACs, host names, BMC addresses) across all of them.

A site can waive a rule with the annotation
  siteops.io/waive: "<rule-id>: <reason>"
on its SiteConfig or ClusterInstance; waived findings are reported, not failed.

With --base REV (a pull request's target branch, HEAD~1, a tag or a SHA of
the Git repository holding --root), the fleet at REV is loaded from Git too:
  - change rules: a site whose installation has started (by its status file
    at REV, --status-dir) may not change fields the installer treats as
    immutable, and one change may delete at most max(10 % of the fleet, 5)
    sites unless --allow-deletions N says it means to;
  - only findings new since REV are reported; the summary says how many
    were already there.

Exit status: 0 no deny finding, 1 some deny finding (or warn, with
--fail-on-warn), 2 usage error, a broken policy or an unknown --base.`,
		Example: `  siteops check examples/fleet
  siteops check . --policy policies/ -o sarif > results.sarif
  siteops check . --base origin/main -o github
  siteops check . --base HEAD~1 --allow-deletions 12
  siteops check --list-rules`,
		RunE: func(cmd *cobra.Command, args []string) error {
			return runCheck(cmd, f, args, stdout, stderr)
		},
	}
	fl := cmd.Flags()
	fl.StringVar(&f.root, "root", ".", "fleet root: paths inside sites resolve against it and may not leave it")
	fl.StringVar(&f.manifestsDir, "extra-manifests-dir", "", "default extra-manifest directory, as for render")
	fl.StringVarP(&f.output, "output", "o", "text", fmt.Sprintf("output format: %v", findings.Formats()))
	fl.StringArrayVar(&f.policies, "policy", nil, "directory of user policies (repeatable)")
	fl.StringVar(&f.namespace, "namespace", "main", "package of the user policies' rules")
	fl.StringArrayVar(&f.dataDirs, "data", nil, "directory of YAML/JSON data for user policies (repeatable)")
	fl.BoolVar(&f.listRules, "list-rules", false, "list the built-in and user rules and exit")
	fl.BoolVar(&f.failOnWarn, "fail-on-warn", false, "exit 1 on warn findings too")
	fl.BoolVar(&f.strict, "strict", false, "treat unknown fields as errors")
	fl.BoolVar(&f.allowRemote, "allow-remote-bases", false, "let kustomizations use remote bases")
	fl.DurationVar(&f.siteTimeout, "site-timeout", 10*time.Second, "time limit for evaluating one site")
	fl.StringVar(&f.base, "base", "", "compare with this Git revision (branch, tag, SHA, HEAD~1): change rules, and only new findings are reported")
	fl.IntVar(&f.allowDeletions, "allow-deletions", 0, "with --base: the change intends to delete up to N sites, over the deletion budget")
	f.dryRun.register(fl)
	fl.StringVar(&f.statusDir, "status-dir", status.Dir, "with --base: directory, under --root, of the status files the loop commits (status/<site>.yaml)")
	return cmd
}

// checkGCPercent trades memory for speed while checking. A streamed check
// holds little (the fleet facts and the findings, some tens of megabytes
// for ten thousand sites) and allocates a lot (the sites, their bundles and
// their evaluations, about 400 KB per site): letting the heap grow to five
// times what is live halves the collections of the render's setting, for
// about 10 % less CPU time and 150 MB more at the peak on that fleet. GOGC
// in the environment still wins.
const checkGCPercent = 400

func runCheck(cmd *cobra.Command, f *checkFlags, args []string, stdout, stderr io.Writer) error {
	if os.Getenv("GOGC") == "" {
		defer debug.SetGCPercent(debug.SetGCPercent(checkGCPercent))
	}
	if f.base == "" && (f.allowDeletions != 0 || cmd.Flags().Changed("status-dir")) {
		return usageError("--allow-deletions and --status-dir compare with a previous revision: give it with --base")
	}
	if f.allowDeletions < 0 {
		return usageError("--allow-deletions %d: give a number of sites, 0 or more", f.allowDeletions)
	}
	if !slices.Contains(findings.Formats(), f.output) {
		return usageError("unknown output format %q (have %v)", f.output, findings.Formats())
	}
	engine, err := policy.Load(cmd.Context(), policy.WithUserPolicies(f.policies...), policy.WithNamespace(f.namespace),
		policy.WithDataDirs(f.dataDirs...), policy.WithSiteTimeout(f.siteTimeout))
	if err != nil {
		return usageError("load policies: %v", err)
	}
	if f.listRules {
		for _, r := range engine.Rules() {
			fmt.Fprintf(stdout, "%-50s %-4s %s (%s)\n", r.ID, r.Severity, r.Title, r.Source)
		}
		return nil
	}
	in, err := openFleet(fleetRoot{f.root, cmd.Flags().Changed("root")}, args, f.manifestsDir)
	if err != nil {
		return err
	}
	defer in.root.Close()
	f.root = in.dir
	paths, opts := in.paths, in.renderOpts
	w, err := findings.Get(f.output, findings.WithFailOnWarn(f.failOnWarn), findings.WithRules(engine.Rules()), findings.WithRoot(f.root))
	if err != nil {
		return usageError("%v", err)
	}
	loadOpts := []sites.Option{sites.WithStrict(f.strict), sites.WithAllowRemoteBases(f.allowRemote), sites.WithUnlistedSiteWarnings(true)}
	var base *checkBase
	if f.base != "" {
		if base, err = loadBase(cmd.Context(), engine, f, paths, loadOpts, opts, engine.Reads, stderr); err != nil {
			return err
		}
	}
	var checkOpts []policy.CheckOption
	if base != nil {
		checkOpts = append(checkOpts, policy.WithChange(base.change))
	}
	dry, err := f.dryRun.open()
	if err != nil {
		return err
	}
	rep, err := streamCheck(cmd.Context(), engine, in.root.FS(), paths, loadOpts, opts, checkOpts, dry)
	if err != nil {
		var pe *policy.PolicyError
		if errors.As(err, &pe) {
			return usageError("%v", err) // a broken policy, not a broken site
		}
		return err
	}
	if base != nil {
		// Pull-request mode: what the base revision has too is not new.
		baseRep, err := engine.Check(cmd.Context(), base.change.Base, base.bundles)
		if err != nil {
			return fmt.Errorf("check the base revision %s: %w", f.base, err)
		}
		rep.Since(baseRep, f.base)
	}
	if rep.Sites == 0 && len(rep.Findings) == 0 {
		return noSiteError(in)
	}
	rep.Sort()
	if err := w.Write(stdout, rep); err != nil {
		return err
	}
	if rep.ExitCode(f.failOnWarn) != 0 {
		return errFailed
	}
	return nil
}

// streamCheck loads, renders and checks the sites under paths one by one
// on all CPUs (sites.Stream), keeping of each only what the check reports
// and what the fleet-wide rules need: the rules read the rendered objects
// from memory, and neither the fleet nor its bundles are ever held whole.
// A site that cannot render is a load problem, hence a finding.
func streamCheck(ctx context.Context, engine *policy.Engine, fsys fs.FS, paths []string,
	loadOpts []sites.Option, renderOpts []render.Option, checkOpts []policy.CheckOption, dry *hub.DryRunner) (*findings.Report, error) {
	run, err := engine.Start(ctx, checkOpts...)
	if err != nil {
		return nil, err
	}
	r := render.New(renderOpts...)
	type checked struct {
		site     *policy.SiteCheck
		problems sites.Problems
	}
	// Rendering and evaluating run where sites.Stream runs work: on its
	// long-lived workers, whose stacks have grown to the depth the
	// evaluator recurses to once and for all.
	// The rules read a few of a site's objects (Engine.Reads): the others
	// stay in their typed form, never converted. A hub's dry run sends
	// them all.
	renderSite := r.RenderTyped
	if dry != nil {
		renderSite = r.Render
	}
	work := func(s *sites.Site) any {
		b, problems := renderSite(s)
		if b == nil {
			return checked{problems: problems}
		}
		problems = append(problems, dryRunProblems(ctx, dry, s, b)...)
		problems = append(problems, render.DeprecatedFields(s)...)
		return checked{run.Evaluate(s, b), problems}
	}
	err = sites.Stream(ctx, fsys, paths, work, func(it sites.Item) error {
		run.AddProblems(it.Problems)
		if it.Site != nil {
			c := it.Result.(checked)
			run.AddProblems(c.problems)
			if c.site != nil {
				run.Add(c.site)
			}
		}
		return nil
	}, loadOpts...)
	if err != nil {
		return nil, err
	}
	return run.Finish()
}

// loadForCheck loads and renders the sites under paths once, on all CPUs,
// for a command that needs the whole fleet (the base revision of --base,
// both revisions of plan). A site that cannot render is a load problem,
// hence a finding. Only the objects keep holds are kept, all when it is
// nil: a check keeps those the policies read, as whole bundles of a large
// fleet would cost gigabytes.
func loadForCheck(ctx context.Context, fsys fs.FS, paths []string,
	loadOpts []sites.Option, renderOpts []render.Option, keep func(*render.Object) bool) (*sites.Fleet, map[string]*render.Bundle, error) {
	fleet, err := sites.Load(ctx, fsys, paths, loadOpts...)
	if err != nil {
		return nil, nil, err
	}
	r := render.New(renderOpts...)
	type rendered struct {
		bundle   *render.Bundle
		problems sites.Problems
	}
	out := make([]rendered, len(fleet.Sites))
	next := make(chan int)
	var wg sync.WaitGroup
	for range runtime.GOMAXPROCS(0) {
		wg.Go(func() {
			for i := range next {
				b, problems := r.Render(fleet.Sites[i])
				if b != nil && keep != nil {
					b.Objects = slices.DeleteFunc(b.Objects, func(o *render.Object) bool { return !keep(o) })
				}
				out[i] = rendered{b, problems}
			}
		})
	}
	for i := range fleet.Sites {
		next <- i
	}
	close(next)
	wg.Wait()
	bundles := make(map[string]*render.Bundle, len(fleet.Sites))
	kept := fleet.Sites[:0]
	for i, s := range fleet.Sites {
		fleet.Problems = append(fleet.Problems, out[i].problems...)
		if out[i].bundle == nil {
			continue
		}
		bundles[s.Name] = out[i].bundle
		kept = append(kept, s)
	}
	fleet.Sites = kept
	return fleet, bundles, nil
}
