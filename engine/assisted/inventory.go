package assisted

import (
	"net/netip"
	"regexp"
)

// Inventory is what a host's agent reports of its hardware: the fields the
// validations read (models.Inventory, reduced).
type Inventory struct {
	Hostname    string `json:"hostname"`
	CPUCores    int    `json:"cpuCores"`
	Arch        string `json:"arch"`
	MemoryBytes int64  `json:"memoryBytes"`
	// MemoryFromMeminfo is true when the agent took the memory size from
	// /proc/meminfo (physical_bytes_method "meminfo").
	MemoryFromMeminfo bool        `json:"memoryFromMeminfo,omitempty"`
	Disks             []Disk      `json:"disks,omitempty"`
	Interfaces        []Interface `json:"interfaces,omitempty"`
	Vendor            string      `json:"vendor,omitempty"`
	Product           string      `json:"product,omitempty"`
	Serial            string      `json:"serial,omitempty"`
	Virtual           bool        `json:"virtual,omitempty"`
	DefaultRoute      bool        `json:"defaultRoute"`
	// VirtEnabled is the vmx/svm CPU flag.
	VirtEnabled bool `json:"virtEnabled,omitempty"`
}

// Disk is one disk of an inventory.
type Disk struct {
	Name      string    `json:"name"`
	ID        string    `json:"id"`
	ByPath    string    `json:"byPath,omitempty"`
	SizeBytes int64     `json:"sizeBytes"`
	DriveType DriveType `json:"driveType"`
	Model     string    `json:"model,omitempty"`
	Serial    string    `json:"serial,omitempty"`
}

// Interface is one network interface; addresses are in CIDR notation.
type Interface struct {
	Name string   `json:"name"`
	MAC  string   `json:"mac"`
	IPv4 []string `json:"ipv4,omitempty"`
	IPv6 []string `json:"ipv6,omitempty"`
}

// Addresses lists every address of the inventory, without prefix lengths.
func (inv *Inventory) Addresses() []netip.Addr {
	var out []netip.Addr
	for _, ifc := range inv.Interfaces {
		for _, list := range [][]string{ifc.IPv4, ifc.IPv6} {
			for _, a := range list {
				if p, err := netip.ParsePrefix(a); err == nil {
					out = append(out, p.Addr())
				}
			}
		}
	}
	return out
}

// HasMAC reports whether an interface has the MAC (case-insensitive).
func (inv *Inventory) HasMAC(mac string) bool {
	for _, ifc := range inv.Interfaces {
		if equalFoldASCII(ifc.MAC, mac) {
			return true
		}
	}
	return false
}

func equalFoldASCII(a, b string) bool {
	if len(a) != len(b) {
		return false
	}
	for i := 0; i < len(a); i++ {
		x, y := a[i], b[i]
		if 'A' <= x && x <= 'Z' {
			x += 'a' - 'A'
		}
		if 'A' <= y && y <= 'Z' {
			y += 'a' - 'A'
		}
		if x != y {
			return false
		}
	}
	return true
}

// HostnamePattern is the pattern a host name must match (internal/host/validator.go).
const HostnamePattern = `^[a-z0-9][a-z0-9-]{0,62}(?:[.][a-z0-9-]{1,63})*$`

var hostnameRE = regexp.MustCompile(HostnamePattern)

// ForbiddenHostnames are refused whatever the pattern says.
var ForbiddenHostnames = []string{
	"localhost", "localhost.localdomain", "localhost4", "localhost4.localdomain4",
	"localhost6", "localhost6.localdomain6",
}

// HostnameProblem returns the hostname-valid failure message, or "".
func HostnameProblem(name string) string {
	for _, f := range ForbiddenHostnames {
		if name == f {
			return "The host name " + name + " is forbidden"
		}
	}
	if len(name) > 63 || !hostnameRE.MatchString(name) {
		return "Hostname " + name + " is forbidden, hostname should match pattern " + HostnamePattern
	}
	return ""
}
