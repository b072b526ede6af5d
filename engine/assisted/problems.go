package assisted

import (
	"fmt"
	"strings"

	"github.com/siteops/siteops/engine"
)

// Hints that end a discovery message, by the kind of host problem.
const (
	hintInvalid      = "Give the machine what the failing validations ask for (hosts[].validations) or change the site definition."
	hintDisconnected = "Check the power and network of the disconnected machines; they reconnect on their own."
	hintPool         = "Bind the pool hosts to the cluster with the BareMetalHost annotation " + AnnotationBMACClusterReference + "=<namespace>/<name>."
	// HintClusterValidations ends the message of a cluster whose own
	// validations fail.
	HintClusterValidations = "Fix the site definition (networking, VIPs, pull secret) or the machines so these cluster validations pass."
)

// HostProblems describes the hosts of a site in discovery that are not
// ready, and what to do, or "" when every host is ready. Both engines
// word a site's discovery message with it, from the hosts of its status:
// a host with an Agent registered, one without is still to register.
func HostProblems(hosts []engine.HostStatus) string {
	var parts []string
	var invalid, disconnected, pool bool
	waiting := 0
	for _, h := range hosts {
		if h.Agent == "" || h.State == "" {
			// No Agent yet, or one whose first status is not written.
			waiting++
			continue
		}
		status := HostStatus(h.State)
		info := strings.TrimSuffix(h.StateInfo, ".")
		switch {
		case status == HostKnownUnbound:
			pool = true
			parts = append(parts, fmt.Sprintf("%s is %s: %s", h.Name, status, info))
		case status.In(HostKnown, HostPreparingForInstallation, HostPreparingSuccessful):
		case status.In(HostDiscovering, HostDiscoveringUnbound):
			parts = append(parts, h.Name+" is discovering")
		case status.In(HostDisconnected, HostDisconnectedUnbound):
			disconnected = true
			parts = append(parts, fmt.Sprintf("%s is %s: %s", h.Name, status, info))
		default:
			invalid = invalid || status.In(HostInsufficient, HostInsufficientUnbound, HostPendingForInput, HostPreparingFailed)
			part := fmt.Sprintf("%s is %s: %s", h.Name, status, info)
			if noEligibleDisk(h) {
				part += " (" + strings.Join(h.DiskProblems, "; ") + ")"
			}
			parts = append(parts, part)
		}
	}
	if waiting > 0 {
		parts = append(parts, fmt.Sprintf("%d host(s) have not registered yet", waiting))
	}
	if len(parts) == 0 {
		return ""
	}
	msg := "Hosts are being discovered and validated: " + strings.Join(parts, "; ") + "."
	if invalid {
		msg += " " + hintInvalid
	}
	if disconnected {
		msg += " " + hintDisconnected
	}
	if pool {
		msg += " " + hintPool
	}
	return msg
}

// noEligibleDisk reports whether the host fails has-min-valid-disks and
// knows why.
func noEligibleDisk(h engine.HostStatus) bool {
	if len(h.DiskProblems) == 0 {
		return false
	}
	for _, v := range h.Validations {
		if v.ID == HVHasMinValidDisks && v.Status == string(ValidationFailure) {
			return true
		}
	}
	return false
}

// ClusterValidationsMessage describes a cluster in discovery held back by
// its own validations: its status info, what the validations say, and
// what to do when one fails for a reason other than its hosts.
func ClusterValidationsMessage(c engine.ClusterStatus) string {
	var msgs []string
	hint := ""
	for _, v := range c.Validations {
		msgs = append(msgs, strings.TrimSuffix(v.Message, "."))
		// Pending results and hosts not yet ready pass on their own.
		if v.Status == string(ValidationFailure) && v.ID != CVAllHostsReady {
			hint = " " + HintClusterValidations
		}
	}
	return c.StateInfo + ": " + strings.Join(msgs, "; ") + "." + hint
}

// HostsIn lists the hosts of a status in one state, as "name: status
// info", in the status's order.
func HostsIn(hosts []engine.HostStatus, state HostStatus) []string {
	var out []string
	for _, h := range hosts {
		if h.Agent != "" && HostStatus(h.State) == state {
			out = append(out, h.Name+": "+h.StateInfo)
		}
	}
	return out
}

// FailedHosts names the hosts in error with why, in parentheses after a
// leading space, or "" when none failed: what a failed or installing
// site's message adds.
func FailedHosts(hosts []engine.HostStatus) string {
	failed := HostsIn(hosts, HostError)
	if len(failed) == 0 {
		return ""
	}
	return " (" + strings.Join(failed, "; ") + ")"
}

// FailedToJoin names the hosts in error of an installed cluster (day-1
// workers it completed without, day-2 hosts), with why.
func FailedToJoin(hosts []engine.HostStatus) []string {
	out := HostsIn(hosts, HostError)
	for i := range out {
		out[i] = strings.TrimSuffix(out[i], ".")
	}
	return out
}
