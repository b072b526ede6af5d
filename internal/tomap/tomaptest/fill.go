// Package tomaptest fills typed values at random, for the tests that hold
// a writer of typed values (tomap.Convert, yamlenc.AppendTyped) to another
// one on every field a type has.
package tomaptest

import (
	"encoding/json"
	"math/rand/v2"
	"reflect"
	"time"
)

var (
	marshalerType = reflect.TypeFor[json.Marshaler]()
	timeType      = reflect.TypeFor[time.Time]()
)

// Words are the strings Fill picks from: empty, plain, and ones YAML
// would read as something else unless quoted.
var Words = []string{"", "a", "true", "0644", "x y", "redfish://h/x", "é", "- a", "line\nnext", "2026-01-02"}

// Fill sets v to random values: about half of the fields, pointers and
// collections left empty, so that both sides of omitempty are taken.
// A time.Time gets a random instant, with or without nanoseconds; other
// types that marshal themselves are left zero (a random RawExtension is
// no JSON).
func Fill(rng *rand.Rand, v reflect.Value) { fill(rng, v, 0) }

func fill(rng *rand.Rand, v reflect.Value, depth int) {
	if depth > 12 || !v.CanSet() || rng.IntN(2) == 0 {
		return
	}
	t := v.Type()
	if t == timeType {
		v.Set(reflect.ValueOf(time.Unix(rng.Int64N(4e9), rng.Int64N(2)*rng.Int64N(1e9)).UTC()))
		return
	}
	if t.Implements(marshalerType) || reflect.PointerTo(t).Implements(marshalerType) {
		return
	}
	switch v.Kind() {
	case reflect.Pointer:
		v.Set(reflect.New(t.Elem()))
		fill(rng, v.Elem(), depth+1)
	case reflect.Struct:
		for i := range v.NumField() {
			fill(rng, v.Field(i), depth+1)
		}
	case reflect.Slice:
		if t.Elem().Kind() == reflect.Uint8 {
			v.SetBytes([]byte(Words[rng.IntN(len(Words))]))
			return
		}
		s := reflect.MakeSlice(t, rng.IntN(3), 3)
		for i := range s.Len() {
			fill(rng, s.Index(i), depth+1)
		}
		v.Set(s)
	case reflect.Array:
		for i := range v.Len() {
			fill(rng, v.Index(i), depth+1)
		}
	case reflect.Map:
		m := reflect.MakeMap(t)
		for range rng.IntN(3) {
			k := reflect.New(t.Key()).Elem()
			k.SetString(Words[rng.IntN(len(Words))])
			e := reflect.New(t.Elem()).Elem()
			fill(rng, e, depth+1)
			m.SetMapIndex(k, e)
		}
		v.Set(m)
	case reflect.Interface:
		if t.NumMethod() == 0 {
			v.Set(reflect.ValueOf(anyValue(rng)))
		}
	case reflect.String:
		v.SetString(Words[rng.IntN(len(Words))])
	case reflect.Bool:
		v.SetBool(true)
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64:
		v.SetInt(int64(rng.IntN(200) - 100))
	case reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64:
		v.SetUint(uint64(rng.IntN(200)))
	case reflect.Float32, reflect.Float64:
		v.SetFloat(float64(rng.IntN(2000)) / 8)
	}
}

// item is a struct an interface field may hold.
type item struct {
	Name  string `json:"name"`
	Count int    `json:"count,omitempty"`
}

// anyValue is a value for a field of type any: a JSON value, a struct, or
// a pointer to one.
func anyValue(rng *rand.Rand) any {
	w := Words[rng.IntN(len(Words))]
	switch rng.IntN(6) {
	case 0:
		return w
	case 1:
		return rng.IntN(100)
	case 2:
		return []any{w, true, nil}
	case 3:
		return map[string]any{w: 1.5}
	case 4:
		return item{Name: w, Count: rng.IntN(3)}
	}
	return &item{Name: w}
}
