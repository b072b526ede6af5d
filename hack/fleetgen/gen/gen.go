// Package gen writes synthetic SiteConfig fleets for load tests and
// benchmarks of the siteops renderer.
//
// A fleet is a directory in the ZTP layout:
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
// The SiteConfigs follow the benchmark inputs of the reference (§7.2 of
// siteconfig-v1.md): static IPv4 nmstate (one ethernet interface with an
// address, a DNS server and a default route), one node label per node,
// cpuPartitioningMode AllNodes, an installConfigOverrides JSON and three
// clusterLabels. An SNO cluster has 1 master; an HA cluster has 3 masters
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
// worker goroutines write them.
package gen

import (
	"fmt"
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

// MaxSites is the largest fleet Generate writes: the number of /28 machine
// networks in 10.0.0.0/9 (and of 8-address BMC blocks in 100.64.0.0/10).
const MaxSites = 1 << 19

// DefaultManifests is the default number of extra-manifest files.
const DefaultManifests = 20

// ExtraManifestsDir is the name of the extra-manifest directory inside a
// generated fleet.
const ExtraManifestsDir = "extra-manifests"

// Config describes a synthetic fleet.
type Config struct {
	// Sites is the number of SiteConfig files, each with one cluster.
	Sites int
	// Shape is the node layout of the clusters.
	Shape Shape
	// Manifests is the number of files written to extra-manifests/: one
	// Namespace, one .tmpl, and MachineConfigs for the rest.
	Manifests int
	// Seed makes the output reproducible.
	Seed int64
}

// Stats summarizes a generated fleet.
type Stats struct {
	// Files are the SiteConfig file names relative to the fleet
	// directory, in the order of the kustomization generators list.
	Files []string
	// SNO and HA count the clusters of each layout.
	SNO, HA int
	// Nodes is the total number of nodes.
	Nodes int
	// Bytes is the total size of the SiteConfig files.
	Bytes int64
	// Manifests lists the extra-manifest file names.
	Manifests []string
}

// Generate writes the fleet described by cfg into dir, creating dir if
// needed. Existing files with the same names are overwritten; other files
// are left alone.
func Generate(dir string, cfg Config) (Stats, error) {
	if err := cfg.validate(); err != nil {
		return Stats{}, fmt.Errorf("validate config: %w", err)
	}
	if err := os.MkdirAll(filepath.Join(dir, ExtraManifestsDir), 0o755); err != nil {
		return Stats{}, fmt.Errorf("create fleet directory: %w", err)
	}
	st, err := writeSites(dir, cfg)
	if err != nil {
		return Stats{}, fmt.Errorf("write sites: %w", err)
	}
	if err := writeKustomization(dir, st.Files); err != nil {
		return Stats{}, fmt.Errorf("write kustomization: %w", err)
	}
	st.Manifests, err = WriteManifests(filepath.Join(dir, ExtraManifestsDir), cfg.Manifests)
	if err != nil {
		return Stats{}, fmt.Errorf("write extra manifests: %w", err)
	}
	return st, nil
}

func (c Config) validate() error {
	if c.Sites < 1 || c.Sites > MaxSites {
		return fmt.Errorf("sites %d out of range 1..%d", c.Sites, MaxSites)
	}
	if _, err := ParseShape(string(c.Shape)); err != nil {
		return err
	}
	if c.Manifests < 0 {
		return fmt.Errorf("manifests %d is negative", c.Manifests)
	}
	return nil
}

// site is the per-cluster data a SiteConfig is written from.
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
// stream, so the result does not depend on generation order.
func newSite(cfg Config, i int) site {
	r := rand.New(rand.NewPCG(uint64(cfg.Seed), uint64(i)))
	s := site{index: i, region: regions[r.IntN(len(regions))]}
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

// writeSites writes all SiteConfig files with one worker per CPU.
func writeSites(dir string, cfg Config) (Stats, error) {
	type result struct {
		ha    bool
		bytes int
	}
	results := make([]result, cfg.Sites)
	files := make([]string, cfg.Sites)

	workers := min(runtime.GOMAXPROCS(0), cfg.Sites)
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
				s := newSite(cfg, i)
				buf = appendSiteConfig(buf[:0], s, cfg.Seed)
				name := s.name + ".yaml"
				if err := os.WriteFile(filepath.Join(dir, name), buf, 0o644); err != nil {
					mu.Lock()
					if firstErr == nil {
						firstErr = err
					}
					mu.Unlock()
					continue
				}
				files[i] = name
				results[i] = result{ha: s.ha, bytes: len(buf)}
			}
		})
	}
	for i := range cfg.Sites {
		next <- i
	}
	close(next)
	wg.Wait()
	if firstErr != nil {
		return Stats{}, firstErr
	}

	st := Stats{Files: files}
	for _, r := range results {
		if r.ha {
			st.HA++
			st.Nodes += haNodes
		} else {
			st.SNO++
			st.Nodes++
		}
		st.Bytes += int64(r.bytes)
	}
	return st, nil
}

func writeKustomization(dir string, files []string) error {
	b := make([]byte, 0, 64+len(files)*24)
	b = append(b, "# Written by hack/fleetgen. One generators entry per SiteConfig file.\n"...)
	b = append(b, "apiVersion: kustomize.config.k8s.io/v1beta1\nkind: Kustomization\ngenerators:\n"...)
	for _, f := range files {
		b = append(b, "  - "...)
		b = append(b, f...)
		b = append(b, '\n')
	}
	return os.WriteFile(filepath.Join(dir, "kustomization.yaml"), b, 0o644)
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
