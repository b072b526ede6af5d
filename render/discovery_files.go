package render

import (
	"crypto/sha256"
	"encoding/base64"
	"fmt"
	"strings"
)

// The units and files of the discovery config (openshift/assisted-service
// internal/ignition/templates/discovery.ign). They do what assisted-service's
// do, at about the same length; only their size matters here, as the engine
// never boots them.

// agentUnit is agent.service: it pulls the agent image and runs the agent
// against the hub, behind the InfraEnv's proxy when it has one.
func (b *discoveryBuilder) agentUnit() string {
	var env strings.Builder
	if p := b.proxy; p != nil {
		// systemd expands % in Environment values: double it.
		fmt.Fprintf(&env, "Environment=HTTP_PROXY=%s\nEnvironment=http_proxy=%s\n", systemdEscape(p.http), systemdEscape(p.http))
		fmt.Fprintf(&env, "Environment=HTTPS_PROXY=%s\nEnvironment=https_proxy=%s\n", systemdEscape(p.https), systemdEscape(p.https))
		fmt.Fprintf(&env, "Environment=NO_PROXY=%s\nEnvironment=no_proxy=%s\n", p.no, p.no)
	}
	return fmt.Sprintf(`[Unit]
Description=Assisted installer agent: registers this host with the hub
Wants=network-online.target
After=network-online.target

[Service]
Type=simple
Restart=always
RestartSec=3
StartLimitIntervalSec=0
TimeoutStartSec=600
%sEnvironment=PULL_SECRET_TOKEN=%s
ExecStartPre=/usr/local/bin/agent-fix-bz1964591 %s
ExecStartPre=/usr/local/bin/agent-pull-image %s
ExecStart=/usr/bin/podman run --net host --pid=host --privileged --rm --name agent -v /var/log:/var/log -v /run/systemd/journal/socket:/run/systemd/journal/socket -v /etc/pki:/etc/pki --env PULL_SECRET_TOKEN %s /usr/bin/agent --url %s --infra-env-id %s --agent-version %s --insecure=false
ExecStop=/usr/bin/podman stop --time 30 agent

[Install]
WantedBy=multi-user.target
`, env.String(), agentTokenPlaceholder, discoveryAgentImage, discoveryAgentImage, discoveryAgentImage,
		discoveryServiceURL, b.id, discoveryAgentImage)
}

func systemdEscape(s string) string { return strings.ReplaceAll(s, "%", "%%") }

// templateFile is a file every discovery config has, with its data URL
// encoded once.
type templateFile struct {
	path   string
	mode   int
	source string
}

// templateFiles are the files of every discovery config, in the
// template's order.
var templateFiles = []templateFile{
	{"/usr/local/bin/agent-fix-bz1964591", 0o755, plainData(agentFixScript)},
	{"/usr/local/bin/agent-pull-image", 0o755, plainData(agentPullScript)},
	{"/etc/motd", 0o644, plainData(agentMOTD)},
	{"/etc/multipath.conf", 0o644, base64Data("text/plain;charset=utf-8", multipathConf)},
	{"/usr/local/bin/oci-eval-user-data.sh", 0o755, base64Data("text/plain;charset=utf-8", ociUserDataScript)},
	{"/etc/NetworkManager/conf.d/01-ipv6.conf", 0o644, plainData(ipv6Conf)},
	{"/root/.docker/config.json", 0o644, plainData(pullSecretPlaceholder)},
	{"/root/assisted.te", 0o644, base64Data("text/plain", selinuxPolicy)},
}

// staticNetworkFiles are the scripts that apply the static network, in a
// config that has one.
var staticNetworkFiles = []templateFile{
	{"/usr/local/bin/pre-network-manager-config.sh", 0o755, base64Data("text/plain", preNetworkScript)},
	{"/usr/local/bin/common_network_script.sh", 0o755, base64Data("text/plain", commonNetworkScript)},
}

const selinuxUnit = `[Unit]
Description=Load the SELinux module the agent's time sync needs
Before=agent.service

[Service]
Type=oneshot
RemainAfterExit=yes
ExecStartPre=/usr/bin/checkmodule -M -m -o /root/assisted.mod /root/assisted.te
ExecStartPre=/usr/bin/semodule_package -o /root/assisted.pp -m /root/assisted.mod
ExecStart=/usr/sbin/semodule -i /root/assisted.pp

[Install]
WantedBy=multi-user.target
`

const iscsistartUnit = `[Unit]
Description=Log in to the iSCSI targets the firmware (iBFT) names
DefaultDependencies=no
Before=agent.service
ConditionPathExists=/sys/firmware/ibft

[Service]
Type=oneshot
RemainAfterExit=yes
ExecStart=/usr/sbin/iscsistart -b

[Install]
WantedBy=multi-user.target
`

const ociUserDataUnit = `[Unit]
Description=Run the user data of an Oracle Cloud instance, if there is one
Wants=network-online.target
After=network-online.target
ConditionVirtualization=kvm

[Service]
Type=oneshot
RemainAfterExit=yes
ExecStart=/usr/local/bin/oci-eval-user-data.sh

[Install]
WantedBy=multi-user.target
`

const preNetworkUnit = `[Unit]
Description=Apply the static network configuration before NetworkManager starts
DefaultDependencies=no
Before=NetworkManager.service network-pre.target
Wants=network-pre.target

[Service]
Type=oneshot
RemainAfterExit=yes
ExecStart=/usr/local/bin/pre-network-manager-config.sh

[Install]
WantedBy=multi-user.target
`

const ntpUnit = `[Unit]
Description=Add the InfraEnv's NTP sources to chronyd
Before=agent.service
After=chronyd.service

[Service]
Type=oneshot
RemainAfterExit=yes
ExecStart=/usr/local/bin/add-ntp-sources.sh

[Install]
WantedBy=multi-user.target
`

const agentFixScript = `#!/usr/bin/sh
# A stored image whose layers went missing makes "podman images" fail and
# the agent never start: remove such an image so that it is pulled again.
IMAGE=$(echo "$1" | sed 's/[@:].*//')
podman images | grep "$IMAGE" || podman rmi --force "$1" || true
`

const agentPullScript = `#!/usr/bin/sh
# Pull the agent image, retrying until the registry answers; report why it
# failed on the console so that an operator at the host can see it.
IMAGE="$1"
attempt=0
until podman pull --authfile /root/.docker/config.json "$IMAGE"; do
    attempt=$((attempt + 1))
    echo "pulling $IMAGE failed (attempt $attempt); retrying in 5 seconds" | tee /dev/console
    sleep 5
done
`

const agentMOTD = `
**  **  **  **  **  **  **  **  **  **  **  **  **  **  **  **  **  **  **  **  **
This host is being discovered by the OpenShift assisted installer.
Its disks will be written over when the cluster is installed.

The agent runs as agent.service. To follow it:
  sudo journalctl -u agent.service
To read the agent's own log:
  sudo journalctl TAG=agent
**  **  **  **  **  **  **  **  **  **  **  **  **  **  **  **  **  **  **  **  **
`

const multipathConf = `defaults {
    user_friendly_names yes
    find_multipaths yes
    enable_foreign "^$"
}
blacklist_exceptions {
    property "(SCSI_IDENT_|ID_WWN)"
}
blacklist {
}
`

const ociUserDataScript = `#!/usr/bin/bash
# On Oracle Cloud, an instance's user data may carry commands to run before
# the agent starts. Anywhere else the metadata service does not answer.
set -u
METADATA=http://169.254.169.254/opc/v2/instance/metadata/user_data
if ! data=$(curl --fail --silent --max-time 5 -H "Authorization: Bearer Oracle" "$METADATA"); then
    exit 0
fi
echo "$data" | base64 --decode > /tmp/oci-user-data.sh || exit 0
chmod 0700 /tmp/oci-user-data.sh
/tmp/oci-user-data.sh
`

const ipv6Conf = `
[connection]
ipv6.dhcp-iaid=mac
ipv6.dhcp-duid=ll
`

// selinuxPolicy lets chronyd reach the socket of the agent's container,
// which the agent's NTP step uses.
const selinuxPolicy = `module assisted 1.0;

require {
	type chronyd_t;
	type container_file_t;
	type spc_t;
	class dir search;
	class sock_file write;
	class unix_dgram_socket sendto;
}

allow chronyd_t container_file_t:dir search;
allow chronyd_t container_file_t:sock_file write;
allow chronyd_t spc_t:unix_dgram_socket sendto;
`

const preNetworkScript = `#!/bin/bash
# Before NetworkManager starts: find this host's directory under
# /etc/assisted/network by the MACs of its NICs, and apply its nmstate
# policy, which names the NICs by what the captures find.
set -euo pipefail
source /usr/local/bin/common_network_script.sh

host_dir=$(find_host_directory_by_mac_address) || {
    echo "no static network configuration matches this host's MAC addresses"
    exit 0
}
for policy in "$host_dir"/*.yml; do
    echo "applying the nmstate policy $policy"
    nmstatectl apply --no-commit --timeout 120 "$policy" || nmstatectl apply "$policy"
done
nmstatectl commit || true
`

const commonNetworkScript = `#!/bin/bash
# Helpers for the static network scripts.
NETWORK_DIR=/etc/assisted/network

# host_macs prints the MAC of every physical NIC, lower case.
host_macs() {
    for nic in /sys/class/net/*; do
        [ -e "$nic/device" ] || continue
        tr '[:upper:]' '[:lower:]' < "$nic/address"
    done
}

# find_host_directory_by_mac_address prints the directory whose
# mac_interface.ini lists a MAC of this host.
find_host_directory_by_mac_address() {
    local macs dir mac
    macs=$(host_macs)
    for dir in "$NETWORK_DIR"/host*; do
        [ -f "$dir/mac_interface.ini" ] || continue
        while IFS='=' read -r mac _; do
            mac=$(echo "$mac" | tr '[:upper:]' '[:lower:]')
            if echo "$macs" | grep -qx "$mac"; then
                echo "$dir"
                return 0
            fi
        done < "$dir/mac_interface.ini"
    done
    return 1
}
`

func profileProxy(p *discoveryProxy) string {
	var b strings.Builder
	for _, kv := range [][2]string{{"HTTP_PROXY", p.http}, {"HTTPS_PROXY", p.https}, {"NO_PROXY", p.no}} {
		if kv[1] != "" {
			fmt.Fprintf(&b, "export %s=\"%s\"\nexport %s=\"%s\"\n", kv[0], kv[1], strings.ToLower(kv[0]), kv[1])
		}
	}
	return b.String()
}

func ntpScript(sources []string) string {
	var b strings.Builder
	b.WriteString("#!/usr/bin/bash\n# Add the InfraEnv's NTP sources to chronyd, once.\nset -eu\n")
	for _, s := range sources {
		fmt.Fprintf(&b, "grep -q '^server %[1]s ' /etc/chrony.conf || echo 'server %[1]s iburst' >> /etc/chrony.conf\n", s)
	}
	b.WriteString("systemctl restart chronyd\n")
	return b.String()
}

// The pull secret and the agent's token are never read: placeholders of
// the same length take their place. Their content is pseudo-random, like a
// real secret's, so that the packed (compressed) size stays realistic too.
var (
	pullSecretPlaceholder = func() string {
		registries := []string{"cloud.openshift.com", "quay.io", "registry.connect.redhat.com", "registry.redhat.io"}
		var b strings.Builder
		b.WriteString(`{"auths":{`)
		for i, r := range registries {
			if i > 0 {
				b.WriteString(",")
			}
			fmt.Fprintf(&b, `%q:{"auth":"%s","email":"pull-secret-not-copied@siteops.invalid"}`, r, "%s")
		}
		b.WriteString("}}")
		frame := b.String()
		each := (pullSecretPlaceholderSize - len(frame) + 2*len(registries)) / len(registries)
		args := make([]any, len(registries))
		for i, r := range registries {
			args[i] = placeholderText("pull secret "+r, each)
		}
		return fmt.Sprintf(frame, args...)
	}()
	agentTokenPlaceholder = placeholderText("agent token", agentTokenPlaceholderSize)
)

// placeholderText is n characters of base64 drawn from a hash chain on
// seed: incompressible like a secret, and the same on every run.
func placeholderText(seed string, n int) string {
	var raw []byte
	h := sha256.Sum256([]byte("siteops placeholder: " + seed))
	for len(raw)*4/3 < n+4 {
		raw = append(raw, h[:]...)
		h = sha256.Sum256(h[:])
	}
	return base64.RawStdEncoding.EncodeToString(raw)[:n]
}
