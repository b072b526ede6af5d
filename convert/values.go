package convert

import (
	"encoding/json"
	"fmt"
	"maps"
	"slices"
	"strings"
	"unicode/utf8"
)

// maxKey is the length from which the sites decoder clips map keys in
// field paths.
const maxKey = 40

// Small helpers that build JSON-compatible values: the document must
// compare equal to what encoding/json or the sites decoder would produce,
// so lists are []any, objects map[string]any and integers int64.

func stringList(ss []string) []any {
	out := make([]any, len(ss))
	for i, s := range ss {
		out[i] = s
	}
	return out
}

func stringMap(m map[string]string) map[string]any {
	out := make(map[string]any, len(m))
	for k, v := range m {
		out[k] = v
	}
	return out
}

// cidrList turns CIDR strings into ClusterInstance's {cidr} objects.
func cidrList(cidrs []string) []any {
	out := make([]any, len(cidrs))
	for i, c := range cidrs {
		out[i] = map[string]any{"cidr": c}
	}
	return out
}

// setString sets key to s unless s is empty: ClusterInstance leaves unset
// optional strings out.
func setString(m map[string]any, key, s string) {
	if s != "" {
		m[key] = s
	}
}

func validJSON(s string) bool { return json.Valid([]byte(s)) }

// quoteList formats values for a message: "a", "b" and "c".
func quoteList(values []string) string {
	q := make([]string, len(values))
	for i, v := range values {
		q[i] = fmt.Sprintf("%q", v)
	}
	switch len(q) {
	case 0:
		return ""
	case 1:
		return q[0]
	}
	return strings.Join(q[:len(q)-1], ", ") + " and " + q[len(q)-1]
}

// sortedKeys returns a map's keys in order, for deterministic notes.
func sortedKeys[V any](m map[string]V) []string { return slices.Sorted(maps.Keys(m)) }

// keyPath appends a map key to a field path the way the sites decoder
// records it, so that Site.Pos finds it: keys longer than 40 bytes are
// clipped, and keys holding '.', '[' or ']' are quoted in brackets.
func keyPath(path, key string) string {
	if len(key) > maxKey {
		i := maxKey
		for i > 0 && !utf8.RuneStart(key[i]) {
			i--
		}
		key = key[:i] + "..."
	}
	if strings.ContainsAny(key, ".[]") {
		return fmt.Sprintf("%s[%q]", path, key)
	}
	return path + "." + key
}
