package policy

import (
	"fmt"
	"math/big"
	"strings"
	"sync"

	"github.com/open-policy-agent/opa/v1/ast"
	"github.com/open-policy-agent/opa/v1/topdown"
)

// Bounds on what one call of a built-in may make. OPA's built-ins run to
// the end once called, whatever the time limit, and allocate what they are
// asked for: numbers.range(1, 3e9) takes gigabytes before the evaluator
// can look at its deadline. The built-ins below check their arguments
// before they run and their results after; a call over a bound stops the
// site's evaluation with a policy.error finding that names the built-in,
// the bound, and the policy's file and line.
const (
	// maxBuiltinString is the longest string a built-in may return.
	maxBuiltinString = 4 << 20
	// maxBuiltinElements is the largest array, set or object a built-in
	// may return.
	maxBuiltinElements = 1 << 20
	// maxPattern is the longest glob or regular expression: they are
	// compiled recursively.
	maxPattern = 4096
)

// argChecks are the checks made before a built-in runs, by name; every
// built-in named here has its results checked too.
var argChecks = map[string]func(args []*ast.Term) error{
	"numbers.range":      func(a []*ast.Term) error { return rangeCheck(a[0], a[1], nil) },
	"numbers.range_step": func(a []*ast.Term) error { return rangeCheck(a[0], a[1], a[2]) },
	"concat":             concatCheck,
	"array.concat": func(a []*ast.Term) error {
		return elements(collLen(a[0]) + collLen(a[1]))
	},
	"replace":                          func(a []*ast.Term) error { return replaceCheck(a[0], a[1], a[2]) },
	"strings.replace_n":                replaceNCheck,
	"regex.replace":                    func(a []*ast.Term) error { return regexReplaceCheck(a[0], a[1], a[2]) },
	"glob.match":                       patternCheck(0),
	"glob.quote_meta":                  nil,
	"regex.match":                      patternCheck(0),
	"regex.is_valid":                   patternCheck(0),
	"regex.split":                      patternCheck(0),
	"regex.find_n":                     patternCheck(0),
	"regex.template_match":             patternCheck(0),
	"regex.find_all_string_submatch_n": patternCheck(0),
	"regex.globs_match":                patternCheck(0, 1),
	"sprintf":                          nil,
	"format_int":                       nil,
	"json.marshal":                     nil,
	"json.marshal_with_options":        nil,
	"yaml.marshal":                     nil,
	"json.unmarshal":                   nil,
	"yaml.unmarshal":                   nil,
	"base64.decode":                    nil,
	"base64url.decode":                 nil,
	"hex.decode":                       nil,
	"urlquery.decode":                  nil,
	"urlquery.encode_object":           nil,
	"union":                            nil,
	"object.union_n":                   nil,
	"json.patch":                       nil,
	"split":                            nil,
	"strings.reverse":                  nil,
	"walk":                             nil,
}

// installLimits wraps the built-ins of argChecks, once for the process:
// OPA keeps its built-in implementations in one table.
var installLimits = sync.OnceFunc(func() {
	for name, check := range argChecks {
		inner := topdown.GetBuiltin(name)
		if inner == nil {
			continue
		}
		topdown.RegisterBuiltinFunc(name, func(bctx topdown.BuiltinContext, args []*ast.Term, iter func(*ast.Term) error) error {
			if check != nil {
				if err := check(args); err != nil {
					return overLimit(bctx.Location, name, err)
				}
			}
			// The callback keeps the location only: capturing bctx would
			// move the whole context to the heap at every call.
			loc := bctx.Location
			return inner(bctx, args, func(t *ast.Term) error {
				if err := resultCheck(t); err != nil {
					return overLimit(loc, name, err)
				}
				return iter(t)
			})
		})
	}
})

// overLimit stops the evaluation (a Halt, not an undefined expression that
// would let the rule pass silently).
func overLimit(loc *ast.Location, name string, err error) error {
	return topdown.Halt{Err: &topdown.Error{Code: topdown.BuiltinErr, Location: loc,
		Message: fmt.Sprintf("%s: %v: siteops bounds what one built-in call may make (docs/policy.md, Sandbox)", name, err)}}
}

func resultCheck(t *ast.Term) error {
	switch v := t.Value.(type) {
	case ast.String:
		if len(v) > maxBuiltinString {
			return fmt.Errorf("the result is a string of %d bytes, over the %d-byte limit", len(v), maxBuiltinString)
		}
	case *ast.Array, ast.Set, ast.Object:
		return elements(collLen(t))
	}
	return nil
}

func elements(n int) error {
	if n > maxBuiltinElements {
		return fmt.Errorf("the result would have %d elements, over the limit of %d", n, maxBuiltinElements)
	}
	return nil
}

func collLen(t *ast.Term) int {
	switch v := t.Value.(type) {
	case *ast.Array:
		return v.Len()
	case ast.Set:
		return v.Len()
	case ast.Object:
		return v.Len()
	case ast.String:
		return len(v)
	}
	return 0
}

func termString(t *ast.Term) string {
	s, _ := t.Value.(ast.String)
	return string(s)
}

func rangeCheck(from, to, step *ast.Term) error {
	a, ok1 := bigOf(from)
	b, ok2 := bigOf(to)
	if !ok1 || !ok2 {
		return nil // OPA reports the type error
	}
	n := new(big.Int).Sub(b, a)
	n.Abs(n)
	if step != nil {
		if s, ok := bigOf(step); ok && s.Sign() > 0 {
			n.Quo(n, s)
		}
	}
	if !n.IsInt64() || n.Int64() >= maxBuiltinElements {
		return fmt.Errorf("the range from %v to %v has more than %d numbers", from, to, maxBuiltinElements)
	}
	return nil
}

func bigOf(t *ast.Term) (*big.Int, bool) {
	n, ok := t.Value.(ast.Number)
	if !ok {
		return nil, false
	}
	b, ok := new(big.Int).SetString(string(n), 10)
	return b, ok
}

func concatCheck(a []*ast.Term) error {
	delim := len(termString(a[0]))
	total := 0
	add := func(x *ast.Term) {
		total += len(termString(x)) + delim
	}
	switch v := a[1].Value.(type) {
	case *ast.Array:
		v.Foreach(add)
	case ast.Set:
		v.Foreach(add)
	}
	if total > maxBuiltinString {
		return fmt.Errorf("the result would be %d bytes long, over the %d-byte limit", total, maxBuiltinString)
	}
	return nil
}

// replaceCheck bounds replace(s, old, new): each of the matches of old
// (every position, when old is empty) grows s by len(new)-len(old).
func replaceCheck(s, old, repl *ast.Term) error {
	return grownCheck(termString(s), termString(old), termString(repl))
}

func grownCheck(s, old, repl string) error {
	if len(repl) <= len(old) {
		return nil
	}
	n := len(s) + 1
	if old != "" {
		n = strings.Count(s, old)
	}
	if size := len(s) + n*(len(repl)-len(old)); size > maxBuiltinString || size < 0 {
		return fmt.Errorf("the result would be %d bytes long, over the %d-byte limit", size, maxBuiltinString)
	}
	return nil
}

func replaceNCheck(a []*ast.Term) error {
	obj, ok := a[0].Value.(ast.Object)
	if !ok {
		return nil
	}
	s := termString(a[1])
	var err error
	obj.Foreach(func(k, v *ast.Term) {
		if err == nil {
			err = grownCheck(s, termString(k), termString(v))
		}
	})
	return err
}

// regexReplaceCheck bounds regex.replace(s, pattern, repl): at most one
// match per position of s, each replaced by repl, whose every "$"
// reference copies at most all of s.
func regexReplaceCheck(s, pattern, repl *ast.Term) error {
	if err := patternCheck(0)([]*ast.Term{pattern}); err != nil {
		return err
	}
	n, r := float64(len(termString(s))), termString(repl)
	size := n + (n+1)*(float64(len(r))+float64(strings.Count(r, "$"))*n)
	if r != "" && size > maxBuiltinString {
		return fmt.Errorf("the result could be %.0f bytes long, over the %d-byte limit", size, maxBuiltinString)
	}
	return nil
}

func patternCheck(idx ...int) func(a []*ast.Term) error {
	return func(a []*ast.Term) error {
		for _, i := range idx {
			if n := len(termString(a[i])); n > maxPattern {
				return fmt.Errorf("the pattern is %d bytes long, over the %d-byte limit", n, maxPattern)
			}
		}
		return nil
	}
}
