# METADATA
# title: Root device hint deviceName is a /dev/ path
# description: >-
#   rootDeviceHints.deviceName selects the installation disk by its Linux
#   device name. The installer and the bare-metal operator accept a kernel
#   name directly under /dev/ (/dev/sda, /dev/nvme0n1) or a by-path link
#   (/dev/disk/by-path/pci-0000:c3:00.0-nvme-1), nothing else: a bare name
#   (sda), a relative path or another link directory (/dev/disk/by-id/...)
#   matches no disk: the baremetal agent controller then sets the Agent's
#   installation disk to /dev/not-found-by-hints and the host cannot be
#   installed (the agent-based installer refuses such a hint outright). The
#   SiteConfig generator and the ClusterInstance operator copy the hints
#   unchecked.
# custom:
#   id: ztp.nodes.root-device-hint
#   severity: deny
#   remediation: Write deviceName as /dev/<name> (e.g. /dev/sda, /dev/nvme0n1) or /dev/disk/by-path/<path>; to pick a disk by its serial number or WWN use the serialNumber or wwn hint instead of a /dev/disk/by-id link.
#   reference: agent-installer.md §3.3 item 19; assisted-engine.md §7.2 (rootDeviceHints to installation_disk_id); clusterinstance.md §7.3 (rootDeviceHints format not checked); siteconfig-v1.md §2.4 (rootDeviceHints verbatim)
package siteops.rules.root_device_hints

import data.siteops.lib

by_path := "/dev/disk/by-path/"

deny contains f if {
	some node in input.site.nodes
	name := node.rootDeviceHints.deviceName
	is_string(name)
	name != ""
	msg := problem(name)
	f := {
		"msg": sprintf("rootDeviceHints.deviceName %q of node %s %s", [name, node.hostname, msg]),
		"field": lib.node_field(node, "rootDeviceHints"),
	}
}

problem(name) := "is not a /dev/ path" if {
	not startswith(name, "/dev/")
} else := "names no link under /dev/disk/by-path/" if {
	startswith(name, by_path)
	rest := substring(name, count(by_path), -1)
	not valid_name(rest)
} else := "is neither a device directly under /dev/ nor a /dev/disk/by-path/ link" if {
	not startswith(name, by_path)
	not valid_name(substring(name, count("/dev/"), -1))
}

valid_name(s) if {
	s != ""
	not contains(s, "/")
}
