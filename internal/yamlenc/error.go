package yamlenc

import (
	"strconv"
	"strings"
)

// An Error reports a value that cannot be encoded and where it is.
type Error struct {
	// Path locates the value, as in spec.nodes[2].x or
	// metadata.annotations["example.com/a.b"]; it is empty for the
	// top-level value.
	Path string
	// Reason says what is wrong, as in "unsupported type chan int".
	Reason string

	// segs collects path segments innermost first while the encoder
	// unwinds, so that the happy path never builds paths.
	segs []string
}

func (e *Error) Error() string {
	if e.Path == "" {
		return "yamlenc: " + e.Reason + " at top level"
	}
	return "yamlenc: " + e.Reason + " at " + e.Path
}

func errTooDeep() error {
	return &Error{Reason: "nesting deeper than " + strconv.Itoa(maxDepth) + " levels (cyclic value?)"}
}

func withKey(err error, k string) error {
	if e, ok := err.(*Error); ok {
		e.segs = append(e.segs, keySegment(k))
	}
	return err
}

func withIndex(err error, i int) error {
	if e, ok := err.(*Error); ok {
		e.segs = append(e.segs, "["+strconv.Itoa(i)+"]")
	}
	return err
}

// keySegment writes simple keys as .key and the rest quoted in brackets, so
// that a path stays unambiguous for keys such as "example.com/a.b".
func keySegment(k string) string {
	if k == "" {
		return `[""]`
	}
	for i := range len(k) {
		c := k[i]
		if !(isDigit(c) || 'a' <= c && c <= 'z' || 'A' <= c && c <= 'Z' || c == '_' || c == '-' || c == '/') {
			return "[" + strconv.Quote(k) + "]"
		}
	}
	return "." + k
}

// finish turns the collected segments into Path.
func (e *Error) finish() {
	var b strings.Builder
	for i := len(e.segs) - 1; i >= 0; i-- {
		b.WriteString(e.segs[i])
	}
	e.Path = strings.TrimPrefix(b.String(), ".")
	e.segs = nil
}
