package trevniarrow

import (
	"fmt"
	"reflect"
	"strconv"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/extensions"
	"github.com/apache/arrow-go/v18/parquet/pqarrow"
	pqschema "github.com/apache/arrow-go/v18/parquet/schema"

	"github.com/trevni-go/trevni/schema"
)

// MetaAvroSchema is the key, in Arrow schema metadata and in Parquet
// key-value metadata, of the Avro schema the columns were mapped from. A
// writer given columns with it writes records of that schema; without it,
// the schema is inferred from the Arrow types (see AvroSchema).
const MetaAvroSchema = "avro.schema"

// ValueField is the name of the one column of a batch whose Avro schema is
// not a record.
const ValueField = "value"

// SchemaOptions chooses between mappings where the consumer limits them.
type SchemaOptions struct {
	// UnionsAsStructs maps unions other than ["null", T] to structs of
	// one nullable field per non-null branch (the branch taken is the one
	// field set; the struct is null for the null branch) instead of dense
	// unions: Parquet has no unions.
	UnionsAsStructs bool
	// Parquet chooses the mapping Parquet stores: unions as structs (as
	// UnionsAsStructs), a record of no fields (and a batch of a record of
	// no fields) given the one field PadField of type null (Parquet has no
	// empty groups), decimals nullable (arrow-go's Parquet writer
	// misplaces the values of required decimals under null parents), and
	// durations of the extension type DurationExtension, which pqarrow
	// writes as Parquet INTERVALs.
	Parquet bool
	// ForeignTypes gives the Arrow types the Avro schema's marks name
	// (PropArrowType: narrow and unsigned integers, time64[ns], maps of
	// keys other than strings) in place of the plain types of the Avro
	// types, and with Parquet the ParquetExtension of the Parquet logical
	// types its properties keep (PropParquetUTC, PropParquetLogical):
	// the types a file converted from Arrow or Parquet had. toparquet
	// (trevniparquet.Write) sets it.
	ForeignTypes bool
}

// PadField is the name of the field SchemaOptions.Parquet gives records of
// no fields.
const PadField = "_"

// pad returns fields, or the one PadField when there are none and o
// says so.
func pad(fields []arrow.Field, o *SchemaOptions) []arrow.Field {
	if len(fields) == 0 && o.Parquet {
		return []arrow.Field{{Name: PadField, Type: arrow.Null, Nullable: true}}
	}
	return fields
}

// ArrowSchema maps an Avro schema to the Arrow schema of the batches its
// records are read as: a record's fields become the columns; any other
// type becomes the one column ValueField. The Avro schema's text is kept
// in the metadata under MetaAvroSchema.
func ArrowSchema(s *schema.Schema, opts *SchemaOptions) (*arrow.Schema, error) {
	var o SchemaOptions
	if opts != nil {
		o = *opts
	}
	o.UnionsAsStructs = o.UnionsAsStructs || o.Parquet
	var fields []arrow.Field
	if s.Kind == schema.Record {
		fields = make([]arrow.Field, len(s.Fields))
		for i, f := range s.Fields {
			t, nullable, err := arrowType(f.Type, &o)
			if err != nil {
				return nil, fmt.Errorf("field %s: %w", f.Name, err)
			}
			fields[i] = arrow.Field{Name: f.SourceName(), Type: t, Nullable: nullable}
		}
	} else {
		t, nullable, err := arrowType(s, &o)
		if err != nil {
			return nil, err
		}
		fields = []arrow.Field{{Name: ValueField, Type: t, Nullable: nullable}}
	}
	md := arrow.NewMetadata([]string{MetaAvroSchema}, []string{s.String()})
	return arrow.NewSchema(pad(fields, &o), &md), nil
}

// nullableUnion returns the non-null branch of a union of null and one
// other type, and the null branch's index; nil for any other schema.
func nullableUnion(s *schema.Schema) (t *schema.Schema, nullIndex int) {
	if s.Kind != schema.Union || len(s.Branches) != 2 {
		return nil, 0
	}
	switch {
	case s.Branches[0].Kind == schema.Null && s.Branches[1].Kind != schema.Null:
		return s.Branches[1], 0
	case s.Branches[1].Kind == schema.Null && s.Branches[0].Kind != schema.Null:
		return s.Branches[0], 1
	}
	return nil, 0
}

// decimalType returns the Arrow decimal of a precision and scale, or nil
// when no Arrow decimal holds the precision.
func decimalType(precision, scale int) arrow.DataType {
	switch {
	case precision >= 1 && precision <= 38:
		return &arrow.Decimal128Type{Precision: int32(precision), Scale: int32(scale)}
	case precision >= 1 && precision <= 76:
		return &arrow.Decimal256Type{Precision: int32(precision), Scale: int32(scale)}
	}
	return nil
}

// DurationExtension is the name of the Arrow extension type, of storage
// fixed_size_binary(12), of the Avro durations of a Parquet mapping
// (SchemaOptions.Parquet). Its values are the Avro duration's twelve
// bytes, three little-endian unsigned 32-bit counts of months, days and
// milliseconds, which are the bytes of a Parquet INTERVAL: pqarrow writes
// its columns as FIXED_LEN_BYTE_ARRAY(12) annotated INTERVAL (a converted
// type; the Parquet format has no logical type for it). The type is not
// registered with Arrow: a reader of the stored Arrow schema sees the
// storage type and the name in the field's metadata.
const DurationExtension = "trevni.avro.duration"

// durationType is the extension type DurationExtension names.
type durationType struct {
	arrow.ExtensionBase
}

// newDurationType returns the extension type of Parquet-mapped durations.
func newDurationType() *durationType {
	return &durationType{ExtensionBase: arrow.ExtensionBase{Storage: &arrow.FixedSizeBinaryType{ByteWidth: 12}}}
}

// ArrayType returns the type of the type's arrays.
func (*durationType) ArrayType() reflect.Type { return reflect.TypeOf(durationArray{}) }

// ExtensionName returns DurationExtension.
func (*durationType) ExtensionName() string { return DurationExtension }

// Serialize returns the type's parameters: none.
func (*durationType) Serialize() string { return "" }

// Deserialize returns the type of a storage type, which must be
// fixed_size_binary(12).
func (*durationType) Deserialize(storage arrow.DataType, _ string) (arrow.ExtensionType, error) {
	if !arrow.TypeEqual(storage, &arrow.FixedSizeBinaryType{ByteWidth: 12}) {
		return nil, fmt.Errorf("%s: storage type %s, not fixed_size_binary(12)", DurationExtension, storage)
	}
	return newDurationType(), nil
}

// ExtensionEquals says whether o is the same extension type.
func (*durationType) ExtensionEquals(o arrow.ExtensionType) bool {
	return o.ExtensionName() == DurationExtension
}

// ParquetLogicalType makes pqarrow annotate the type's columns INTERVAL
// (it implements pqarrow.ExtensionCustomParquetType).
func (*durationType) ParquetLogicalType() pqschema.LogicalType {
	return pqschema.IntervalLogicalType{}
}

var _ pqarrow.ExtensionCustomParquetType = (*durationType)(nil)

// durationArray is an array of durationType.
type durationArray struct {
	array.ExtensionArrayBase
}

// arrowType maps an Avro type to an Arrow type, and whether its values
// may be null.
func arrowType(s *schema.Schema, o *SchemaOptions) (arrow.DataType, bool, error) {
	if t, _ := nullableUnion(s); t != nil {
		at, _, err := arrowType(t, o)
		return at, true, err
	}
	switch s.Kind {
	case schema.Null:
		return arrow.Null, true, nil
	case schema.Boolean:
		return arrow.FixedWidthTypes.Boolean, false, nil
	case schema.Int:
		switch s.Logical {
		case schema.LogicalDate:
			return arrow.FixedWidthTypes.Date32, false, nil
		case schema.LogicalTimeMillis:
			return parquetTime(s, arrow.FixedWidthTypes.Time32ms, pqschema.TimeUnitMillis, o), false, nil
		case schema.LogicalNone:
			if t := narrowInts[propString(s, PropArrowType)]; t != nil && o.ForeignTypes && t.(arrow.FixedWidthDataType).BitWidth() < 32 {
				return t, false, nil
			}
		}
		return arrow.PrimitiveTypes.Int32, false, nil
	case schema.Long:
		switch s.Logical {
		case schema.LogicalNone:
			if !o.ForeignTypes {
				break
			}
			switch at := propString(s, PropArrowType); at {
			case "uint32", "uint64":
				return narrowInts[at], false, nil
			case "time64[ns]":
				return parquetTime(s, arrow.FixedWidthTypes.Time64ns, pqschema.TimeUnitNanos, o), false, nil
			}
		case schema.LogicalTimeMicros:
			return parquetTime(s, arrow.FixedWidthTypes.Time64us, pqschema.TimeUnitMicros, o), false, nil
		case schema.LogicalTimestampMillis:
			return &arrow.TimestampType{Unit: arrow.Millisecond, TimeZone: "UTC"}, false, nil
		case schema.LogicalTimestampMicros:
			return &arrow.TimestampType{Unit: arrow.Microsecond, TimeZone: "UTC"}, false, nil
		case schema.LogicalTimestampNanos:
			return &arrow.TimestampType{Unit: arrow.Nanosecond, TimeZone: "UTC"}, false, nil
		case schema.LogicalLocalTimestampMillis:
			return &arrow.TimestampType{Unit: arrow.Millisecond}, false, nil
		case schema.LogicalLocalTimestampMicros:
			return &arrow.TimestampType{Unit: arrow.Microsecond}, false, nil
		case schema.LogicalLocalTimestampNanos:
			return &arrow.TimestampType{Unit: arrow.Nanosecond}, false, nil
		}
		return arrow.PrimitiveTypes.Int64, false, nil
	case schema.Float:
		return arrow.PrimitiveTypes.Float32, false, nil
	case schema.Double:
		return arrow.PrimitiveTypes.Float64, false, nil
	case schema.Bytes:
		if s.Logical == schema.LogicalDecimal {
			if t := decimalType(s.Precision, s.Scale); t != nil {
				return t, o.Parquet, nil
			}
		}
		if l := parquetLogical(s, pqschema.TimeUnitUnknown); l != nil && o.Parquet && o.ForeignTypes && s.Logical == schema.LogicalNone {
			return NewParquetType(arrow.BinaryTypes.Binary, l), false, nil
		}
		return arrow.BinaryTypes.Binary, false, nil
	case schema.String:
		if s.Logical == schema.LogicalUUID {
			return extensions.NewUUIDType(), false, nil
		}
		return arrow.BinaryTypes.String, false, nil
	case schema.Fixed:
		switch {
		case s.Logical == schema.LogicalDecimal:
			if t := decimalType(s.Precision, s.Scale); t != nil {
				return t, o.Parquet, nil
			}
		case s.Logical == schema.LogicalUUID && s.Size == 16:
			return extensions.NewUUIDType(), false, nil
		case s.Logical == schema.LogicalDuration && s.Size == 12 && o.Parquet:
			return newDurationType(), false, nil
		}
		return &arrow.FixedSizeBinaryType{ByteWidth: s.Size}, false, nil
	case schema.Enum:
		return &arrow.DictionaryType{IndexType: arrow.PrimitiveTypes.Int32, ValueType: arrow.BinaryTypes.String}, false, nil
	case schema.Array:
		t, nullable, err := arrowType(s.Items, o)
		if err != nil {
			return nil, false, err
		}
		if m := mapOf(s, t); m != nil && o.ForeignTypes {
			return m, false, nil
		}
		return arrow.ListOfField(arrow.Field{Name: "item", Type: t, Nullable: nullable}), false, nil
	case schema.Map:
		t, nullable, err := arrowType(s.Values, o)
		if err != nil {
			return nil, false, err
		}
		m := arrow.MapOf(arrow.BinaryTypes.String, t)
		m.SetItemNullable(nullable)
		return m, false, nil
	case schema.Record:
		fields := make([]arrow.Field, len(s.Fields))
		for i, f := range s.Fields {
			t, nullable, err := arrowType(f.Type, o)
			if err != nil {
				return nil, false, fmt.Errorf("%s.%s: %w", s.FullName(), f.Name, err)
			}
			fields[i] = arrow.Field{Name: f.SourceName(), Type: t, Nullable: nullable}
		}
		return arrow.StructOf(pad(fields, o)...), false, nil
	case schema.Union:
		names := branchNames(s)
		if o.UnionsAsStructs {
			var fields []arrow.Field
			hasNull := false
			for i, b := range s.Branches {
				if b.Kind == schema.Null {
					hasNull = true
					continue
				}
				t, _, err := arrowType(b, o)
				if err != nil {
					return nil, false, err
				}
				fields = append(fields, arrow.Field{Name: names[i], Type: t, Nullable: true})
			}
			return arrow.StructOf(fields...), hasNull, nil
		}
		fields := make([]arrow.Field, len(s.Branches))
		codes := make([]arrow.UnionTypeCode, len(s.Branches))
		for i, b := range s.Branches {
			t, nullable, err := arrowType(b, o)
			if err != nil {
				return nil, false, err
			}
			fields[i] = arrow.Field{Name: names[i], Type: t, Nullable: nullable}
			codes[i] = arrow.UnionTypeCode(i)
		}
		if len(codes) > 127 {
			return nil, false, fmt.Errorf("a union of %d branches: Arrow unions have at most 127", len(codes))
		}
		return arrow.DenseUnionOf(fields, codes), false, nil
	}
	return nil, false, fmt.Errorf("unknown Avro type %v", s.Kind)
}

// branchNames names the fields of a union's Arrow type: each branch's type
// name (the short name of a named type), or "member" and the branch's
// index where two would have the same name.
func branchNames(s *schema.Schema) []string {
	names := make([]string, len(s.Branches))
	seen := make(map[string]int, len(s.Branches))
	for i, b := range s.Branches {
		n := b.Kind.String()
		if b.Kind.IsNamed() {
			n = b.ShortName()
		}
		names[i] = n
		seen[n]++
	}
	for i, n := range names {
		if seen[n] > 1 {
			names[i] = "member" + strconv.Itoa(i)
		}
	}
	return names
}
