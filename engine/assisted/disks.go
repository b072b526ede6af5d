package assisted

// DiskNotFoundByHints is the installation disk BMAC asks for when no
// eligible disk matches the BareMetalHost's root device hints
// (internal/controller/controllers/bmh_agent_controller.go
// findInstallationDiskID).
const DiskNotFoundByHints = "/dev/not-found-by-hints"

// ErrInstallDiskNotValid is the service's answer to an installation disk
// that is not one of the host's eligible disks (internal/host/host.go
// UpdateInstallationDisk, HTTP 409).
const ErrInstallDiskNotValid = "Requested installation disk is not part of the host's valid disks"

// DiskByPath finds the disk an installation path names: its by-id
// identifier, its by-path link or /dev/<name>
// (internal/host/hostutil/host_utils.go GetDiskByInstallationPath).
func DiskByPath(disks []Disk, path string) (Disk, bool) {
	if path == "" {
		return Disk{}, false
	}
	for _, d := range disks {
		if d.ID == path || d.ByPath == path || "/dev/"+d.Name == path {
			return d, true
		}
	}
	return Disk{}, false
}

// InstallationDisk is the disk the host installs on: the requested one when
// it is eligible, else the first eligible disk; none when no disk is
// eligible (internal/host/hostutil/host_utils.go DetermineInstallationDisk,
// applied when the inventory arrives).
func InstallationDisk(eligible []Disk, requested string) (Disk, bool) {
	if d, ok := DiskByPath(eligible, requested); ok {
		return d, true
	}
	if len(eligible) == 0 {
		return Disk{}, false
	}
	return eligible[0], true
}
