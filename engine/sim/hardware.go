package sim

import (
	"fmt"
	"hash/fnv"
	"net/netip"
	"sort"
	"strconv"
	"strings"

	"github.com/siteops/siteops/engine/assisted"
)

// AnnotationHardware on a BareMetalHost describes the simulated machine
// and the failures to inject, as comma-separated key=value pairs. In a
// SiteConfig it is set through a node's crAnnotations (kind
// BareMetalHost), in a ClusterInstance through a node's extraAnnotations.
const AnnotationHardware = "sim.siteops.io/hardware"

// hardware is one simulated machine.
type hardware struct {
	CPUs      int
	MemoryMiB int64
	DiskGB    int64
	DiskType  assisted.DriveType
	// MemoryFromMeminfo: the agent measured usable, not physical, memory.
	MemoryFromMeminfo bool
	Vendor            string
	Product           string
	Virtual           bool
	Arch              string
	// Interfaces are the machine's MACs; empty: the boot MAC plus the MACs
	// of the host's NMStateConfig.
	Interfaces []string
	// Hostname is what the host reports (DHCP / reverse DNS); empty: the
	// BareMetalHost's name.
	Hostname string

	// Failure injection.
	FailAt        assisted.Stage
	DisconnectAt  string
	MediaAt       string
	NeverRegister bool
	BootFromISO   bool
	DiskSpeedMs   float64
	ImagePullFail bool
	LatencyMs     float64
	PacketLossPct float64
	DNS           string
	NoDefault     bool
	NTPUnsynced   bool
	MTUBroken     bool
	// ClockOffsetMin is how far the host's clock is ahead of the
	// service's, in minutes (negative: behind).
	ClockOffsetMin float64
}

// The dns values: the cluster's names do not resolve, resolve to the
// host's own address, or a name that must not exist resolves (a wildcard
// record, to wildcardAddress).
const (
	dnsFail     = "fail"
	dnsSelf     = "self"
	dnsWildcard = "wildcard"
)

// diskTypes are the drive types a simulated disk can have, by the name the
// annotation uses; diskTypeNames lists them in the order errors do.
var (
	diskTypes = map[string]assisted.DriveType{
		"hdd": assisted.DriveHDD, "ssd": assisted.DriveSSD, "multipath": assisted.DriveMultipath,
		"raid": assisted.DriveRAID, "iscsi": assisted.DriveISCSI, "fc": assisted.DriveFC,
		"eckd": assisted.DriveECKD, "eckd-ese": assisted.DriveECKDESE, "fba": assisted.DriveFBA,
	}
	diskTypeNames = []string{"hdd", "ssd", "multipath", "raid", "iscsi", "fc", "eckd", "eckd-ese", "fba"}
)

// wildcardAddress is what a wildcard record answers (TEST-NET-3).
const wildcardAddress = "203.0.113.10"

// The default machine meets the requirements of every role, single-node
// masters included (internal/hardware/validator.go): 16 cores, 64 GiB, 960 GB SSD.
var defaultHardware = hardware{
	CPUs: 16, MemoryMiB: 65536, DiskGB: 960, DiskType: assisted.DriveSSD,
	Vendor: "Dell Inc.", Product: "PowerEdge R650", Arch: "x86_64",
	DiskSpeedMs: 2, LatencyMs: 0.4,
}

// Special disconnectAt values for a host that stops before installing.
const (
	disconnectDiscovery = "discovery"
	disconnectPreparing = "preparing"
)

// hardwareKeys documents every key, in the order errors list them.
var hardwareKeys = []string{
	"cpus", "memoryMiB", "memoryMethod", "diskGB", "diskType", "vendor", "product", "virtual", "arch",
	"interfaces", "hostname", "failAt", "disconnectAt", "mediaAt", "register", "bootOrder",
	"diskSpeedMs", "imagePull", "latencyMs", "packetLossPct", "dns", "defaultRoute", "ntp",
	"mtu", "clockOffsetMin",
}

// parseHardware reads the annotation value; empty gives the default.
func parseHardware(value string) (hardware, error) {
	hw := defaultHardware
	if strings.TrimSpace(value) == "" {
		return hw, nil
	}
	for _, part := range strings.Split(value, ",") {
		part = strings.TrimSpace(part)
		if part == "" {
			continue
		}
		k, v, found := strings.Cut(part, "=")
		k, v = strings.TrimSpace(k), strings.TrimSpace(v)
		if !found {
			return hw, fmt.Errorf("%q is not key=value; write for example cpus=8,memoryMiB=32768", part)
		}
		if err := hw.set(k, v); err != nil {
			return hw, fmt.Errorf("%s=%s: %w", k, v, err)
		}
	}
	return hw, nil
}

func (hw *hardware) set(k, v string) error {
	var err error
	switch k {
	case "cpus":
		hw.CPUs, err = positiveInt(v)
	case "memoryMiB":
		var n int
		n, err = positiveInt(v)
		hw.MemoryMiB = int64(n)
	case "diskGB":
		var n int
		n, err = positiveInt(v)
		hw.DiskGB = int64(n)
	case "diskType":
		t, ok := diskTypes[strings.ToLower(v)]
		if !ok {
			return fmt.Errorf("disk type must be one of %s", strings.Join(diskTypeNames, ", "))
		}
		hw.DiskType = t
	case "memoryMethod":
		if v != "meminfo" {
			return fmt.Errorf("the only value is meminfo (the agent reads the memory size from /proc/meminfo)")
		}
		hw.MemoryFromMeminfo = true
	case "vendor":
		hw.Vendor = v
	case "product":
		hw.Product = v
	case "virtual":
		hw.Virtual, err = strconv.ParseBool(v)
	case "arch":
		hw.Arch = v
	case "interfaces":
		hw.Interfaces = nil
		for _, m := range strings.Split(v, ";") {
			m = strings.ToLower(strings.TrimSpace(m))
			if m == "" {
				continue
			}
			if !isMAC(m) {
				return fmt.Errorf("%q is not a MAC address; list MACs separated by ';'", m)
			}
			hw.Interfaces = append(hw.Interfaces, m)
		}
	case "hostname":
		hw.Hostname = v
	case "failAt":
		hw.FailAt, err = parseStage(v)
	case "disconnectAt":
		switch strings.ToLower(v) {
		case disconnectDiscovery, "discovering":
			hw.DisconnectAt = disconnectDiscovery
		case disconnectPreparing:
			hw.DisconnectAt = disconnectPreparing
		default:
			var s assisted.Stage
			s, err = parseStage(v)
			hw.DisconnectAt = string(s)
		}
	case "mediaAt":
		if strings.EqualFold(v, disconnectDiscovery) {
			hw.MediaAt = disconnectDiscovery
			break
		}
		var s assisted.Stage
		s, err = parseStage(v)
		hw.MediaAt = string(s)
	case "register":
		if v != "never" {
			return fmt.Errorf("the only value is never")
		}
		hw.NeverRegister = true
	case "bootOrder":
		if v != "iso" {
			return fmt.Errorf("the only value is iso (the host boots the discovery image again after installing)")
		}
		hw.BootFromISO = true
	case "diskSpeedMs":
		hw.DiskSpeedMs, err = nonNegative(v)
	case "imagePull":
		if v != "fail" {
			return fmt.Errorf("the only value is fail")
		}
		hw.ImagePullFail = true
	case "latencyMs":
		hw.LatencyMs, err = nonNegative(v)
	case "packetLossPct":
		hw.PacketLossPct, err = nonNegative(v)
	case "dns":
		switch v {
		case dnsFail, dnsSelf, dnsWildcard:
			hw.DNS = v
		default:
			return fmt.Errorf("the values are fail (the cluster's names do not resolve), self (they resolve to the host's own address) and wildcard (a wildcard record answers every name)")
		}
	case "defaultRoute":
		var b bool
		b, err = strconv.ParseBool(v)
		hw.NoDefault = !b
	case "mtu":
		if v != "broken" {
			return fmt.Errorf("the only value is broken")
		}
		hw.MTUBroken = true
	case "clockOffsetMin":
		hw.ClockOffsetMin, err = strconv.ParseFloat(v, 64)
		if err != nil {
			return fmt.Errorf("want a number of minutes, negative when the host's clock is behind")
		}
	case "ntp":
		if v != "unsynced" {
			return fmt.Errorf("the only value is unsynced")
		}
		hw.NTPUnsynced = true
	default:
		return fmt.Errorf("unknown key; the keys are %s", strings.Join(hardwareKeys, ", "))
	}
	return err
}

func positiveInt(v string) (int, error) {
	n, err := strconv.Atoi(v)
	if err != nil || n <= 0 {
		return 0, fmt.Errorf("want a whole number above 0")
	}
	return n, nil
}

func nonNegative(v string) (float64, error) {
	f, err := strconv.ParseFloat(v, 64)
	if err != nil || f < 0 {
		return 0, fmt.Errorf("want a number, 0 or more")
	}
	return f, nil
}

// parseStage accepts a stage name as upstream spells it, in any case, or
// with dashes for spaces ("writing-image-to-disk").
func parseStage(v string) (assisted.Stage, error) {
	norm := strings.ToLower(strings.ReplaceAll(v, "-", " "))
	for _, s := range assisted.AllStages {
		if strings.ToLower(string(s)) == norm && s != assisted.StageFailed {
			return s, nil
		}
	}
	names := make([]string, 0, len(assisted.AllStages))
	for _, s := range assisted.AllStages {
		if s != assisted.StageFailed {
			names = append(names, strings.ToLower(strings.ReplaceAll(string(s), " ", "-")))
		}
	}
	return "", fmt.Errorf("not an installation stage; use one of %s", strings.Join(names, ", "))
}

func isMAC(s string) bool {
	parts := strings.Split(s, ":")
	if len(parts) != 6 {
		return false
	}
	for _, p := range parts {
		if len(p) != 2 {
			return false
		}
		if _, err := strconv.ParseUint(p, 16, 8); err != nil {
			return false
		}
	}
	return true
}

// inventoryFor builds what the host's agent reports: its hardware, its
// interfaces with the NMStateConfig's static addresses or addresses a DHCP
// server of the machine network would give, and its disk, named after the
// BareMetalHost's root device hints so that they match.
func inventoryFor(hw hardware, b *bmhSpec, nm *nmStateSpec, machineNets []string, index int, site string) *assisted.Inventory {
	inv := &assisted.Inventory{
		Hostname:          hw.Hostname,
		CPUCores:          hw.CPUs,
		Arch:              hw.Arch,
		MemoryBytes:       hw.MemoryMiB * assisted.MiB,
		MemoryFromMeminfo: hw.MemoryFromMeminfo,
		Vendor:            hw.Vendor,
		Product:           hw.Product,
		Serial:            fmt.Sprintf("SIM%08X", hash32(b.Namespace+"/"+b.Name)),
		Virtual:           hw.Virtual,
		DefaultRoute:      !hw.NoDefault,
		VirtEnabled:       true,
	}
	if inv.Hostname == "" {
		inv.Hostname = b.Name
	}
	macs := hw.Interfaces
	names := map[string]string{}
	if len(macs) == 0 {
		macs = []string{b.BootMAC}
		if nm != nil {
			for _, i := range nm.Interfaces {
				names[i.MAC] = i.Name
				if i.MAC != b.BootMAC {
					macs = append(macs, i.MAC)
				}
			}
		}
	}
	static := nm != nil && len(nm.Addresses) > 0
	for i, mac := range macs {
		name := names[mac]
		if name == "" {
			name = fmt.Sprintf("ens%df0", i+1)
		}
		ifc := assisted.Interface{Name: name, MAC: mac}
		switch {
		case static:
			for _, a := range nm.Addresses[name] {
				if p, err := netip.ParsePrefix(a); err == nil && p.Addr().Is4() {
					ifc.IPv4 = append(ifc.IPv4, a)
				} else {
					ifc.IPv6 = append(ifc.IPv6, a)
				}
			}
		case mac == b.BootMAC || len(hw.Interfaces) > 0 && i == 0:
			ifc.IPv4, ifc.IPv6 = dhcpAddresses(machineNets, index, site)
		}
		inv.Interfaces = append(inv.Interfaces, ifc)
	}
	if static {
		// Bonds, VLANs and bridges carry the addresses of bonded ports:
		// the agent reports them as interfaces of their own, with the
		// MAC of the first port.
		present := map[string]bool{}
		for _, ifc := range inv.Interfaces {
			present[ifc.Name] = true
		}
		for _, name := range sortedKeys(stringsKeys(nm.Addresses)) {
			if present[name] {
				continue
			}
			ifc := assisted.Interface{Name: name, MAC: b.BootMAC}
			for _, a := range nm.Addresses[name] {
				if p, err := netip.ParsePrefix(a); err == nil && p.Addr().Is4() {
					ifc.IPv4 = append(ifc.IPv4, a)
				} else {
					ifc.IPv6 = append(ifc.IPv6, a)
				}
			}
			inv.Interfaces = append(inv.Interfaces, ifc)
		}
		if !nm.DefaultRoute {
			inv.DefaultRoute = false
		}
	}
	disk := assisted.Disk{
		Name:      "nvme0n1",
		ID:        "/dev/disk/by-id/nvme-SIM_" + inv.Serial,
		ByPath:    "/dev/disk/by-path/pci-0000:c3:00.0-nvme-1",
		SizeBytes: hw.DiskGB * 1000 * 1000 * 1000,
		DriveType: hw.DiskType,
		Model:     "SIM NVMe",
		Serial:    inv.Serial,
	}
	if hw.DiskType == assisted.DriveHDD {
		disk.Name, disk.Model = "sda", "SIM HDD"
		disk.ByPath = "/dev/disk/by-path/pci-0000:00:17.0-ata-1"
	}
	if dev := b.RootHints["deviceName"]; strings.HasPrefix(dev, "/dev/disk/by-path/") {
		disk.ByPath = dev
	} else if strings.HasPrefix(dev, "/dev/") && dev != "" {
		disk.Name = strings.TrimPrefix(dev, "/dev/")
	}
	inv.Disks = []assisted.Disk{disk}
	return inv
}

// dhcpAddresses picks the host's addresses in each machine network: the
// (20+index)th address, as a DHCP server handing out a range would. A site
// without machine networks gets a private /24 of its own.
func dhcpAddresses(machineNets []string, index int, site string) (v4, v6 []string) {
	nets := machineNets
	if len(nets) == 0 {
		h := hash32(site)
		nets = []string{fmt.Sprintf("10.%d.%d.0/24", 100+h%100, (h>>8)%256)}
	}
	for _, n := range nets {
		p, err := netip.ParsePrefix(n)
		if err != nil {
			continue
		}
		p = p.Masked()
		a := p.Addr()
		size := 1 << min(16, a.BitLen()-p.Bits())
		off := 20 + index
		if off >= size-1 {
			off = 1 + index%max(1, size-2)
		}
		for range off {
			a = a.Next()
		}
		s := a.String() + "/" + strconv.Itoa(p.Bits())
		if a.Is4() {
			v4 = append(v4, s)
		} else {
			v6 = append(v6, s)
		}
	}
	return v4, v6
}

// nmStateFor finds the NMStateConfig that describes a host: the one whose
// interfaces include the boot MAC.
func nmStateFor(nms []nmStateSpec, bootMAC string) *nmStateSpec {
	for i := range nms {
		for _, ifc := range nms[i].Interfaces {
			if ifc.MAC == bootMAC {
				return &nms[i]
			}
		}
	}
	return nil
}

func hash32(s string) uint32 {
	h := fnv.New32a()
	h.Write([]byte(s))
	return h.Sum32()
}

// jitter spreads a duration by up to ±15 %, the same for the same key:
// hosts of one site do not move in lockstep, and runs repeat exactly.
func jitter(base float64, key string) float64 {
	f := float64(hash32(key)%3001)/10000 - 0.15
	return base * (1 + f)
}

func sortedKeys(m map[string]string) []string {
	out := make([]string, 0, len(m))
	for k := range m {
		out = append(out, k)
	}
	sort.Strings(out)
	return out
}

func stringsKeys(m map[string][]string) map[string]string {
	out := make(map[string]string, len(m))
	for k := range m {
		out[k] = ""
	}
	return out
}
