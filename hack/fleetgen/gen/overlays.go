package gen

import (
	"os"
	"path"
	"path/filepath"
	"strconv"
)

// File names inside a LayoutOverlays tree.
const (
	baseDir           = "base"
	regionsDir        = "regions"
	baseResource      = "clusterinstance.yaml"
	strategicPatch    = "patch-strategic.yaml"
	json6902Patch     = "patch-json6902.yaml"
	kustomizationHead = "apiVersion: kustomize.config.k8s.io/v1beta1\nkind: Kustomization\n"
)

// baseSite is the placeholder site a base of shape sh is written from. It
// takes the last address block, which no site of a LayoutOverlays fleet
// uses, so a field an overlay forgot to patch shows up as a foreign
// address instead of as another site's.
func baseSite(sh Shape) site {
	s := site{index: MaxSites - 1, name: string(sh) + "-template", ha: sh == ShapeHA, region: "template"}
	for k := range s.zones {
		s.zones[k] = "template-a"
	}
	return s
}

// writeOverlays writes a LayoutOverlays fleet: the site overlays on all
// CPUs, then the bases of the shapes used, the region kustomizations and
// the top kustomization.
func writeOverlays(dir string, cfg Config) (Stats, error) {
	results := make([]fileResult, cfg.Sites)
	names := make([]string, cfg.Sites)
	err := forEachSite(cfg.Sites, func(i int, buf []byte) ([]byte, error) {
		s := newSite(cfg, i)
		rel := path.Join(regionsDir, s.region, s.name)
		siteDir := filepath.Join(dir, filepath.FromSlash(rel))
		if err := os.MkdirAll(siteDir, 0o755); err != nil {
			return buf, err
		}
		strategic := i%2 == 0
		buf = appendOverlayKustomization(buf, s, cfg.Seed, strategic)
		n := len(buf)
		if err := os.WriteFile(filepath.Join(siteDir, kustomizationFile), buf, 0o644); err != nil {
			return buf, err
		}
		patchFile := json6902Patch
		if strategic {
			patchFile = strategicPatch
			buf = appendStrategicPatch(buf[:0], s, cfg.Seed)
		} else {
			buf = appendJSON6902Patch(buf[:0], s, cfg.Seed)
		}
		n += len(buf)
		if err := os.WriteFile(filepath.Join(siteDir, patchFile), buf, 0o644); err != nil {
			return buf, err
		}
		results[i] = fileResult{file: rel, ha: s.ha, bytes: n}
		names[i] = s.name
		return buf, nil
	})
	if err != nil {
		return Stats{}, err
	}
	st := collectStats(results, names)

	// Bases, for the shapes the fleet uses.
	for _, sh := range []Shape{ShapeSNO, ShapeHA} {
		if sh == ShapeSNO && st.SNO == 0 || sh == ShapeHA && st.HA == 0 {
			continue
		}
		rel := path.Join(baseDir, string(sh))
		b := append([]byte(nil), "# Base of the "...)
		b = append(b, sh...)
		b = append(b, " sites, written by hack/fleetgen. Every site overlay\n# patches the placeholder names and addresses of "+baseResource+".\n"+kustomizationHead+"resources:\n  - "+baseResource+"\n"...)
		if err := writeTreeFile(dir, path.Join(rel, kustomizationFile), b, &st); err != nil {
			return Stats{}, err
		}
		b = append(b[:0], "# Base ClusterInstance written by hack/fleetgen (seed "...)
		b = strconv.AppendInt(b, cfg.Seed, 10)
		b = append(b, "). Names, MACs and addresses are\n# placeholders that every overlay replaces.\n"...)
		b = appendClusterInstance(b, baseSite(sh), cfg.Seed)
		if err := writeTreeFile(dir, path.Join(rel, baseResource), b, nil); err != nil {
			return Stats{}, err
		}
		st.Bytes += int64(len(b))
	}

	// Region kustomizations list their sites; the top one lists the regions.
	top := append([]byte(nil), "# Written by hack/fleetgen: one resources entry per region.\n"+kustomizationHead+"resources:\n"...)
	for first := 0; first < cfg.Sites; first += SitesPerRegion {
		region := regionName(first / SitesPerRegion)
		b := append([]byte(nil), "# Region "...)
		b = append(b, region...)
		b = append(b, ", written by hack/fleetgen: one resources entry per site overlay.\n"+kustomizationHead+"resources:\n"...)
		for i := first; i < min(first+SitesPerRegion, cfg.Sites); i++ {
			b = append(b, "  - "...)
			b = append(b, names[i]...)
			b = append(b, '\n')
		}
		if err := writeTreeFile(dir, path.Join(regionsDir, region, kustomizationFile), b, &st); err != nil {
			return Stats{}, err
		}
		top = append(top, "  - "+regionsDir+"/"...)
		top = append(top, region...)
		top = append(top, '\n')
	}
	if err := writeTreeFile(dir, kustomizationFile, top, &st); err != nil {
		return Stats{}, err
	}
	// Site overlay kustomizations, listed after the tree's own.
	for _, f := range st.Files {
		st.Kustomizations = append(st.Kustomizations, path.Join(f, kustomizationFile))
	}
	return st, nil
}

// writeTreeFile writes b to the slash-separated path rel under dir,
// creating its directory. With st set, rel is a kustomization and is
// counted there.
func writeTreeFile(dir, rel string, b []byte, st *Stats) error {
	p := filepath.Join(dir, filepath.FromSlash(rel))
	if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
		return err
	}
	if err := os.WriteFile(p, b, 0o644); err != nil {
		return err
	}
	if st != nil {
		st.Kustomizations = append(st.Kustomizations, rel)
		st.Bytes += int64(len(b))
	}
	return nil
}

// appendOverlayKustomization appends the kustomization of the overlay of
// s: the base of its shape, its namespace, and one patch file, a
// strategic-merge patch or a JSON 6902 patch.
func appendOverlayKustomization(b []byte, s site, seed int64, strategic bool) []byte {
	b = append(b, "# Site "...)
	b = append(b, s.name...)
	b = append(b, " in "...)
	b = append(b, s.region...)
	b = append(b, ", written by hack/fleetgen (seed "...)
	b = strconv.AppendInt(b, seed, 10)
	b = append(b, ").\n"+kustomizationHead+"namespace: "...)
	b = append(b, s.name...)
	b = append(b, "\nresources:\n  - ../../../"+baseDir+"/"...)
	b = append(b, s.shape()...)
	b = append(b, "\npatches:\n  - path: "...)
	if strategic {
		b = append(b, strategicPatch...)
	} else {
		b = append(b, json6902Patch...)
	}
	b = append(b, "\n    target:\n      group: siteconfig.open-cluster-management.io\n      version: v1alpha1\n      kind: ClusterInstance\n      name: "...)
	b = append(b, baseSite(s.shape()).name...)
	b = append(b, '\n')
	if strategic {
		// The patch renames the object; kustomize refuses that unless asked.
		b = append(b, "    options:\n      allowNameChange: true\n"...)
	}
	return b
}

// appendStrategicPatch appends a strategic-merge patch that turns the base
// into s. kustomize knows no merge keys for ClusterInstance, so a list in
// the patch replaces the list of the base whole: the patch restates every
// node, the machine network and the VIPs, while maps (metadata, spec,
// extraLabels) merge key by key.
func appendStrategicPatch(b []byte, s site, seed int64) []byte {
	b = append(b, "apiVersion: siteconfig.open-cluster-management.io/v1alpha1\nkind: ClusterInstance\nmetadata:\n  name: "...)
	b = append(b, s.name...)
	b = append(b, "\nspec:\n  clusterName: "...)
	b = append(b, s.name...)
	b = append(b, "\n  extraLabels:\n    ManagedCluster:\n      region: "...)
	b = append(b, s.region...)
	b = append(b, '\n')
	b = appendMachineNetwork(b, uint32(machineBase+s.index*16))
	b = appendVIPs(b, s)
	return appendCINodes(b, s, seed)
}

// appendJSON6902Patch appends a JSON 6902 patch (as YAML) that replaces
// every site-specific value of the base with the value of s.
func appendJSON6902Patch(b []byte, s site, seed int64) []byte {
	net := uint32(machineBase + s.index*16)
	start := len(b)
	// op starts a replace operation; its value follows.
	op := func(b []byte, p string) []byte {
		if len(b) > start {
			b = append(b, '\n')
		}
		b = append(b, "- op: replace\n  path: "...)
		b = append(b, p...)
		return append(b, "\n  value: "...)
	}
	b = op(b, "/metadata/name")
	b = append(b, s.name...)
	b = op(b, "/spec/clusterName")
	b = append(b, s.name...)
	b = op(b, "/spec/extraLabels/ManagedCluster/region")
	b = append(b, s.region...)
	b = op(b, "/spec/machineNetwork/0/cidr")
	b = appendIPv4(b, net)
	b = append(b, "/28"...)
	if s.ha {
		b = op(b, "/spec/apiVIPs/0")
		b = appendIPv4(b, net+offAPIVIP)
		b = op(b, "/spec/ingressVIPs/0")
		b = appendIPv4(b, net+offIngress)
	}
	for k := range s.nodes() {
		host, _ := nodeName(s, k)
		node := "/spec/nodes/" + strconv.Itoa(k)
		b = op(b, node+"/hostName")
		b = append(b, host+"."+baseDomain...)
		b = op(b, node+"/bmcAddress")
		b = appendBMCAddress(b, s, k)
		b = op(b, node+"/bmcCredentialsName/name")
		b = append(b, host+"-bmc"...)
		b = op(b, node+"/bootMACAddress")
		b = appendMAC(b, seed, s.index, k, 0)
		// "/" in a key is written "~1" in a JSON pointer (RFC 6901).
		b = op(b, node+"/nodeLabels/topology.kubernetes.io~1zone")
		b = append(b, s.zones[k]...)
		b = op(b, node+"/nodeNetwork/interfaces/0/macAddress")
		b = appendMAC(b, seed, s.index, k, 0)
		b = op(b, node+"/nodeNetwork/config/interfaces/0/ipv4/address/0/ip")
		b = appendIPv4(b, net+offNode0+uint32(k))
		b = op(b, node+"/nodeNetwork/config/dns-resolver/config/server/0")
		b = appendIPv4(b, net+offDNS)
		b = op(b, node+"/nodeNetwork/config/routes/config/0/next-hop-address")
		b = appendIPv4(b, net+offGateway)
	}
	return append(b, '\n')
}
