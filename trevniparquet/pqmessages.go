package trevniparquet

import (
	"errors"
	"fmt"
	"runtime"
	"strings"

	"github.com/apache/arrow-go/v18/parquet"
	"github.com/apache/arrow-go/v18/parquet/compress"
	"github.com/apache/arrow-go/v18/parquet/file"
)

// panicText returns what a recovered panic of arrow-go's Parquet reader
// says, in a reader's words: a Go runtime error (an index or a slice size
// out of range, which only damaged metadata or pages cause) says the data
// is inconsistent rather than what the runtime says.
func panicText(p any) string {
	var re runtime.Error
	if err, ok := p.(error); ok && errors.As(err, &re) {
		return "its sizes or counts are inconsistent (the file is damaged)"
	}
	s := fmt.Sprint(p)
	if strings.HasPrefix(s, "runtime error") {
		return "its sizes or counts are inconsistent (the file is damaged)"
	}
	return s
}

// knownCodec says whether a Parquet compression is one of the format's.
func knownCodec(c compress.Compression) bool {
	switch c {
	case compress.Codecs.Uncompressed, compress.Codecs.Snappy, compress.Codecs.Gzip, compress.Codecs.Lzo,
		compress.Codecs.Brotli, compress.Codecs.Lz4, compress.Codecs.Zstd, compress.Codecs.Lz4Raw:
		return true
	}
	return false
}

// knownEncoding says whether a Parquet encoding is one of the format's.
func knownEncoding(e parquet.Encoding) bool {
	switch e {
	case parquet.Encodings.Plain, parquet.Encodings.PlainDict, parquet.Encodings.RLE, parquet.Encodings.BitPacked,
		parquet.Encodings.DeltaBinaryPacked, parquet.Encodings.DeltaLengthByteArray, parquet.Encodings.DeltaByteArray,
		parquet.Encodings.RLEDict, parquet.Encodings.ByteStreamSplit:
		return true
	}
	return false
}

// checkFooterCodes returns an error naming the column chunk whose footer
// names a codec, an encoding or a physical type that Parquet does not
// define (damaged metadata), before anything prints them as arrow-go's
// placeholders ("<UNSET>").
func checkFooterCodes(rd *file.Reader) error {
	md := rd.MetaData()
	for g := range rd.NumRowGroups() {
		rg := md.RowGroup(g)
		for c := range min(rg.NumColumns(), md.Schema.NumColumns()) {
			col, err := rg.ColumnChunk(c)
			if err != nil {
				return fmt.Errorf("Parquet footer: row group %d, column %d: %w", g, c, err)
			}
			name := md.Schema.Column(c).Path()
			if !knownCodec(col.Compression()) {
				return fmt.Errorf("Parquet footer: row group %d, column %q: compression codec number %d is not one of Parquet's (the file is damaged)", g, name, int(col.Compression()))
			}
			switch col.Type() {
			case parquet.Types.Boolean, parquet.Types.Int32, parquet.Types.Int64, parquet.Types.Int96,
				parquet.Types.Float, parquet.Types.Double, parquet.Types.ByteArray, parquet.Types.FixedLenByteArray:
			default:
				return fmt.Errorf("Parquet footer: row group %d, column %q: physical type number %d is not one of Parquet's (the file is damaged)", g, name, int(col.Type()))
			}
			for _, e := range col.Encodings() {
				if !knownEncoding(e) {
					return fmt.Errorf("Parquet footer: row group %d, column %q: encoding number %d is not one of Parquet's (the file is damaged)", g, name, int(e))
				}
			}
		}
	}
	return nil
}

// footerError returns the error of a footer arrow-go could not read: one
// its Thrift decoder gave (which names Go types) says the metadata does
// not decode.
func footerError(err error) error {
	if strings.Contains(err.Error(), "could not read footer") {
		return fmt.Errorf("Parquet footer: its metadata does not decode (the file is damaged, or not Parquet)")
	}
	return fmt.Errorf("Parquet footer: %w", err)
}

// schemaError returns the error of pqarrow's reading of a file's schema in
// a reader's words: one that arrow-go recovered from a runtime error (its
// IPC reader of a damaged ARROW:schema does) says the stored schema is
// damaged, without Go's text.
func schemaError(err error) error {
	if strings.Contains(err.Error(), "runtime error") {
		return fmt.Errorf("Parquet schema: its stored Arrow schema (key-value metadata ARROW:schema) does not decode (the file is damaged)")
	}
	return fmt.Errorf("Parquet schema: %w", err)
}
