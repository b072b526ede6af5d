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
#   reference: openshift/installer pkg/asset/agent/agentconfig/agenthosts.go and openshift/installer pkg/types/baremetal/validation (root device hints); openshift/assisted-service internal/controller/controllers/bmh_agent_controller.go (rootDeviceHints to installation_disk_id); stolostron/siteconfig api/v1alpha1/clusterinstance_validation.go (format not checked); openshift-kni/cnf-features-deploy ztp/siteconfig-generator/siteConfig/siteConfig.go (rootDeviceHints verbatim)
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
