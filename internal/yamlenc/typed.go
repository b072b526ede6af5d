package yamlenc

import (
	"math"
	"reflect"
	"strconv"
	"unsafe"

	"github.com/siteops/siteops/internal/tomap"
)

// AppendTyped appends to dst the bytes Append appends for the value
// tomap.Convert gives for v, without building that value: structs are
// written field by field in the order of their keys. Types with a JSON
// form of their own (other than time.Time), maps, []byte and structs
// whose keys depend on the value still go through tomap.Convert. On
// error it returns dst unchanged in length and an error naming the path
// of the value it could not write.
//
// It exists for the loop's status documents and the rendered objects:
// building tens of thousands of maps only to sort and write them was
// most of their cost.
func AppendTyped(dst []byte, v any) ([]byte, error) { return AppendTypedPruned(dst, v, nil) }

// AppendTypedPruned is AppendTyped for the value tomap.Convert gives for
// v once p.Apply has pruned it. Only the fields p asks a Drop about are
// converted, to be asked.
func AppendTypedPruned(dst []byte, v any, p *tomap.Prune) ([]byte, error) {
	return run(dst, func(e *encoder) error {
		rv := reflect.ValueOf(v)
		if !rv.IsValid() {
			e.scalar("null", ctxTop)
			return nil
		}
		return e.typed(rv, tomap.FactsOf(rv.Type()), 0, ctxTop, 0, p)
	})
}

// typed writes v, a valid value whose type has the facts f.
func (e *encoder) typed(v reflect.Value, f tomap.Facts, col int, ctx context, depth int, p *tomap.Prune) error {
	t := v.Type()
	if f.Time {
		if v.Kind() == reflect.Pointer && v.IsNil() {
			e.scalar("null", ctx)
			return nil
		}
		text, ok := tomap.AppendTime(e.scratch[:0], v)
		if !ok {
			return e.converted(v, col, ctx, depth, p)
		}
		e.scratch = text
		// str copies the text into the output before scratch is
		// used again.
		return e.str(unsafe.String(unsafe.SliceData(text), len(text)), col, ctx)
	}
	if f.Marshals {
		return e.converted(v, col, ctx, depth, p)
	}
	switch v.Kind() {
	case reflect.Pointer, reflect.Interface:
		if v.IsNil() {
			e.scalar("null", ctx)
			return nil
		}
		elem := v.Elem()
		return e.typed(elem, tomap.FactsOf(elem.Type()), col, ctx, depth, p)
	case reflect.Struct:
		return e.object(v, col, ctx, depth, p)
	case reflect.Map:
		if p == nil && f.StringMap && v.CanInterface() {
			// Labels and annotations: written as the map of strings
			// they convert to, without building it.
			return e.value(tomap.Strings(v), col, ctx, depth)
		}
	case reflect.Slice:
		if v.IsNil() {
			e.scalar("null", ctx)
			return nil
		}
		if t.Elem().Kind() == reflect.Uint8 {
			return e.converted(v, col, ctx, depth, p)
		}
		return e.list(v, col, ctx, depth)
	case reflect.Array:
		return e.list(v, col, ctx, depth)
	case reflect.String:
		return e.str(v.String(), col, ctx)
	case reflect.Bool:
		e.scalar(strconv.FormatBool(v.Bool()), ctx)
		return nil
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64:
		e.int(v.Int(), ctx)
		return nil
	case reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64:
		if v.Uint() > math.MaxInt64 {
			return e.converted(v, col, ctx, depth, p) // for tomap's error
		}
		e.uint(v.Uint(), ctx)
		return nil
	case reflect.Float32, reflect.Float64:
		return e.float(v.Float(), ctx)
	}
	return e.converted(v, col, ctx, depth, p)
}

// converted writes what tomap.Convert gives for v, pruned by p.
func (e *encoder) converted(v reflect.Value, col int, ctx context, depth int, p *tomap.Prune) error {
	c, err := tomap.ConvertValue(v)
	if err != nil {
		return &Error{Reason: err.Error()}
	}
	return e.value(p.Apply(c), col, ctx, depth)
}

// object writes a struct as the mapping of its keys, "{}" when every
// field is left out.
func (e *encoder) object(v reflect.Value, col int, ctx context, depth int, p *tomap.Prune) error {
	keys, ok := tomap.Keys(v.Type())
	if !ok {
		return e.converted(v, col, ctx, depth, p)
	}
	inner, first := 0, false
	opened := false
	for i := range keys {
		k := &keys[i]
		fv := k.Field(v)
		if k.Omitted(fv) {
			continue
		}
		// value is the key's value when it is known as a JSON-compatible
		// value: replaced, or converted for Drop to look at.
		var below *tomap.Prune
		var value any
		known := false
		if p != nil {
			if below = p.Keys[k.Name()]; below != nil {
				switch {
				case below.Omit:
					continue
				case below.Replace:
					value, known = below.Value, true
				case below.Drop != nil:
					c, err := tomap.ConvertValue(fv)
					if err != nil {
						return withKey(&Error{Reason: err.Error()}, k.Name())
					}
					if value, known = below.Apply(c), true; below.Drop(value) {
						continue
					}
				}
			}
		}
		if !opened {
			if depth >= maxDepth {
				return errTooDeep()
			}
			inner, first = e.open(col, ctx, true)
			opened = true
		}
		if err := e.key(k.Name(), inner, first); err != nil {
			return withKey(err, k.Name())
		}
		first = false
		var err error
		if known {
			err = e.value(value, inner, ctxMapValue, depth+1)
		} else {
			err = e.typed(fv, k.Facts(), inner, ctxMapValue, depth+1, below)
		}
		if err != nil {
			return withKey(err, k.Name())
		}
	}
	if !opened {
		e.scalar("{}", ctx)
	}
	return nil
}

// list writes a slice or an array as a sequence.
func (e *encoder) list(v reflect.Value, col int, ctx context, depth int) error {
	n := v.Len()
	if n == 0 {
		e.scalar("[]", ctx)
		return nil
	}
	if depth >= maxDepth {
		return errTooDeep()
	}
	f := tomap.FactsOf(v.Type().Elem())
	col, inline := e.open(col, ctx, false)
	for i := range n {
		e.dash(col, inline && i == 0)
		if err := e.typed(v.Index(i), f, col, ctxSeqItem, depth+1, nil); err != nil {
			return withIndex(err, i)
		}
	}
	return nil
}
