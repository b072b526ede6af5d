package cli

import (
	"bufio"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"

	"github.com/spf13/cobra"

	"github.com/siteops/siteops/convert"
	"github.com/siteops/siteops/internal/safefs"
	"github.com/siteops/siteops/internal/yamlenc"
	"github.com/siteops/siteops/render"
	"github.com/siteops/siteops/sites"
)

type convertFlags struct {
	root              string
	outDir            string
	templateNamespace string
	manifestsDir      string
}

func newConvertCommand(stdout, stderr io.Writer) *cobra.Command {
	f := &convertFlags{}
	cmd := &cobra.Command{
		Use:   "convert FILE|DIR...",
		Short: "Convert SiteConfig clusters into ClusterInstances",
		Long: `Convert reads SiteConfig files (ran.openshift.io/v1 and /v2; files, directories,
or ZTP kustomization directories) and writes one ClusterInstance
(siteconfig.open-cluster-management.io/v1alpha1) per cluster: to stdout as a
YAML stream, or with --out-dir as <clusterName>.yaml files.

Everything that does not carry over unchanged (fields ClusterInstance has no
place for, renamed fields, crTemplates, BIOS profiles, extra manifests, ...)
is reported on stderr, one line per note:

  file:line:col: site S: field: kind: what happened and what to do

where kind is dropped, renamed, changed or manual-step. ClusterInstance
inputs are skipped with a note. See docs/convert.md.

Exit status: 0 every cluster converted (notes are not failures), 1 some
cluster failed to load or convert, 2 usage error.`,
		Example: `  siteops convert examples/fleet
  siteops convert --root fleet fleet/site1.yaml --out-dir clusterinstances/
  siteops convert . --extra-manifests-dir extra-manifest --template-namespace multicluster-engine`,
		Args: cobra.MinimumNArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			return runConvert(cmd, f, args, stdout, stderr)
		},
	}
	fl := cmd.Flags()
	fl.StringVar(&f.root, "root", ".", "fleet root: paths inside sites resolve against it and may not leave it")
	fl.StringVar(&f.outDir, "out-dir", "", "write one <clusterName>.yaml per cluster into this directory instead of stdout")
	fl.StringVar(&f.templateNamespace, "template-namespace", convert.DefaultTemplateNamespace, "namespace of the default template ConfigMaps the ClusterInstances reference")
	fl.StringVar(&f.manifestsDir, "extra-manifests-dir", "", "default extra-manifest directory, to list the files each cluster's extra-manifest ConfigMap needs")
	return cmd
}

func runConvert(cmd *cobra.Command, f *convertFlags, args []string, stdout, stderr io.Writer) error {
	if f.templateNamespace == "" {
		return usageError("--template-namespace must not be empty")
	}
	in, err := openFleet(fleetRoot{f.root, cmd.Flags().Changed("root")}, args, f.manifestsDir)
	if err != nil {
		return err
	}
	defer in.root.Close()
	if f.outDir != "" {
		if err := os.MkdirAll(f.outDir, 0o755); err != nil {
			return fmt.Errorf("--out-dir: %w", err)
		}
	}
	opts := []convert.Option{
		convert.WithTemplateNamespace(f.templateNamespace),
		convert.WithRenderer(render.New(in.renderOpts...)),
	}

	fleet, err := sites.Load(cmd.Context(), in.root.FS(), in.paths)
	if err != nil {
		return err
	}
	failed := report(stderr, fleet.Problems)
	out := bufio.NewWriter(stdout)
	for _, s := range fleet.Sites {
		ok, err := convertSite(s, f.outDir, opts, out, stderr)
		if err != nil {
			return err
		}
		failed = failed || !ok
	}
	if err := out.Flush(); err != nil {
		return err
	}
	if len(fleet.Sites) == 0 && !failed {
		return &exitError{code: ExitFailure, err: errors.New("no SiteConfig found in the given paths")}
	}
	if failed {
		return errFailed
	}
	return nil
}

// convertSite converts and writes one site, printing its notes and
// problems; ok is false when the site failed. The error is for output
// that could not be written, which stops the command.
func convertSite(s *sites.Site, outDir string, opts []convert.Option, out io.Writer, stderr io.Writer) (ok bool, err error) {
	if s.Format == sites.FormatClusterInstance {
		fmt.Fprintf(stderr, "%s: site %s: kind: skipped: already a ClusterInstance, nothing to convert\n", s.Source, s.Name)
		return true, nil
	}
	// A name --out-dir refuses fails the site before anything is reported
	// about it, so that no notes describe a file that is never written.
	name, safe := outFileName(s.Name, ".yaml")
	if outDir != "" && !safe {
		p := s.Problem(s.FieldPath("clusterName"), "cluster name %q cannot name a file in --out-dir", s.Name)
		p.Hint = "a cluster name is a DNS label: lower-case letters, digits and '-'"
		report(stderr, sites.Problems{p})
		return false, nil
	}
	res, err := convert.Convert(s, opts...)
	if err != nil {
		var ce *convert.Error
		if errors.As(err, &ce) {
			report(stderr, ce.Problems)
		} else {
			report(stderr, sites.Problems{s.Problem(s.FieldPath(""), "%v", err)})
		}
		return false, nil
	}
	data, err := yamlenc.Marshal(res.ClusterInstance)
	if err != nil {
		report(stderr, sites.Problems{s.Problem(s.FieldPath(""), "encoding the ClusterInstance: %v", err)})
		return false, nil
	}
	for _, n := range res.Report {
		fmt.Fprintln(stderr, n)
	}
	if outDir != "" {
		return true, safefs.WriteFileAtomic(filepath.Join(outDir, name), data)
	}
	if _, err := io.WriteString(out, "---\n"); err != nil {
		return false, err
	}
	_, err = out.Write(data)
	return err == nil, err
}
