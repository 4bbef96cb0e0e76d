package protoschema

import (
	"encoding/json"
	"strconv"

	"github.com/trevni-go/trevni/schema"
	"google.golang.org/protobuf/reflect/protoreflect"
)

// Properties the Avro schema carries besides the Avro types. Avro readers
// ignore them.
const (
	PropMessage    = "protobuf.message"    // record: the protobuf message full name
	PropNumber     = "protobuf.number"     // field: the field number
	PropType       = "protobuf.type"       // field: the protobuf type (kind name, full name, or map<K,V>)
	PropOneof      = "protobuf.oneof"      // field: the name of the containing oneof
	PropEnum       = "protobuf.enum"       // field: the enum's symbols, {"NAME": number, ...}
	PropSerialized = "protobuf.serialized" // field: true where recursion was cut
	PropUnknown    = "protobuf.unknown"    // field: true on the unknown-fields field
)

// buildSchema makes the Avro schema of the record tree: one *schema.Schema
// node per Record, shared wherever the Record occurs, so that the tree's
// text (schema.Schema.String) defines each record where it first occurs,
// depth first, and refers to it by name after that.
func buildSchema(root *Record) {
	done := make(map[*Record]bool)
	var visit func(r *Record)
	visit = func(r *Record) {
		if done[r] {
			return
		}
		done[r] = true
		for i := range r.Fields {
			if c := r.Fields[i].Record; c != nil {
				visit(c)
			}
		}
		s := r.Schema
		s.Kind = schema.Record
		s.Name = r.Name
		s.Props = []schema.Property{{Key: PropMessage, Value: string(r.Desc.FullName())}}
		s.Fields = make([]*schema.Field, 0, len(r.Fields)+1)
		for i := range r.Fields {
			f := &r.Fields[i]
			f.Avro = avroField(f)
			s.Fields = append(s.Fields, f.Avro)
		}
		if r.Unknown != "" {
			s.Fields = append(s.Fields, &schema.Field{
				Name: r.Unknown, Type: &schema.Schema{Kind: schema.Bytes},
				Default: "", HasDefault: true,
				Props: []schema.Property{{Key: PropUnknown, Value: true}},
			})
		}
	}
	// Record nodes exist before their fields are filled, so that a field
	// can point at a record whatever the order.
	var alloc func(r *Record)
	alloc = func(r *Record) {
		if r.Schema != nil {
			return
		}
		r.Schema = new(schema.Schema)
		for i := range r.Fields {
			if c := r.Fields[i].Record; c != nil {
				alloc(c)
			}
		}
	}
	alloc(root)
	visit(root)
}

// avroField makes the Avro field of f.
func avroField(f *Field) *schema.Field {
	fd := f.Desc
	af := &schema.Field{Name: f.Name, HasDefault: true}
	switch f.Shape {
	case Optional:
		af.Type = &schema.Schema{Kind: schema.Union, Branches: []*schema.Schema{{Kind: schema.Null}, valueSchema(f)}}
		af.Default = nil
	case List:
		af.Type = &schema.Schema{Kind: schema.Array, Items: valueSchema(f)}
		af.Default = []any{}
	case Map:
		af.Type = &schema.Schema{Kind: schema.Map, Values: valueSchema(f)}
		af.Default = map[string]any{}
	default:
		af.Type = valueSchema(f)
		af.Default = zeroDefault(fd.Kind())
	}
	af.Props = append(af.Props,
		schema.Property{Key: PropNumber, Value: json.Number(strconv.Itoa(int(fd.Number())))},
		schema.Property{Key: PropType, Value: typeText(fd)})
	if f.Oneof != nil {
		af.Props = append(af.Props, schema.Property{Key: PropOneof, Value: string(f.Oneof.Name())})
	}
	if ed := f.Value.Enum(); ed != nil {
		vals := ed.Values()
		syms := make(map[string]any, vals.Len())
		for i := range vals.Len() {
			v := vals.Get(i)
			syms[string(v.Name())] = json.Number(strconv.Itoa(int(v.Number())))
		}
		af.Props = append(af.Props, schema.Property{Key: PropEnum, Value: syms})
	}
	if f.Serialized {
		af.Props = append(af.Props, schema.Property{Key: PropSerialized, Value: true})
	}
	return af
}

// zeroDefault is the Avro default of a field without presence: the
// protobuf zero value of its kind, which is what a message read with a newer
// type holds in a field the file does not have.
func zeroDefault(k protoreflect.Kind) any {
	switch k {
	case protoreflect.BoolKind:
		return false
	case protoreflect.StringKind, protoreflect.BytesKind:
		return ""
	case protoreflect.FloatKind, protoreflect.DoubleKind:
		return json.Number("0.0")
	}
	return json.Number("0")
}

// valueSchema makes the Avro type of one value of the field: the field
// itself, a list element or a map value.
func valueSchema(f *Field) *schema.Schema {
	switch {
	case f.Record != nil:
		return f.Record.Schema
	case f.Serialized:
		return &schema.Schema{Kind: schema.Bytes}
	default:
		return &schema.Schema{Kind: scalarKind(f.Value.Kind())}
	}
}

// typeText names a field's protobuf type: the kind ("sint64"), the full name
// of a message or enum, or map<K,V>.
func typeText(fd protoreflect.FieldDescriptor) string {
	if fd.IsMap() {
		return "map<" + typeText(fd.MapKey()) + "," + typeText(fd.MapValue()) + ">"
	}
	switch {
	case fd.Message() != nil:
		return string(fd.Message().FullName())
	case fd.Enum() != nil:
		return string(fd.Enum().FullName())
	}
	return fd.Kind().String()
}
