package gen

import (
	"encoding/base64"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
)

// manifestSize is the size each generated MachineConfig is padded to.
const manifestSize = 1024

// A topic is one kind of node configuration a MachineConfig carries.
type topic struct {
	name     string   // file and object name part, e.g. "chrony"
	path     string   // file written on the node
	content  string   // file content (padded with comment lines)
	kernArgs []string // optional kernelArguments
}

var topics = []topic{
	{
		name: "kernel-args", path: "/etc/siteops/kernel-args.txt",
		content:  "# Kernel arguments applied by this MachineConfig, for reference on the node.\n",
		kernArgs: []string{"rcupdate.rcu_normal_after_boot=0", "efi=runtime", "nmi_watchdog=0", "audit=0", "tsc=reliable"},
	},
	{
		name: "chrony", path: "/etc/chrony.conf",
		content: "pool ntp1.example.net iburst maxsources 2\npool ntp2.example.net iburst maxsources 2\n" +
			"driftfile /var/lib/chrony/drift\nmakestep 1.0 3\nrtcsync\nleapsectz right/UTC\nlogdir /var/log/chrony\n",
	},
	{
		name: "journald", path: "/etc/systemd/journald.conf.d/10-fleetgen-limits.conf",
		content: "[Journal]\nStorage=persistent\nCompress=yes\nSystemMaxUse=2G\nSystemMaxFileSize=128M\n" +
			"MaxRetentionSec=14day\nRateLimitIntervalSec=30s\nRateLimitBurst=20000\n",
	},
	{
		name: "sysctl", path: "/etc/sysctl.d/90-fleetgen.conf",
		content: "kernel.panic = 10\nkernel.panic_on_oops = 1\nnet.core.somaxconn = 4096\n" +
			"net.ipv4.tcp_keepalive_time = 600\nvm.max_map_count = 262144\n",
	},
	{
		name: "sctp-module", path: "/etc/modules-load.d/sctp-load.conf",
		content: "# Load SCTP for RAN workloads.\nsctp\n",
	},
	{
		name: "crio-tuning", path: "/etc/crio/crio.conf.d/90-fleetgen.conf",
		content: "[crio.runtime]\nlog_size_max = 52428800\npids_limit = 4096\n\n[crio.image]\nbig_files_temporary_dir = \"/var/tmp\"\n",
	},
	{
		name: "logrotate", path: "/etc/logrotate.d/fleetgen",
		content: "/var/log/fleetgen/*.log {\n    daily\n    rotate 7\n    compress\n    missingok\n    notifempty\n}\n",
	},
	{
		name: "motd", path: "/etc/motd",
		content: "This node is managed by GitOps ZTP. Local changes are overwritten.\n",
	},
}

// namespaceManifest is the non-MachineConfig manifest of the set.
const namespaceManifest = `# Written by hack/fleetgen: a plain Namespace, not a MachineConfig.
apiVersion: v1
kind: Namespace
metadata:
  name: fleetgen-node-tools
  labels:
    openshift.io/cluster-monitoring: "true"
  annotations:
    workload.openshift.io/allowed: management
`

// identityTemplate is rendered by the renderer once per node role, with
// data {Role, Data} where Data is the cluster (Go field names).
const identityTemplate = `# Written by hack/fleetgen: a Go text/template, rendered once per role.
apiVersion: machineconfiguration.openshift.io/v1
kind: MachineConfig
metadata:
  name: {{ .Role }}-fleetgen-identity
  labels:
    machineconfiguration.openshift.io/role: {{ .Role }}
spec:
  config:
    ignition:
      version: 3.2.0
    storage:
      files:
        - path: /etc/fleetgen/identity
          mode: 420
          overwrite: true
          contents:
            source: data:,cluster={{ .Data.ClusterName }}%0Arole={{ .Role }}%0Anodes={{ len .Data.Nodes }}%0A
`

// WriteManifests writes n extra-manifest files into dir and returns their
// names in order. The first is a Namespace, the second a .yaml.tmpl, and
// the rest are MachineConfigs of about 1 KiB each, alternating between the
// master and worker roles and cycling through a set of topics (kernel
// arguments, chrony, journald, sysctl, ...). File names carry a zero-padded
// sequence number, so they are unique and sort in writing order.
func WriteManifests(dir string, n int) ([]string, error) {
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return nil, err
	}
	width := max(2, len(strconv.Itoa(n-1)))
	seq := func(i int) string {
		s := strconv.Itoa(i)
		return strings.Repeat("0", width-len(s)) + s
	}

	names := make([]string, 0, n)
	for i := range n {
		var name, body string
		switch i {
		case 0:
			name, body = seq(i)+"-fleetgen-namespace.yaml", namespaceManifest
		case 1:
			name, body = seq(i)+"-fleetgen-identity.yaml.tmpl", identityTemplate
		default:
			j := i - 2
			role := "master"
			if j%2 == 1 {
				role = "worker"
			}
			t := topics[(j/2)%len(topics)]
			base := seq(i) + "-" + role + "-" + t.name
			name, body = base+".yaml", machineConfig(base, role, t)
		}
		if err := os.WriteFile(filepath.Join(dir, name), []byte(body), 0o644); err != nil {
			return nil, err
		}
		names = append(names, name)
	}
	return names, nil
}

// machineConfig returns a MachineConfig named name for role that writes
// t.path, padding the file content with comment lines until the manifest
// is at least manifestSize bytes.
func machineConfig(name, role string, t topic) string {
	content := "# Managed by hack/fleetgen (" + name + "). Do not edit on the node.\n" + t.content
	for line := 1; ; line++ {
		mc := renderMachineConfig(name, role, t, content)
		if len(mc) >= manifestSize {
			return mc
		}
		content += fmt.Sprintf("# filler line %02d: keeps this synthetic manifest near 1 KiB\n", line)
	}
}

func renderMachineConfig(name, role string, t topic, content string) string {
	var b strings.Builder
	fmt.Fprintf(&b, "# Written by hack/fleetgen: %s for %s nodes.\n", t.name, role)
	b.WriteString("apiVersion: machineconfiguration.openshift.io/v1\nkind: MachineConfig\nmetadata:\n")
	fmt.Fprintf(&b, "  name: %s\n  labels:\n    machineconfiguration.openshift.io/role: %s\n", name, role)
	b.WriteString("spec:\n  config:\n    ignition:\n      version: 3.2.0\n")
	b.WriteString("    storage:\n      files:\n")
	fmt.Fprintf(&b, "        - path: %s\n          mode: 420\n          overwrite: true\n", t.path)
	b.WriteString("          contents:\n            source: data:text/plain;charset=utf-8;base64,")
	b.WriteString(base64.StdEncoding.EncodeToString([]byte(content)))
	b.WriteString("\n")
	if len(t.kernArgs) > 0 {
		b.WriteString("  kernelArguments:\n")
		for _, a := range t.kernArgs {
			fmt.Fprintf(&b, "    - %s\n", a)
		}
	}
	return b.String()
}
