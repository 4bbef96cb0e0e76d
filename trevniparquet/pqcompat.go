package trevniparquet

import (
	"fmt"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/parquet"
	"github.com/apache/arrow-go/v18/parquet/metadata"
	"github.com/apache/arrow-go/v18/parquet/pqarrow"
	pqschema "github.com/apache/arrow-go/v18/parquet/schema"

	"github.com/trevni-go/trevni/trevniarrow"
)

// checkEncodings returns an error naming the column chunk, when one of
// the value encodings a column chunk's metadata lists is one arrow-go's
// reader does not decode for the column's physical type (it would panic
// on the first such page): DELTA_BYTE_ARRAY of fixed-size byte arrays,
// which the Parquet format allows and parquet-go writes. Dictionary and
// level encodings (RLE, BIT_PACKED) are passed over.
func checkEncodings(g int, path string, t parquet.Type, encs []parquet.Encoding) error {
	for _, e := range encs {
		switch e {
		case parquet.Encodings.Plain, parquet.Encodings.PlainDict, parquet.Encodings.RLEDict,
			parquet.Encodings.RLE, parquet.Encodings.BitPacked:
			continue
		}
		ok := false
		switch t {
		case parquet.Types.Int32, parquet.Types.Int64:
			ok = e == parquet.Encodings.DeltaBinaryPacked || e == parquet.Encodings.ByteStreamSplit
		case parquet.Types.Float, parquet.Types.Double, parquet.Types.FixedLenByteArray:
			ok = e == parquet.Encodings.ByteStreamSplit
		case parquet.Types.ByteArray:
			ok = e == parquet.Encodings.DeltaLengthByteArray || e == parquet.Encodings.DeltaByteArray
		}
		if !ok {
			return fmt.Errorf("Parquet row group %d, column %s: %s encoding of %s values, which arrow-go's Parquet reader does not decode", g, path, e, t)
		}
	}
	return nil
}

// textHints returns as with the columns of Parquet's ENUM and JSON logical
// types as strings, those of its INTERVAL as Arrow intervals, INT96 and
// legacy TIMESTAMP_* timestamps without a time zone, and TIMEs adjusted to
// UTC, GEOMETRY and GEOGRAPHY as trevniarrow's ParquetExtension, to infer
// the Avro schema from. arrow-go reads the first as binary (the Parquet
// format leaves their bytes to the application), but they are text, and
// DuckDB and Spark read them as strings; it reads an INTERVAL as 12
// fixed bytes, which are an Avro duration's (months, days and
// milliseconds, little-endian), so the Avro type is a duration. The
// batches keep arrow-go's types: the Trevni writer copies their bytes. as
// itself is returned when no such column changes it.
func textHints(as *arrow.Schema, m *pqarrow.SchemaManifest, fmd *metadata.FileMetaData) *arrow.Schema {
	descr := fmd.Schema
	legacy := convertedOnly(fmd)
	if m == nil || len(m.Fields) != as.NumFields() {
		return as
	}
	fields := as.Fields()
	changed := false
	for i := range m.Fields {
		f, c := hintField(&m.Fields[i], descr, legacy)
		if c && f.Name == fields[i].Name {
			fields[i], changed = f, true
		}
	}
	if !changed {
		return as
	}
	md := as.Metadata()
	return arrow.NewSchema(fields, &md)
}

// hintField returns sf's field with its ENUM and JSON leaves as strings,
// and whether any was changed.
func hintField(sf *pqarrow.SchemaField, descr *pqschema.Schema, legacy map[int]bool) (arrow.Field, bool) {
	f := *sf.Field
	if sf.IsLeaf() {
		if sf.ColIndex < 0 || sf.ColIndex >= descr.NumColumns() {
			return f, false
		}
		col := descr.Column(sf.ColIndex)
		if t, ok := f.Type.(*arrow.TimestampType); ok && col.PhysicalType() == parquet.Types.Int96 {
			// INT96 inside lists and structs, read by arrow-go as UTC
			// nanoseconds: without a time zone, as the top-level ones
			// (pqint96.go).
			f.Type = &arrow.TimestampType{Unit: t.Unit}
			return f, true
		}
		switch lt := col.LogicalType().(type) {
		case pqschema.EnumLogicalType, pqschema.JSONLogicalType:
			if f.Type.ID() == arrow.BINARY {
				f.Type = arrow.BinaryTypes.String
				return f, true
			}
		case pqschema.IntervalLogicalType:
			if t, ok := f.Type.(*arrow.FixedSizeBinaryType); ok && t.ByteWidth == 12 {
				f.Type = arrow.FixedWidthTypes.MonthDayNanoInterval
				return f, true
			}
		case pqschema.TimeLogicalType:
			// A legacy TIME_MILLIS or _MICROS converted type (no logical
			// type) is adjusted to UTC by the format's compatibility
			// rules, but DuckDB reads it as a plain TIME, as it was
			// written back before: it is left so.
			if id := f.Type.ID(); lt.IsAdjustedToUTC() && !legacy[sf.ColIndex] && (id == arrow.TIME32 || id == arrow.TIME64) {
				f.Type = trevniarrow.NewParquetType(f.Type, lt)
				return f, true
			}
		case pqschema.TimestampLogicalType:
			// A legacy TIMESTAMP_MILLIS or _MICROS converted type (no
			// logical type): arrow-go reads it adjusted to UTC, as the
			// format's compatibility rules say, DuckDB (and Arrow C++ for
			// INT96) without a time zone, which is how it is kept: a
			// local timestamp, written back without a zone.
			if t, ok := f.Type.(*arrow.TimestampType); ok && lt.IsFromConvertedType() {
				f.Type = &arrow.TimestampType{Unit: t.Unit}
				return f, true
			}
		case pqschema.GeometryLogicalType, pqschema.GeographyLogicalType:
			if f.Type.ID() == arrow.BINARY {
				f.Type = trevniarrow.NewParquetType(f.Type, lt)
				return f, true
			}
		}
		return f, false
	}
	kids := make([]arrow.Field, len(sf.Children))
	changed := false
	for i := range sf.Children {
		var c bool
		kids[i], c = hintField(&sf.Children[i], descr, legacy)
		changed = changed || c
	}
	if !changed {
		return f, false
	}
	switch t := f.Type.(type) {
	case *arrow.StructType:
		if len(kids) != t.NumFields() {
			return f, false
		}
		f.Type = arrow.StructOf(kids...)
	case *arrow.ListType:
		f.Type = arrow.ListOfField(kids[0])
	case *arrow.LargeListType:
		f.Type = arrow.LargeListOfField(kids[0])
	case *arrow.FixedSizeListType:
		f.Type = arrow.FixedSizeListOfField(t.Len(), kids[0])
	case *arrow.MapType:
		kv, ok := kids[0].Type.(*arrow.StructType)
		if !ok || kv.NumFields() != 2 {
			return f, false
		}
		mt := arrow.MapOf(kv.Field(0).Type, kv.Field(1).Type)
		mt.SetItemNullable(kv.Field(1).Nullable)
		f.Type = mt
	default:
		return f, false
	}
	return f, true
}

// convertedOnly returns the columns whose schema element has a converted
// type and no logical type: a legacy writer's annotation, which arrow-go
// reads as the logical type it corresponds to.
func convertedOnly(md *metadata.FileMetaData) map[int]bool {
	out := map[int]bool{}
	if md == nil || md.FileMetaData == nil {
		return out
	}
	col := 0
	for i, e := range md.FileMetaData.GetSchema() {
		if i == 0 || !e.IsSetType() {
			continue // the root, and groups
		}
		if e.IsSetConvertedType() && !e.IsSetLogicalType() {
			out[col] = true
		}
		col++
	}
	return out
}
