package trevniarrow

import (
	"fmt"
	"reflect"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/parquet/pqarrow"
	pqschema "github.com/apache/arrow-go/v18/parquet/schema"

	"github.com/trevni-go/trevni/schema"
)

// The Avro properties that keep what Avro's types do not say of a column
// read from Arrow or Parquet, so that the way back (toparquet) gives the
// original type: AvroSchema writes them, ArrowSchema reads them when
// SchemaOptions.ForeignTypes says so.
// They are properties of the type, which Avro readers ignore: the schema
// stays valid Avro and Java reads its values as the plain type.
const (
	// PropArrowType names the Arrow type an Avro type stands for:
	// "int8", "int16", "uint8", "uint16" on an int; "uint32", "uint64",
	// "time64[ns]" and "duration[UNIT]" on a long; "map" on an array of
	// records of two fields, key and value (an Arrow or Parquet map whose
	// keys are not strings).
	PropArrowType = "arrow.type"
	// PropParquetUTC, true on a time-millis, time-micros or time64[ns]
	// long, says the Parquet TIME was adjusted to UTC
	// (isAdjustedToUTC, DuckDB's TIME WITH TIME ZONE).
	PropParquetUTC = "parquet.adjustedToUTC"
	// PropParquetLogical names the Parquet logical type of bytes Avro has
	// no logical type for: "GEOMETRY" or "GEOGRAPHY" (well-known binary),
	// with PropParquetCRS and, for a GEOGRAPHY, PropParquetEdges when
	// the file set them.
	PropParquetLogical = "parquet.logicalType"
	// PropParquetCRS is the coordinate reference system of a GEOMETRY or
	// GEOGRAPHY, as the Parquet file gave it.
	PropParquetCRS = "parquet.crs"
	// PropParquetEdges is the edge interpolation algorithm of a
	// GEOGRAPHY ("spherical", "vincenty", "thomas", "andoyer", "karney").
	PropParquetEdges = "parquet.edges"
)

// ParquetExtension is the name of the Arrow extension type that carries a
// Parquet logical type Arrow has no type for over its storage type: a
// TIME adjusted to UTC (storage time32 or time64), a GEOMETRY or
// GEOGRAPHY (storage binary). trevniparquet gives it to the columns it
// reads, so that AvroSchema keeps the type in properties (PropParquetUTC,
// PropParquetLogical); ArrowSchema with SchemaOptions.Parquet and
// ForeignTypes gives it back, and pqarrow writes the logical type (it implements
// pqarrow.ExtensionCustomParquetType). The type is not registered with
// Arrow.
const ParquetExtension = "trevni.parquet.logical"

// parquetType is the extension type ParquetExtension names.
type parquetType struct {
	arrow.ExtensionBase
	logical pqschema.LogicalType
}

// NewParquetType returns the extension type ParquetExtension of a
// Parquet logical type over an Arrow storage type.
func NewParquetType(storage arrow.DataType, logical pqschema.LogicalType) arrow.ExtensionType {
	return &parquetType{ExtensionBase: arrow.ExtensionBase{Storage: storage}, logical: logical}
}

// ArrayType returns the type of the type's arrays.
func (*parquetType) ArrayType() reflect.Type { return reflect.TypeOf(parquetArray{}) }

// ExtensionName returns ParquetExtension.
func (*parquetType) ExtensionName() string { return ParquetExtension }

// Serialize returns the Parquet logical type, as arrow-go prints it.
func (t *parquetType) Serialize() string { return t.logical.String() }

// Deserialize is not supported: the type is not registered, and a reader
// of a stored Arrow schema sees its storage type.
func (*parquetType) Deserialize(arrow.DataType, string) (arrow.ExtensionType, error) {
	return nil, fmt.Errorf("%s is not read back from its serialization", ParquetExtension)
}

// ExtensionEquals says whether o is the same logical type over the same
// storage.
func (t *parquetType) ExtensionEquals(o arrow.ExtensionType) bool {
	p, ok := o.(*parquetType)
	return ok && arrow.TypeEqual(t.Storage, p.Storage) && t.logical.Equals(p.logical)
}

// ParquetLogicalType returns the Parquet logical type pqarrow writes.
func (t *parquetType) ParquetLogicalType() pqschema.LogicalType { return t.logical }

var _ pqarrow.ExtensionCustomParquetType = (*parquetType)(nil)

// parquetArray is an array of parquetType.
type parquetArray struct {
	array.ExtensionArrayBase
}

// withProps returns s with props added (s is a fresh node of the
// inferrer's).
func withProps(s *schema.Schema, props ...schema.Property) *schema.Schema {
	s.Props = append(s.Props, props...)
	return s
}

// parquetProps returns the Avro properties of a Parquet logical type
// carried by ParquetExtension; nil for one they do not keep.
func parquetProps(l pqschema.LogicalType) []schema.Property {
	switch lt := l.(type) {
	case pqschema.TimeLogicalType:
		if lt.IsAdjustedToUTC() {
			return []schema.Property{{Key: PropParquetUTC, Value: true}}
		}
	case pqschema.GeometryLogicalType:
		props := []schema.Property{{Key: PropParquetLogical, Value: "GEOMETRY"}}
		if lt.Crs != "" {
			props = append(props, schema.Property{Key: PropParquetCRS, Value: lt.Crs})
		}
		return props
	case pqschema.GeographyLogicalType:
		props := []schema.Property{{Key: PropParquetLogical, Value: "GEOGRAPHY"}}
		if lt.Crs != "" {
			props = append(props, schema.Property{Key: PropParquetCRS, Value: lt.Crs})
		}
		if lt.Algorithm != "" {
			props = append(props, schema.Property{Key: PropParquetEdges, Value: string(lt.Algorithm)})
		}
		return props
	}
	return nil
}

// propString returns s's property key when it is a string.
func propString(s *schema.Schema, key string) string {
	v, _ := s.Prop(key)
	str, _ := v.(string)
	return str
}

// parquetLogical returns the Parquet logical type s's properties keep
// (PropParquetUTC on a time of unit, PropParquetLogical), or nil.
func parquetLogical(s *schema.Schema, unit pqschema.TimeUnitType) pqschema.LogicalType {
	if v, _ := s.Prop(PropParquetUTC); v == true && unit != pqschema.TimeUnitUnknown {
		return pqschema.NewTimeLogicalType(true, unit)
	}
	crs := propString(s, PropParquetCRS)
	switch propString(s, PropParquetLogical) {
	case "GEOMETRY":
		return pqschema.GeometryLogicalType{Crs: crs}
	case "GEOGRAPHY":
		return pqschema.GeographyLogicalType{Crs: crs, Algorithm: pqschema.GeographyEdgeInterpolationAlgorithm(propString(s, PropParquetEdges))}
	}
	return nil
}

// narrowInts are the Arrow integer types PropArrowType names on an int
// or a long.
var narrowInts = map[string]arrow.DataType{
	"int8":   arrow.PrimitiveTypes.Int8,
	"int16":  arrow.PrimitiveTypes.Int16,
	"uint8":  arrow.PrimitiveTypes.Uint8,
	"uint16": arrow.PrimitiveTypes.Uint16,
	"uint32": arrow.PrimitiveTypes.Uint32,
	"uint64": arrow.PrimitiveTypes.Uint64,
}

// parquetTime returns t, or with SchemaOptions.Parquet and ForeignTypes
// the ParquetExtension of a TIME adjusted to UTC over it when s says so
// (PropParquetUTC).
func parquetTime(s *schema.Schema, t arrow.DataType, unit pqschema.TimeUnitType, o *SchemaOptions) arrow.DataType {
	if l := parquetLogical(s, unit); l != nil && o.Parquet && o.ForeignTypes {
		return NewParquetType(t, l)
	}
	return t
}

// mapOf returns the Arrow map an array s of key-value records marked
// "map" (PropArrowType) stands for, of items, the Arrow struct of its
// records; nil for any other array, or one whose key is nullable.
func mapOf(s *schema.Schema, items arrow.DataType) arrow.DataType {
	st, ok := items.(*arrow.StructType)
	if propString(s, PropArrowType) != "map" || !ok || st.NumFields() != 2 || s.Items.Kind != schema.Record {
		return nil
	}
	key, val := st.Field(0), st.Field(1)
	if key.Nullable || s.Items.Fields[0].Name != "key" || s.Items.Fields[1].Name != "value" {
		return nil
	}
	m := arrow.MapOf(key.Type, val.Type)
	m.SetItemNullable(val.Nullable)
	return m
}
