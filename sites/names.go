package sites

import (
	"strconv"
	"unicode"
	"unicode/utf8"
)

// A cluster name names the site's namespace and objects on the hub, its
// status file and its log lines. Kubernetes accepts a DNS-1123 label for
// a namespace (k8s.io/apimachinery pkg/util/validation/validation.go
// IsDNS1123Label: lower-case letters, digits and '-', at most 63
// characters), which the rule ztp.cluster.dns-names checks. A name that
// holds a control or invisible character (an escape sequence, a newline,
// a bidirectional override) or a blank is refused when the site loads,
// before it can reach a file name, a log field or a terminal.

// nameProblem says what is wrong with a cluster name that cannot be
// printed safely; "" for any other name.
func nameProblem(name string) string {
	if printable(name) {
		return ""
	}
	return "cluster name " + printableName(name) + " holds a control character, a blank or invalid UTF-8, " +
		"which no Kubernetes name may (a namespace name is a DNS-1123 label)"
}

// printable reports whether every rune of s is a visible character.
func printable(s string) bool {
	if !utf8.ValidString(s) {
		return false
	}
	for _, r := range s {
		if !unicode.IsGraphic(r) || unicode.IsSpace(r) || unicode.Is(unicode.Cf, r) {
			return false
		}
	}
	return true
}

// printableName is a name fit for a message, a log field or a status
// file: as written when every character is visible, else Go-quoted (ASCII
// only, control characters escaped) and clipped.
func printableName(name string) string {
	if printable(name) {
		return name
	}
	return strconv.QuoteToASCII(clip(name))
}

// nameHint says how to fix a cluster name.
const nameHint = "use lower-case letters, digits and '-' (a DNS-1123 label, at most 63 characters): the name becomes the cluster's namespace"
