package schema

import (
	"strconv"
	"strings"
)

// Kind is the Avro type of a schema node.
type Kind uint8

// The Avro types: the eight primitive types, then the complex ones.
const (
	Null Kind = iota
	Boolean
	Int
	Long
	Float
	Double
	Bytes
	String
	Record
	Enum
	Array
	Map
	Union
	Fixed
)

var kindNames = [...]string{"null", "boolean", "int", "long", "float", "double", "bytes", "string",
	"record", "enum", "array", "map", "union", "fixed"}

// String returns the kind's name as written in a schema ("int", "record"...).
func (k Kind) String() string {
	if int(k) < len(kindNames) {
		return kindNames[k]
	}
	return "Kind(" + strconv.Itoa(int(k)) + ")"
}

// IsPrimitive reports whether k is one of the eight primitive types.
func (k Kind) IsPrimitive() bool { return k <= String }

// IsNamed reports whether k is a named type: record, enum or fixed.
func (k Kind) IsNamed() bool { return k == Record || k == Enum || k == Fixed }

// primitiveKind returns the primitive kind named s.
func primitiveKind(s string) (Kind, bool) {
	for k := Null; k <= String; k++ {
		if kindNames[k] == s {
			return k, true
		}
	}
	return 0, false
}

// LogicalType is the name of an Avro logical type, as in the "logicalType"
// attribute. The empty LogicalType means none.
type LogicalType string

// The logical types of the Avro specification (1.12). A node carries one only
// where the specification allows it on the node's type and its parameters
// are valid; otherwise, as the specification asks, the attribute is ignored
// and kept among the node's other properties.
const (
	LogicalNone                 LogicalType = ""
	LogicalDecimal              LogicalType = "decimal"                // bytes or fixed; Precision, Scale
	LogicalBigDecimal           LogicalType = "big-decimal"            // bytes
	LogicalUUID                 LogicalType = "uuid"                   // string, or fixed of size 16
	LogicalDate                 LogicalType = "date"                   // int: days since 1970-01-01
	LogicalTimeMillis           LogicalType = "time-millis"            // int: milliseconds after midnight
	LogicalTimeMicros           LogicalType = "time-micros"            // long: microseconds after midnight
	LogicalTimestampMillis      LogicalType = "timestamp-millis"       // long: milliseconds since the Unix epoch, UTC
	LogicalTimestampMicros      LogicalType = "timestamp-micros"       // long
	LogicalTimestampNanos       LogicalType = "timestamp-nanos"        // long
	LogicalLocalTimestampMillis LogicalType = "local-timestamp-millis" // long: local wall-clock time
	LogicalLocalTimestampMicros LogicalType = "local-timestamp-micros" // long
	LogicalLocalTimestampNanos  LogicalType = "local-timestamp-nanos"  // long
	LogicalDuration             LogicalType = "duration"               // fixed of size 12
)

// Order is a record field's sort order.
type Order uint8

// The field orders.
const (
	Ascending Order = iota // the default
	Descending
	Ignore
)

var orderNames = [...]string{"ascending", "descending", "ignore"}

// String returns the order's name as written in a schema.
func (o Order) String() string {
	if int(o) < len(orderNames) {
		return orderNames[o]
	}
	return "Order(" + strconv.Itoa(int(o)) + ")"
}

// Property is a schema attribute that has no meaning to Avro itself, kept in
// the order it was written. Value is a decoded JSON value: nil, bool,
// json.Number, string, []any or map[string]any.
type Property struct {
	Key   string
	Value any
}

// Schema is one node of an Avro schema. A named type (record, enum, fixed)
// is a single node however many times it is referenced, so a tree parsed
// from text may share nodes and, for a recursive schema, contain cycles.
//
// Only the fields that apply to Kind are set. A Schema is safe for
// concurrent use as long as no one modifies it.
type Schema struct {
	Kind Kind

	// Name is the full name of a named type ("ns.Name", or "Name" in the
	// null namespace).
	Name string
	// Aliases are the full names of a named type's aliases.
	Aliases []string
	// Doc is a named type's documentation.
	Doc string

	Fields      []*Field  // record
	Symbols     []string  // enum
	EnumDefault string    // enum: the symbol readers use for unknown symbols, or ""
	Size        int       // fixed: size in bytes
	Items       *Schema   // array
	Values      *Schema   // map
	Branches    []*Schema // union

	// Logical is the node's logical type, if any, and Precision and Scale
	// the parameters of a decimal.
	Logical   LogicalType
	Precision int
	Scale     int

	// Props holds the node's other attributes in order.
	Props []Property

	// IsError marks a record declared with type "error", as Avro
	// protocols declare errors; it is a record in every other way.
	IsError bool

	symbolIndex map[string]int
}

// Field is a field of a record.
type Field struct {
	Name string
	Type *Schema
	Doc  string
	// Default is the field's default value as decoded JSON (numbers are
	// json.Number), meaningful when HasDefault is set.
	Default    any
	HasDefault bool
	Order      Order
	Aliases    []string
	// Props holds the field's other attributes in order.
	Props []Property
}

// Namespace returns the namespace of a named type, or "".
func (s *Schema) Namespace() string {
	if i := strings.LastIndexByte(s.Name, '.'); i >= 0 {
		return s.Name[:i]
	}
	return ""
}

// ShortName returns a named type's name without its namespace.
func (s *Schema) ShortName() string {
	return s.Name[strings.LastIndexByte(s.Name, '.')+1:]
}

// FullName returns the name that identifies the node's type, as Java's
// Schema.getFullName does: the full name of a named type, otherwise the
// kind's name ("int", "array", "map", "union"). Trevni column names use it
// for union branches. Logical types do not change it.
func (s *Schema) FullName() string {
	if s.Kind.IsNamed() {
		return s.Name
	}
	return s.Kind.String()
}

// IsSimple reports whether the node's values fit in a single column value:
// a primitive, an enum or a fixed.
func (s *Schema) IsSimple() bool {
	return s.Kind.IsPrimitive() || s.Kind == Enum || s.Kind == Fixed
}

// Prop returns the value of the property key and whether it is set.
func (s *Schema) Prop(key string) (any, bool) { return findProp(s.Props, key) }

// Prop returns the value of the field's property key and whether it is set.
func (f *Field) Prop(key string) (any, bool) { return findProp(f.Props, key) }

func findProp(props []Property, key string) (any, bool) {
	for _, p := range props {
		if p.Key == key {
			return p.Value, true
		}
	}
	return nil, false
}

// Field returns the record field named name, or nil.
func (s *Schema) Field(name string) *Field {
	for _, f := range s.Fields {
		if f.Name == name {
			return f
		}
	}
	return nil
}

// SymbolIndex returns the ordinal of an enum symbol, or -1 if the enum has
// no such symbol.
func (s *Schema) SymbolIndex(symbol string) int {
	if i, ok := s.symbolIndex[symbol]; ok && i < len(s.Symbols) && s.Symbols[i] == symbol {
		return i
	}
	for i, sym := range s.Symbols {
		if sym == symbol {
			return i
		}
	}
	return -1
}

// Branch returns the index of the union branch whose FullName is name, or -1.
func (s *Schema) Branch(name string) int {
	for i, b := range s.Branches {
		if b.FullName() == name {
			return i
		}
	}
	return -1
}

// indexSymbols prepares SymbolIndex for a large enum.
func (s *Schema) indexSymbols() {
	if len(s.Symbols) < 16 {
		return
	}
	s.symbolIndex = make(map[string]int, len(s.Symbols))
	for i, sym := range s.Symbols {
		s.symbolIndex[sym] = i
	}
}
