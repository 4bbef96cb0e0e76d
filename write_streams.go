package trevni

import (
	"context"
	"errors"
	"fmt"
	"io"

	"google.golang.org/protobuf/reflect/protoreflect"

	"github.com/trevni-go/trevni/csvtable"
	"github.com/trevni-go/trevni/internal/avrojson"
	"github.com/trevni-go/trevni/internal/plainjson"
	"github.com/trevni-go/trevni/shred"
)

// The writers of streams: records that arrive as text or framed messages
// (JSON lines, a protobuf stream), decoded and shredded on
// WriteOptions.Workers goroutines, as the trevni command's fromjson and
// fromproto write them. AppendAvro and ConvertAvroStream (write.go) are
// those of Avro container files.

// LineError is the error of AppendJSONLines about one line of its input:
// the line's number, counting from 1 at the start of that input, and what
// is wrong with it (a *RecordError for a record that does not fit the
// schema).
type LineError struct {
	Line int64
	Err  error
}

// Error formats the error as "line N: cause".
func (e *LineError) Error() string { return fmt.Sprintf("line %d: %v", e.Line, e.Err) }

// Unwrap returns the cause.
func (e *LineError) Unwrap() error { return e.Err }

// AppendJSONLines writes one record for every line of r that is not blank:
// in Avro's JSON encoding of the writer's schema (as Dataset.WriteJSON
// writes records), or with opts.Plain in plain JSON (as WriteJSON writes
// it with JSONOptions.Plain: unions bare, bytes in base64, a union taking
// its first branch that fits); opts.Pretty does not apply, nor does a
// nil opts. The lines are decoded and shredded on WriteOptions.Workers
// goroutines, the records written in the order of the lines.
// WriteOptions.Progress is called now and then with the records written
// and the bytes of r consumed. ctx is checked between lines.
//
// The first line that does not decode or does not fit the schema ends
// the writing with a *LineError naming it, as does an error reading r;
// the Writer is then good only for Abort.
func (w *Writer) AppendJSONLines(ctx context.Context, r io.Reader, opts *JSONOptions) error {
	s := w.aw.Schema()
	decode := func(line []byte) (any, error) { return avrojson.Decode(s, line) }
	if opts != nil && opts.Plain {
		decode = func(line []byte) (any, error) { return plainjson.Decode(s, line) }
	}
	err := w.aw.WriteLines(ctx, r, decode)
	var le *shred.LineError
	if errors.As(err, &le) {
		return &LineError{Line: le.Line, Err: writeErr(le.Err)}
	}
	return writeErr(err)
}

// ConvertProtoStream writes to w a Trevni file of the protobuf messages
// of type md read from r, framed as framing says (Delimited: each
// preceded by its length as a varint; JSONLines: one protojson message a
// line), and returns the messages written. The file is the one a
// ProtoWriter writes (its descriptors stored). The messages are parsed on
// WriteOptions.Workers goroutines, written in the order of the stream;
// WriteOptions.Progress is called now and then with the messages written
// and the bytes of r consumed. An error names the message (counting from
// 0) and where it starts in r; ctx stops it between messages, and nothing
// is then written. Replace and Stores in opts do not apply; spill files go
// to TempDir.
func ConvertProtoStream(ctx context.Context, w io.Writer, r io.Reader, framing Framing, md protoreflect.MessageDescriptor, opts *ProtoWriteOptions) (int64, error) {
	if err := opts.check(); err != nil {
		return 0, err
	}
	po := opts.shred()
	n, err := shred.FromProtoStream(ctx, w, r, framing, md, &po)
	return n, writeErr(err)
}

// CSVOptions configures AppendCSV. A nil *CSVOptions means the defaults.
type CSVOptions struct {
	// Comma separates the cells of a record; 0 means ','.
	Comma rune
	// NoHeader says the first row is a record, not a header: its cells
	// are the schema's fields in order.
	NoHeader bool
	// Ragged says what a record whose number of cells is not the
	// header's is: RaggedError (the default), RaggedPad or RaggedDrop.
	Ragged Ragged
}

// Ragged is what AppendCSV does with a record whose number of cells is
// not the header's.
type Ragged uint8

// The ways of reading ragged CSV.
const (
	// RaggedError makes such a record an error wrapping ErrRagged.
	RaggedError Ragged = iota
	// RaggedPad reads a short record's missing cells as null; a long
	// record is still an error.
	RaggedPad
	// RaggedDrop skips such records, counting them.
	RaggedDrop
)

// ErrRagged is wrapped by the error of AppendCSV about a record whose
// number of cells is not the header's, with RaggedError (or a long one
// with RaggedPad).
var ErrRagged = csvtable.ErrRagged

// csv returns the csvtable form of r.
func (r Ragged) csv() (csvtable.Ragged, error) {
	switch r {
	case RaggedError:
		return csvtable.RaggedError, nil
	case RaggedPad:
		return csvtable.RaggedPad, nil
	case RaggedDrop:
		return csvtable.RaggedDrop, nil
	}
	return 0, fmt.Errorf("CSVOptions.Ragged %d: want RaggedError, RaggedPad or RaggedDrop", r)
}

// AppendCSV writes one record for every record of the CSV text r (RFC
// 4180, its cells separated by opts.Comma), as the trevni command's
// fromcsv writes them, and returns how many records it dropped (with
// RaggedDrop). The writer's schema must be a flat record of the types a
// cell takes (boolean, int, long, float, double, string, bytes, the date
// and time types, decimal, each optionally nullable: an empty cell is
// null), as `trevni fromcsv --print-schema` prints one. The header's
// columns are matched to the fields by name, or by the field's csv.name
// attribute (the column's name when it is not an Avro name), in any
// order; a column that is no field is an error. The records are parsed
// and shredded on WriteOptions.Workers goroutines and written in the
// order of r; WriteOptions.Progress is called now and then, and at the
// end, with the records written and the bytes of r consumed. ctx is
// checked between records. After an error the Writer is good only for Abort.
func (w *Writer) AppendCSV(ctx context.Context, r io.Reader, opts *CSVOptions) (dropped int64, err error) {
	var o CSVOptions
	if opts != nil {
		o = *opts
	}
	if o.Comma == 0 {
		o.Comma = ','
	}
	rg, err := o.Ragged.csv()
	if err != nil {
		return 0, err
	}
	fields, err := csvtable.FieldsOf(w.aw.Schema())
	if err != nil {
		return 0, err
	}
	cr := &countingReader{r: r}
	src, err := csvtable.NewCSVSource(cr, fields, o.Comma, &csvtable.ReaderOptions{Ragged: rg, NoHeader: o.NoHeader})
	if err != nil {
		return 0, err
	}
	var copts *csvtable.CopyOptions
	if w.progress != nil {
		base := w.aw.RowCount()
		copts = &csvtable.CopyOptions{Progress: func(n int64) { w.progress(base+n, cr.n) }}
	}
	_, err = csvtable.Append(ctx, csvtable.NewTrevniSinkOf(w.aw, fields), src, copts)
	if err == nil && w.progress != nil {
		w.progress(w.aw.RowCount(), cr.n)
	}
	if d, ok := src.(interface{ Dropped() int64 }); ok {
		dropped = d.Dropped()
	}
	return dropped, writeErr(err)
}

// countingReader counts the bytes read through it.
type countingReader struct {
	r io.Reader
	n int64
}

func (c *countingReader) Read(p []byte) (int, error) {
	n, err := c.r.Read(p)
	c.n += int64(n)
	return n, err
}
