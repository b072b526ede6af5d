package status

import (
	"fmt"

	"github.com/siteops/siteops/engine"
	"github.com/siteops/siteops/engine/assisted"
	"github.com/siteops/siteops/policy/report"
)

// The dashboard and the command line say the same of a site: which hosts
// are done, how a host is named, which host or validation is behind a
// reason that concerns hosts, and how many findings count.

// HostDone reports whether a host's part of the installation is over.
func HostDone(h engine.HostStatus) bool {
	return assisted.HostStatus(h.State).In(assisted.HostDoneStatuses...)
}

// HostsDone counts the hosts of doc whose part is over.
func HostsDone(doc *Document) int {
	n := 0
	for _, h := range doc.Hosts {
		if HostDone(h) {
			n++
		}
	}
	return n
}

// HostLabel names a host the way its owner knows it: its hostname, or
// its BareMetalHost's name before it has one.
func HostLabel(h engine.HostStatus) string {
	if h.Hostname != "" {
		return h.Hostname
	}
	return h.Name
}

// FailingValidations are the validations of vs that fail; pending ones
// resolve by themselves.
func FailingValidations(vs []engine.Validation) []engine.Validation {
	var out []engine.Validation
	for _, v := range vs {
		if assisted.ValidationFailing(v.Status) {
			out = append(out, v)
		}
	}
	return out
}

// AttentionDetail names the first host or validation behind a reason that
// concerns hosts; "" for other reasons.
func AttentionDetail(doc *Document) string {
	switch doc.Reason {
	case engine.ReasonHostNeedsAction:
		for _, h := range doc.Hosts {
			if assisted.HostStatus(h.State).In(assisted.HostNeedsActionStatuses...) {
				return fmt.Sprintf("host %s is %s: %s", HostLabel(h), h.State, stateInfo(h))
			}
		}
	case engine.ReasonPartiallyInstalled:
		for _, h := range doc.Hosts {
			if assisted.HostStatus(h.State).In(assisted.HostFailedStatuses...) {
				return fmt.Sprintf("host %s is %s: %s", HostLabel(h), h.State, stateInfo(h))
			}
		}
	case engine.ReasonValidationsFailing:
		for _, h := range doc.Hosts {
			if vs := FailingValidations(h.Validations); len(vs) > 0 {
				return fmt.Sprintf("host %s: %s", HostLabel(h), vs[0].Message)
			}
		}
		if vs := FailingValidations(doc.Cluster.Validations); len(vs) > 0 {
			return "cluster: " + vs[0].Message
		}
	}
	return ""
}

// AttentionLine is Attention with the host or validation it is about,
// when the reason concerns one; "" when the site needs no person.
func AttentionLine(doc *Document) string {
	line := Attention(doc)
	if line == "" {
		return ""
	}
	if detail := AttentionDetail(doc); detail != "" {
		line += " (" + detail + ")"
	}
	return line
}

func stateInfo(h engine.HostStatus) string {
	if h.StateInfo != "" {
		return h.StateInfo
	}
	return h.State
}

// CountFindings counts the deny and warn findings of fs; waived ones
// block nothing and are left out.
func CountFindings(fs []report.Finding) (deny, warn int) {
	for _, f := range fs {
		if f.Waived != "" {
			continue
		}
		switch f.Severity {
		case report.Deny:
			deny++
		case report.Warn:
			warn++
		}
	}
	return deny, warn
}
