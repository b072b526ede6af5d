package source

import "strings"

// shortLen is how many hex digits of a commit id or digest a short
// revision keeps: unambiguous in any fleet repository, short enough for a
// table.
const shortLen = 12

// ShortRevision is how a revision is shown to people (messages, the
// dashboard, the status README): a commit id shortened to its first 12
// digits, a directory digest to "sha256:" and 12 digits; anything else as
// it is. Status documents keep the whole revision.
func ShortRevision(rev string) string {
	prefix, digits := "", rev
	if i := strings.LastIndexByte(rev, ':'); i >= 0 {
		prefix, digits = rev[:i+1], rev[i+1:]
	}
	if len(digits) <= shortLen || strings.Trim(digits, "0123456789abcdef") != "" {
		return rev
	}
	return prefix + digits[:shortLen]
}
