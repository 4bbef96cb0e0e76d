package protovalue

import (
	"fmt"
	"math"
	"strings"

	"github.com/trevni-go/trevni/internal/fieldpath"
	"github.com/trevni-go/trevni/internal/protosafe"
	"github.com/trevni-go/trevni/schema/protoschema"
	"google.golang.org/protobuf/proto"
	"google.golang.org/protobuf/reflect/protoreflect"
)

// ---- Avro → message ----

func (c *Converter) unmarshal(b []byte, m protoreflect.Message) error {
	return protosafe.Unmarshal(proto.UnmarshalOptions{Merge: true, AllowPartial: true, Resolver: c.resolver, RecursionLimit: c.recursion}, b, m.Interface())
}

func (c *Converter) fromRecord(r *protoschema.Record, in map[string]any, m protoreflect.Message) error {
	for i := range r.Fields {
		f := &r.Fields[i]
		v := in[f.Name]
		if v == nil {
			continue
		}
		if err := c.fromField(f, v, m); err != nil {
			return fieldpath.At(err, f.Name)
		}
	}
	if r.Unknown == "" {
		return nil
	}
	v := in[r.Unknown]
	if v == nil {
		return nil
	}
	b, err := asBytes(v)
	if err != nil {
		return fieldpath.At(err, r.Unknown)
	}
	if len(b) == 0 {
		return nil
	}
	if r.Desc.ExtensionRanges().Len() > 0 {
		// Parse, so that extensions the resolver knows become fields again.
		if err := c.unmarshal(b, m); err != nil {
			return fieldpath.At(err, r.Unknown)
		}
		return nil
	}
	m.SetUnknown(append(protoreflect.RawFields(nil), b...))
	return nil
}

func (c *Converter) fromField(f *protoschema.Field, v any, m protoreflect.Message) error {
	fd := f.Desc
	switch f.Shape {
	case protoschema.List:
		arr, ok := v.([]any)
		if !ok {
			return typeError("array", v)
		}
		if len(arr) == 0 {
			return nil
		}
		l := m.Mutable(fd).List()
		for i, e := range arr {
			var pv protoreflect.Value
			var err error
			if f.Record != nil || f.Serialized {
				pv = l.NewElement()
				err = c.fromMessage(f, e, pv.Message())
			} else {
				pv, err = fromScalar(fd, e)
			}
			if err != nil {
				return fieldpath.At(err, fieldpath.Index(i))
			}
			l.Append(pv)
		}
	case protoschema.Map:
		mv, ok := v.(map[string]any)
		if !ok {
			return typeError("map", v)
		}
		if len(mv) == 0 {
			return nil
		}
		mm := m.Mutable(fd).Map()
		kk := fd.MapKey().Kind()
		vd := f.Value
		for k, e := range mv {
			mk, err := protoschema.ParseMapKey(k, kk)
			if err != nil {
				return fieldpath.At(err, fieldpath.Key(k))
			}
			if f.Record != nil || f.Serialized {
				err = c.fromMessage(f, e, mm.Mutable(mk).Message())
			} else {
				var pv protoreflect.Value
				if pv, err = fromScalar(vd, e); err == nil {
					mm.Set(mk, pv)
				}
			}
			if err != nil {
				return fieldpath.At(err, fieldpath.Key(k))
			}
		}
	case protoschema.Optional:
		u, err := unwrap(f, v)
		if err != nil || u == nil {
			return err
		}
		if od := f.Oneof; od != nil {
			if other := m.WhichOneof(od); other != nil {
				return fmt.Errorf("oneof %s has both %s and %s set", od.Name(), other.Name(), fd.Name())
			}
		}
		if f.Record != nil || f.Serialized {
			return c.fromMessage(f, u, m.Mutable(fd).Message())
		}
		pv, err := fromScalar(fd, u)
		if err != nil {
			return err
		}
		m.Set(fd, pv)
	default:
		pv, err := fromScalar(fd, v)
		if err != nil {
			return err
		}
		if !isZero(fd.Kind(), pv) {
			m.Set(fd, pv)
		}
	}
	return nil
}

// unwrap returns the value in the union value v of a nullable field. A
// union's non-null value is a map with the branch name as its only key; a
// bare scalar is accepted too.
func unwrap(f *protoschema.Field, v any) (any, error) {
	u, ok := v.(map[string]any)
	if !ok {
		if f.Record != nil {
			return nil, typeError("union {"+f.Branch+": record}", v)
		}
		return v, nil
	}
	if len(u) == 1 {
		for k, e := range u {
			// A reader may qualify a name that has no namespace.
			if k == f.Branch || f.Record == nil || strings.HasSuffix(k, "."+f.Branch) {
				return e, nil
			}
		}
	}
	return nil, fmt.Errorf("want union {%q: value} or null, have map with %d keys", f.Branch, len(u))
}

func (c *Converter) fromMessage(f *protoschema.Field, v any, m protoreflect.Message) error {
	if f.Serialized {
		b, err := asBytes(v)
		if err != nil {
			return err
		}
		return c.unmarshal(b, m)
	}
	rec, ok := v.(map[string]any)
	if !ok {
		return typeError("record", v)
	}
	return c.fromRecord(f.Record, rec, m)
}

// fromScalar converts the native value of a non-message kind.
func fromScalar(fd protoreflect.FieldDescriptor, v any) (protoreflect.Value, error) {
	switch k := fd.Kind(); k {
	case protoreflect.BoolKind:
		if b, ok := v.(bool); ok {
			return protoreflect.ValueOfBool(b), nil
		}
		return protoreflect.Value{}, typeError("boolean", v)
	case protoreflect.Int32Kind, protoreflect.Sint32Kind, protoreflect.Sfixed32Kind:
		n, err := asInt(v, math.MinInt32, math.MaxInt32)
		return protoreflect.ValueOfInt32(int32(n)), err
	case protoreflect.EnumKind:
		n, err := asInt(v, math.MinInt32, math.MaxInt32)
		return protoreflect.ValueOfEnum(protoreflect.EnumNumber(n)), err
	case protoreflect.Int64Kind, protoreflect.Sint64Kind, protoreflect.Sfixed64Kind:
		n, err := asInt(v, math.MinInt64, math.MaxInt64)
		return protoreflect.ValueOfInt64(n), err
	case protoreflect.Uint32Kind, protoreflect.Fixed32Kind:
		n, err := asInt(v, 0, math.MaxUint32)
		return protoreflect.ValueOfUint32(uint32(n)), err
	case protoreflect.Uint64Kind, protoreflect.Fixed64Kind:
		n, err := asInt(v, math.MinInt64, math.MaxInt64)
		return protoreflect.ValueOfUint64(uint64(n)), err
	case protoreflect.FloatKind:
		switch x := v.(type) {
		case float32:
			return protoreflect.ValueOfFloat32(x), nil
		case float64:
			if y := float32(x); float64(y) == x || math.IsNaN(x) {
				return protoreflect.ValueOfFloat32(y), nil
			}
			return protoreflect.Value{}, fmt.Errorf("double %v is not exactly a float", x)
		}
		return protoreflect.Value{}, typeError("float", v)
	case protoreflect.DoubleKind:
		switch x := v.(type) {
		case float64:
			return protoreflect.ValueOfFloat64(x), nil
		case float32:
			return protoreflect.ValueOfFloat64(float64(x)), nil
		}
		return protoreflect.Value{}, typeError("double", v)
	case protoreflect.StringKind:
		switch x := v.(type) {
		case string:
			return protoreflect.ValueOfString(x), nil
		case []byte:
			return protoreflect.ValueOfString(string(x)), nil
		}
		return protoreflect.Value{}, typeError("string", v)
	case protoreflect.BytesKind:
		b, err := asBytes(v)
		return protoreflect.ValueOfBytes(append([]byte(nil), b...)), err
	default:
		return protoreflect.Value{}, fmt.Errorf("unexpected kind %v", k)
	}
}

func asInt(v any, lo, hi int64) (int64, error) {
	var n int64
	switch x := v.(type) {
	case int32:
		n = int64(x)
	case int64:
		n = x
	case int:
		n = int64(x)
	default:
		return 0, typeError("int or long", v)
	}
	if n < lo || n > hi {
		return 0, fmt.Errorf("%d out of range [%d, %d]", n, lo, hi)
	}
	return n, nil
}

func asBytes(v any) ([]byte, error) {
	switch x := v.(type) {
	case []byte:
		return x, nil
	case string:
		return []byte(x), nil
	}
	return nil, typeError("bytes", v)
}

// isZero reports whether a scalar is its kind's zero value, which a field
// without presence cannot hold apart from unset. -0.0 is not zero.
func isZero(k protoreflect.Kind, v protoreflect.Value) bool {
	switch k {
	case protoreflect.BoolKind:
		return !v.Bool()
	case protoreflect.Int32Kind, protoreflect.Sint32Kind, protoreflect.Sfixed32Kind,
		protoreflect.Int64Kind, protoreflect.Sint64Kind, protoreflect.Sfixed64Kind:
		return v.Int() == 0
	case protoreflect.Uint32Kind, protoreflect.Fixed32Kind, protoreflect.Uint64Kind, protoreflect.Fixed64Kind:
		return v.Uint() == 0
	case protoreflect.FloatKind, protoreflect.DoubleKind:
		return math.Float64bits(v.Float()) == 0
	case protoreflect.StringKind:
		return v.String() == ""
	case protoreflect.BytesKind:
		return len(v.Bytes()) == 0
	case protoreflect.EnumKind:
		return v.Enum() == 0
	}
	return false
}

func typeError(want string, v any) error {
	return fmt.Errorf("want %s, have %T", want, v)
}
