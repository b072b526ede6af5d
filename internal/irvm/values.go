package irvm

import (
	"unicode/utf8"

	"github.com/open-policy-agent/opa/v1/ast"
)

// get is the element of a collection at a key: an object's value, an
// array's element at an integer index, a set's member itself. nil when
// there is none or x is no collection.
func get(x, key *ast.Term) *ast.Term {
	if x == nil || key == nil {
		return nil
	}
	switch c := x.Value.(type) {
	case ast.Object:
		return c.Get(key)
	case *ast.Array:
		return c.Get(key)
	case ast.Set:
		if c.Contains(key) {
			return key
		}
	}
	return nil
}

// equal compares as Rego's == does (1 equals 1.0); an undefined operand
// equals nothing.
func equal(a, b *ast.Term) bool {
	if a == nil || b == nil {
		return false
	}
	if a == b {
		return true
	}
	return a.Value.Compare(b.Value) == 0
}

// length is the number of elements of a collection, or of characters of a
// string.
func length(x *ast.Term) (int, bool) {
	if x == nil {
		return 0, false
	}
	switch c := x.Value.(type) {
	case *ast.Array:
		return c.Len(), true
	case ast.Object:
		return c.Len(), true
	case ast.Set:
		return c.Len(), true
	case ast.String:
		return utf8.RuneCountInString(string(c)), true
	}
	return 0, false
}

func isArray(x *ast.Term) bool {
	_, ok := x.Value.(*ast.Array)
	return ok
}

func isObject(x *ast.Term) bool {
	_, ok := x.Value.(ast.Object)
	return ok
}

func isSet(x *ast.Term) bool {
	_, ok := x.Value.(ast.Set)
	return ok
}
