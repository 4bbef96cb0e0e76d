package protoschema

import (
	"strconv"
	"strings"

	"google.golang.org/protobuf/reflect/protoreflect"
)

// Properties the schema JSON carries besides the Avro types. Avro readers
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

// writeSchema renders the record tree as Avro schema JSON. A record is
// defined where it first occurs in depth-first order and referred to by name
// after that.
func writeSchema(root *Record) string {
	w := &schemaWriter{defined: make(map[*Record]bool)}
	w.record(root)
	return w.b.String()
}

type schemaWriter struct {
	b       strings.Builder
	defined map[*Record]bool
}

// str writes s as a JSON string.
func (w *schemaWriter) str(s string) {
	const hex = "0123456789abcdef"
	w.b.WriteByte('"')
	for i := 0; i < len(s); i++ {
		switch c := s[i]; {
		case c == '"' || c == '\\':
			w.b.WriteByte('\\')
			w.b.WriteByte(c)
		case c < 0x20:
			w.b.WriteString(`\u00`)
			w.b.WriteByte(hex[c>>4])
			w.b.WriteByte(hex[c&0xf])
		default:
			w.b.WriteByte(c)
		}
	}
	w.b.WriteByte('"')
}

func (w *schemaWriter) record(r *Record) {
	if w.defined[r] {
		w.str(r.Name)
		return
	}
	w.defined[r] = true
	w.b.WriteString(`{"type":"record","name":`)
	w.str(r.Name)
	if !strings.Contains(r.Name, ".") {
		// A name without a dot would take the enclosing namespace.
		w.b.WriteString(`,"namespace":""`)
	}
	w.b.WriteString(`,"` + PropMessage + `":`)
	w.str(string(r.Desc.FullName()))
	w.b.WriteString(`,"fields":[`)
	for i := range r.Fields {
		if i > 0 {
			w.b.WriteByte(',')
		}
		w.field(&r.Fields[i])
	}
	if r.Unknown != "" {
		if len(r.Fields) > 0 {
			w.b.WriteByte(',')
		}
		w.b.WriteString(`{"name":`)
		w.str(r.Unknown)
		w.b.WriteString(`,"type":"bytes","default":"","` + PropUnknown + `":true}`)
	}
	w.b.WriteString("]}")
}

func (w *schemaWriter) field(f *Field) {
	fd := f.Desc
	w.b.WriteString(`{"name":`)
	w.str(f.Name)
	w.b.WriteString(`,"type":`)
	switch {
	case f.Nullable:
		w.b.WriteString(`["null",`)
		w.value(f)
		w.b.WriteString(`],"default":null`)
	case fd.IsList():
		w.b.WriteString(`{"type":"array","items":`)
		w.value(f)
		w.b.WriteString(`},"default":[]`)
	case fd.IsMap():
		w.b.WriteString(`{"type":"map","values":`)
		w.value(f)
		w.b.WriteString(`},"default":{}`)
	default:
		w.value(f)
		w.b.WriteString(`,"default":` + zeroDefault(fd.Kind()))
	}
	w.b.WriteString(`,"` + PropNumber + `":` + strconv.Itoa(int(fd.Number())))
	w.b.WriteString(`,"` + PropType + `":`)
	w.str(typeText(fd))
	if od := fd.ContainingOneof(); od != nil && !od.IsSynthetic() {
		w.b.WriteString(`,"` + PropOneof + `":`)
		w.str(string(od.Name()))
	}
	vd := fd
	if fd.IsMap() {
		vd = fd.MapValue()
	}
	if ed := vd.Enum(); ed != nil {
		w.b.WriteString(`,"` + PropEnum + `":{`)
		vals := ed.Values()
		for i := range vals.Len() {
			if i > 0 {
				w.b.WriteByte(',')
			}
			v := vals.Get(i)
			w.str(string(v.Name()))
			w.b.WriteString(":" + strconv.Itoa(int(v.Number())))
		}
		w.b.WriteByte('}')
	}
	if f.Serialized {
		w.b.WriteString(`,"` + PropSerialized + `":true`)
	}
	w.b.WriteByte('}')
}

// zeroDefault is the Avro default of a field without presence: the
// protobuf zero value of its kind, which is what a message read with a newer
// type holds in a field the file does not have.
func zeroDefault(k protoreflect.Kind) string {
	switch k {
	case protoreflect.BoolKind:
		return "false"
	case protoreflect.StringKind, protoreflect.BytesKind:
		return `""`
	case protoreflect.FloatKind, protoreflect.DoubleKind:
		return "0.0"
	}
	return "0"
}

// value writes the Avro type of one value of the field: the field itself,
// a list element or a map value.
func (w *schemaWriter) value(f *Field) {
	switch {
	case f.Record != nil:
		w.record(f.Record)
	case f.Serialized:
		w.str("bytes")
	case f.Desc.IsMap():
		w.str(scalarType(f.Desc.MapValue().Kind()))
	default:
		w.str(scalarType(f.Desc.Kind()))
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
