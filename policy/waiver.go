package policy

import (
	"regexp"
	"strings"
)

// A waiver lets one site accept a rule's findings, with a reason that
// stays in the report:
//
//	metadata:
//	  annotations:
//	    siteops.io/waive: |
//	      ztp.bmc.certificate-verification-disabled: lab BMCs have self-signed certificates
//	      main.deny_vendor: approved by the platform team, CHG-1234
//
// Entries are separated by newlines, or by commas followed by the next
// "<rule-id>:" (so a reason may hold commas that are not followed by
// something that looks like a rule id and a colon).

type waiver struct {
	rule, reason string
}

// waiverStart finds where each entry begins: the start of the value, a
// newline or a comma, then the rule id and its colon.
var waiverStart = regexp.MustCompile(`(?:^|[\n,])\s*([A-Za-z0-9][A-Za-z0-9_.\-/]*)\s*:`)

// parseWaivers reads the waiver annotation. Entries it cannot read (no
// rule id, or no reason) come back as bad, in their written form.
func parseWaivers(value string) (waivers []waiver, bad []string) {
	matches := waiverStart.FindAllStringSubmatchIndex(value, -1)
	if len(matches) == 0 {
		if strings.TrimSpace(value) != "" {
			bad = append(bad, strings.TrimSpace(value))
		}
		return nil, bad
	}
	if lead := strings.Trim(value[:matches[0][0]], " \t\n,"); lead != "" {
		bad = append(bad, lead)
	}
	for i, m := range matches {
		end := len(value)
		if i+1 < len(matches) {
			end = matches[i+1][0]
		}
		rule := value[m[2]:m[3]]
		reason := strings.TrimSpace(value[m[1]:end])
		if reason == "" {
			bad = append(bad, rule+":")
			continue
		}
		waivers = append(waivers, waiver{rule: rule, reason: reason})
	}
	return waivers, bad
}
