// Package gen writes synthetic fleets for load tests and benchmarks of the
// siteops renderer, in three layouts ([Layout]) and two formats ([Format]).
//
// [LayoutGenerators] (the zero value, and what gen always wrote before
// layouts existed) is the GitOps ZTP layout:
//
//	DIR/
//	  kustomization.yaml        generators: lists every SiteConfig file
//	  sno-000001.yaml           one SiteConfig (ran.openshift.io/v1), one cluster
//	  ha-000002.yaml
//	  ...
//	  extra-manifests/          the directory passed as --extra-manifests-dir
//	    00-fleetgen-namespace.yaml
//	    01-fleetgen-identity.yaml.tmpl
//	    02-master-kernel-args.yaml
//	    ...
//
// [LayoutFiles] is the same without kustomization.yaml: a plain directory of
// site files that the renderer walks. With [FormatClusterInstance] the site
// files are ClusterInstances (siteconfig.open-cluster-management.io/v1alpha1)
// instead of SiteConfigs.
//
// [LayoutOverlays] is a kustomize tree of ClusterInstances, grouped by
// region the way fleets that moved to ClusterInstance arrange them:
//
//	DIR/
//	  kustomization.yaml          resources: regions/region-00001, ...
//	  base/sno/                   kustomization.yaml + clusterinstance.yaml
//	  base/ha/                    (one base per shape in the fleet)
//	  regions/region-00001/
//	    kustomization.yaml        resources: its site overlays
//	    sno-000001/
//	      kustomization.yaml      resources: ../../../base/sno, namespace, patches
//	      patch-strategic.yaml    a strategic-merge patch (even site indices)
//	    sno-000002/
//	      kustomization.yaml
//	      patch-json6902.yaml     a JSON 6902 patch (odd site indices)
//	  extra-manifests/
//
// Every overlay patches what is particular to its site (name, namespace,
// cluster name, region label, machine network, VIPs, and per node host
// name, BMC address and credentials, MACs, zone label and IP addresses), so
// that the built overlay equals the ClusterInstance [FormatClusterInstance]
// writes for the same site. [SitesPerRegion] sites share a region.
//
// The sites follow the inputs the upstream SiteConfig generator was measured
// with (docs/performance.md): static IPv4 nmstate (one ethernet interface with
// an address, a DNS server and a default route), one node label per node,
// cpuPartitioningMode AllNodes, an installConfigOverrides JSON and three
// cluster labels (clusterLabels in a SiteConfig, ManagedCluster extraLabels in
// a ClusterInstance). An SNO cluster has 1 master; an HA cluster has 3 masters
// and 2 workers plus apiVIPs/ingressVIPs.
//
// # Addresses
//
// Every cluster i (0-based) owns a /28 of 10.0.0.0/9 for its machine
// network and a block of 8 BMC addresses in 100.64.0.0/10, so names, MAC
// addresses, node IPs and BMC addresses are unique across the fleet for up
// to [MaxSites] clusters. The documentation ranges (RFC 5737) are far too
// small for that, which is why these private and shared ranges are used.
// MAC addresses are locally administered unicast (first octet 02).
//
// # Determinism
//
// The output is a pure function of [Config]: the seed picks the region,
// zone and shape (for [ShapeMixed]) of each cluster from a per-cluster
// random stream, so the files do not depend on the order in which the
// worker goroutines write them. The same seed gives the same shapes in
// every layout and format.
package gen

import (
	"errors"
	"fmt"
	"io/fs"
	"math/rand/v2"
	"os"
	"path/filepath"
	"runtime"
	"strconv"
	"sync"
)

// Shape is the node layout of the generated clusters.
type Shape string

// The supported shapes.
const (
	// ShapeSNO gives every cluster a single master node.
	ShapeSNO Shape = "sno"
	// ShapeHA gives every cluster 3 masters and 2 workers with API and
	// ingress VIPs.
	ShapeHA Shape = "ha"
	// ShapeMixed makes about one cluster in four HA and the rest SNO,
	// chosen by the seed.
	ShapeMixed Shape = "mixed"
)

// Shapes lists the supported shapes in the order used by help texts.
func Shapes() []Shape { return []Shape{ShapeSNO, ShapeHA, ShapeMixed} }

// ParseShape returns the Shape named s.
func ParseShape(s string) (Shape, error) {
	for _, sh := range Shapes() {
		if string(sh) == s {
			return sh, nil
		}
	}
	return "", fmt.Errorf("unknown shape %q (want sno, ha or mixed)", s)
}

// Layout is how the site files are arranged in the fleet directory.
type Layout string

// The supported layouts.
const (
	// LayoutFiles writes one file per site and no kustomization: the
	// renderer walks the directory.
	LayoutFiles Layout = "files"
	// LayoutGenerators adds a ZTP kustomization.yaml listing the SiteConfig
	// files under generators:. It is what Generate wrote before layouts
	// existed, and the layout of a zero Config.
	LayoutGenerators Layout = "generators"
	// LayoutOverlays writes a kustomize tree: one base ClusterInstance per
	// shape and one overlay directory per site, grouped by region.
	LayoutOverlays Layout = "overlays"
)

// Layouts lists the supported layouts in the order used by help texts.
func Layouts() []Layout { return []Layout{LayoutFiles, LayoutGenerators, LayoutOverlays} }

// ParseLayout returns the Layout named s.
func ParseLayout(s string) (Layout, error) {
	for _, l := range Layouts() {
		if string(l) == s {
			return l, nil
		}
	}
	return "", fmt.Errorf("unknown layout %q (want files, generators or overlays)", s)
}

// Format is the API the sites are written in.
type Format string

// The supported formats.
const (
	// FormatSiteConfig writes SiteConfigs (ran.openshift.io/v1), one
	// cluster each. It is the only format of LayoutGenerators.
	FormatSiteConfig Format = "siteconfig"
	// FormatClusterInstance writes ClusterInstances
	// (siteconfig.open-cluster-management.io/v1alpha1). It is the only
	// format of LayoutOverlays.
	FormatClusterInstance Format = "clusterinstance"
)

// Formats lists the supported formats.
func Formats() []Format { return []Format{FormatSiteConfig, FormatClusterInstance} }

// ParseFormat returns the Format named s.
func ParseFormat(s string) (Format, error) {
	for _, f := range Formats() {
		if string(f) == s {
			return f, nil
		}
	}
	return "", fmt.Errorf("unknown format %q (want siteconfig or clusterinstance)", s)
}

// DefaultFormat is the format of layout when Config.Format is empty.
func DefaultFormat(layout Layout) Format {
	if layout == LayoutOverlays {
		return FormatClusterInstance
	}
	return FormatSiteConfig
}

// CheckLayout reports whether Generate writes layout in format.
func CheckLayout(layout Layout, format Format) error {
	if _, err := ParseLayout(string(layout)); err != nil {
		return err
	}
	if _, err := ParseFormat(string(format)); err != nil {
		return err
	}
	switch {
	case layout == LayoutGenerators && format != FormatSiteConfig:
		return fmt.Errorf("layout generators holds SiteConfigs only (ZTP runs generators: entries as SiteConfig plugins), not format %s", format)
	case layout == LayoutOverlays && format != FormatClusterInstance:
		return fmt.Errorf("layout overlays holds ClusterInstances only, not format %s", format)
	}
	return nil
}

// MaxSites is the largest fleet Generate writes: the number of /28 machine
// networks in 10.0.0.0/9 (and of 8-address BMC blocks in 100.64.0.0/10).
// LayoutOverlays takes one less: its base uses the last block.
const MaxSites = 1 << 19

// SitesPerRegion is the number of sites in one region of LayoutOverlays.
const SitesPerRegion = 50

// DefaultManifests is the default number of extra-manifest files.
const DefaultManifests = 20

// ExtraManifestsDir is the name of the extra-manifest directory inside a
// generated fleet.
const ExtraManifestsDir = "extra-manifests"

// Config describes a synthetic fleet.
type Config struct {
	// Sites is the number of sites, each with one cluster.
	Sites int
	// Shape is the node layout of the clusters.
	Shape Shape
	// Layout arranges the site files; empty means LayoutGenerators.
	Layout Layout
	// Format is the API of the sites; empty means DefaultFormat(Layout).
	Format Format
	// Manifests is the number of files written to extra-manifests/: one
	// Namespace, one .tmpl, and MachineConfigs for the rest.
	Manifests int
	// Seed makes the output reproducible.
	Seed int64
}

// Stats summarizes a generated fleet.
type Stats struct {
	// Files are the site files relative to the fleet directory (slash
	// separated), in site order: the SiteConfig or ClusterInstance files,
	// or for LayoutOverlays the overlay directories.
	Files []string
	// Names are the cluster names, in site order.
	Names []string
	// SNO and HA count the clusters of each layout.
	SNO, HA int
	// Nodes is the total number of nodes.
	Nodes int
	// Bytes is the total size of the site files (for LayoutOverlays: of
	// every kustomization and patch file, bases included).
	Bytes int64
	// Kustomizations lists the kustomization files written, relative to
	// the fleet directory: none for LayoutFiles, one for
	// LayoutGenerators, the whole tree for LayoutOverlays.
	Kustomizations []string
	// Manifests lists the extra-manifest file names.
	Manifests []string
}

// Generate writes the fleet described by cfg into dir, creating dir if
// needed. Existing files with the same names are overwritten; other files
// are left alone, except that LayoutFiles removes a kustomization file
// left in dir (it would change how the directory is read). Write each
// layout into a directory of its own.
func Generate(dir string, cfg Config) (Stats, error) {
	cfg = cfg.withDefaults()
	if err := cfg.validate(); err != nil {
		return Stats{}, fmt.Errorf("validate config: %w", err)
	}
	if err := os.MkdirAll(filepath.Join(dir, ExtraManifestsDir), 0o755); err != nil {
		return Stats{}, fmt.Errorf("create fleet directory: %w", err)
	}
	var (
		st  Stats
		err error
	)
	switch cfg.Layout {
	case LayoutOverlays:
		st, err = writeOverlays(dir, cfg)
		if err != nil {
			return Stats{}, fmt.Errorf("write overlays: %w", err)
		}
	default:
		st, err = writeSites(dir, cfg)
		if err != nil {
			return Stats{}, fmt.Errorf("write sites: %w", err)
		}
		if cfg.Layout == LayoutGenerators {
			if err := writeKustomization(dir, st.Files); err != nil {
				return Stats{}, fmt.Errorf("write kustomization: %w", err)
			}
			st.Kustomizations = []string{kustomizationFile}
		} else if err := removeKustomization(dir); err != nil {
			return Stats{}, fmt.Errorf("remove stale kustomization: %w", err)
		}
	}
	st.Manifests, err = WriteManifests(filepath.Join(dir, ExtraManifestsDir), cfg.Manifests)
	if err != nil {
		return Stats{}, fmt.Errorf("write extra manifests: %w", err)
	}
	return st, nil
}

func (c Config) withDefaults() Config {
	if c.Layout == "" {
		c.Layout = LayoutGenerators
	}
	if c.Format == "" {
		c.Format = DefaultFormat(c.Layout)
	}
	return c
}

func (c Config) validate() error {
	c = c.withDefaults()
	maxSites := MaxSites
	if c.Layout == LayoutOverlays {
		maxSites--
	}
	if c.Sites < 1 || c.Sites > maxSites {
		return fmt.Errorf("sites %d out of range 1..%d", c.Sites, maxSites)
	}
	if _, err := ParseShape(string(c.Shape)); err != nil {
		return err
	}
	if err := CheckLayout(c.Layout, c.Format); err != nil {
		return err
	}
	if c.Manifests < 0 {
		return fmt.Errorf("manifests %d is negative", c.Manifests)
	}
	return nil
}

// site is the per-cluster data a site file is written from.
type site struct {
	index  int // 0-based position in the fleet
	name   string
	ha     bool
	region string
	zones  [haNodes]string
}

const haNodes = 5

var regions = []string{"north", "south", "east", "west", "central", "coastal", "alpine", "metro"}

// newSite derives cluster i from the seed. Each cluster has its own random
// stream, so the result does not depend on generation order. In
// LayoutOverlays the region is the region directory the site is in.
func newSite(cfg Config, i int) site {
	r := rand.New(rand.NewPCG(uint64(cfg.Seed), uint64(i)))
	s := site{index: i, region: regions[r.IntN(len(regions))]}
	if cfg.Layout == LayoutOverlays {
		s.region = regionName(i / SitesPerRegion)
	}
	switch cfg.Shape {
	case ShapeHA:
		s.ha = true
	case ShapeMixed:
		s.ha = r.IntN(4) == 0
	}
	prefix := "sno"
	if s.ha {
		prefix = "ha"
	}
	s.name = prefix + "-" + pad6(i+1)
	for k := range s.zones {
		s.zones[k] = s.region + "-" + string(rune('a'+r.IntN(3)))
	}
	return s
}

func (s site) nodes() int {
	if s.ha {
		return haNodes
	}
	return 1
}

func (s site) shape() Shape {
	if s.ha {
		return ShapeHA
	}
	return ShapeSNO
}

// regionName names region g (0-based) of LayoutOverlays.
func regionName(g int) string {
	n := strconv.Itoa(g + 1)
	for len(n) < 5 {
		n = "0" + n
	}
	return "region-" + n
}

// fileResult is what a worker reports for one site.
type fileResult struct {
	file  string
	ha    bool
	bytes int
}

// forEachSite runs write for every site index with one worker per CPU and
// returns the first error. write gets a reusable buffer and returns it.
func forEachSite(n int, write func(i int, buf []byte) ([]byte, error)) error {
	workers := min(runtime.GOMAXPROCS(0), n)
	var (
		wg       sync.WaitGroup
		mu       sync.Mutex
		firstErr error
		next     = make(chan int, 256)
	)
	for range workers {
		wg.Go(func() {
			buf := make([]byte, 0, 16<<10)
			for i := range next {
				var err error
				if buf, err = write(i, buf[:0]); err != nil {
					mu.Lock()
					if firstErr == nil {
						firstErr = err
					}
					mu.Unlock()
				}
			}
		})
	}
	for i := range n {
		next <- i
	}
	close(next)
	wg.Wait()
	return firstErr
}

// collectStats sums the per-site results.
func collectStats(results []fileResult, names []string) Stats {
	st := Stats{Files: make([]string, len(results)), Names: names}
	for i, r := range results {
		st.Files[i] = r.file
		if r.ha {
			st.HA++
			st.Nodes += haNodes
		} else {
			st.SNO++
			st.Nodes++
		}
		st.Bytes += int64(r.bytes)
	}
	return st
}

// writeSites writes one SiteConfig or ClusterInstance file per site.
func writeSites(dir string, cfg Config) (Stats, error) {
	results := make([]fileResult, cfg.Sites)
	names := make([]string, cfg.Sites)
	err := forEachSite(cfg.Sites, func(i int, buf []byte) ([]byte, error) {
		s := newSite(cfg, i)
		if cfg.Format == FormatClusterInstance {
			buf = appendClusterInstanceFile(buf, s, cfg.Seed)
		} else {
			buf = appendSiteConfig(buf, s, cfg.Seed)
		}
		name := s.name + ".yaml"
		if err := os.WriteFile(filepath.Join(dir, name), buf, 0o644); err != nil {
			return buf, err
		}
		results[i] = fileResult{file: name, ha: s.ha, bytes: len(buf)}
		names[i] = s.name
		return buf, nil
	})
	if err != nil {
		return Stats{}, err
	}
	return collectStats(results, names), nil
}

// kustomizationFile is the name of every kustomization gen writes.
const kustomizationFile = "kustomization.yaml"

func writeKustomization(dir string, files []string) error {
	b := make([]byte, 0, 64+len(files)*24)
	b = append(b, "# Written by hack/fleetgen. One generators entry per SiteConfig file.\n"...)
	b = append(b, "apiVersion: kustomize.config.k8s.io/v1beta1\nkind: Kustomization\ngenerators:\n"...)
	for _, f := range files {
		b = append(b, "  - "...)
		b = append(b, f...)
		b = append(b, '\n')
	}
	return os.WriteFile(filepath.Join(dir, kustomizationFile), b, 0o644)
}

// removeKustomization removes the kustomization files kustomize would find
// in dir, so that a LayoutFiles fleet written over another layout is read
// as plain files.
func removeKustomization(dir string) error {
	for _, name := range []string{"kustomization.yaml", "kustomization.yml", "Kustomization"} {
		if err := os.Remove(filepath.Join(dir, name)); err != nil && !errors.Is(err, fs.ErrNotExist) {
			return err
		}
	}
	return nil
}

// Addressing. Cluster i owns machine network 10.0.0.0/9 + i*16 (/28) and
// BMC block 100.64.0.0/10 + i*8. Inside the /28: .1 gateway, .2 API VIP,
// .3 ingress VIP, .4-.8 nodes, .14 DNS.
const (
	machineBase = 10 << 24         // 10.0.0.0
	bmcBase     = 100<<24 | 64<<16 // 100.64.0.0
	offGateway  = 1
	offAPIVIP   = 2
	offIngress  = 3
	offNode0    = 4
	offDNS      = 14
)

func appendIPv4(b []byte, v uint32) []byte {
	b = strconv.AppendUint(b, uint64(v>>24), 10)
	b = append(b, '.')
	b = strconv.AppendUint(b, uint64(v>>16&0xff), 10)
	b = append(b, '.')
	b = strconv.AppendUint(b, uint64(v>>8&0xff), 10)
	b = append(b, '.')
	return strconv.AppendUint(b, uint64(v&0xff), 10)
}

// appendMAC appends a locally administered unicast MAC for NIC nic of
// node k in cluster i: 02:SS:II:II:II:KN, with SS derived from the seed.
func appendMAC(b []byte, seed int64, i, k, nic int) []byte {
	const hexdigits = "0123456789abcdef"
	octets := [6]byte{0x02, byte(uint64(seed) * 0x9e3779b97f4a7c15 >> 56), byte(i >> 16), byte(i >> 8), byte(i), byte(k<<4 | nic)}
	b = append(b, '"')
	for n, o := range octets {
		if n > 0 {
			b = append(b, ':')
		}
		b = append(b, hexdigits[o>>4], hexdigits[o&0xf])
	}
	return append(b, '"')
}

func pad6(n int) string {
	s := strconv.Itoa(n)
	for len(s) < 6 {
		s = "0" + s
	}
	return s
}
