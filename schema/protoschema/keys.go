package protoschema

import (
	"fmt"
	"strconv"

	"google.golang.org/protobuf/reflect/protoreflect"
)

// MapKeyText returns the Avro map key of a protobuf map key of the given
// kind: the string itself, "true" or "false", or the number in decimal with
// no leading zeros or plus sign (unsigned kinds as unsigned).
func MapKeyText(k protoreflect.MapKey, kind protoreflect.Kind) string {
	switch kind {
	case protoreflect.StringKind:
		return k.String()
	case protoreflect.BoolKind:
		return strconv.FormatBool(k.Bool())
	case protoreflect.Uint32Kind, protoreflect.Fixed32Kind, protoreflect.Uint64Kind, protoreflect.Fixed64Kind:
		return strconv.FormatUint(k.Uint(), 10)
	default:
		return strconv.FormatInt(k.Int(), 10)
	}
}

// ParseMapKey is the inverse of [MapKeyText]. It accepts only the exact text
// MapKeyText produces, so that distinct keys never merge.
func ParseMapKey(s string, kind protoreflect.Kind) (protoreflect.MapKey, error) {
	var v protoreflect.Value
	var err error
	switch kind {
	case protoreflect.StringKind:
		return protoreflect.ValueOfString(s).MapKey(), nil
	case protoreflect.BoolKind:
		switch s {
		case "true":
			v = protoreflect.ValueOfBool(true)
		case "false":
			v = protoreflect.ValueOfBool(false)
		default:
			err = strconv.ErrSyntax
		}
	case protoreflect.Int32Kind, protoreflect.Sint32Kind, protoreflect.Sfixed32Kind:
		var n int64
		n, err = strconv.ParseInt(s, 10, 32)
		v = protoreflect.ValueOfInt32(int32(n))
	case protoreflect.Int64Kind, protoreflect.Sint64Kind, protoreflect.Sfixed64Kind:
		var n int64
		n, err = strconv.ParseInt(s, 10, 64)
		v = protoreflect.ValueOfInt64(n)
	case protoreflect.Uint32Kind, protoreflect.Fixed32Kind:
		var n uint64
		n, err = strconv.ParseUint(s, 10, 32)
		v = protoreflect.ValueOfUint32(uint32(n))
	case protoreflect.Uint64Kind, protoreflect.Fixed64Kind:
		var n uint64
		n, err = strconv.ParseUint(s, 10, 64)
		v = protoreflect.ValueOfUint64(n)
	default:
		return protoreflect.MapKey{}, fmt.Errorf("protoschema: %v is not a map key kind", kind)
	}
	if err == nil && MapKeyText(v.MapKey(), kind) != s {
		err = strconv.ErrSyntax // not canonical: "+1", "01", "-0"
	}
	if err != nil {
		return protoreflect.MapKey{}, fmt.Errorf("protoschema: map key %q is not a %v: %w", s, kind, err)
	}
	return v.MapKey(), nil
}
