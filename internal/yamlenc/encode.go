package yamlenc

import (
	"encoding/json"
	"fmt"
	"math"
	"slices"
	"strconv"
	"strings"
	"sync"
)

const (
	// maxDepth bounds nesting so that a cyclic map or slice fails
	// instead of overflowing the stack.
	maxDepth = 1000
	// maxImplicitKey is YAML's limit on the length of an implicit
	// ("key: value") key, quotes included. Counting bytes rather than
	// characters keeps the check cheap and errs on the safe side.
	maxImplicitKey = 1024
	// maxPooledPairs caps the key stack kept for reuse, so one huge map
	// does not pin memory for the life of the process.
	maxPooledPairs = 1 << 12
)

// Marshal returns the YAML encoding of v; see the package documentation.
func Marshal(v any) ([]byte, error) {
	return Append(make([]byte, 0, 1024), v)
}

// Append appends the YAML encoding of v, one document without a leading
// "---" and ending in a newline, to dst and returns the extended buffer. On
// error it returns dst unchanged in length and an *Error.
func Append(dst []byte, v any) ([]byte, error) {
	return run(dst, func(e *encoder) error { return e.value(v, 0, ctxTop, 0) })
}

// run writes one document into dst with a pooled encoder.
func run(dst []byte, write func(*encoder) error) ([]byte, error) {
	e := encoderPool.Get().(*encoder)
	e.buf = dst
	err := write(e)
	out := e.buf
	e.buf = nil
	if cap(e.pairs) <= maxPooledPairs && cap(e.keys) <= maxPooledPairs {
		encoderPool.Put(e)
	}
	if err != nil {
		if pe, ok := err.(*Error); ok {
			pe.finish()
		}
		return dst, err
	}
	return out, nil
}

// encoder holds the output and the scratch space for sorting keys, reused
// across calls through encoderPool so that steady-state encoding does not
// allocate.
type encoder struct {
	buf []byte
	// pairs and keys are stacks: each mapping being written owns the
	// entries it pushed above its parent's.
	pairs []pair
	keys  []string
	// scratch holds text AppendTyped formats before writing it.
	scratch []byte
}

type pair struct {
	k string
	v any
}

var encoderPool = sync.Pool{New: func() any { return new(encoder) }}

// context is what precedes a value on its line.
type context uint8

const (
	ctxTop      context = iota // nothing: the document root
	ctxMapValue                // "key:"
	ctxSeqItem                 // "- "
)

// value writes v, which belongs at column col: the column of its key, of
// its dash, or 0 at the top.
func (e *encoder) value(v any, col int, ctx context, depth int) error {
	switch v := v.(type) {
	case nil:
		e.scalar("null", ctx)
	case string:
		return e.str(v, col, ctx)
	case bool:
		e.scalar(strconv.FormatBool(v), ctx)
	case float64:
		return e.float(v, ctx)
	case json.Number:
		if err := checkNumber(v); err != nil {
			return err
		}
		if v == "" {
			v = "0" // as encoding/json writes it
		}
		e.scalar(string(v), ctx)
	case int:
		e.int(int64(v), ctx)
	case int64:
		e.int(v, ctx)
	case uint64:
		e.uint(v, ctx)
	case map[string]any:
		switch {
		case v == nil:
			e.scalar("null", ctx)
		case len(v) == 0:
			e.scalar("{}", ctx)
		case depth >= maxDepth:
			return errTooDeep()
		default:
			return e.mapping(v, col, ctx, depth)
		}
	case []any:
		switch {
		case v == nil:
			e.scalar("null", ctx)
		case len(v) == 0:
			e.scalar("[]", ctx)
		case depth >= maxDepth:
			return errTooDeep()
		default:
			return e.sequence(v, col, ctx, depth)
		}
	case map[string]string:
		switch {
		case v == nil:
			e.scalar("null", ctx)
		case len(v) == 0:
			e.scalar("{}", ctx)
		default:
			return e.stringMapping(v, col, ctx)
		}
	case []string:
		switch {
		case v == nil:
			e.scalar("null", ctx)
		case len(v) == 0:
			e.scalar("[]", ctx)
		default:
			return e.stringSequence(v, col, ctx)
		}
	default:
		return &Error{Reason: fmt.Sprintf("unsupported type %T", v)}
	}
	return nil
}

// float writes a number as encoding/json does; JSON has no NaN or
// infinity.
func (e *encoder) float(f float64, ctx context) error {
	if math.IsNaN(f) || math.IsInf(f, 0) {
		return &Error{Reason: "unsupported float64 value " + strconv.FormatFloat(f, 'g', -1, 64)}
	}
	e.space(ctx)
	e.buf = appendFloat(e.buf, f)
	e.buf = append(e.buf, '\n')
	return nil
}

// int and uint write an integer and end the line.
func (e *encoder) int(i int64, ctx context) {
	e.space(ctx)
	e.buf = strconv.AppendInt(e.buf, i, 10)
	e.buf = append(e.buf, '\n')
}

func (e *encoder) uint(u uint64, ctx context) {
	e.space(ctx)
	e.buf = strconv.AppendUint(e.buf, u, 10)
	e.buf = append(e.buf, '\n')
}

// space separates a scalar from the "key:" before it.
func (e *encoder) space(ctx context) {
	if ctx == ctxMapValue {
		e.buf = append(e.buf, ' ')
	}
}

// scalar writes text that needs no quoting and ends the line.
func (e *encoder) scalar(text string, ctx context) {
	e.space(ctx)
	e.buf = append(e.buf, text...)
	e.buf = append(e.buf, '\n')
}

func (e *encoder) str(s string, col int, ctx context) error {
	st, err := analyze(s, false)
	if err != nil {
		return &Error{Reason: err.Error()}
	}
	e.space(ctx)
	// Block scalar lines go two columns right of the key or dash.
	e.buf = appendString(e.buf, s, st, col+2)
	if st != styleLiteral {
		e.buf = append(e.buf, '\n')
	}
	return nil
}

// open ends the current line if needed before a non-empty collection and
// returns the column of the collection's entries and whether the first entry
// goes on the current line.
func (e *encoder) open(col int, ctx context, isMap bool) (int, bool) {
	switch ctx {
	case ctxMapValue:
		e.buf = append(e.buf, '\n')
		if isMap {
			return col + 2, false
		}
		// kubectl style: a sequence is not indented under its key.
		return col, false
	case ctxSeqItem:
		// Compact form: "- k: v" and "- - a".
		return col + 2, true
	}
	return 0, false
}

func (e *encoder) mapping(m map[string]any, col int, ctx context, depth int) error {
	col, inline := e.open(col, ctx, true)
	start := len(e.pairs)
	for k, v := range m {
		e.pairs = append(e.pairs, pair{k, v})
	}
	end := len(e.pairs)
	slices.SortFunc(e.pairs[start:end], func(a, b pair) int { return strings.Compare(a.k, b.k) })
	var err error
	for i := start; i < end; i++ {
		// Index e.pairs afresh: nested mappings may have grown it.
		p := e.pairs[i]
		if err = e.key(p.k, col, inline && i == start); err != nil {
			err = withKey(err, p.k)
			break
		}
		if err = e.value(p.v, col, ctxMapValue, depth+1); err != nil {
			err = withKey(err, p.k)
			break
		}
	}
	// Drop the references so the pooled encoder does not keep the
	// caller's values alive.
	clear(e.pairs[start:end])
	e.pairs = e.pairs[:start]
	return err
}

func (e *encoder) stringMapping(m map[string]string, col int, ctx context) error {
	col, inline := e.open(col, ctx, true)
	start := len(e.keys)
	for k := range m {
		e.keys = append(e.keys, k)
	}
	end := len(e.keys)
	slices.Sort(e.keys[start:end])
	var err error
	for i := start; i < end; i++ {
		k := e.keys[i]
		if err = e.key(k, col, inline && i == start); err != nil {
			err = withKey(err, k)
			break
		}
		if err = e.str(m[k], col, ctxMapValue); err != nil {
			err = withKey(err, k)
			break
		}
	}
	clear(e.keys[start:end])
	e.keys = e.keys[:start]
	return err
}

// key writes a mapping key at column col, or on the current line if inline,
// followed by the ':' indicator.
func (e *encoder) key(k string, col int, inline bool) error {
	st, err := analyze(k, true)
	if err != nil {
		return &Error{Reason: "key: " + err.Error()}
	}
	if !inline {
		e.buf = appendIndent(e.buf, col)
	}
	start := len(e.buf)
	e.buf = appendString(e.buf, k, st, 0)
	if len(e.buf)-start <= maxImplicitKey {
		e.buf = append(e.buf, ':')
		return nil
	}
	// Too long for an implicit key: use the explicit "? key\n: value"
	// form. This is rare enough that shifting the key costs nothing.
	e.buf = slices.Insert(e.buf, start, '?', ' ')
	e.buf = append(e.buf, '\n')
	e.buf = appendIndent(e.buf, col)
	e.buf = append(e.buf, ':')
	return nil
}

func (e *encoder) sequence(s []any, col int, ctx context, depth int) error {
	col, inline := e.open(col, ctx, false)
	for i, v := range s {
		e.dash(col, inline && i == 0)
		if err := e.value(v, col, ctxSeqItem, depth+1); err != nil {
			return withIndex(err, i)
		}
	}
	return nil
}

func (e *encoder) stringSequence(s []string, col int, ctx context) error {
	col, inline := e.open(col, ctx, false)
	for i, v := range s {
		e.dash(col, inline && i == 0)
		if err := e.str(v, col, ctxSeqItem); err != nil {
			return withIndex(err, i)
		}
	}
	return nil
}

func (e *encoder) dash(col int, inline bool) {
	if !inline {
		e.buf = appendIndent(e.buf, col)
	}
	e.buf = append(e.buf, '-', ' ')
}

// appendFloat formats f as encoding/json does: the shortest representation
// that round-trips, in exponent form only for very large or small values.
func appendFloat(dst []byte, f float64) []byte {
	abs := math.Abs(f)
	format := byte('f')
	if abs != 0 && (abs < 1e-6 || abs >= 1e21) {
		format = 'e'
	}
	start := len(dst)
	dst = strconv.AppendFloat(dst, f, format, -1, 64)
	if format == 'e' {
		// Clean up e-09 to e-9, as encoding/json does.
		if n := len(dst) - start; n >= 4 && dst[len(dst)-4] == 'e' && dst[len(dst)-3] == '-' && dst[len(dst)-2] == '0' {
			dst[len(dst)-2] = dst[len(dst)-1]
			dst = dst[:len(dst)-1]
		}
	}
	return dst
}

// checkNumber rejects a json.Number that YAML parsers would not read back
// as a number: one that is not a JSON number literal or is beyond float64.
func checkNumber(n json.Number) error {
	s := string(n)
	if s == "" {
		return nil
	}
	valid, exponent := scanNumber(s)
	if !valid {
		return &Error{Reason: "invalid json.Number " + strconv.Quote(s)}
	}
	// Without an exponent, a literal needs over 300 digits to overflow.
	if exponent || len(s) > 300 {
		if _, err := strconv.ParseFloat(s, 64); err != nil {
			return &Error{Reason: "json.Number " + s + " overflows float64"}
		}
	}
	return nil
}

// scanNumber reports whether s matches the JSON number grammar and whether
// it has an exponent.
func scanNumber(s string) (valid, exponent bool) {
	i := 0
	if i < len(s) && s[i] == '-' {
		i++
	}
	switch {
	case i < len(s) && s[i] == '0':
		i++
	case i < len(s) && '1' <= s[i] && s[i] <= '9':
		for i < len(s) && isDigit(s[i]) {
			i++
		}
	default:
		return false, false
	}
	if i < len(s) && s[i] == '.' {
		i++
		if i == len(s) || !isDigit(s[i]) {
			return false, false
		}
		for i < len(s) && isDigit(s[i]) {
			i++
		}
	}
	if i < len(s) && (s[i] == 'e' || s[i] == 'E') {
		exponent = true
		i++
		if i < len(s) && (s[i] == '+' || s[i] == '-') {
			i++
		}
		if i == len(s) || !isDigit(s[i]) {
			return false, false
		}
		for i < len(s) && isDigit(s[i]) {
			i++
		}
	}
	return i == len(s), exponent
}
