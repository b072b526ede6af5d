package tomap

import (
	"reflect"
	"slices"
	"strings"
	"sync"
	"time"
)

// Key is one key of the object a struct type converts to, for a writer
// that walks a typed value itself instead of building the map Convert
// gives (internal/yamlenc's AppendTyped).
type Key struct {
	// index leads from the struct to the field through the structs
	// inlined on the way; f is how the field is written.
	index []int
	f     field
}

// Name is the key.
func (k *Key) Name() string { return k.f.name }

// Facts are those of the type of the key's field.
func (k *Key) Facts() Facts { return k.f.info.facts() }

// Field returns the field of v, a struct of the type Keys was given, that
// holds the key's value.
func (k *Key) Field(v reflect.Value) reflect.Value { return v.FieldByIndex(k.index) }

// Omitted reports whether the key is left out for the field value fv, by
// omitempty or omitzero.
func (k *Key) Omitted(fv reflect.Value) bool { return k.f.omitted(fv) }

// keyLists caches Keys: reflect.Type -> keyList.
var keyLists sync.Map

type keyList struct {
	keys []Key
	ok   bool
}

// Keys returns the keys of the object a value of struct type t converts
// to (shared: the caller must not modify them), sorted bytewise as the
// map's keys are written, with the fields of inlined structs in place. ok is false when the keys depend on the
// value: a struct inlined through a pointer, which may be nil, or two
// fields that write the same key (the later one wins in the map). Such a
// value goes through Convert.
func Keys(t reflect.Type) (keys []Key, ok bool) {
	if l, found := keyLists.Load(t); found {
		l := l.(keyList)
		return l.keys, l.ok
	}
	var l keyList
	l.ok = flatKeys(t, nil, &l.keys)
	slices.SortStableFunc(l.keys, func(a, b Key) int { return strings.Compare(a.f.name, b.f.name) })
	for i := 1; l.ok && i < len(l.keys); i++ {
		l.ok = l.keys[i].f.name != l.keys[i-1].f.name
	}
	if !l.ok {
		l.keys = nil
	}
	keyLists.Store(t, l)
	return l.keys, l.ok
}

// flatKeys appends the keys structInto writes for a struct of type t,
// whose place is at index, and reports whether they are the same for
// every value.
func flatKeys(t reflect.Type, index []int, keys *[]Key) bool {
	for _, f := range layout(t) {
		at := append(slices.Clip(index), f.index)
		if f.inline {
			ft := t.Field(f.index).Type
			if ft.Kind() == reflect.Pointer {
				return false
			}
			if ft.Kind() == reflect.Struct {
				if !flatKeys(ft, at, keys) {
					return false
				}
				continue
			}
		}
		*keys = append(*keys, Key{index: at, f: f})
	}
	return true
}

// Facts are what a writer walking typed values needs to know of a type,
// worked out once per type.
type Facts struct {
	// Time: the type is time.Time or a pointer to it; AppendTime writes
	// it.
	Time bool
	// Marshals: values of the type are converted through their own
	// MarshalJSON (or that of their pointer); the writer hands them to
	// ConvertValue.
	Marshals bool
	// StringMap: the type is a map of strings, or defined as one, and
	// does not marshal itself; Strings gives its value as the map of
	// strings Convert writes.
	StringMap bool
}

// FactsOf returns the facts of type t.
func FactsOf(t reflect.Type) Facts { return infoOf(t).facts() }

func (i typeInfo) facts() Facts {
	// A named pointer to time.Time has no methods: Convert writes it as
	// the struct it points at.
	marshals := i.marshaler || i.ptrMarshaler
	return Facts{Time: i.time && i.marshaler, Marshals: marshals, StringMap: i.stringMap && !marshals}
}

// Strings returns v, a value of a type whose Facts say StringMap, as a
// map of strings, without copying it.
func Strings(v reflect.Value) map[string]string {
	return v.Convert(stringMapType).Interface().(map[string]string)
}

// AppendTime appends the text Convert gives for v, a time.Time or a
// non-nil pointer to one. It is false for a year MarshalJSON refuses:
// ConvertValue gives the error.
func AppendTime(dst []byte, v reflect.Value) ([]byte, bool) {
	var tm *time.Time
	switch {
	case v.Kind() == reflect.Pointer:
		tm = v.Interface().(*time.Time)
	case v.CanAddr():
		tm = v.Addr().Interface().(*time.Time)
	default:
		t := v.Interface().(time.Time)
		tm = &t
	}
	if y := tm.Year(); y < 0 || y > 9999 {
		return dst, false
	}
	return tm.AppendFormat(dst, time.RFC3339Nano), true
}

// ConvertValue is Convert for a reflect.Value.
func ConvertValue(v reflect.Value) (any, error) { return value(v) }
