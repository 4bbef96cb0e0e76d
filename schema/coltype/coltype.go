// Package coltype is the project's one mapping from Avro types to the
// types of Trevni columns: which column type stores the values of a simple
// Avro schema (a primitive, an enum or a fixed), the types of Java's
// trevni-avro, so that Java reads the files. The column layout of package
// schema/layout and the version-2 columns package trevni1 presents of a
// version-1 file both take their types from here; it sits below both, as
// trevni1 sits below schema/layout.
package coltype

import (
	"github.com/trevni-go/trevni/format"
	"github.com/trevni-go/trevni/schema"
)

// Of returns the type of the Trevni column that stores values of the
// simple schema s, and false if s is not simple (a record, array, map or
// union, stored as several columns).
func Of(s *schema.Schema) (format.ValueType, bool) {
	switch s.Kind {
	case schema.Null:
		return format.Null, true
	case schema.Boolean:
		return format.Boolean, true
	case schema.Int, schema.Enum:
		return format.Int, true
	case schema.Long:
		return format.Long, true
	case schema.Float:
		return format.Float, true
	case schema.Double:
		return format.Double, true
	case schema.String:
		return format.String, true
	case schema.Bytes, schema.Fixed:
		return format.Bytes, true
	}
	return format.Null, false
}
