package protoschema

import (
	"github.com/trevni-go/trevni/schema"
	"github.com/trevni-go/trevni/schema/layout"
	"google.golang.org/protobuf/encoding/protowire"
	"google.golang.org/protobuf/reflect/protoreflect"
)

// Shape is how a protobuf field maps to Avro, and so to columns: what
// stands around its values.
type Shape uint8

const (
	// Implicit is a singular field without presence: the Avro field is
	// the value itself, and unset is the zero value.
	Implicit Shape = iota
	// Optional is a singular field with presence: the union ["null", T].
	Optional
	// List is a repeated field: an array of T.
	List
	// Map is a map field: a map of the values, keyed by the key's text.
	Map
)

// String returns the shape's name, for messages.
func (s Shape) String() string {
	switch s {
	case Implicit:
		return "implicit"
	case Optional:
		return "optional"
	case List:
		return "list"
	case Map:
		return "map"
	}
	return "invalid shape"
}

// shapeOf is the shape of fd.
func shapeOf(fd protoreflect.FieldDescriptor) Shape {
	switch {
	case fd.IsMap():
		return Map
	case fd.IsList():
		return List
	case fd.HasPresence():
		return Optional
	}
	return Implicit
}

// ValueNode returns the layout node of one value of f (the field's own
// value, a list element or a map value) given n, the node of f's Avro
// field in a layout of the mapping's schema (or of a schema whose records
// have the same fields), and false when n does not have f's shape: a map
// node for Map, an array node for List, the union ["null", T] for
// Optional. A value node of a message stored as a record is a record
// node; any other is a simple value whose column holds the values.
func (f *Field) ValueNode(n *layout.Node) (*layout.Node, bool) {
	var v *layout.Node
	switch f.Shape {
	case Map:
		if n.Kind != schema.Map || n.KeyCol < 0 {
			return nil, false
		}
		v = n.Items
	case List:
		if n.Kind != schema.Array {
			return nil, false
		}
		v = n.Items
	case Optional:
		if n.Kind != schema.Union || len(n.Branches) != 2 || n.Branches[0] != nil || n.BranchCols[1] < 0 {
			return nil, false
		}
		v = n.Branches[1]
	default:
		v = n
	}
	if v == nil || (v.Kind == schema.Record) != (f.Record != nil) || (f.Record == nil && v.Col < 0) {
		return nil, false
	}
	return v, true
}

// WireType is the protobuf wire type of one value of kind k: for a
// repeated field, of one element when not packed; for a map field, of the
// key or the value in an entry.
func WireType(k protoreflect.Kind) protowire.Type {
	switch k {
	case protoreflect.BoolKind, protoreflect.EnumKind, protoreflect.Int32Kind, protoreflect.Sint32Kind,
		protoreflect.Uint32Kind, protoreflect.Int64Kind, protoreflect.Sint64Kind, protoreflect.Uint64Kind:
		return protowire.VarintType
	case protoreflect.Sfixed32Kind, protoreflect.Fixed32Kind, protoreflect.FloatKind:
		return protowire.Fixed32Type
	case protoreflect.Sfixed64Kind, protoreflect.Fixed64Kind, protoreflect.DoubleKind:
		return protowire.Fixed64Type
	case protoreflect.GroupKind:
		return protowire.StartGroupType
	}
	return protowire.BytesType
}
