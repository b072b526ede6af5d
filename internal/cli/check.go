package cli

import (
	"errors"
	"fmt"
	"io"
	"os"
	"runtime/debug"
	"slices"
	"time"

	"github.com/spf13/cobra"

	"github.com/siteops/siteops/policy"
	findings "github.com/siteops/siteops/policy/report"
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

Exit status: 0 no deny finding, 1 some deny finding (or warn, with
--fail-on-warn), 2 usage error or a broken policy.`,
		Example: `  siteops check examples/fleet
  siteops check . --policy policies/ -o sarif > results.sarif
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
	return cmd
}

func runCheck(cmd *cobra.Command, f *checkFlags, args []string, stdout, stderr io.Writer) error {
	if os.Getenv("GOGC") == "" {
		defer debug.SetGCPercent(debug.SetGCPercent(renderGCPercent))
	}
	if !slices.Contains(findings.Formats(), f.output) {
		return usageError("unknown output format %q (have %v)", f.output, findings.Formats())
	}
	engine, err := policy.Load(cmd.Context(), policy.WithUserPolicies(f.policies...), policy.WithNamespace(f.namespace),
		policy.WithDataDirs(f.dataDirs...), policy.WithSiteTimeout(f.siteTimeout))
	if err != nil {
		return usageError("load policies: %v", err)
	}
	w, err := findings.Get(f.output, findings.WithFailOnWarn(f.failOnWarn), findings.WithRules(engine.Rules()), findings.WithRoot(f.root))
	if err != nil {
		return usageError("%v", err)
	}
	if f.listRules {
		for _, r := range engine.Rules() {
			fmt.Fprintf(stdout, "%-50s %-4s %s (%s)\n", r.ID, r.Severity, r.Title, r.Source)
		}
		return nil
	}
	root, err := os.OpenRoot(f.root)
	if err != nil {
		return usageError("--root %s: %v", f.root, err)
	}
	defer root.Close()
	if len(args) == 0 {
		args = []string{"."}
	}
	paths, err := rootRelative(f.root, args)
	if err != nil {
		return usageError("%v", err)
	}
	var opts []render.Option
	if f.manifestsDir != "" {
		dir, err := sites.ReadManifestDir(os.DirFS(f.manifestsDir), ".")
		if err != nil {
			return usageError("--extra-manifests-dir %s: %v", f.manifestsDir, err)
		}
		dir.Path = f.manifestsDir
		opts = append(opts, render.WithDefaultManifests(dir))
	}
	fleet, err := sites.Load(cmd.Context(), root.FS(), paths, sites.WithStrict(f.strict), sites.WithAllowRemoteBases(f.allowRemote))
	if err != nil {
		return err
	}
	// Render every site once; the rules read the rendered objects from
	// memory. A site that cannot render is a load problem, hence a finding.
	r := render.New(opts...)
	bundles := make(map[string]*render.Bundle, len(fleet.Sites))
	kept := fleet.Sites[:0]
	for _, s := range fleet.Sites {
		b, problems := r.Render(s)
		fleet.Problems = append(fleet.Problems, problems...)
		if b == nil {
			continue
		}
		// Keep only what the policies read: whole bundles of a large
		// fleet would cost gigabytes.
		b.Objects = slices.DeleteFunc(b.Objects, func(o *render.Object) bool { return !engine.Reads(o) })
		bundles[s.Name] = b
		kept = append(kept, s)
	}
	fleet.Sites = kept
	rep, err := engine.Check(cmd.Context(), fleet, bundles)
	if err != nil {
		var pe *policy.PolicyError
		if errors.As(err, &pe) {
			return usageError("%v", err) // a broken policy, not a broken site
		}
		return err
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
