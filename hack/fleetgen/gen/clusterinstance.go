package gen

import "strconv"

// Fixed values of every generated ClusterInstance (the others are shared
// with the SiteConfigs, see siteconfig.go).
const (
	clusterTemplates = "ai-cluster-templates-v1"
	nodeTemplates    = "ai-node-templates-v1"
	templatesNS      = "open-cluster-management"
)

// appendClusterInstanceFile appends a ClusterInstance file for s: a
// comment line, then the document.
func appendClusterInstanceFile(b []byte, s site, seed int64) []byte {
	b = append(b, "# Synthetic ClusterInstance written by hack/fleetgen (seed "...)
	b = strconv.AppendInt(b, seed, 10)
	b = append(b, ", site "...)
	b = strconv.AppendInt(b, int64(s.index+1), 10)
	b = append(b, ").\n"...)
	return appendClusterInstance(b, s, seed)
}

// appendClusterInstance appends the ClusterInstance document of s. It has
// the content of the SiteConfig appendSiteConfig writes for s, in the
// ClusterInstance API: clusterType from the shape, the cluster labels as
// ManagedCluster extraLabels, serviceNetwork entries as {cidr}, and the
// default assisted-installer template references.
func appendClusterInstance(b []byte, s site, seed int64) []byte {
	net := uint32(machineBase + s.index*16)
	clusterType := "SNO"
	if s.ha {
		clusterType = "HighlyAvailable"
	}
	b = append(b, "apiVersion: siteconfig.open-cluster-management.io/v1alpha1\nkind: ClusterInstance\nmetadata:\n  name: "...)
	b = append(b, s.name...)
	b = append(b, "\n  namespace: "...)
	b = append(b, s.name...)
	b = append(b, "\nspec:\n  clusterName: "...)
	b = append(b, s.name...)
	b = append(b, "\n  baseDomain: "+baseDomain+
		"\n  clusterImageSetNameRef: "+imageSet+
		"\n  pullSecretRef:\n    name: "+pullSecretName+
		"\n  sshPublicKey: \""+sshPublicKey+"\"\n  clusterType: "...)
	b = append(b, clusterType...)
	b = append(b, "\n  networkType: OVNKubernetes\n  cpuPartitioningMode: AllNodes\n  installConfigOverrides: '"+installConfigOverrides+"'\n"...)
	b = appendVIPs(b, s)
	b = append(b, "  extraLabels:\n    ManagedCluster:\n      common: \"true\"\n      "...)
	b = append(b, clusterGroup(s)...)
	b = append(b, ": \"\"\n      region: "...)
	b = append(b, s.region...)
	b = append(b, "\n  clusterNetwork:\n    - cidr: 10.128.0.0/14\n      hostPrefix: 23\n"...)
	b = appendMachineNetwork(b, net)
	b = append(b, "  serviceNetwork:\n    - cidr: 172.30.0.0/16\n  templateRefs:\n    - name: "+clusterTemplates+
		"\n      namespace: "+templatesNS+"\n"...)
	return appendCINodes(b, s, seed)
}

func clusterGroup(s site) string {
	if s.ha {
		return "group-du-standard"
	}
	return "group-du-sno"
}

// appendVIPs appends the apiVIPs and ingressVIPs of an HA cluster at the
// spec level (nothing for SNO).
func appendVIPs(b []byte, s site) []byte {
	if !s.ha {
		return b
	}
	net := uint32(machineBase + s.index*16)
	b = append(b, "  apiVIPs:\n    - "...)
	b = appendIPv4(b, net+offAPIVIP)
	b = append(b, "\n  ingressVIPs:\n    - "...)
	b = appendIPv4(b, net+offIngress)
	return append(b, '\n')
}

func appendMachineNetwork(b []byte, net uint32) []byte {
	b = append(b, "  machineNetwork:\n    - cidr: "...)
	b = appendIPv4(b, net)
	return append(b, "/28\n"...)
}

// appendCINodes appends spec.nodes of s.
func appendCINodes(b []byte, s site, seed int64) []byte {
	b = append(b, "  nodes:\n"...)
	for k := range s.nodes() {
		b = appendCINode(b, s, seed, k)
	}
	return b
}

// nodeName is the short host name of node k: masters first (k < 3), then
// workers.
func nodeName(s site, k int) (host, role string) {
	role, ord := "master", k
	if k >= 3 {
		role, ord = "worker", k-3
	}
	return s.name + "-" + role[:1] + strconv.Itoa(ord), role
}

// appendCINode appends node k of s as an item of spec.nodes.
func appendCINode(b []byte, s site, seed int64, k int) []byte {
	net := uint32(machineBase + s.index*16)
	host, role := nodeName(s, k)

	b = append(b, "    - hostName: "...)
	b = append(b, host...)
	b = append(b, "."+baseDomain+"\n      role: "...)
	b = append(b, role...)
	b = append(b, "\n      bmcAddress: "...)
	b = appendBMCAddress(b, s, k)
	b = append(b, "\n      bmcCredentialsName:\n        name: "...)
	b = append(b, host...)
	b = append(b, "-bmc\n      bootMACAddress: "...)
	b = appendMAC(b, seed, s.index, k, 0)
	b = append(b, "\n      nodeLabels:\n        topology.kubernetes.io/zone: "...)
	b = append(b, s.zones[k]...)
	b = append(b, "\n      templateRefs:\n        - name: "+nodeTemplates+"\n          namespace: "+templatesNS+
		"\n      nodeNetwork:\n        interfaces:\n          - name: "+nic+"\n            macAddress: "...)
	b = appendMAC(b, seed, s.index, k, 0)
	b = append(b, "\n        config:\n          interfaces:\n            - name: "+nic+
		"\n              type: ethernet\n              state: up\n              ipv4:\n                enabled: true\n                dhcp: false\n                address:\n                  - ip: "...)
	b = appendIPv4(b, net+offNode0+uint32(k))
	b = append(b, "\n                    prefix-length: 28\n              ipv6:\n                enabled: false\n          dns-resolver:\n            config:\n              server:\n                - "...)
	b = appendIPv4(b, net+offDNS)
	b = append(b, "\n          routes:\n            config:\n              - destination: 0.0.0.0/0\n                next-hop-address: "...)
	b = appendIPv4(b, net+offGateway)
	b = append(b, "\n                next-hop-interface: "+nic+"\n                table-id: 254\n"...)
	return b
}

// appendBMCAddress appends the BMC URL of node k of s.
func appendBMCAddress(b []byte, s site, k int) []byte {
	b = append(b, "redfish-virtualmedia+https://"...)
	b = appendIPv4(b, uint32(bmcBase+s.index*8+1+k))
	return append(b, "/redfish/v1/Systems/1"...)
}
