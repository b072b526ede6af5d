package assisted

import (
	"fmt"
	"math"
	"slices"
	"strconv"
	"strings"
	"sync"
)

// Role is a host role (agent.spec.role, host role / suggested role).
type Role string

const (
	RoleMaster     Role = "master"
	RoleWorker     Role = "worker"
	RoleArbiter    Role = "arbiter"
	RoleAutoAssign Role = "auto-assign"
)

// Requirements are the hardware requirements of one role (internal/hardware/validator.go).
type Requirements struct {
	CPUCores int
	RAMMiB   int64
	DiskGB   int64
	// DiskSpeedMs is the installation-disk speed threshold.
	DiskSpeedMs float64
	// LatencyMs and PacketLossPct are the network thresholds towards hosts
	// of the same role; 0 with HasNetwork false means "not checked".
	LatencyMs     float64
	PacketLossPct float64
	HasNetwork    bool
}

// The default hardware requirements, the operator's
// HW_VALIDATOR_REQUIREMENTS (default_controller_hw_requirements.json).
var (
	ReqMaster     = Requirements{CPUCores: 4, RAMMiB: 16384, DiskGB: 100, DiskSpeedMs: 10, LatencyMs: 100, PacketLossPct: 0, HasNetwork: true}
	ReqArbiter    = Requirements{CPUCores: 2, RAMMiB: 8192, DiskGB: 50, DiskSpeedMs: 10, LatencyMs: 1000, PacketLossPct: 0, HasNetwork: true}
	ReqWorker     = Requirements{CPUCores: 2, RAMMiB: 8192, DiskGB: 100, DiskSpeedMs: 10, LatencyMs: 1000, PacketLossPct: 10, HasNetwork: true}
	ReqSNO        = Requirements{CPUCores: 8, RAMMiB: 16384, DiskGB: 100, DiskSpeedMs: 10}
	ReqEdgeWorker = Requirements{CPUCores: 2, RAMMiB: 8192, DiskGB: 15, DiskSpeedMs: 10}
)

// EdgeWorkerProduct is the product name that, on an aarch64 host, makes a
// worker an edge worker with its own, smaller requirements (internal/hardware/validator.go).
const EdgeWorkerProduct = "BlueField SoC"

// IsEdgeWorker reports whether an inventory is an edge worker's: an
// aarch64 machine whose product name, lower-cased and without spaces, is
// an edge-worker product's (internal/hardware/validator.go isEdgeWorker,
// EDGE_WORKERS_PRODUCT_NAMES).
func IsEdgeWorker(inv *Inventory) bool {
	norm := func(s string) string { return strings.ToLower(strings.ReplaceAll(s, " ", "")) }
	return inv != nil && inv.Arch == "aarch64" && norm(inv.Product) == norm(EdgeWorkerProduct)
}

// SNOCoresFrom422 is the SNO core requirement from OpenShift 4.22 on (the
// entry {"version":"4.22","match_type":"min_version","sno":{"cpu_cores":4}}).
const SNOCoresFrom422 = 4

// MemoryToleranceMiB is subtracted from a RAM requirement before comparing
// (internal/host/validator.go HostMemoryRequirementToleranceMiB).
const MemoryToleranceMiB = 100

// MeminfoToleranceDivisor: when the agent measured memory from
// /proc/meminfo (usable, not physical memory), has-min-memory also
// tolerates 1/50 (2 %) of the requirement (internal/host/validator.go
// hasMinMemory).
const MeminfoToleranceDivisor = 50

// RoleRequirements returns the requirements of a host's effective role in
// a cluster. An unresolved auto-assign role counts as worker; the master of
// a single-node cluster gets the SNO requirements (internal/hardware/validator.go).
func RoleRequirements(role Role, sno bool, version string) Requirements {
	switch role {
	case RoleMaster:
		if sno {
			r := ReqSNO
			if VersionAtLeast(version, 4, 22) {
				r.CPUCores = SNOCoresFrom422
			}
			return r
		}
		return ReqMaster
	case RoleArbiter:
		return ReqArbiter
	default:
		return ReqWorker
	}
}

// PreflightMinimum is the "minimum for any role" the has-min-cpu-cores and
// has-min-memory validations use: the smaller of the master (SNO for SNO)
// and worker values (internal/hardware/validator.go).
func PreflightMinimum(sno bool, version string) (cores int, ramMiB int64) {
	m := RoleRequirements(RoleMaster, sno, version)
	w := ReqWorker
	return min(m.CPUCores, w.CPUCores), min(m.RAMMiB, w.RAMMiB)
}

// UnboundRequirements are the requirements a pool host (no cluster) is
// judged against: of worker, master and arbiter, the entry with the
// smallest disk (internal/hardware/validator.go).
func UnboundRequirements() Requirements {
	best := ReqWorker
	for _, r := range []Requirements{ReqMaster, ReqArbiter} {
		if r.DiskGB < best.DiskGB {
			best = r
		}
	}
	return best
}

// VersionAtLeast reports whether an OpenShift version string ("4.20.6",
// "4.22") is at least major.minor. An unparsable version is taken as old.
func VersionAtLeast(version string, major, minor int) bool {
	// The first two dot-separated fields, read in place: the validations
	// ask at every host and cluster refresh.
	dot := strings.IndexByte(version, '.')
	if dot < 0 {
		return false
	}
	minorField := version[dot+1:]
	if end := strings.IndexByte(minorField, '.'); end >= 0 {
		minorField = minorField[:end]
	}
	ma, err1 := strconv.Atoi(version[:dot])
	mi, err2 := strconv.Atoi(minorField)
	if err1 != nil || err2 != nil {
		return false
	}
	return ma > major || ma == major && mi >= minor
}

// DriveType is a disk's drive type as the agent reports it.
type DriveType string

const (
	DriveHDD       DriveType = "HDD"
	DriveSSD       DriveType = "SSD"
	DriveMultipath DriveType = "Multipath"
	DriveRAID      DriveType = "RAID"
	DriveISCSI     DriveType = "iSCSI"
	DriveFC        DriveType = "FC"
	DriveECKDESE   DriveType = "ECKD (ESE)"
	DriveECKD      DriveType = "ECKD"
	DriveFBA       DriveType = "FBA"
)

// allowedDriveTypes returns the installable drive types for a version
// and CPU architecture (driveTypesFor), worked out once for each: every
// disk of every host is checked against them at each refresh. The slice
// is shared; callers do not modify it.
func allowedDriveTypes(version, arch string) []DriveType {
	k := driveKey{version, arch}
	driveTypesMu.RLock()
	types, ok := driveTypes[k]
	driveTypesMu.RUnlock()
	if ok {
		return types
	}
	types = driveTypesFor(version, arch)
	driveTypesMu.Lock()
	if len(driveTypes) < maxDriveKeys {
		driveTypes[k] = types
	}
	driveTypesMu.Unlock()
	return types
}

type driveKey struct{ version, arch string }

var (
	driveTypesMu sync.RWMutex
	driveTypes   = map[driveKey][]DriveType{}
)

// maxDriveKeys bounds the remembered pairs: a fleet has a handful of
// versions and architectures.
const maxDriveKeys = 256

// driveTypesFor returns the installable drive types for a version and CPU
// architecture, in the order messages list them: FC on x86_64 and s390x,
// the DASD types on s390x only (internal/hardware/validator.go
// getValidDeviceStorageTypes).
func driveTypesFor(version, arch string) []DriveType {
	types := []DriveType{DriveHDD, DriveSSD, DriveMultipath}
	if VersionAtLeast(version, 4, 14) {
		types = append(types, DriveRAID)
	}
	if VersionAtLeast(version, 4, 15) {
		types = append(types, DriveISCSI)
	}
	switch arch {
	case "s390x":
		types = append(types, DriveFC, DriveECKDESE, DriveECKD, DriveFBA)
	case "x86_64":
		types = append(types, DriveFC)
	}
	return types
}

// DiskNotEligible returns why a disk cannot hold the installation, or ""
// when it can (internal/hardware/validator.go DiskIsEligible).
func DiskNotEligible(sizeBytes int64, drive DriveType, requiredGB int64, version, arch string) []string {
	var reasons []string
	required := requiredGB * 1000 * 1000 * 1000
	if sizeBytes < required {
		have, need := SIBytes(sizeBytes), SIBytes(required)
		if have == need {
			have += " (short by " + SIBytes(required-sizeBytes) + ")"
		}
		reasons = append(reasons, fmt.Sprintf("Disk is too small (disk only has %s, but %s are required)", have, need))
	}
	// Every disk of every host is checked at each refresh: the names are
	// spelled out only for a disk whose type is not allowed.
	if allowed := allowedDriveTypes(version, arch); !slices.Contains(allowed, drive) {
		names := make([]string, len(allowed))
		for i, t := range allowed {
			names[i] = string(t)
		}
		reasons = append(reasons, fmt.Sprintf("Drive type is %s, it must be one of %s.", drive, strings.Join(names, ", ")))
	}
	return reasons
}

// IECBytes formats a byte count the way assisted-service prints memory
// (pkg/conversions BytesToString): "8.00 GiB", "512 MiB".
func IECBytes(b int64) string {
	const (
		kib = 1 << (10 * (iota + 1))
		mib
		gib
		tib
		pib
	)
	switch {
	case b >= pib:
		return fmt.Sprintf("%.2f PiB", float64(b)/pib)
	case b >= tib:
		return fmt.Sprintf("%.2f TiB", float64(b)/tib)
	case b >= gib:
		return fmt.Sprintf("%.2f GiB", float64(b)/gib)
	case b >= mib:
		return fmt.Sprintf("%v MiB", b/mib)
	case b >= kib:
		return fmt.Sprintf("%v KiB", b/kib)
	}
	return fmt.Sprintf("%v bytes", b)
}

// SIBytes formats a disk size in SI units, the value rounded up to at most
// three decimals with trailing zeros trimmed: "64.425 GB", "100 GB" (internal/hardware/validator.go).
func SIBytes(b int64) string {
	units := []string{"B", "KB", "MB", "GB", "TB"}
	v := float64(b)
	i := 0
	for v >= 1000 && i < len(units)-1 {
		v /= 1000
		i++
	}
	v = math.Ceil(v*1000-1e-9) / 1000
	s := strconv.FormatFloat(v, 'f', 3, 64)
	s = strings.TrimRight(strings.TrimRight(s, "0"), ".")
	return s + " " + units[i]
}

// MiB is one mebibyte in bytes.
const MiB = 1 << 20
