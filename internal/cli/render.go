package cli

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"runtime/debug"
	"strings"

	"github.com/spf13/cobra"

	"github.com/siteops/siteops/internal/safefs"
	"github.com/siteops/siteops/render"
	"github.com/siteops/siteops/sites"
)

type renderFlags struct {
	root         string
	manifestsDir string
	output       string
	outDir       string
	strict       bool
	maxFileSize  int64
	allowRemote  bool
	krm          bool
	argocd       bool
}

func newRenderCommand(stdout, stderr io.Writer) *cobra.Command {
	f := &renderFlags{}
	cmd := &cobra.Command{
		Use:   "render [PATH...]",
		Short: "Render sites into the resources the assisted installer consumes",
		Long: `Render reads SiteConfig and ClusterInstance files (files, directories,
and kustomize trees, built in-process with plugins disabled) and prints, per
site, the resources the assisted installer consumes: for a SiteConfig, the
Namespace, ClusterDeployment, AgentClusterInstall, InfraEnv, NMStateConfigs,
BareMetalHosts, HostFirmwareSettings, extra-manifest ConfigMap, ManagedCluster
and KlusterletAddonConfig, ordered by sync wave, kind, namespace and name; for
a ClusterInstance, what the SiteConfig operator's default templates render, in
its apply order.

Paths inside sites (extra manifests, crTemplates, BIOS profiles) are relative
to --root and may not leave it. A broken site is reported on stderr with its
file, line, field and a fix; the other sites are still rendered.

A path "-" reads YAML documents from standard input (problems name it
"stdin"). With --krm, siteops is a KRM function: it reads a ResourceList
(config.kubernetes.io/v1) on standard input whose items or functionConfig
are SiteConfig and ClusterInstance documents, and writes a ResourceList with
the rendered objects, the other items unchanged, and a result (file, field,
severity) per problem. Relative paths resolve against the current directory,
which kustomize sets to the kustomization's. With --argocd-plugin, siteops is
Argo CD's config-management plugin (examples/argocd/plugin.yaml): it renders
the Application's directory with the repository as root, writes JSON, one
object a line, and takes the extra-manifest directory and strictness from
the plugin's parameters
(PARAM_EXTRA_MANIFESTS_DIR, PARAM_STRICT) or env (ARGOCD_ENV_EXTRA_MANIFESTS_DIR,
ARGOCD_ENV_STRICT).

Exit status: 0 all sites rendered, 1 some failed, 2 usage error.`,
		Example: `  siteops render examples/fleet --extra-manifests-dir examples/extra-manifests
  siteops render --root fleet fleet/site1.yaml -o json
  siteops render . --out-dir rendered/
  cat site.yaml | siteops render -
  kustomize build --enable-alpha-plugins --enable-exec .   # generators: calling siteops render --krm`,
		RunE: func(cmd *cobra.Command, args []string) error {
			return runRender(cmd, f, args, stdout, stderr)
		},
	}
	fl := cmd.Flags()
	fl.StringVar(&f.root, "root", ".", "fleet root: paths inside sites resolve against it and may not leave it")
	fl.StringVar(&f.manifestsDir, "extra-manifests-dir", "", "default extra-manifest directory (empty set when unset)")
	fl.StringVarP(&f.output, "output", "o", string(render.FormatYAML), fmt.Sprintf("output format: %v", render.Formats()))
	fl.StringVar(&f.outDir, "out-dir", "", "write one file per site into this directory instead of stdout")
	fl.BoolVar(&f.strict, "strict", false, "treat unknown fields as errors")
	fl.BoolVar(&f.allowRemote, "allow-remote-bases", false, "let kustomizations use remote bases (runs git; off: only the repository's files are read)")
	fl.BoolVar(&f.argocd, "argocd-plugin", false, "run as Argo CD's config-management plugin: render the Application's directory, the repository as root, options from the ARGOCD_ENV_*/PARAM_* environment")
	fl.BoolVar(&f.krm, "krm", false, "run as a KRM function: a ResourceList on stdin, a ResourceList on stdout")
	fl.Int64Var(&f.maxFileSize, "max-file-size", sites.DefaultMaxFileSize, "largest input file read, in bytes")
	return cmd
}

// renderGCPercent trades memory for speed while rendering: the render
// allocates many short-lived values over a live heap of ten or twenty
// megabytes, and with the heap allowed to grow to four times the live
// data, 10,000 sites render 4 to 5 % faster than at three times (GOGC
// 200, which was about 15 % faster than the default) for about 13 MB
// more. Further (GOGC 400 and up) the heap's fresh pages cost more than
// the collections they save: a fleet of 200-site files renders slower.
// GOGC in the environment still wins.
const renderGCPercent = 300

func runRender(cmd *cobra.Command, f *renderFlags, args []string, stdout, stderr io.Writer) error {
	if os.Getenv("GOGC") == "" {
		defer debug.SetGCPercent(debug.SetGCPercent(renderGCPercent))
	}
	enc, err := render.NewEncoder(render.Format(f.output))
	if err != nil {
		return usageError("%v", err)
	}
	if f.maxFileSize <= 0 {
		return usageError("--max-file-size must be positive")
	}
	if f.krm {
		return runRenderKRM(cmd, f, args, stdout, stderr)
	}
	if f.argocd {
		if args, err = argocdPluginFlags(f, args, os.Getenv); err != nil {
			return err
		}
		enc = jsonStreamEncoder{}
	}
	args, docs, err := stdinDocuments(cmd, args, f.maxFileSize)
	if err != nil {
		return err
	}
	onlyStdin := len(docs) > 0 && len(args) == 0
	if onlyStdin {
		args = []string{f.root}
	}
	in, err := openFleet(fleetRoot{f.root, cmd.Flags().Changed("root") || f.argocd}, args, f.manifestsDir)
	if err != nil {
		return err
	}
	defer in.root.Close()
	if onlyStdin {
		in.paths = nil // the fleet root is where paths resolve, not sites to read
	}
	flush := func() error { return nil }
	if f.outDir == "" {
		stdout, stderr, flush = bufferPipe(stdout, stderr)
		// Sites written before an error stay written, as without the
		// buffer.
		defer flush()
	}
	out := render.NewStreamWriter(stdout, enc)
	if f.outDir != "" {
		if err := os.MkdirAll(f.outDir, 0o755); err != nil {
			return fmt.Errorf("--out-dir: %w", err)
		}
	}
	r := render.New(in.renderOpts...)
	if err := r.CheckDefaultManifests(); err != nil {
		fmt.Fprintf(stderr, "--extra-manifests-dir %s: %v\n", f.manifestsDir, err)
		return errFailed
	}
	opts := f.loadOptions(sites.WithDocuments(docs...))
	found := false // a site rendered, or a problem that fails the command anyway
	var written []string
	failed, err := streamRendered(cmd.Context(), in, r, render.Redacting(enc), opts, stderr, func(ps sites.Problems) { report(stderr, ps) },
		func(s *sites.Site, res render.Result) error {
			found = true
			report(stderr, render.DeprecatedFields(s))
			if f.outDir == "" {
				return out.WriteResult(res)
			}
			name, ok := outFileName(s.Name, enc.Ext())
			if !ok {
				p := s.Problem(s.FieldPath("clusterName"), "cluster name %q cannot name a file in --out-dir", s.Name)
				p.Hint = "a cluster name is a DNS label: lower-case letters, digits and '-'"
				report(stderr, sites.Problems{p})
				return errSiteFailed
			}
			if err := writeSiteFile(f.outDir, name, enc, res); err != nil {
				return err
			}
			written = append(written, name)
			return nil
		})
	if err != nil {
		return err
	}
	if f.outDir == "" {
		if err := out.Close(); err != nil {
			return err
		}
		if err := flush(); err != nil {
			return err
		}
	} else {
		fmt.Fprintf(stderr, "siteops: wrote %s\n", wroteFiles(f.outDir, written))
	}
	if failed {
		return errFailed
	}
	if !found && !f.argocd {
		// An Argo CD Application may hold no site yet; a CI job pointed
		// at the wrong folder must not pass.
		return noSiteError(in)
	}
	return nil
}

// maxNamesListed bounds the file names wroteFiles lists.
const maxNamesListed = 10

// wroteFiles says which files --out-dir received: "3 files to out/:
// a.yaml, b.yaml, c.yaml".
func wroteFiles(dir string, names []string) string {
	list := strings.Join(names[:min(len(names), maxNamesListed)], ", ")
	if len(names) > maxNamesListed {
		list += ", …"
	}
	unit := "files"
	if len(names) == 1 {
		unit = "file"
	}
	if len(names) == 0 {
		return "no file to " + dir
	}
	return fmt.Sprintf("%d %s to %s: %s", len(names), unit, dir, list)
}

// errSiteFailed, returned by the emit function of streamRendered, marks
// the site failed (its problem already reported) and goes on.
var errSiteFailed = errors.New("site failed")

// streamRendered renders the sites of in with r, encoded with enc, and
// hands each to emit in file order; every problem goes to onProblems, and
// suppressed objects are noted on stderr. It says whether any site failed.
// The result's buffer is reused once emit returns.
func streamRendered(ctx context.Context, in *fleetInput, r *render.Renderer, enc render.Encoder, opts []sites.Option,
	stderr io.Writer, onProblems func(sites.Problems), emit func(*sites.Site, render.Result) error) (bool, error) {
	work := func(s *sites.Site) any { return r.RenderEncoded(s, enc) }
	failed := false
	err := sites.Stream(ctx, in.root.FS(), in.paths, work, func(it sites.Item) error {
		if len(it.Problems) > 0 {
			onProblems(it.Problems)
			failed = failed || it.Problems.HasErrors()
		}
		if it.Site == nil {
			return nil
		}
		res := it.Result.(render.Result)
		if len(res.Problems) > 0 {
			onProblems(res.Problems)
		}
		if res.Problems.HasErrors() || res.Bundle == nil {
			failed = true
			return nil
		}
		for _, ref := range res.Bundle.Suppressed {
			fmt.Fprintf(stderr, "%s: site %s: suppressed: %s\n", it.Site.Source, it.Site.Name, ref)
		}
		err := emit(it.Site, res)
		res.Release()
		if errors.Is(err, errSiteFailed) {
			failed = true
			return nil
		}
		return err
	}, opts...)
	return failed, err
}

// loadOptions are the sites options the render flags set.
func (f *renderFlags) loadOptions(extra ...sites.Option) []sites.Option {
	return append([]sites.Option{sites.WithStrict(f.strict), sites.WithMaxFileSize(f.maxFileSize), sites.WithUnlistedSiteWarnings(true),
		sites.WithAllowRemoteBases(f.allowRemote)}, extra...)
}

// stdinName is what problems call documents read from standard input.
const stdinName = "stdin"

// stdinDocuments takes the path "-" out of args and reads standard input
// as a document in its place.
func stdinDocuments(cmd *cobra.Command, args []string, max int64) ([]string, []sites.Document, error) {
	var paths []string
	var docs []sites.Document
	for _, a := range args {
		if a != "-" {
			paths = append(paths, a)
			continue
		}
		if len(docs) > 0 {
			return nil, nil, usageError("\"-\" is given twice: standard input can be read once")
		}
		data, err := io.ReadAll(io.LimitReader(cmd.InOrStdin(), max+1))
		if err != nil {
			return nil, nil, fmt.Errorf("read stdin: %w", err)
		}
		if int64(len(data)) > max {
			return nil, nil, fmt.Errorf("stdin is over the %d-byte limit on input files; raise it with --max-file-size", max)
		}
		docs = append(docs, sites.Document{Name: stdinName, Data: data})
	}
	return paths, docs, nil
}

// report prints problems and says whether any is an error.
func report(w io.Writer, ps sites.Problems) bool {
	for _, p := range ps {
		fmt.Fprintln(w, p.Error())
	}
	return ps.HasErrors()
}

// rootRelative turns command-line paths into slash paths inside root.
func rootRelative(root string, args []string) ([]string, error) {
	absRoot, err := filepath.Abs(root)
	if err != nil {
		return nil, err
	}
	out := make([]string, len(args))
	for i, a := range args {
		abs, err := filepath.Abs(a)
		if err != nil {
			return nil, err
		}
		rel, err := filepath.Rel(absRoot, abs)
		if err != nil || rel == ".." || strings.HasPrefix(rel, ".."+string(filepath.Separator)) {
			return nil, fmt.Errorf("%s is outside the fleet root %s; pass --root", a, root)
		}
		out[i] = filepath.ToSlash(rel)
	}
	return out, nil
}

// outFileName is the file a site is written to in --out-dir. A name that
// could leave the directory or hide in it is refused.
func outFileName(site, ext string) (string, bool) {
	if site == "" || strings.ContainsAny(site, `/\`) || strings.HasPrefix(site, ".") || strings.ContainsRune(site, 0) {
		return "", false
	}
	return site + ext, true
}

// writeSiteFile writes one site's output as a complete document,
// atomically.
func writeSiteFile(dir, name string, enc render.Encoder, res render.Result) error {
	var buf bytes.Buffer
	sw := render.NewStreamWriter(&buf, enc)
	if err := sw.WriteResult(res); err != nil {
		return err
	}
	if err := sw.Close(); err != nil {
		return err
	}
	return safefs.WriteFileAtomic(filepath.Join(dir, name), buf.Bytes())
}
