// Package tomap converts typed Go API objects into the JSON-compatible
// values encoding/json would produce (map[string]any, []any, string, bool,
// int64, float64, nil) without going through JSON text.
//
// It exists for speed: rendering a fleet converts hundreds of thousands of
// typed objects, and runtime.DefaultUnstructuredConverter or a JSON round
// trip spend most of their time rediscovering the same struct layouts. Here
// each type's layout is worked out once and cached. The result follows
// encoding/json's rules: json tag names, omitempty (false, 0, "", nil and
// empty slices and maps; never structs), ",inline" and anonymous struct
// embedding, omitzero, "-" to skip. A type with its own MarshalJSON (metav1.Time,
// intstr.IntOrString, runtime.RawExtension, ...) is converted through that
// method, so its JSON form is respected.
package tomap

import (
	"bytes"
	"encoding/json"
	"fmt"
	"math"
	"reflect"
	"strings"
	"sync"
	"time"
)

// Convert returns the JSON-compatible form of v. A struct or a pointer to
// one gives a map[string]any.
func Convert(v any) (any, error) {
	return value(reflect.ValueOf(v))
}

// Map is Convert for values that must give a JSON object.
func Map(v any) (map[string]any, error) {
	out, err := Convert(v)
	if err != nil {
		return nil, err
	}
	m, ok := out.(map[string]any)
	if !ok {
		return nil, fmt.Errorf("tomap: %T does not convert to an object", v)
	}
	return m, nil
}

// Object converts a top-level API object, leaving out its status: a
// rendered object is desired state, and status belongs to the server.
// Skipping it also skips the bulk of some types (a BareMetalHost's status
// is most of its layout).
func Object(v any) (map[string]any, error) {
	rv := reflect.ValueOf(v)
	for rv.Kind() == reflect.Pointer {
		if rv.IsNil() {
			return nil, fmt.Errorf("tomap: nil %T", v)
		}
		rv = rv.Elem()
	}
	if rv.Kind() != reflect.Struct {
		return nil, fmt.Errorf("tomap: %T is not a struct", v)
	}
	m := map[string]any{}
	if err := structInto(m, rv, "status"); err != nil {
		return nil, err
	}
	return m, nil
}

var marshalerType = reflect.TypeFor[json.Marshaler]()

func value(v reflect.Value) (any, error) {
	if !v.IsValid() {
		return nil, nil
	}
	return valueOf(v, infoOf(v.Type()))
}

// valueOf is value for a valid v whose type's facts the caller has.
func valueOf(v reflect.Value, info typeInfo) (any, error) {
	t := v.Type()
	if info.marshaler {
		if info.time {
			if s, ok := timeString(v); ok {
				return s, nil
			}
		}
		if (v.Kind() == reflect.Pointer || v.Kind() == reflect.Interface) && v.IsNil() {
			return nil, nil
		}
		return viaJSON(v.Interface())
	}
	if info.ptrMarshaler {
		if v.CanAddr() {
			return viaJSON(v.Addr().Interface())
		}
		p := reflect.New(t)
		p.Elem().Set(v)
		return viaJSON(p.Interface())
	}
	switch v.Kind() {
	case reflect.Pointer, reflect.Interface:
		if v.IsNil() {
			return nil, nil
		}
		return value(v.Elem())
	case reflect.Struct:
		m := map[string]any{}
		if err := structInto(m, v, ""); err != nil {
			return nil, err
		}
		return m, nil
	case reflect.Map:
		if v.IsNil() {
			return nil, nil
		}
		if t.Key().Kind() != reflect.String {
			return nil, fmt.Errorf("tomap: map key type %s is not a string", t.Key())
		}
		if info.stringMap && v.CanInterface() {
			// Labels and annotations: ranged over as Go strings, where
			// reflect's iterator copies every key and value to the heap.
			ss := Strings(v)
			m := make(map[string]any, len(ss))
			for k, s := range ss {
				m[k] = s
			}
			return m, nil
		}
		elem := infoOf(t.Elem())
		m := make(map[string]any, v.Len())
		iter := v.MapRange()
		for iter.Next() {
			e, err := elemValue(iter.Value(), elem)
			if err != nil {
				return nil, err
			}
			m[iter.Key().String()] = e
		}
		return m, nil
	case reflect.Slice:
		if v.IsNil() {
			return nil, nil
		}
		if t.Elem().Kind() == reflect.Uint8 {
			return viaJSON(v.Interface()) // []byte is base64 in JSON
		}
		fallthrough
	case reflect.Array:
		s := make([]any, v.Len())
		elem := infoOf(t.Elem())
		for i := range s {
			e, err := elemValue(v.Index(i), elem)
			if err != nil {
				return nil, err
			}
			s[i] = e
		}
		return s, nil
	case reflect.String:
		return v.String(), nil
	case reflect.Bool:
		return v.Bool(), nil
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64:
		return v.Int(), nil
	case reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64:
		u := v.Uint()
		if u > math.MaxInt64 {
			return nil, fmt.Errorf("tomap: %d overflows int64", u)
		}
		return int64(u), nil
	case reflect.Float32, reflect.Float64:
		return v.Float(), nil
	}
	return nil, fmt.Errorf("tomap: cannot convert %s", t)
}

// elemValue is value for an element of a map or slice whose element type
// has the facts info: an interface element holds values of any type.
func elemValue(v reflect.Value, info typeInfo) (any, error) {
	if v.Kind() == reflect.Interface {
		return value(v)
	}
	return valueOf(v, info)
}

// field is how one struct field is written.
type field struct {
	index     int
	name      string
	omitEmpty bool
	omitZero  bool
	inline    bool
	// info is the facts of the field's type.
	info typeInfo
}

// omitted reports whether the field is left out for its value fv, by
// omitempty or omitzero.
func (f *field) omitted(fv reflect.Value) bool {
	return f.omitEmpty && isEmpty(fv) || f.omitZero && isZero(fv)
}

var layouts sync.Map // reflect.Type -> []field

func layout(t reflect.Type) []field {
	if l, ok := layouts.Load(t); ok {
		return l.([]field)
	}
	var fields []field
	for i := 0; i < t.NumField(); i++ {
		sf := t.Field(i)
		tag := sf.Tag.Get("json")
		if tag == "-" {
			continue
		}
		name, opts, _ := strings.Cut(tag, ",")
		has := func(opt string) bool { return strings.Contains(","+opts+",", ","+opt+",") }
		f := field{index: i, name: name, omitEmpty: has("omitempty"), omitZero: has("omitzero"), inline: has("inline"), info: infoOf(sf.Type)}
		if sf.Anonymous && name == "" {
			f.inline = true
		}
		if !sf.IsExported() && !f.inline {
			continue
		}
		if f.name == "" {
			f.name = sf.Name
		}
		fields = append(fields, f)
	}
	layouts.Store(t, fields)
	return fields
}

// structInto writes v's fields into m, leaving out the field named skip.
func structInto(m map[string]any, v reflect.Value, skip string) error {
	for _, f := range layout(v.Type()) {
		if f.name == skip {
			continue
		}
		fv := v.Field(f.index)
		if f.inline {
			for fv.Kind() == reflect.Pointer {
				if fv.IsNil() {
					break
				}
				fv = fv.Elem()
			}
			if fv.Kind() == reflect.Struct {
				if err := structInto(m, fv, skip); err != nil {
					return err
				}
				continue
			}
		}
		if f.omitted(fv) {
			continue
		}
		var e any
		var err error
		if f.inline { // fv may be what the field points at
			e, err = value(fv)
		} else {
			e, err = elemValue(fv, f.info)
		}
		if err != nil {
			return fmt.Errorf("%s: %w", f.name, err)
		}
		m[f.name] = e
	}
	return nil
}

var isZeroerType = reflect.TypeFor[interface{ IsZero() bool }]()

// typeInfo is which methods of a type value and isZero look for, worked
// out once per type: asking reflect on every value was a fifth of the
// conversion.
type typeInfo struct {
	// marshaler: the type implements json.Marshaler; ptrMarshaler: it is
	// not a pointer and its pointer type does.
	marshaler, ptrMarshaler bool
	// zeroer and ptrZeroer: the same for IsZero() bool.
	zeroer, ptrZeroer bool
	// time: the type is time.Time or a pointer to it (timeString).
	time bool
	// stringMap: the type is a map of strings, or defined as one, whose
	// values do not marshal themselves (Strings).
	stringMap bool
}

var infos sync.Map // reflect.Type -> typeInfo

func infoOf(t reflect.Type) typeInfo {
	if i, ok := infos.Load(t); ok {
		return i.(typeInfo)
	}
	notPtr := t.Kind() != reflect.Pointer
	i := typeInfo{
		marshaler:    t.Implements(marshalerType),
		ptrMarshaler: notPtr && reflect.PointerTo(t).Implements(marshalerType),
		zeroer:       t.Implements(isZeroerType),
		ptrZeroer:    reflect.PointerTo(t).Implements(isZeroerType),
		time:         t == timeType || (!notPtr && t.Elem() == timeType),
	}
	if t.Kind() == reflect.Map && t.ConvertibleTo(stringMapType) {
		elem := infoOf(t.Elem())
		i.stringMap = !elem.marshaler && !elem.ptrMarshaler
	}
	infos.Store(t, i)
	return i
}

// isZero is encoding/json's omitzero test: the value's IsZero method if it
// has one, its Go zero value otherwise.
func isZero(v reflect.Value) bool {
	info := infoOf(v.Type())
	if info.zeroer {
		if v.Kind() == reflect.Pointer && v.IsNil() {
			return true
		}
		return v.Interface().(interface{ IsZero() bool }).IsZero()
	}
	if v.CanAddr() && info.ptrZeroer {
		return v.Addr().Interface().(interface{ IsZero() bool }).IsZero()
	}
	return v.IsZero()
}

// isEmpty is encoding/json's omitempty test.
func isEmpty(v reflect.Value) bool {
	switch v.Kind() {
	case reflect.Array, reflect.Map, reflect.Slice, reflect.String:
		return v.Len() == 0
	case reflect.Bool:
		return !v.Bool()
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64:
		return v.Int() == 0
	case reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64, reflect.Uintptr:
		return v.Uint() == 0
	case reflect.Float32, reflect.Float64:
		return v.Float() == 0
	case reflect.Interface, reflect.Pointer:
		return v.IsNil()
	}
	return false
}

var (
	timeType      = reflect.TypeFor[time.Time]()
	stringMapType = reflect.TypeFor[map[string]string]()
)

// timeString converts a time.Time (or a pointer to one) as its
// MarshalJSON does, RFC 3339 with nanoseconds, without the round trip
// through JSON text: status documents hold a time per event. Years
// MarshalJSON refuses are left to it, for its error.
func timeString(v reflect.Value) (any, bool) {
	if v.Kind() == reflect.Pointer {
		if v.IsNil() {
			return nil, true
		}
		v = v.Elem()
	}
	var text [40]byte
	b, ok := AppendTime(text[:0], v)
	if !ok {
		return nil, false
	}
	return string(b), true
}

// viaJSON converts a value that has its own JSON form.
func viaJSON(v any) (any, error) {
	raw, err := json.Marshal(v)
	if err != nil {
		return nil, err
	}
	if string(raw) == "null" {
		// An empty value (a RawExtension left unset, in every
		// NMStateConfig): no decoder and its buffer for it.
		return nil, nil
	}
	dec := json.NewDecoder(bytes.NewReader(raw))
	dec.UseNumber()
	var out any
	if err := dec.Decode(&out); err != nil {
		return nil, err
	}
	return numbers(out), nil
}

// numbers turns json.Number into int64 or float64.
func numbers(v any) any {
	switch t := v.(type) {
	case json.Number:
		if i, err := t.Int64(); err == nil {
			return i
		}
		f, _ := t.Float64()
		return f
	case map[string]any:
		for k, e := range t {
			t[k] = numbers(e)
		}
	case []any:
		for i, e := range t {
			t[i] = numbers(e)
		}
	}
	return v
}

// Copy deep-copies a JSON-compatible value (the result of Convert, or a
// decoded free-form document), so that the copy shares no map or list with
// the original. An int becomes an int64, as Convert gives them.
func Copy(v any) any {
	switch v := v.(type) {
	case map[string]any:
		out := make(map[string]any, len(v))
		for k, e := range v {
			out[k] = Copy(e)
		}
		return out
	case []any:
		out := make([]any, len(v))
		for i, e := range v {
			out[i] = Copy(e)
		}
		return out
	case int:
		return int64(v)
	}
	return v
}
