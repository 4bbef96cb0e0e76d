package trevniparquet

import (
	"bytes"
	"fmt"
	"io"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/parquet"
	"github.com/apache/arrow-go/v18/parquet/compress"
	"github.com/apache/arrow-go/v18/parquet/pqarrow"
	pqschema "github.com/apache/arrow-go/v18/parquet/schema"
)

// arrow-go's Parquet reader (v18.8.0) fails on a brotli page whose values
// decompress to nothing, "decoded data exceeds destination size 0": the
// Go brotli reader answers its first read of an empty stream with no bytes
// and no error, which arrow-go takes for more data than the page's size.
// parquet-go writes such pages (version 2 data pages whose values are all
// null, the levels stored uncompressed before them), and DuckDB reads
// them. arrow-go takes its codecs from a registry it offers for that
// purpose (compress.RegisterCodec), so the brotli codec is wrapped there
// once: a page whose values are empty decodes to nothing when its stream
// holds nothing; every other page is decoded by arrow-go's codec as
// before.
func init() {
	c, err := compress.GetCodec(compress.Codecs.Brotli)
	if err != nil {
		return
	}
	if inner, ok := c.(brotliStreaming); ok {
		compress.RegisterCodec(compress.Codecs.Brotli, emptyBrotli{inner})
	}
}

// brotliStreaming is what arrow-go's brotli codec implements.
type brotliStreaming interface {
	compress.ErrorCodec
	compress.StreamingCodec
}

// emptyBrotli is arrow-go's brotli codec, but for an empty destination.
type emptyBrotli struct{ brotliStreaming }

// DecodeWithError decodes src into dst, which is sized to the data.
func (c emptyBrotli) DecodeWithError(dst, src []byte) ([]byte, error) {
	if dst == nil || len(dst) > 0 {
		return c.brotliStreaming.DecodeWithError(dst, src)
	}
	r := c.NewReader(bytes.NewReader(src))
	defer r.Close()
	var one [1]byte
	n, err := io.ReadFull(r, one[:])
	switch {
	case n > 0:
		return nil, fmt.Errorf("codec: brotli: decoded data exceeds destination size 0")
	case err != io.EOF:
		return nil, fmt.Errorf("codec: brotli: %w", err)
	}
	return dst, nil
}

// Decode is DecodeWithError, panicking on an error as arrow-go's codecs do.
func (c emptyBrotli) Decode(dst, src []byte) []byte {
	out, err := c.DecodeWithError(dst, src)
	if err != nil {
		panic(err)
	}
	return out
}

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
// types as strings, and those of its INTERVAL as Arrow intervals, to infer
// the Avro schema from. arrow-go reads the first as binary (the Parquet
// format leaves their bytes to the application), but they are text, and
// DuckDB and Spark read them as strings; it reads an INTERVAL as 12
// fixed bytes, which are an Avro duration's (months, days and
// milliseconds, little-endian), so the Avro type is a duration. The
// batches keep arrow-go's types: the Trevni writer copies their bytes. as
// itself is returned when no such column changes it.
func textHints(as *arrow.Schema, m *pqarrow.SchemaManifest, descr *pqschema.Schema) *arrow.Schema {
	if m == nil || len(m.Fields) != as.NumFields() {
		return as
	}
	fields := as.Fields()
	changed := false
	for i := range m.Fields {
		f, c := hintField(&m.Fields[i], descr)
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
func hintField(sf *pqarrow.SchemaField, descr *pqschema.Schema) (arrow.Field, bool) {
	f := *sf.Field
	if sf.IsLeaf() {
		if sf.ColIndex < 0 || sf.ColIndex >= descr.NumColumns() {
			return f, false
		}
		col := descr.Column(sf.ColIndex)
		switch col.LogicalType().(type) {
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
		}
		return f, false
	}
	kids := make([]arrow.Field, len(sf.Children))
	changed := false
	for i := range sf.Children {
		var c bool
		kids[i], c = hintField(&sf.Children[i], descr)
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
