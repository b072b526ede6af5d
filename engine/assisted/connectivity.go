package assisted

import "fmt"

// Peer is another host of the cluster as this host's connectivity report
// sees it: its real hostname, effective role, the address it was reached
// on, and the measured round trip and packet loss.
type Peer struct {
	Hostname      string
	Role          Role
	Address       string
	LatencyMs     float64
	PacketLossPct float64
	// MTUBroken is true when a full-size packet did not reach the peer.
	MTUBroken bool
}

// The texts of the network latency and packet loss validations
// (assisted-service internal/host/validator.go
// hasSufficientNetworkLatencyRequirementForRole,
// hasSufficientPacketLossRequirementForRole and the advisory helpers
// after them). The "\n" after the metrics is a backslash and an n: the
// format is a raw string upstream.
const (
	latencyExceededFormat    = `A total network latency above the tolerated threshold of %.2f ms was encountered when performing network latency tests between host %s and %s\n`
	packetLossExceededFormat = `A total packet loss above the tolerated threshold of %.2f%% was encountered when performing connectivity validation between host %s and %s\n`
	latencyActionsFormat     = "Actions:\n1: Please try the following commands on the host %s and examine averages to investigate the latency issue further\n\n"
	packetLossActions        = "Actions:\n1: Check if there are multiple devices on the same L2 network, if so then use the built-in nmstate-based advanced networking configuration to create a bond or disable all but one of the interfaces.\n"
	pingAdvisoryFormat       = "2: Please try the following commands on the host %s to investigate the packet loss further\n\n"
	pingCommandFormat        = "ping -c 10 -W 3 -q -I %s %s\n"
	pingCommandsTruncated    = "etc... \n"
	// maxHostTimingMetrics and maxPingCommandExamples: past this index a
	// list is cut short (validator.go constants).
	maxHostTimingMetrics   = 4
	maxPingCommandExamples = 4
)

// exceedingPeers lists the peers of the host's role whose metric is above
// the threshold, as "<hostname> (<value><suffix>)", cut after the fifth
// with " and others..." (summarizeHostTimingMetrics).
func exceedingPeers(peers []Peer, role Role, metric func(Peer) float64, threshold float64, suffix string) (string, bool) {
	out := ""
	n := 0
	for _, p := range peers {
		if p.Role != role || metric(p) <= threshold {
			continue
		}
		if n > 0 {
			out += ", "
		}
		if n > maxHostTimingMetrics {
			out += fmt.Sprintf("%s (%.2f%s) and others...", p.Hostname, metric(p), suffix)
			return out, true
		}
		out += fmt.Sprintf("%s (%.2f%s)", p.Hostname, metric(p), suffix)
		n++
	}
	return out, n > 0
}

// pingAdvisory is the "2: Please try the following commands" part: one
// ping per IPv4 address (as the inventory writes it, with its prefix
// length) of each interface (generatePingCommandAdvisoryForInventory).
func pingAdvisory(hostname string, inv *Inventory) string {
	if inv == nil || len(inv.Interfaces) == 0 {
		return ""
	}
	msg := fmt.Sprintf(pingAdvisoryFormat, hostname)
	for _, ifc := range inv.Interfaces {
		for i, a := range ifc.IPv4 {
			if i > maxPingCommandExamples {
				msg += pingCommandsTruncated
				break
			}
			msg += fmt.Sprintf(pingCommandFormat, ifc.Name, a)
		}
	}
	return msg
}

func latencyFailure(in *HostInput, threshold float64, peers string) string {
	msg := fmt.Sprintf(latencyExceededFormat, threshold, in.ID, peers)
	if in.Inventory != nil && len(in.Inventory.Interfaces) > 0 {
		name := in.RealHostname()
		msg += fmt.Sprintf(latencyActionsFormat, name) + pingAdvisory(name, in.Inventory)
	}
	return msg
}

func packetLossFailure(in *HostInput, threshold float64, peers string) string {
	return fmt.Sprintf(packetLossExceededFormat, threshold, in.ID, peers) + packetLossActions + pingAdvisory(in.RealHostname(), in.Inventory)
}
