package redact

import (
	"regexp"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"unsafe"
)

// Mask replaces what is hidden. It is a plain word, so that a document
// whose value it replaces whole still parses as YAML or JSON ("***" would
// read as a YAML alias).
const Mask = "REDACTED"

// minSecret is the shortest registered value that is hidden: hiding every
// "a" or "1" of the output would make it unreadable and protect nothing.
const minSecret = 4

// pemPrivateKey matches a PEM private key block, armour included.
var pemPrivateKey = regexp.MustCompile(`-----BEGIN ([A-Z0-9 ]*)PRIVATE KEY( BLOCK)?-----[\s\S]*?(-----END ([A-Z0-9 ]*)PRIVATE KEY( BLOCK)?-----|$)`)

// registry holds the registered secret values; the replacer is rebuilt
// when one is added.
var registry struct {
	sync.RWMutex
	values   []string
	replacer *strings.Replacer
	// generation counts the changes of values (Generation).
	generation atomic.Uint64
}

// Generation counts the changes to the registered values. Text hid all of
// them from a text if it ran after Generation returned g and Generation
// still returns g: a caller that hides credentials early (on a worker) and
// prints later checks it to catch a value registered meanwhile.
func Generation() uint64 { return registry.generation.Load() }

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
	registry.generation.Add(1)
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
// no secret), PEM private keys and registered values. When there is
// nothing to hide, s itself comes back and nothing is allocated.
func Text(s string) string {
	if s == "" {
		return s
	}
	s = hideUserinfo(s)
	if strings.Contains(s, "PRIVATE KEY") {
		s = pemPrivateKey.ReplaceAllString(s, "-----BEGIN ${1}PRIVATE KEY${2}----- "+Mask+" -----END ${1}PRIVATE KEY${2}-----")
	}
	registry.RLock()
	r := registry.replacer
	registry.RUnlock()
	if r != nil && replaces(r, s) {
		s = r.Replace(s)
	}
	return s
}

// replaces reports whether r would change s. strings.Replacer copies s
// whether or not it holds a match; rendered output (tens of kilobytes per
// site) seldom does, so it is first written through a writer that only
// compares.
func replaces(r *strings.Replacer, s string) bool {
	w := sameText{s: s}
	_, _ = r.WriteString(&w, s)
	return w.differs || w.at != len(s)
}

// sameText is an io.Writer that checks that what is written is s,
// piece by piece.
type sameText struct {
	s       string
	at      int
	differs bool
}

func (w *sameText) Write(p []byte) (int, error) {
	return w.WriteString(unsafe.String(unsafe.SliceData(p), len(p)))
}

func (w *sameText) WriteString(p string) (int, error) {
	if !w.differs && len(p) <= len(w.s)-w.at && w.s[w.at:w.at+len(p)] == p {
		w.at += len(p)
	} else {
		w.differs = true
	}
	return len(p), nil
}

// URL is Text for one URL: a repository or BMC address fit to print.
func URL(raw string) string { return Text(raw) }

// hideUserinfo rewrites the user information of every URL in s: a scheme
// (a letter, then letters, digits, "+", "-" or "."), "://", and a run of
// characters up to its last "@" before a space, "/", "?", "#", a quote,
// "<", ">" or a backquote, so that a password with an "@" in it is hidden
// whole. Rendered output passes through it, so it must stay linear (a
// regular expression over every object was most of the cost of
// rendering), and it is driven by the "@"s of s rather than by its "://"s:
// a URL's user information ends with one, and "@" is rare in YAML, where
// every key is followed by a colon.
func hideUserinfo(s string) string {
	var b strings.Builder
	// s[:copied] is written to b; a URL's scheme may start at prevEnd
	// (the end of the last user information hidden) or later; the next
	// "@" is looked for from from.
	copied, prevEnd, from := 0, 0, 0
	for {
		a := strings.IndexByte(s[from:], '@')
		if a < 0 {
			break
		}
		a += from
		// The run of the "@": from the delimiter before it (a URL's run
		// starts right after the "//" of its "://") to the one after it.
		p := a - 1
		for p >= from && !isURLDelimiter(s[p]) {
			p--
		}
		end := a + 1
		for end < len(s) && !isURLDelimiter(s[end]) {
			end++
		}
		// Every "@" up to end is in this run; the next is looked for
		// after it.
		from = end
		if p < 2 || s[p-2] != ':' || s[p-1] != '/' || s[p] != '/' {
			continue // no "://" opens the run
		}
		k := p - 2
		start := k
		for start > prevEnd && isSchemeByte(s[start-1]) {
			start--
		}
		for start < k && !isLetter(s[start]) {
			start++
		}
		if start == k {
			continue // no scheme before the "://"
		}
		at := strings.LastIndexByte(s[a:end], '@') + a
		if m := s[start : at+1]; userinfo(m) != m {
			b.WriteString(s[copied:start])
			b.WriteString(userinfo(m))
			copied = at + 1
		}
		prevEnd = at + 1
	}
	if copied == 0 {
		return s
	}
	b.WriteString(s[copied:])
	return b.String()
}

func isLetter(c byte) bool { return c|0x20 >= 'a' && c|0x20 <= 'z' }

func isSchemeByte(c byte) bool {
	return isLetter(c) || c >= '0' && c <= '9' || c == '+' || c == '-' || c == '.'
}

func isURLDelimiter(c byte) bool {
	switch c {
	case ' ', '\t', '\n', '\f', '\r', '/', '?', '#', '"', '\'', '<', '>', '`':
		return true
	}
	return false
}

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
// nothing to hide, and b is not copied to find out.
func Bytes(b []byte) []byte {
	if len(b) == 0 {
		return b
	}
	// Text only reads its argument and returns either it or new text, so
	// b can be read in place; b must not change meanwhile, which holds
	// since the caller waits for the result.
	s := unsafe.String(unsafe.SliceData(b), len(b))
	if t := Text(s); t != s {
		return []byte(t)
	}
	return b
}
