package cli

import (
	"fmt"
	"io"
	"slices"

	"github.com/spf13/cobra"

	"github.com/siteops/siteops/internal/plan"
	"github.com/siteops/siteops/policy"
	"github.com/siteops/siteops/reconciler/status"
	"github.com/siteops/siteops/sites"
)

type planFlags struct {
	root, base, statusDir, output, manifestsDir string
	allowDeletions                              int
	strict, allowRemote                         bool
}

func newPlanCommand(stdout, stderr io.Writer) *cobra.Command {
	f := &planFlags{}
	cmd := &cobra.Command{
		Use:   "plan [PATH...] --base REV",
		Short: "Show what a change does to each site: objects and fields added, removed and changed",
		Long: `Plan compares the sites under PATH in the working tree with the same paths at
--base REV of the Git repository holding --root (a pull request's target
branch, HEAD~1, a tag or a SHA), offline: it renders both and lists the sites
added, removed, changed and broken (that no longer load), and for each changed
site the rendered objects added, removed and changed, with the fields that
differ. Values that may be credentials (Secret data, passwords, tokens, keys,
ignition and install-config overrides) are never shown, only that they
changed. The change rules are shown beside their site: immutable fields of a
site whose installation has started (by its status file at REV, --status-dir)
and deletions over the budget (--allow-deletions).

-o markdown is made for a pull-request comment (examples/ci posts it).
Plan informs; siteops check --base gates.

Exit status: 0 the plan was written; 1 the fleet could not be read; 2 usage
error or an unknown --base.`,
		Example: `  siteops plan --base origin/main
  siteops plan sites/ --base HEAD~1 -o markdown > plan.md`,
		RunE: func(cmd *cobra.Command, args []string) error {
			return runPlan(cmd, f, args, stdout, stderr)
		},
	}
	fl := cmd.Flags()
	fl.StringVar(&f.root, "root", ".", "fleet root: paths inside sites resolve against it and may not leave it")
	fl.StringVar(&f.base, "base", "", "the Git revision to compare with (branch, tag, SHA, HEAD~1); required")
	fl.StringVarP(&f.output, "output", "o", string(plan.FormatText), fmt.Sprintf("output format: %v", plan.Formats()))
	fl.StringVar(&f.manifestsDir, "extra-manifests-dir", "", "default extra-manifest directory, as for render")
	fl.StringVar(&f.statusDir, "status-dir", status.Dir, "directory, under --root, of the status files the loop commits (status/<site>.yaml)")
	fl.IntVar(&f.allowDeletions, "allow-deletions", 0, "the change intends to delete up to N sites, over the deletion budget")
	fl.BoolVar(&f.strict, "strict", false, "treat unknown fields as errors")
	fl.BoolVar(&f.allowRemote, "allow-remote-bases", false, "let kustomizations use remote bases")
	return cmd
}

func runPlan(cmd *cobra.Command, f *planFlags, args []string, stdout, stderr io.Writer) error {
	if f.base == "" {
		return usageError("plan compares with a revision: give it with --base (origin/main, HEAD~1, a tag or a SHA)")
	}
	format := plan.Format(f.output)
	if !slices.Contains(plan.Formats(), format) {
		return usageError("-o %q: use one of %v", f.output, plan.Formats())
	}
	if f.allowDeletions < 0 {
		return usageError("--allow-deletions %d: give a number of sites, 0 or more", f.allowDeletions)
	}
	ctx := cmd.Context()
	in, err := openFleet(fleetRoot{f.root, cmd.Flags().Changed("root")}, args, f.manifestsDir)
	if err != nil {
		return err
	}
	defer in.root.Close()
	f.root = in.dir
	eng, err := policy.Load(ctx)
	if err != nil {
		return err
	}
	loadOpts := []sites.Option{sites.WithStrict(f.strict), sites.WithAllowRemoteBases(f.allowRemote)}
	base, err := loadBase(ctx, eng, &checkFlags{root: f.root, base: f.base, statusDir: f.statusDir, allowDeletions: f.allowDeletions},
		in.paths, loadOpts, in.renderOpts, nil, stderr)
	if err != nil {
		return err
	}
	head, headBundles, err := loadForCheck(ctx, in.root.FS(), in.paths, loadOpts, in.renderOpts, nil)
	if err != nil {
		return &exitError{code: ExitFailure, err: fmt.Errorf("load the sites of the working tree: %w", err)}
	}
	rep, err := eng.Check(ctx, head, headBundles, policy.WithChange(base.change))
	if err != nil {
		return &exitError{code: ExitFailure, err: err}
	}
	p := plan.New(plan.Revision{Name: f.base, Fleet: base.change.Base, Bundles: base.bundles},
		plan.Revision{Name: "working tree", Fleet: head, Bundles: headBundles},
		rep.Findings, policy.RuleImmutableField, policy.RuleDeletionBudget)
	return plan.Write(stdout, p, format)
}
