package trevniparquet

import (
	"bytes"
	"encoding/base64"
	"encoding/binary"
	"fmt"
	"io"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/flight"
	"github.com/apache/arrow-go/v18/parquet"
	"github.com/apache/arrow-go/v18/parquet/compress"
	"github.com/apache/arrow-go/v18/parquet/file"
	"github.com/apache/arrow-go/v18/parquet/metadata"
	"github.com/apache/arrow-go/v18/parquet/pqarrow"
	pqschema "github.com/apache/arrow-go/v18/parquet/schema"
	"github.com/klauspost/compress/s2"
)

// The Parquet file writer of the direct path: the magic, row groups of
// column chunks and the footer are written here, each column chunk by
// arrow-go's column chunk writer (encodings, levels, statistics, pages)
// through arrow-go's page writer, but for one thing: the pages of a
// snappy column chunk are compressed here, by s2's snappy-compatible
// encoder. arrow-go's snappy codec (klauspost's snappy package, whose
// Encode is s2's "better" encoder) costs about twice the instructions
// for output a few percent smaller, a fifth of all the work of writing
// Parquet from Trevni; both write standard snappy blocks. Nothing
// process-wide changes: arrow-go's codec registry is left as it is, and a
// program's other Parquet writers compress as arrow-go does.

// magic is the first and last four bytes of a Parquet file.
var magic = []byte("PAR1")

// tellWriter is an io.Writer that counts what was written (the Parquet
// page writers' sink).
type tellWriter struct {
	w io.Writer
	n int64
}

func (t *tellWriter) Write(p []byte) (int, error) {
	n, err := t.w.Write(p)
	t.n += int64(n)
	return n, err
}

// Tell returns the number of bytes written.
func (t *tellWriter) Tell() int64 { return t.n }

// pqWriter writes one Parquet file of a schema.
type pqWriter struct {
	sink   *tellWriter
	schema *pqschema.Schema
	props  *parquet.WriterProperties
	meta   *metadata.FileMetaDataBuilder
	groups int16
	rg     *pqRowGroup // the row group being written, nil if none
}

// newPQWriter starts a Parquet file of schema sc with key-value metadata
// kv on w.
func newPQWriter(w io.Writer, sc *pqschema.Schema, props *parquet.WriterProperties, kv metadata.KeyValueMetadata) (*pqWriter, error) {
	pw := &pqWriter{sink: &tellWriter{w: w}, schema: sc, props: props, meta: metadata.NewFileMetadataBuilder(sc, props, kv)}
	if _, err := pw.sink.Write(magic); err != nil {
		return nil, err
	}
	return pw, nil
}

// pqRowGroup is a row group being written: a column chunk writer for
// every leaf, each buffering its pages until the row group closes, so
// that the leaves may be written at once, each by its own goroutine.
type pqRowGroup struct {
	w       *pqWriter
	meta    *metadata.RowGroupMetaDataBuilder
	ordinal int16
	cols    []file.ColumnChunkWriter
}

// appendRowGroup closes the row group being written, if any, and starts
// the next.
func (w *pqWriter) appendRowGroup() (*pqRowGroup, error) {
	if w.rg != nil {
		if err := w.rg.close(); err != nil {
			return nil, err
		}
	}
	if w.groups == 1<<15-1 {
		return nil, fmt.Errorf("more than %d row groups", 1<<15-1)
	}
	rg := &pqRowGroup{w: w, meta: w.meta.AppendRowGroup(), ordinal: w.groups}
	w.groups++
	for i := range w.schema.NumColumns() {
		cm := rg.meta.NextColumnChunk()
		path := cm.Descr().Path()
		codec := w.props.CompressionFor(path)
		pager, err := file.NewPageWriter(w.sink, codec, w.props.CompressionLevelFor(path), cm, rg.ordinal, int16(i), w.props.Allocator(), true, nil, nil)
		if err != nil {
			rg.release()
			return nil, fmt.Errorf("Parquet column %s: %w", path, err)
		}
		if codec == compress.Codecs.Snappy {
			pager = s2Pages{pager}
		}
		rg.cols = append(rg.cols, file.NewColumnChunkWriter(cm, pager, w.props))
	}
	w.rg = rg
	return rg, nil
}

// release closes the row group's column writers without writing them.
func (rg *pqRowGroup) release() {
	for _, cw := range rg.cols {
		cw.Close() // nothing of it reaches the file: the file fails
	}
	rg.cols = nil
}

// close writes the row group's column chunks, one after another, and its
// metadata.
func (rg *pqRowGroup) close() error {
	rg.w.rg = nil
	if len(rg.cols) == 0 {
		return nil
	}
	rows := rg.cols[0].RowsWritten()
	for i, cw := range rg.cols[1:] {
		if n := cw.RowsWritten(); n != rows {
			rg.release()
			return fmt.Errorf("Parquet row group %d: column %s has %d rows, column %s %d", rg.ordinal, cw.Descr().Path(), n, rg.cols[0].Descr().Path(), rows)
		}
		_ = i
	}
	var total int64
	for _, cw := range rg.cols {
		if err := cw.Close(); err != nil {
			return fmt.Errorf("Parquet row group %d, column %s: %w", rg.ordinal, cw.Descr().Path(), err)
		}
		total += cw.TotalBytesWritten()
	}
	rg.cols = nil
	rg.meta.SetNumRows(rows)
	return rg.meta.Finish(total, rg.ordinal)
}

// close ends the row group being written and writes the footer.
func (w *pqWriter) close() error {
	if w.rg != nil {
		if err := w.rg.close(); err != nil {
			return err
		}
	}
	fm, err := w.meta.Finish()
	if err != nil {
		return err
	}
	n, err := fm.WriteTo(w.sink, nil)
	if err != nil {
		return err
	}
	var tail [8]byte
	binary.LittleEndian.PutUint32(tail[:4], uint32(n))
	copy(tail[4:], magic)
	_, err = w.sink.Write(tail[:])
	return err
}

// abort releases what a failed file holds.
func (w *pqWriter) abort() {
	if w.rg != nil {
		w.rg.release()
		w.rg = nil
	}
}

// s2Pages is a page writer whose data pages are compressed by s2's
// snappy-compatible encoder (a dictionary page, at most
// parquetDictionaryLimit bytes, by arrow-go's codec).
type s2Pages struct{ file.PageWriter }

// Compress compresses src as a snappy block in buf's memory.
func (s2Pages) Compress(buf *bytes.Buffer, src []byte) []byte {
	n := s2.MaxEncodedLen(len(src))
	if n < 0 {
		panic(fmt.Sprintf("trevniarrow: a Parquet page of %d bytes is too large for snappy", len(src)))
	}
	buf.Reset()
	buf.Grow(n)
	return s2.EncodeSnappy(buf.AvailableBuffer()[:n], src)
}

// parquetSchema returns the Parquet schema and key-value metadata that
// pqarrow writes for the Arrow schema as: the schema ToParquet maps it to,
// the Arrow schema's metadata (the Avro schema), and the Arrow schema
// itself under "ARROW:schema", its list items named "element" as the
// Parquet lists' are.
func parquetSchema(as *arrow.Schema, props *parquet.WriterProperties) (*pqschema.Schema, metadata.KeyValueMetadata, error) {
	sc, err := pqarrow.ToParquet(as, props, pqarrow.NewArrowWriterProperties(pqarrow.WithStoreSchema()))
	if err != nil {
		return nil, nil, err
	}
	kv := make(metadata.KeyValueMetadata, 0, as.Metadata().Len()+1)
	md := as.Metadata()
	for i := range md.Len() {
		kv.Append(md.Keys()[i], md.Values()[i])
	}
	fields := make([]arrow.Field, as.NumFields())
	for i, f := range as.Fields() {
		fields[i] = elementNames(f)
	}
	stored := arrow.NewSchema(fields, &md)
	kv.Append("ARROW:schema", base64.StdEncoding.EncodeToString(flight.SerializeSchema(stored, props.Allocator())))
	return sc, kv, nil
}

// elementNames returns f with the items of its lists, at any depth, named
// "element".
func elementNames(f arrow.Field) arrow.Field {
	switch t := f.Type.(type) {
	case *arrow.ListType:
		e := elementNames(t.ElemField())
		e.Name = "element"
		f.Type = arrow.ListOfField(e)
	case *arrow.StructType:
		kids := make([]arrow.Field, t.NumFields())
		for i := range kids {
			kids[i] = elementNames(t.Field(i))
		}
		f.Type = arrow.StructOf(kids...)
	case *arrow.MapType:
		f.Type = arrow.MapOfFields(elementNames(t.KeyField()), elementNames(t.ItemField()))
	}
	return f
}
