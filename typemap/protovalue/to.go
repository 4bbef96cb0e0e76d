package protovalue

import (
	"fmt"

	"github.com/trevni-go/trevni/internal/fieldpath"
	"github.com/trevni-go/trevni/schema/protoschema"
	"google.golang.org/protobuf/proto"
	"google.golang.org/protobuf/reflect/protoreflect"
)

// ---- message → Avro ----

var marshalOpts = proto.MarshalOptions{AllowPartial: true, Deterministic: true}

// Shared empty values save an allocation each time they are boxed. Being
// empty, they cannot be written to.
var (
	emptyBytes any = []byte{}
	emptyList  any = []any{}
)

// toRecord converts m to a record. dst, when not nil, is an earlier record
// of the same Record whose maps and slices may be reused.
func (c *Converter) toRecord(r *protoschema.Record, m protoreflect.Message, dst map[string]any) (map[string]any, error) {
	out := dst
	if out == nil {
		out = make(map[string]any, len(r.Fields)+1)
	}
	for i := range r.Fields {
		f := &r.Fields[i]
		fd := f.Desc
		var prev, v any
		if dst != nil {
			prev = dst[f.Name]
		}
		var err error
		switch f.Shape {
		case protoschema.List:
			if l := m.Get(fd).List(); l.Len() > 0 {
				v, err = c.toList(f, l, prev)
			} else {
				v = emptyList
			}
		case protoschema.Map:
			v, err = c.toMap(f, m.Get(fd).Map(), prev)
		case protoschema.Optional:
			if m.Has(fd) {
				v, err = c.toUnion(f, m.Get(fd), prev)
			}
		default:
			v, err = c.toValue(f, fd, m.Get(fd), prev)
		}
		if err != nil {
			return nil, fieldpath.At(err, f.Name)
		}
		out[f.Name] = v
	}
	if r.Unknown != "" {
		u, err := unknown(r, m)
		if err != nil {
			return nil, fieldpath.At(err, r.Unknown)
		}
		if len(u) == 0 {
			out[r.Unknown] = emptyBytes
		} else {
			out[r.Unknown] = u
		}
	}
	return out, nil
}

// toUnion wraps the value of a set nullable field as the union value
// {branch: value}.
func (c *Converter) toUnion(f *protoschema.Field, v protoreflect.Value, prev any) (any, error) {
	w, _ := prev.(map[string]any)
	var inner any
	if len(w) == 1 {
		var ok bool
		if inner, ok = w[f.Branch]; !ok {
			w = nil
		}
	} else {
		w = nil
	}
	av, err := c.toValue(f, f.Desc, v, inner)
	if err != nil {
		return nil, err
	}
	if w == nil {
		return map[string]any{f.Branch: av}, nil
	}
	w[f.Branch] = av
	return w, nil
}

// unknown returns m's unknown fields, followed by its extensions in wire
// format.
func unknown(r *protoschema.Record, m protoreflect.Message) ([]byte, error) {
	raw := []byte(m.GetUnknown())
	if r.Desc.ExtensionRanges().Len() == 0 {
		return raw, nil
	}
	var ext protoreflect.Message
	m.Range(func(fd protoreflect.FieldDescriptor, v protoreflect.Value) bool {
		if fd.IsExtension() {
			if ext == nil {
				ext = m.New()
			}
			ext.Set(fd, v)
		}
		return true
	})
	if ext == nil {
		return raw, nil
	}
	out := append([]byte(nil), raw...)
	return marshalOpts.MarshalAppend(out, ext.Interface())
}

func (c *Converter) toList(f *protoschema.Field, l protoreflect.List, prev any) ([]any, error) {
	n := l.Len()
	out, _ := prev.([]any)
	if cap(out) >= n {
		out = out[:n]
	} else {
		out = make([]any, n)
	}
	for i := range out {
		v, err := c.toValue(f, f.Desc, l.Get(i), out[i])
		if err != nil {
			return nil, fieldpath.At(err, fieldpath.Index(i))
		}
		out[i] = v
	}
	return out, nil
}

func (c *Converter) toMap(f *protoschema.Field, mm protoreflect.Map, prev any) (map[string]any, error) {
	out, _ := prev.(map[string]any)
	if out == nil {
		out = make(map[string]any, mm.Len())
	} else {
		clear(out)
	}
	kk := f.Desc.MapKey().Kind()
	vd := f.Value
	var err error
	mm.Range(func(k protoreflect.MapKey, v protoreflect.Value) bool {
		ks := protoschema.MapKeyText(k, kk)
		var av any
		av, err = c.toValue(f, vd, v, nil)
		if err != nil {
			err = fieldpath.At(err, fieldpath.Key(ks))
			return false
		}
		out[ks] = av
		return true
	})
	return out, err
}

// toValue converts one value of the field f: the field itself, a list
// element or a map value (then vd is the map value's descriptor). prev may
// be reused when it is a record.
func (c *Converter) toValue(f *protoschema.Field, vd protoreflect.FieldDescriptor, v protoreflect.Value, prev any) (any, error) {
	switch vd.Kind() {
	case protoreflect.BoolKind:
		return v.Bool(), nil
	case protoreflect.Int32Kind, protoreflect.Sint32Kind, protoreflect.Sfixed32Kind:
		return int32(v.Int()), nil
	case protoreflect.Int64Kind, protoreflect.Sint64Kind, protoreflect.Sfixed64Kind:
		return v.Int(), nil
	case protoreflect.Uint32Kind, protoreflect.Fixed32Kind, protoreflect.Uint64Kind, protoreflect.Fixed64Kind:
		return int64(v.Uint()), nil // uint64: the same 64 bits
	case protoreflect.FloatKind:
		return float32(v.Float()), nil
	case protoreflect.DoubleKind:
		return v.Float(), nil
	case protoreflect.StringKind:
		return v.String(), nil
	case protoreflect.BytesKind:
		if b := v.Bytes(); len(b) > 0 {
			return b, nil
		}
		return emptyBytes, nil
	case protoreflect.EnumKind:
		return int32(v.Enum()), nil
	case protoreflect.MessageKind, protoreflect.GroupKind:
		if f.Serialized {
			b, err := marshalOpts.Marshal(v.Message().Interface())
			if err != nil {
				return nil, err
			}
			if len(b) == 0 {
				return emptyBytes, nil
			}
			return b, nil
		}
		rec, _ := prev.(map[string]any)
		return c.toRecord(f.Record, v.Message(), rec)
	}
	return nil, fmt.Errorf("unknown kind %v", vd.Kind())
}
