package format

import (
	"fmt"
	"strings"
)

// ValueType is the type of the values stored in a column.
type ValueType uint8

// The Trevni value types, in the order the specification lists them.
const (
	Null    ValueType = iota // no value; zero bytes
	Boolean                  // one bit, packed least significant bit first
	Int                      // zig-zag varint, 32 bits
	Long                     // zig-zag varint, 64 bits
	Fixed32                  // four bytes, little-endian
	Fixed64                  // eight bytes, little-endian
	Float                    // IEEE 754 single, four bytes little-endian
	Double                   // IEEE 754 double, eight bytes little-endian
	String                   // varint length, then UTF-8 bytes
	Bytes                    // varint length, then bytes
)

var typeNames = [...]string{"null", "boolean", "int", "long", "fixed32", "fixed64", "float", "double", "string", "bytes"}

// String returns the type's name as stored in the trevni.type metadata.
func (t ValueType) String() string {
	if int(t) < len(typeNames) {
		return typeNames[t]
	}
	return fmt.Sprintf("ValueType(%d)", uint8(t))
}

// ParseValueType returns the type named s. Like Java, it ignores case.
func ParseValueType(s string) (ValueType, error) {
	for i, n := range typeNames {
		if strings.EqualFold(n, s) {
			return ValueType(i), nil
		}
	}
	return 0, fmt.Errorf("%w: unknown value type %q", ErrFormat, s)
}

// fixedSize reports the encoded size of a value of type t, or -1 when it
// varies. Booleans report 0: they are bit-packed.
func (t ValueType) fixedSize() int {
	switch t {
	case Null, Boolean:
		return 0
	case Fixed32, Float:
		return 4
	case Fixed64, Double:
		return 8
	}
	return -1
}

// minSize is the fewest bytes a value of type t can occupy, used to bound
// counts read from untrusted input. Booleans and nulls can occupy no bytes.
func (t ValueType) minSize() int {
	switch t {
	case Null, Boolean:
		return 0
	case Fixed32, Float:
		return 4
	case Fixed64, Double:
		return 8
	}
	return 1
}

// zero returns the zero value of type t as readValue returns values.
func (t ValueType) zero() any {
	switch t {
	case Boolean:
		return false
	case Int, Fixed32:
		return int32(0)
	case Long, Fixed64:
		return int64(0)
	case Float:
		return float32(0)
	case Double:
		return float64(0)
	case String:
		return ""
	case Bytes:
		return []byte{}
	}
	return nil
}
