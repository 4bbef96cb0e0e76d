package assemble

import (
	"errors"
	"fmt"
	"io"
	"iter"
	"maps"
	"slices"

	"github.com/trevni-go/trevni/format"
	"github.com/trevni-go/trevni/internal/fieldpath"
	"github.com/trevni-go/trevni/schema"
	"github.com/trevni-go/trevni/schema/layout"
)

// DefaultMaxRecordBytes is the default of Options.MaxRecordBytes and
// ProtoOptions.MaxRecordBytes.
const DefaultMaxRecordBytes = format.DefaultMaxRowBytes

// Options configures an AvroReader. A nil *Options, or the zero value,
// reads every field with the file's own schema.
type Options struct {
	// ReaderSchema, if set, is the Avro schema (JSON text) to read the
	// records as: a projection or an evolution of the file's schema.
	ReaderSchema string
	// Fields, if set, selects record fields by dotted path ("a.b.c";
	// arrays, maps and unions are passed through; a field named by its
	// Avro name or its source name, schema.ResolvePath): records hold only the
	// selected fields, and only their columns are read. Without a
	// ReaderSchema, records are those of the file's schema projected on the
	// selection (Schema returns it; a selected field's default is dropped
	// where the selection changes its type), so ReadBinary, ReadJSON,
	// ToContainer and ToJSON write them; with a ReaderSchema, likewise
	// those of the reader schema projected on the selection.
	Fields []string
	// MatchField, if set, is consulted by schema resolution for a reader
	// field that matches no writer field by name or alias: it returns the
	// index of the field of writer record schema writer that reader reads,
	// or -1. ProtoReader passes one that matches protobuf field numbers.
	MatchField func(reader *schema.Field, writer *schema.Schema) int
	// Filter, if set, is a filter expression (package predicate's
	// grammar, as "trevni tojson --where" takes it) on the fields of the
	// file's schema, or with a ReaderSchema on the reader schema's: a
	// field it adds is its default in every record, a renamed one goes by
	// its new name, a promoted one compares as the reader's type (and an
	// expression that binds only to the file's schema is bound to it).
	// Only records satisfying it are returned by Read,
	// All, ReadBinary and ReadJSON, and checked by Validate. Blocks whose
	// statistics prove that no row of theirs matches are never read, in
	// any column; the filter's columns are read (and not output) where
	// the selection leaves them out. An expression that does not parse or
	// fit the schema is a *predicate.Error.
	Filter string
	// Layout bounds the column layout of the file's schema; nil means
	// layout's defaults. Raise its limits to read files of very large
	// schemas.
	Layout *layout.Options
	// MaxRecordBytes bounds the size of one record as assembled (an
	// estimate of its memory as a native value: 16 bytes a value or
	// element, 64 a record, and the bytes of strings, bytes and map keys,
	// whatever the output); a larger record is an error wrapping
	// format.ErrRecordSize that names it. 0 means DefaultMaxRecordBytes.
	MaxRecordBytes int64

	// lenient lets Fields name fields that some records on the way lack
	// (through unions), as the paths of a filter may.
	lenient bool
	// internalSchema marks a ReaderSchema that the reader made itself
	// (ProtoReader's, StructReader's): Filter names the file's fields, and
	// Fields selects fields of the ReaderSchema without projecting it, the
	// records then lacking the others (ReadBinary and ReadJSON refuse
	// them; ProtoReader takes them).
	internalSchema bool
}

// AvroReader reads the records of a Trevni file written from Avro.
//
// An AvroReader is not safe for concurrent use: it holds the position of
// every column it reads. Use one per goroutine (each may seek to its own
// range of records).
type AvroReader struct {
	rd         *format.Reader
	readSchema *schema.Schema
	readText   string // readSchema's JSON text, for container files
	columns    []layout.Column
	fileSchema *schema.Schema // the writer's schema, from the file
	root       *plan
	cols       []*format.ColumnReader // by file column; nil when not read
	used       []*format.ColumnReader
	row        int64
	maxElems   int
	elems      int
	maxBytes   int64   // the budget of a record's size
	spent      int64   // the current record's size so far
	selective  bool    // Options.Fields selects fields
	end        int64   // Read returns io.EOF here
	checked    int64   // records Validate walked (the others it knew alike)
	val        any     // the value sink's result of the last walk
	filter     *filter // Options.Filter; nil without one
	returned   int64   // records returned
	counted    int64   // of which counted by Count, without reading them
	limit      int64   // records left before io.EOF (SetLimit); negative: no limit

	jsonScratch  [][]byte      // ReadJSON's map entries, by depth
	jsonEntries  [][]jsonEntry // and where they are
	plainScratch []byte        // ReadPlainJSON's working space for decimals
}

// storedSchema returns the writer's schema stored in rd's avro.schema
// metadata, as text and parsed within the layout bounds lo.
func storedSchema(rd *format.Reader, lo *layout.Options) (string, *schema.Schema, error) {
	text := rd.Meta().GetString(layout.MetaAvroSchema)
	if text == "" {
		return "", nil, fmt.Errorf("assemble: the file has no %s metadata: it was not written from Avro", layout.MetaAvroSchema)
	}
	s, err := layout.ParseStored(text, lo)
	if err != nil {
		return "", nil, fmt.Errorf("assemble: the file's %s: %w", layout.MetaAvroSchema, err)
	}
	return text, s, nil
}

// NewAvroReader prepares to read the records of rd, whose avro.schema
// metadata (layout.MetaAvroSchema) holds the writer's schema. As Java
// does, it binds columns by position: column i of the file is column i of
// the writer schema's layout. It checks that the file's columns have that
// layout's types. A reader schema that cannot read the file is reported
// as a *schema.Error (Record -1) wrapping ErrIncompatible, with the path
// of the first field at fault.
func NewAvroReader(rd *format.Reader, opts *Options) (*AvroReader, error) {
	if rd == nil {
		return nil, errors.New("assemble: NewAvroReader: nil reader")
	}
	var o Options
	if opts != nil {
		o = *opts
	}
	text, fileSchema, err := storedSchema(rd, o.Layout)
	if err != nil {
		return nil, err
	}
	lay, err := layout.New(fileSchema, o.Layout)
	if err != nil {
		return nil, fmt.Errorf("assemble: the file's schema: %w", err)
	}
	root, cols := lay.Root, lay.Columns
	if len(cols) != rd.NumColumns() {
		return nil, fmt.Errorf("assemble: %w: the schema has %d columns, the file %d", format.ErrFormat, len(cols), rd.NumColumns())
	}
	for i := range cols {
		fc, err := rd.Column(i)
		if err != nil {
			return nil, err
		}
		if fc.Type != cols[i].Type || fc.Array != cols[i].Array || (fc.Parent != "") != (cols[i].Parent >= 0) {
			return nil, fmt.Errorf("assemble: %w: column %d (%q) is %s, the schema's layout wants %s %q", format.ErrFormat, i, fc.Name, describeColumn(fc.Type, fc.Array), describeColumn(cols[i].Type, cols[i].Array), cols[i].Name)
		}
	}
	ar := &AvroReader{rd: rd, fileSchema: fileSchema, readSchema: fileSchema, readText: text, columns: cols, maxElems: format.DefaultMaxRowElements, maxBytes: DefaultMaxRecordBytes, end: rd.RowCount(), limit: -1}
	if o.MaxRecordBytes > 0 {
		ar.maxBytes = o.MaxRecordBytes
	}
	if o.ReaderSchema != "" {
		if ar.readSchema, err = schema.Parse(o.ReaderSchema); err != nil {
			return nil, fmt.Errorf("assemble: reader schema: %w", err)
		}
		ar.readText = o.ReaderSchema
	}
	fields, err := schema.ResolvePaths(ar.readSchema, o.Fields)
	if err != nil {
		return nil, fmt.Errorf("assemble: %w", err)
	}
	sel, err := parseSelection(fields)
	if err != nil {
		return nil, err
	}
	fullRead := ar.readSchema // the schema a filter binds to
	if sel != nil && !o.internalSchema && !o.lenient {
		// Records of the selected fields are records of a projection of
		// the file's schema, or of the reader schema: read them as that
		// schema.
		if ar.readSchema, err = projectSchema(ar.readSchema, sel); err != nil {
			return nil, err
		}
		ar.readText, sel = ar.readSchema.String(), nil
	}
	ar.selective = sel != nil
	c := &compiler{cols: map[int]bool{}, match: o.MatchField, lenient: o.lenient}
	if ar.root, err = c.compile(root, ar.readSchema, "", sel); err != nil {
		return nil, err
	}
	ar.cols = make([]*format.ColumnReader, len(cols))
	for _, i := range slices.Sorted(maps.Keys(c.cols)) {
		cr, err := rd.Values(i)
		if err != nil {
			return nil, err
		}
		ar.cols[i] = cr
		ar.used = append(ar.used, cr)
	}
	if o.Filter != "" {
		if ar.filter, err = newFilter(rd, o.Filter, fileSchema, lay, fullRead, &o); err != nil {
			return nil, err
		}
		for i, cr := range ar.cols {
			if cr == nil {
				continue
			}
			cr.SetReadAhead(false)
			// A column the filter reads too is read once: the filter's
			// reader is ahead, and this one copies its blocks; where the
			// statistics prove the filter it is behind, and copies this
			// one's.
			if ev := ar.filter.ev.cols[i]; ev != nil {
				if err := cr.ShareBlocks(ev); err != nil {
					return nil, err
				}
				if err := ev.ShareBlocks(cr); err != nil {
					return nil, err
				}
			}
		}
	}
	return ar, nil
}

func describeColumn(t format.ValueType, array bool) string {
	if array {
		return t.String() + " array"
	}
	return t.String()
}

// Schema returns the schema records are read as: the reader schema, or
// the file's.
func (ar *AvroReader) Schema() *schema.Schema { return ar.readSchema }

// Columns returns the file's column layout: the columns of the schema the
// file was written with, in file order.
func (ar *AvroReader) Columns() []layout.Column { return ar.columns }

// RowCount returns the number of records in the file.
func (ar *AvroReader) RowCount() int64 { return ar.rd.RowCount() }

// SeekRow positions the reader before record row, so that the next Read
// or ReadBinary returns it; row may be the record count, to position at the
// end. Every column the reader reads is sought (format.ColumnReader.SeekRow),
// so records can be read from anywhere without reading those before.
func (ar *AvroReader) SeekRow(row int64) error {
	if row < 0 || row > ar.rd.RowCount() {
		return fmt.Errorf("assemble: seek to record %d of %d", row, ar.rd.RowCount())
	}
	for _, c := range ar.used {
		if err := c.SeekRow(row); err != nil {
			return err
		}
	}
	ar.row = row
	if ar.filter != nil {
		ar.filter.next, ar.filter.ri = row, 0
	}
	ar.boundReadAhead()
	return nil
}

// StopAt makes the reader report io.EOF once it reaches record row, so
// that a range of records can be read. Rows beyond the record count
// (math.MaxInt64 included) mean the end of the file; negative ones, 0.
func (ar *AvroReader) StopAt(row int64) {
	ar.end = max(0, min(row, ar.rd.RowCount()))
	ar.boundReadAhead()
}

// boundReadAhead keeps the columns from reading ahead blocks past the
// last row the reader will read: its end (StopAt) and, without a filter,
// its limit (SetLimit). With a filter, where the matches end is not known.
func (ar *AvroReader) boundReadAhead() {
	end := ar.end
	if ar.filter == nil && ar.limit >= 0 {
		end = min(end, max(ar.row, 0)+ar.limit)
	}
	for _, c := range ar.used {
		c.SetReadAheadEnd(end)
	}
}

// Row returns the number of the row the next record is read from, or
// after which it is looked for: after a Read, ReadBinary or ReadJSON,
// Row()-1 is the row of the record returned, also with a filter, which
// passes over the rows that do not match. A reader that splits a file by
// rows (a Beam restriction) claims that row before emitting the record.
func (ar *AvroReader) Row() int64 { return ar.row }

// SetLimit makes the reader report io.EOF after n more records, counting
// only the records it returns (those that satisfy the filter); a negative
// n removes the limit. Unlike StopAt, which ends at a row of the file, it
// suits "the first n matches".
func (ar *AvroReader) SetLimit(n int64) {
	ar.limit = n
	ar.boundReadAhead()
}

// ColumnsRead returns the numbers of the file columns the reader reads.
func (ar *AvroReader) ColumnsRead() []int {
	var out []int
	for i, c := range ar.cols {
		if c != nil {
			out = append(out, i)
		}
	}
	return out
}

func (ar *AvroReader) startRow() error {
	if ar.row >= ar.end {
		return io.EOF
	}
	for _, c := range ar.used {
		if err := c.StartRow(); err != nil {
			if err == io.EOF {
				err = fmt.Errorf("%w: column %q ends before row %d", format.ErrFormat, c.Meta().Name, ar.row)
			}
			return fieldpath.Record(err, ar.row)
		}
	}
	ar.elems, ar.spent = 0, 0
	return nil
}

// Read returns the next record as a goavro native value of the reader
// schema (ready for goavro's encoders), or io.EOF after the last.
func (ar *AvroReader) Read() (any, error) {
	_, v, err := ar.record(nil, toValue)
	return v, err
}

// ReadBinary appends the next record, in the Avro binary encoding of the
// reader schema, to dst, or returns io.EOF after the last. It is the fast
// path: values go from the columns to the encoding without a Go value per
// field.
func (ar *AvroReader) ReadBinary(dst []byte) ([]byte, error) {
	if ar.selective {
		return dst, errors.New("assemble: records with selected fields have no binary encoding")
	}
	b, _, err := ar.record(dst, toBinary)
	return b, err
}

// All returns an iterator over the remaining records, as Read returns
// them. It stops after the last record, or after yielding an error (never
// io.EOF).
func (ar *AvroReader) All() iter.Seq2[any, error] {
	return func(yield func(any, error) bool) {
		for {
			v, err := ar.Read()
			if err == io.EOF {
				return
			}
			if !yield(v, err) || err != nil {
				return
			}
		}
	}
}

// ReadJSON appends the next record, in Avro's JSON encoding of the reader
// schema, to dst, or returns io.EOF after the last. It writes exactly what
// ToJSON writes for the record (fields in schema order, map keys sorted,
// Java's escapes and float format), straight from the columns without a Go
// value per field.
func (ar *AvroReader) ReadJSON(dst []byte) ([]byte, error) {
	if ar.selective {
		return dst, errors.New("assemble: records with selected fields have no JSON encoding of the schema")
	}
	b, _, err := ar.record(dst, toJSON)
	return b, err
}

// ReadPlainJSON appends the next record, in plain JSON, to dst, or returns
// io.EOF after the last. Plain JSON is what jq users expect rather than
// Avro's JSON encoding: unions unwrapped (the value of the branch taken),
// bytes and fixed in standard base64, decimals as exact JSON numbers with
// the schema's scale (1234.50), timestamps as RFC 3339 strings at the
// type's precision (UTC with a Z; local timestamps without), dates as
// YYYY-MM-DD, times of day as HH:MM:SS.fff (or six digits), uuids and enum
// symbols as strings, NaN and the infinities as the strings "NaN",
// "Infinity" and "-Infinity", other floats as encoding/json writes them.
// Fields come in schema order and map keys sorted, as in ReadJSON. Unlike
// ReadJSON it takes a reader with a field selection. It writes straight
// from the columns, without a Go value per field.
func (ar *AvroReader) ReadPlainJSON(dst []byte) ([]byte, error) {
	b, _, err := ar.record(dst, toPlain)
	return b, err
}
