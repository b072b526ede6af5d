package gen

import "strconv"

// Fixed values shared by every generated SiteConfig.
const (
	baseDomain     = "fleet.example.net"
	pullSecretName = "fleet-pull-secret"
	imageSet       = "openshift-4.20.6"
	sshPublicKey   = "ssh-ed25519 AAAAC3NzaC1lZDI1NTE5AAAAIFleetgenSyntheticKeyNotRealDoNotUse000000000 fleetgen@example.net"
	// installConfigOverrides has no top-level "networking" key, so the
	// renderer appends it to the networkType JSON, as the generator's
	// agentClusterInstallAnnotation does.
	installConfigOverrides = `{"capabilities":{"baselineCapabilitySet":"None","additionalEnabledCapabilities":["NodeTuning","OperatorLifecycleManager","Ingress"]}}`
	nic                    = "ens1f0"
)

// appendSiteConfig appends the SiteConfig YAML of s to b. It writes the
// text directly instead of marshalling a tree: that keeps generation of
// 100000 files to seconds, and the layout stable and readable.
func appendSiteConfig(b []byte, s site, seed int64) []byte {
	net := uint32(machineBase + s.index*16)
	group := "group-du-sno"
	if s.ha {
		group = "group-du-standard"
	}

	b = append(b, "# Synthetic SiteConfig written by hack/fleetgen (seed "...)
	b = strconv.AppendInt(b, seed, 10)
	b = append(b, ", site "...)
	b = strconv.AppendInt(b, int64(s.index+1), 10)
	b = append(b, ").\napiVersion: ran.openshift.io/v1\nkind: SiteConfig\nmetadata:\n  name: "...)
	b = append(b, s.name...)
	b = append(b, "\n  namespace: "...)
	b = append(b, s.name...)
	b = append(b, "\nspec:\n  baseDomain: "+baseDomain+
		"\n  pullSecretRef:\n    name: "+pullSecretName+
		"\n  clusterImageSetNameRef: "+imageSet+
		"\n  sshPublicKey: \""+sshPublicKey+"\"\n  clusters:\n    - clusterName: "...)
	b = append(b, s.name...)
	b = append(b, "\n      networkType: OVNKubernetes\n      cpuPartitioningMode: AllNodes\n      installConfigOverrides: '"+installConfigOverrides+"'\n"...)
	if s.ha {
		b = append(b, "      apiVIPs:\n        - "...)
		b = appendIPv4(b, net+offAPIVIP)
		b = append(b, "\n      ingressVIPs:\n        - "...)
		b = appendIPv4(b, net+offIngress)
		b = append(b, '\n')
	}
	b = append(b, "      clusterLabels:\n        common: \"true\"\n        "...)
	b = append(b, group...)
	b = append(b, ": \"\"\n        region: "...)
	b = append(b, s.region...)
	b = append(b, "\n      clusterNetwork:\n        - cidr: 10.128.0.0/14\n          hostPrefix: 23\n      machineNetwork:\n        - cidr: "...)
	b = appendIPv4(b, net)
	b = append(b, "/28\n      serviceNetwork:\n        - 172.30.0.0/16\n      nodes:\n"...)
	for k := range s.nodes() {
		b = appendNode(b, s, seed, k)
	}
	return b
}

// appendNode appends node k of cluster s: masters first (k < 3), then
// workers.
func appendNode(b []byte, s site, seed int64, k int) []byte {
	net := uint32(machineBase + s.index*16)
	role, ord := "master", k
	if k >= 3 {
		role, ord = "worker", k-3
	}
	host := s.name + "-" + role[:1] + strconv.Itoa(ord)

	b = append(b, "        - hostName: "...)
	b = append(b, host...)
	b = append(b, "."+baseDomain+"\n          role: "...)
	b = append(b, role...)
	b = append(b, "\n          bmcAddress: redfish-virtualmedia+https://"...)
	b = appendIPv4(b, uint32(bmcBase+s.index*8+1+k))
	b = append(b, "/redfish/v1/Systems/1\n          bmcCredentialsName:\n            name: "...)
	b = append(b, host...)
	b = append(b, "-bmc\n          bootMACAddress: "...)
	b = appendMAC(b, seed, s.index, k, 0)
	b = append(b, "\n          nodeLabels:\n            topology.kubernetes.io/zone: "...)
	b = append(b, s.zones[k]...)
	b = append(b, "\n          nodeNetwork:\n            interfaces:\n              - name: "+nic+"\n                macAddress: "...)
	b = appendMAC(b, seed, s.index, k, 0)
	b = append(b, "\n            config:\n              interfaces:\n                - name: "+nic+
		"\n                  type: ethernet\n                  state: up\n                  ipv4:\n                    enabled: true\n                    dhcp: false\n                    address:\n                      - ip: "...)
	b = appendIPv4(b, net+offNode0+uint32(k))
	b = append(b, "\n                        prefix-length: 28\n                  ipv6:\n                    enabled: false\n              dns-resolver:\n                config:\n                  server:\n                    - "...)
	b = appendIPv4(b, net+offDNS)
	b = append(b, "\n              routes:\n                config:\n                  - destination: 0.0.0.0/0\n                    next-hop-address: "...)
	b = appendIPv4(b, net+offGateway)
	b = append(b, "\n                    next-hop-interface: "+nic+"\n                    table-id: 254\n"...)
	return b
}
