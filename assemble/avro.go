package assemble

import (
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"maps"
	"math"
	"slices"
	"unicode/utf8"

	"github.com/trevni-go/trevni/format"
	"github.com/trevni-go/trevni/schema"
	"github.com/trevni-go/trevni/schema/layout"
	"github.com/trevni-go/trevni/typemap"
)

// MetaAvroSchema is the file metadata key holding the writer's Avro schema.
const MetaAvroSchema = "avro.schema"

// Options configures an AvroReader. The zero value reads every field with
// the file's own schema.
type Options struct {
	// ReaderSchema, if set, is the Avro schema (JSON text) to read the
	// records as: a projection or an evolution of the file's schema.
	ReaderSchema string
	// Fields, if set, selects record fields by dotted path ("a.b.c";
	// arrays, maps and unions are passed through): Read returns records
	// holding only the selected fields, and only their columns are read.
	// Such records no longer match the schema, so ReadBinary, ToContainer
	// and ToJSON refuse a selection; it is for consumers that accept
	// missing fields, such as ProtoReader.
	Fields []string
	// MatchField, if set, is consulted by schema resolution after name
	// and alias matching: it returns the index of the writer record
	// field that the reader field reads, or -1. ProtoReader passes
	// protoschema.MatchFieldNumber, which matches protobuf field numbers.
	MatchField func(reader *schema.Field, writer *schema.Schema) int
}

// AvroReader reads the records of a Trevni file written from Avro.
type AvroReader struct {
	rd         *format.Reader
	fileSchema *schema.Schema
	readSchema *schema.Schema
	readText   string
	root       *plan
	cols       []*format.ColumnReader // by file column; nil when not read
	used       []*format.ColumnReader
	row        int64
	maxElems   int
	elems      int
	selective  bool  // Options.Fields selects fields
	end        int64 // Read returns io.EOF here

	jsonScratch [][]byte      // ReadJSON's map entries, by depth
	jsonEntries [][]jsonEntry // and where they are
}

// NewAvroReader prepares to read the records of rd, whose avro.schema
// metadata holds the writer's schema. As Java does, it binds columns by
// position: column i of the file is column i of the writer schema's
// layout. It checks that the file's columns have that layout's types.
func NewAvroReader(rd *format.Reader, opts *Options) (*AvroReader, error) {
	text := rd.Meta().GetString(MetaAvroSchema)
	if text == "" {
		return nil, fmt.Errorf("assemble: the file has no %s metadata: it was not written from Avro", MetaAvroSchema)
	}
	// The writer's defaults play no part in reading; older Java wrote
	// some that do not match their fields.
	fileSchema, err := schema.ParseOptions{AllowInvalidDefaults: true}.Parse(text)
	if err != nil {
		return nil, fmt.Errorf("assemble: the file's %s: %w", MetaAvroSchema, err)
	}
	lay, err := layout.New(fileSchema, nil)
	if err != nil {
		return nil, fmt.Errorf("assemble: the file's schema: %w", err)
	}
	root, cols := lay.Root, lay.Columns
	if len(cols) != rd.NumColumns() {
		return nil, fmt.Errorf("assemble: %w: the schema has %d columns, the file %d", format.ErrFormat, len(cols), rd.NumColumns())
	}
	for i := range cols {
		fc := rd.Column(i)
		if fc.Type != cols[i].Type || fc.Array != cols[i].Array || (fc.Parent != "") != (cols[i].Parent >= 0) {
			return nil, fmt.Errorf("assemble: %w: column %d (%q) is %s, the schema's layout wants %s %q", format.ErrFormat, i, fc.Name, describeColumn(fc.Type, fc.Array), describeColumn(cols[i].Type, cols[i].Array), cols[i].Name)
		}
	}
	ar := &AvroReader{rd: rd, fileSchema: fileSchema, readSchema: fileSchema, readText: text, maxElems: format.DefaultMaxRowElements, end: rd.RowCount()}
	if opts != nil && opts.ReaderSchema != "" {
		if ar.readSchema, err = schema.Parse(opts.ReaderSchema); err != nil {
			return nil, fmt.Errorf("assemble: reader schema: %w", err)
		}
		ar.readText = opts.ReaderSchema
	}
	var sel selection
	if opts != nil {
		if sel, err = parseSelection(opts.Fields); err != nil {
			return nil, err
		}
	}
	ar.selective = sel != nil
	c := &compiler{cols: map[int]bool{}}
	if opts != nil {
		c.match = opts.MatchField
	}
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
	return ar, nil
}

func describeColumn(t format.ValueType, array bool) string {
	if array {
		return t.String() + " array"
	}
	return t.String()
}

// Schema returns the schema records are read as.
func (ar *AvroReader) Schema() *schema.Schema { return ar.readSchema }

// SchemaText returns the schema records are read as, as JSON text: the
// reader schema as given, or the file's avro.schema.
func (ar *AvroReader) SchemaText() string { return ar.readText }

// FileSchema returns the schema the file was written with.
func (ar *AvroReader) FileSchema() *schema.Schema { return ar.fileSchema }

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
	return nil
}

// StopAt makes the reader report io.EOF once it reaches record row (at
// most the record count), so that a range of records can be read.
func (ar *AvroReader) StopAt(row int64) {
	ar.end = max(0, min(row, ar.rd.RowCount()))
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

// RecordError reports a record that could not be read: which one and
// where in it.
type RecordError struct {
	Row  int64
	Path string
	Err  error
}

func (e *RecordError) Error() string {
	if e.Path == "" {
		return fmt.Sprintf("record %d: %v", e.Row, e.Err)
	}
	return fmt.Sprintf("record %d, field %s: %v", e.Row, e.Path, e.Err)
}

// Unwrap returns the underlying error.
func (e *RecordError) Unwrap() error { return e.Err }

func (ar *AvroReader) startRow() error {
	if ar.row >= ar.end {
		return io.EOF
	}
	for _, c := range ar.used {
		if err := c.StartRow(); err != nil {
			if err == io.EOF {
				return fmt.Errorf("%w: column %q ends before row %d", format.ErrFormat, c.Meta().Name, ar.row)
			}
			return err
		}
	}
	ar.elems = 0
	return nil
}

func (ar *AvroReader) recordError(err error) error {
	var re *RecordError
	if errors.As(err, &re) {
		return err
	}
	return &RecordError{Row: ar.row, Err: err}
}

// Read returns the next record as a goavro native value of the reader
// schema (ready for goavro's encoders), or io.EOF after the last.
func (ar *AvroReader) Read() (any, error) {
	if err := ar.startRow(); err != nil {
		return nil, err
	}
	v, err := ar.native(ar.root)
	if err != nil {
		return nil, ar.recordError(err)
	}
	ar.row++
	return v, nil
}

// length reads an array or map length, bounding the elements per record.
func (ar *AvroReader) length(c *format.ColumnReader) (int, error) {
	n, err := c.NextLength()
	if err != nil {
		return 0, err
	}
	if ar.elems += n; ar.elems > ar.maxElems {
		return 0, fmt.Errorf("%w: record has more than %d array and map elements", format.ErrFormat, ar.maxElems)
	}
	return n, nil
}

// branch reads the branch lengths of a union in the file and returns the
// branch taken.
func (ar *AvroReader) branch(n *layout.Node) (int, error) {
	taken := -1
	for i, col := range n.BranchCols {
		if col < 0 {
			continue
		}
		l, err := ar.cols[col].NextLength()
		if err != nil {
			return 0, err
		}
		switch {
		case l == 0:
		case l == 1 && taken < 0:
			taken = i
		default:
			return 0, fmt.Errorf("%w: union branch column %q holds length %d", format.ErrFormat, ar.cols[col].Meta().Name, l)
		}
	}
	if taken < 0 {
		for i, b := range n.Branches {
			if b == nil {
				return i, nil
			}
		}
		return 0, fmt.Errorf("%w: no branch taken in a union without null", format.ErrFormat)
	}
	return taken, nil
}

func (ar *AvroReader) native(p *plan) (any, error) {
	switch p.op {
	case opRecord:
		rec := make(map[string]any, len(p.fields))
		for _, f := range p.fields {
			if f.p == nil {
				rec[f.name] = copyDefault(f.def)
				continue
			}
			v, err := ar.native(f.p)
			if err != nil {
				return nil, err
			}
			rec[f.name] = v
		}
		return rec, nil
	case opArray:
		c := ar.cols[p.w.Col]
		n, err := ar.length(c)
		if err != nil {
			return nil, err
		}
		list := make([]any, 0, min(n, 1024))
		for i := 0; i < n; i++ {
			v, err := ar.native(p.items)
			if err != nil {
				return nil, err
			}
			list = append(list, v)
		}
		return list, nil
	case opMap:
		n, err := ar.length(ar.cols[p.w.Col])
		if err != nil {
			return nil, err
		}
		m := make(map[string]any, min(n, 1024))
		keys := ar.cols[p.w.KeyCol]
		for i := 0; i < n; i++ {
			k, err := keys.ReadString()
			if err != nil {
				return nil, err
			}
			v, err := ar.native(p.items)
			if err != nil {
				return nil, err
			}
			m[k] = v
		}
		return m, nil
	case opWriterUnion:
		b, err := ar.branch(p.w)
		if err != nil {
			return nil, err
		}
		if p.w.Branches[b] == nil {
			if p.nullErr != nil {
				return nil, p.nullErr
			}
			if p.nullIdx >= 0 {
				return typemap.WrapUnion(p.rs, p.nullIdx, nil), nil
			}
			return nil, nil
		}
		if p.branchErr[b] != nil {
			return nil, p.branchErr[b]
		}
		v, err := ar.native(p.branches[b])
		if err != nil {
			return nil, err
		}
		if p.readerIdx[b] >= 0 {
			return typemap.WrapUnion(p.rs, p.readerIdx[b], v), nil
		}
		return v, nil
	case opReaderUnion:
		if p.items == nil {
			return typemap.WrapUnion(p.rs, p.branch, nil), nil
		}
		v, err := ar.native(p.items)
		if err != nil {
			return nil, err
		}
		return typemap.WrapUnion(p.rs, p.branch, v), nil
	case opEnum:
		o, err := ar.cols[p.w.Col].ReadInt()
		if err != nil {
			return nil, err
		}
		k, err := p.enumOrdinal(o)
		if err != nil {
			return nil, err
		}
		return p.rs.Symbols[k], nil
	}
	v, err := ar.cols[p.w.Col].Value()
	if err != nil {
		return nil, err
	}
	return promote(p.w.Schema, p.rs, v)
}

func (p *plan) enumOrdinal(o int32) (int32, error) {
	if o < 0 || int(o) >= len(p.enumMap) {
		return 0, fmt.Errorf("%w: enum %s has no ordinal %d", format.ErrFormat, p.w.Schema.Name, o)
	}
	k := p.enumMap[o]
	if k < 0 {
		return 0, fmt.Errorf("%w: symbol %s of the file's enum %s is not in the reader's enum %s, which has no default", ErrIncompatible, p.w.Schema.Symbols[o], p.w.Schema.Name, p.rs.Name)
	}
	return k, nil
}

// promote converts a stored value of the writer's simple schema ws to the
// goavro native value of the reader's schema rs.
func promote(ws, rs *schema.Schema, v any) (any, error) {
	if ws.Kind != rs.Kind {
		switch x := v.(type) {
		case int32:
			switch rs.Kind {
			case schema.Long:
				v = int64(x)
			case schema.Float:
				v = float32(x)
			case schema.Double:
				v = float64(x)
			}
		case int64:
			switch rs.Kind {
			case schema.Float:
				v = float32(x)
			case schema.Double:
				v = float64(x)
			}
		case float32:
			v = float64(x)
		case string:
			v = []byte(x)
		case []byte:
			v = string(x)
		}
	}
	return typemap.FromStored(rs, v)
}

// copyDefault returns a copy of a default value that the caller may
// change without changing the default.
func copyDefault(v any) any {
	switch x := v.(type) {
	case map[string]any:
		m := make(map[string]any, len(x))
		for k, e := range x {
			m[k] = copyDefault(e)
		}
		return m
	case []any:
		l := make([]any, len(x))
		for i, e := range x {
			l[i] = copyDefault(e)
		}
		return l
	case []byte:
		return append([]byte(nil), x...)
	}
	return v
}

// ReadBinary appends the next record, in the Avro binary encoding of the
// reader schema, to dst, or returns io.EOF after the last. It is the fast
// path: values go from the columns to the encoding without a Go value per
// field.
func (ar *AvroReader) ReadBinary(dst []byte) ([]byte, error) {
	if ar.selective {
		return dst, errors.New("assemble: records with selected fields have no binary encoding")
	}
	if err := ar.startRow(); err != nil {
		return dst, err
	}
	out, err := ar.encode(dst, ar.root)
	if err != nil {
		return dst, ar.recordError(err)
	}
	ar.row++
	return out, nil
}

func appendLong(b []byte, v int64) []byte {
	return binary.AppendUvarint(b, uint64((v<<1)^(v>>63)))
}

func (ar *AvroReader) encode(b []byte, p *plan) ([]byte, error) {
	var err error
	switch p.op {
	case opRecord:
		for _, f := range p.fields {
			if f.p == nil {
				b = append(b, f.defBin...)
				continue
			}
			if b, err = ar.encode(b, f.p); err != nil {
				return b, err
			}
		}
		return b, nil
	case opArray, opMap:
		n, err := ar.length(ar.cols[p.w.Col])
		if err != nil {
			return b, err
		}
		if n > 0 {
			b = appendLong(b, int64(n))
			var keys *format.ColumnReader
			if p.op == opMap {
				keys = ar.cols[p.w.KeyCol]
			}
			for i := 0; i < n; i++ {
				if keys != nil {
					k, err := keys.ReadBytes()
					if err != nil {
						return b, err
					}
					b = appendLong(b, int64(len(k)))
					b = append(b, k...)
				}
				if b, err = ar.encode(b, p.items); err != nil {
					return b, err
				}
			}
		}
		return append(b, 0), nil
	case opWriterUnion:
		br, err := ar.branch(p.w)
		if err != nil {
			return b, err
		}
		if p.w.Branches[br] == nil {
			if p.nullErr != nil {
				return b, p.nullErr
			}
			if p.nullIdx >= 0 {
				b = appendLong(b, int64(p.nullIdx))
			}
			return b, nil
		}
		if p.branchErr[br] != nil {
			return b, p.branchErr[br]
		}
		if p.readerIdx[br] >= 0 {
			b = appendLong(b, int64(p.readerIdx[br]))
		}
		return ar.encode(b, p.branches[br])
	case opReaderUnion:
		b = appendLong(b, int64(p.branch))
		if p.items == nil {
			return b, nil
		}
		return ar.encode(b, p.items)
	case opEnum:
		o, err := ar.cols[p.w.Col].ReadInt()
		if err != nil {
			return b, err
		}
		k, err := p.enumOrdinal(o)
		if err != nil {
			return b, err
		}
		return appendLong(b, int64(k)), nil
	}
	return ar.encodeSimple(b, p)
}

// encodeSimple appends one simple value, promoted to the reader's type.
func (ar *AvroReader) encodeSimple(b []byte, p *plan) ([]byte, error) {
	c := ar.cols[p.w.Col]
	rk := p.rs.Kind
	switch p.w.Type {
	case format.Null:
		return b, nil
	case format.Boolean:
		v, err := c.ReadBool()
		if err != nil {
			return b, err
		}
		if v {
			return append(b, 1), nil
		}
		return append(b, 0), nil
	case format.Int, format.Long:
		v, err := readInteger(c, p.w.Type)
		if err != nil {
			return b, err
		}
		switch rk {
		case schema.Float:
			return binary.LittleEndian.AppendUint32(b, math.Float32bits(float32(v))), nil
		case schema.Double:
			return binary.LittleEndian.AppendUint64(b, math.Float64bits(float64(v))), nil
		}
		return appendLong(b, v), nil
	case format.Float:
		v, err := c.ReadFloat()
		if err != nil {
			return b, err
		}
		if rk == schema.Double {
			return binary.LittleEndian.AppendUint64(b, math.Float64bits(float64(v))), nil
		}
		return binary.LittleEndian.AppendUint32(b, math.Float32bits(v)), nil
	case format.Double:
		v, err := c.ReadDouble()
		if err != nil {
			return b, err
		}
		return binary.LittleEndian.AppendUint64(b, math.Float64bits(v)), nil
	}
	// String and bytes; fixed is stored as bytes but encoded bare.
	v, err := c.ReadBytes()
	if err != nil {
		return b, err
	}
	if p.w.Type == format.String && rk == schema.String && !utf8.Valid(v) {
		return b, fmt.Errorf("%w: string is not valid UTF-8", format.ErrFormat)
	}
	if rk == schema.Fixed {
		if err := checkFixed(p.rs, v); err != nil {
			return b, err
		}
		return append(b, v...), nil
	}
	b = appendLong(b, int64(len(v)))
	return append(b, v...), nil
}

// readInteger reads the next value of an int or long column as an int64.
func readInteger(c *format.ColumnReader, t format.ValueType) (int64, error) {
	if t == format.Int {
		v, err := c.ReadInt()
		return int64(v), err
	}
	return c.ReadLong()
}

// checkFixed checks that a stored value has the size of the fixed type fs.
func checkFixed(fs *schema.Schema, v []byte) error {
	if len(v) != fs.Size {
		return fmt.Errorf("%w: fixed %s of %d bytes holds %d", format.ErrFormat, fs.Name, fs.Size, len(v))
	}
	return nil
}
