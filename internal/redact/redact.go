package redact

import (
	"bytes"
	"regexp"
	"slices"
	"strings"
	"sync"
)

// Mask replaces what is hidden. It is a plain word, so that a document
// whose value it replaces whole still parses as YAML or JSON ("***" would
// read as a YAML alias).
const Mask = "REDACTED"

// minSecret is the shortest registered value that is hidden: hiding every
// "a" or "1" of the output would make it unreadable and protect nothing.
const minSecret = 4

// urlUserinfo matches the scheme and user information of a URL in free
// text. The user information runs to the last "@" before the host's end,
// so that a password with an "@" in it is hidden whole.
var urlUserinfo = regexp.MustCompile(`([A-Za-z][A-Za-z0-9+.\-]*)://([^\s/?#"'<>\x60]*)@`)

// pemPrivateKey matches a PEM private key block, armour included.
var pemPrivateKey = regexp.MustCompile(`-----BEGIN ([A-Z0-9 ]*)PRIVATE KEY( BLOCK)?-----[\s\S]*?(-----END ([A-Z0-9 ]*)PRIVATE KEY( BLOCK)?-----|$)`)

// registry holds the registered secret values; the replacer is rebuilt
// when one is added.
var registry struct {
	sync.RWMutex
	values   []string
	replacer *strings.Replacer
}

// Register adds values to hide wherever they appear. Values shorter than
// four bytes, or only blanks, are ignored.
func Register(values ...string) {
	var add []string
	for _, v := range values {
		for _, s := range variants(v) {
			if len(strings.TrimSpace(s)) >= minSecret {
				add = append(add, s)
			}
		}
	}
	if len(add) == 0 {
		return
	}
	registry.Lock()
	defer registry.Unlock()
	n := len(registry.values)
	for _, s := range add {
		if !slices.Contains(registry.values, s) {
			registry.values = append(registry.values, s)
		}
	}
	if len(registry.values) == n {
		return
	}
	// Longest first, so that a value that contains another is hidden
	// whole.
	slices.SortFunc(registry.values, func(a, b string) int { return len(b) - len(a) })
	pairs := make([]string, 0, 2*len(registry.values))
	for _, v := range registry.values {
		pairs = append(pairs, v, Mask)
	}
	registry.replacer = strings.NewReplacer(pairs...)
}

// variants are the forms a secret value takes in text: as written, and
// with surrounding blanks and a final newline removed (a token file).
func variants(v string) []string {
	t := strings.TrimSpace(v)
	if t == v {
		return []string{v}
	}
	return []string{v, t}
}

// Text returns s with every credential it holds hidden: the user
// information of URLs (an ssh user alone, ssh://git@host, is kept: it is
// no secret), PEM private keys and registered values.
func Text(s string) string {
	if s == "" {
		return s
	}
	if strings.Contains(s, "@") && strings.Contains(s, "://") {
		s = urlUserinfo.ReplaceAllStringFunc(s, userinfo)
	}
	if strings.Contains(s, "PRIVATE KEY") {
		s = pemPrivateKey.ReplaceAllString(s, "-----BEGIN ${1}PRIVATE KEY${2}----- "+Mask+" -----END ${1}PRIVATE KEY${2}-----")
	}
	registry.RLock()
	r := registry.replacer
	registry.RUnlock()
	if r != nil {
		s = r.Replace(s)
	}
	return s
}

// URL is Text for one URL: a repository or BMC address fit to print.
func URL(raw string) string { return Text(raw) }

// userinfo rewrites one "scheme://userinfo@" match.
func userinfo(m string) string {
	i := strings.Index(m, "://")
	scheme, info := m[:i], m[i+3:len(m)-1]
	if strings.EqualFold(scheme, "ssh") && !strings.Contains(info, ":") {
		return m // an ssh user name
	}
	return scheme + "://" + Mask + "@"
}

// Contains reports whether s holds something Text would hide.
func Contains(s string) bool { return Text(s) != s }

// Bytes is Text for a byte slice; b itself comes back when it holds
// nothing to hide.
func Bytes(b []byte) []byte {
	registry.RLock()
	registered := registry.replacer != nil
	registry.RUnlock()
	if !registered && !(bytes.Contains(b, []byte("://")) && bytes.Contains(b, []byte("@"))) &&
		!bytes.Contains(b, []byte("PRIVATE KEY")) {
		return b
	}
	s := string(b)
	if t := Text(s); t != s {
		return []byte(t)
	}
	return b
}
