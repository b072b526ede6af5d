// Command fleetgen writes a synthetic fleet of SiteConfig or ClusterInstance
// sites for load tests and benchmarks of siteops.
//
// Usage:
//
//	go run ./hack/fleetgen -n N -shape sno|ha|mixed -out DIR \
//	  [-layout files|generators|overlays] [-format siteconfig|clusterinstance] \
//	  [-manifests 20] [-seed S]
//
// It writes N sites (one cluster each) into DIR, arranged by -layout:
//
//   - generators (the default): N SiteConfig files and a
//     DIR/kustomization.yaml listing them under generators: (ZTP);
//   - files: N SiteConfig files, or ClusterInstance files with -format
//     clusterinstance, and no kustomization;
//   - overlays: a kustomize tree of ClusterInstances, a base per shape and
//     one overlay per site, 50 sites per region directory.
//
// and DIR/extra-manifests/ with -manifests files: one Namespace, one
// .yaml.tmpl and MachineConfigs of about 1 KiB for the master and worker
// roles. The output depends only on the flags. See package
// github.com/siteops/siteops/hack/fleetgen/gen for the content.
package main

import (
	"flag"
	"fmt"
	"io"
	"os"
	"time"

	"github.com/siteops/siteops/hack/fleetgen/gen"
)

func main() {
	if err := run(os.Args[1:], os.Stdout, os.Stderr); err != nil {
		fmt.Fprintln(os.Stderr, "fleetgen:", err)
		os.Exit(1)
	}
}

// run parses args, generates the fleet and prints a one-line summary to
// stdout.
func run(args []string, stdout, stderr io.Writer) error {
	fs := flag.NewFlagSet("fleetgen", flag.ContinueOnError)
	fs.SetOutput(stderr)
	var (
		n         = fs.Int("n", 0, "number of sites (one cluster each), 1.."+fmt.Sprint(gen.MaxSites))
		shape     = fs.String("shape", string(gen.ShapeSNO), "cluster layout: sno (1 master), ha (3 masters + 2 workers) or mixed")
		out       = fs.String("out", "", "output directory (created if missing)")
		manifests = fs.Int("manifests", gen.DefaultManifests, "number of files in DIR/"+gen.ExtraManifestsDir)
		seed      = fs.Int64("seed", 1, "random seed; the same flags give the same files")
		layout    = fs.String("layout", string(gen.LayoutGenerators), "files (site files only), generators (SiteConfigs + a ZTP kustomization listing them under generators:) or overlays (kustomize base + one overlay per site, by region)")
		format    = fs.String("format", "", "siteconfig or clusterinstance (default: clusterinstance for -layout overlays, else siteconfig)")
	)
	fs.Usage = func() {
		fmt.Fprintln(fs.Output(), "usage: fleetgen -n N -shape sno|ha|mixed -out DIR [-layout files|generators|overlays] [-format siteconfig|clusterinstance] [-manifests 20] [-seed S]")
		fs.PrintDefaults()
	}
	if err := fs.Parse(args); err != nil {
		return err
	}
	if fs.NArg() > 0 {
		return fmt.Errorf("parse flags: unexpected arguments %q", fs.Args())
	}
	if *out == "" {
		return fmt.Errorf("parse flags: -out is required")
	}
	sh, err := gen.ParseShape(*shape)
	if err != nil {
		return fmt.Errorf("parse flags: %w", err)
	}

	lay, err := gen.ParseLayout(*layout)
	if err != nil {
		return fmt.Errorf("parse flags: %w", err)
	}
	form := gen.DefaultFormat(lay)
	if *format != "" {
		if form, err = gen.ParseFormat(*format); err != nil {
			return fmt.Errorf("parse flags: %w", err)
		}
	}

	start := time.Now()
	st, err := gen.Generate(*out, gen.Config{Sites: *n, Shape: sh, Layout: lay, Format: form, Manifests: *manifests, Seed: *seed})
	if err != nil {
		return fmt.Errorf("generate fleet: %w", err)
	}
	what := "SiteConfigs"
	switch {
	case lay == gen.LayoutOverlays:
		what = "ClusterInstance overlays"
	case form == gen.FormatClusterInstance:
		what = "ClusterInstances"
	}
	fmt.Fprintf(stdout, "wrote %d %s (%d sno, %d ha, %d nodes, %.1f MB, %d kustomizations, layout %s) and %d extra manifests to %s in %s\n",
		len(st.Files), what, st.SNO, st.HA, st.Nodes, float64(st.Bytes)/1e6, len(st.Kustomizations), lay,
		len(st.Manifests), *out, time.Since(start).Round(time.Millisecond))
	return nil
}
