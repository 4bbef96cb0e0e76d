package csvtable

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"strings"

	"github.com/trevni-go/trevni/assemble"
	"github.com/trevni-go/trevni/clmn"
	"github.com/trevni-go/trevni/format"
	"github.com/trevni-go/trevni/schema"
	"github.com/trevni-go/trevni/schema/layout"
	"github.com/trevni-go/trevni/shred"
)

// Source gives the rows of a table.
type Source interface {
	// Fields returns the table's columns.
	Fields() []Field
	// Next fills cells (one per field) with the next row's values, which
	// are valid until the next call. It returns io.EOF after the last row.
	Next(cells []Cell) error
}

// Sink takes the rows of a table.
type Sink interface {
	// Write adds one row: one cell per field.
	Write(cells []Cell) error
	// Close finishes the output.
	Close() error
	// Abort abandons the output and removes temporary files.
	Abort()
}

// CopyOptions configures Copy. A nil *CopyOptions means the defaults.
type CopyOptions struct {
	// Progress, if set, is called with the rows copied every checkEvery
	// rows.
	Progress func(rows int64)
}

// checkEvery is how many rows Copy copies between looks at its context
// and calls of CopyOptions.Progress.
const checkEvery = 4096

// Copy writes every row of src to dst and closes dst, or aborts it at the
// first error. It returns the number of rows copied. It checks ctx every
// few thousand rows and, once ctx is done, aborts dst and returns ctx's
// error, wrapped.
//
// From a CSV Source (NewCSVSource, no record read yet, and not
// RaggedDrop) to a Trevni Sink (NewTrevniSink) whose shred.Options.Workers
// allow more than one (AvroWriter.Workers), the records are parsed,
// converted and shredded on that many goroutines, each taking ranges of
// whole records that one goroutine cuts at the newlines outside quotes;
// the rows, the errors (the same lines and rows) and the count are those
// of one goroutine, and Progress is called after every segment joined.
func Copy(ctx context.Context, dst Sink, src Source, opts *CopyOptions) (int64, error) {
	rows, err := Append(ctx, dst, src, opts)
	if err != nil {
		dst.Abort()
		return rows, err
	}
	if err := dst.Close(); err != nil {
		return rows, err
	}
	return rows, nil
}

// Append is Copy without the end: it writes every row of src to dst and
// leaves dst open, for the rows of further sources (the parts of one
// table); after an error the caller aborts dst. Progress counts the rows
// of this call.
func Append(ctx context.Context, dst Sink, src Source, opts *CopyOptions) (int64, error) {
	var progress func(int64)
	if opts != nil {
		progress = opts.Progress
	}
	if ts, ok := dst.(*trevniSink); ok && ts.aw.Workers() > 1 {
		if cs, ok := src.(*csvSource); ok && cs.cuttable() {
			return appendParallel(ctx, ts, cs, progress)
		}
	}
	cells := make([]Cell, len(src.Fields()))
	var rows int64
	for {
		if rows%checkEvery == 0 {
			if progress != nil && rows > 0 {
				progress(rows)
			}
			if err := ctx.Err(); err != nil {
				return rows, fmt.Errorf("csvtable: copy stopped at row %d: %w", rows, err)
			}
		}
		err := src.Next(cells)
		if err == io.EOF {
			return rows, nil
		}
		if err == nil {
			err = dst.Write(cells)
		}
		if err != nil {
			return rows, err
		}
		rows++
	}
}

// csvSource reads rows from CSV.
type csvSource struct {
	rd     *Reader
	fields []Field
	col    []int // the CSV column of each field, or -1 (null)
	// For the parallel path (parallel.go): the records' bytes that
	// encoding/csv read with the header, the lines before them, and the
	// rest of the input; started once Next has been called.
	rest      []byte
	restLines int
	in        io.Reader
	started   bool
}

// NewCSVSource returns a Source of the CSV in r with the given fields
// (from Infer, or FieldsOf a schema). Header names are matched to fields by
// name; a header column no field has is an error, and so is a field
// missing from the header unless it is nullable (it is then null). A cell
// that does not parse as its field's type is an *Error naming its line and
// column. opts may be nil; its MaxColumns is ignored (the header may not
// have more columns than there are fields), and with NoHeader and no
// Names the columns are named by the fields, in order. A cell that
// RaggedPad added is null, and an error in a field that is not nullable.
// The Source has a method Dropped() int64 counting the records RaggedDrop
// skipped.
func NewCSVSource(r io.Reader, fields []Field, comma rune, opts *ReaderOptions) (Source, error) {
	// Every header column must be a field: the header cannot have more.
	o := ReaderOptions{}
	if opts != nil {
		o = *opts
	}
	o.MaxColumns = max(1, len(fields))
	if o.NoHeader && o.Names == nil {
		o.Names = make([]string, len(fields))
		for i := range fields {
			o.Names[i] = fields[i].Name
		}
	}
	rec := &recorder{r: r}
	rd, err := NewReader(rec, comma, &o)
	if err != nil {
		return nil, err
	}
	rec.stop = true
	s := &csvSource{rd: rd, fields: fields, col: make([]int, len(fields)), in: r}
	s.rest, s.restLines = afterHeader(rd, rec.buf, o.NoHeader)
	byName := make(map[string]int, len(fields))
	for i := range fields {
		byName[fields[i].Name] = i
		s.col[i] = -1
	}
	for j, h := range rd.header {
		i, ok := byName[h]
		if !ok {
			return nil, &Error{Line: 1, Column: j + 1, Field: h, Err: errors.New("no field of the schema has this name")}
		}
		s.col[i] = j
	}
	for i, j := range s.col {
		if j < 0 && !fields[i].Nullable {
			return nil, &Error{Line: 1, Err: fmt.Errorf("the header has no column %q, which is not nullable", fields[i].Name)}
		}
	}
	return s, nil
}

func (s *csvSource) Fields() []Field { return s.fields }

// Dropped returns the number of records RaggedDrop has skipped so far.
func (s *csvSource) Dropped() int64 { return s.rd.dropped }

func (s *csvSource) Next(cells []Cell) error {
	s.started = true
	rec, err := s.rd.Read()
	if err != nil {
		return err
	}
	for i, j := range s.col {
		if j < 0 {
			cells[i] = Cell{Null: true, S: cells[i].S[:0]}
			continue
		}
		if j >= s.rd.cells {
			if !s.fields[i].Nullable {
				return s.rd.cellErr(j, fmt.Errorf("the record has %d cells, and padding it needs a null in non-nullable %s field %q", s.rd.cells, s.fields[i].Type, s.fields[i].Name))
			}
			cells[i] = Cell{Null: true, S: cells[i].S[:0]}
			continue
		}
		if err := parseText(&s.fields[i], rec[j], &cells[i]); err != nil {
			return s.rd.cellErr(j, err)
		}
	}
	return nil
}

// csvSink writes rows as CSV.
type csvSink struct {
	w      io.Writer
	fields []Field
	comma  rune
	text   []byte
	ends   []int
	out    []byte
	err    error
}

// NewCSVSink returns a Sink writing CSV to w, cells separated by comma (0
// means ','), starting with a header row of the fields' names.
func NewCSVSink(w io.Writer, fields []Field, comma rune) (Sink, error) {
	if comma == 0 {
		comma = ','
	}
	if err := checkComma(comma); err != nil {
		return nil, err
	}
	s := &csvSink{w: w, fields: fields, comma: comma, ends: make([]int, len(fields))}
	for i := range fields {
		s.text = append(s.text, fields[i].Name...)
		s.ends[i] = len(s.text)
	}
	s.out = appendCSVRecord(s.out, s.text, s.ends, comma)
	return s, nil
}

func (s *csvSink) Write(cells []Cell) error {
	s.encode(cells)
	if len(s.out) >= 64<<10 {
		return s.flush()
	}
	return nil
}

// encode appends the row of cells to s.out.
func (s *csvSink) encode(cells []Cell) {
	s.text = s.text[:0]
	for i := range s.fields {
		s.text = AppendText(s.text, &s.fields[i], &cells[i])
		s.ends[i] = len(s.text)
	}
	s.out = appendCSVRecord(s.out, s.text, s.ends, s.comma)
}

func (s *csvSink) flush() error {
	if s.err == nil {
		_, s.err = s.w.Write(s.out)
	}
	s.out = s.out[:0]
	return s.err
}

func (s *csvSink) Close() error { return s.flush() }
func (s *csvSink) Abort()       {}

// clmnSource reads rows from a CLMN file.
type clmnSource struct {
	fields []Field
	cols   []*clmn.ColumnReader
}

// CLMNFields returns the fields of a CLMN file's columns: INT32 as int,
// INT64 as long, FLOAT64 as double, STRING as string.
func CLMNFields(rd *clmn.Reader) []Field {
	fields := make([]Field, rd.NumColumns())
	for i := range fields {
		c := rd.Column(i)
		fields[i] = Field{Name: c.Name, Type: [...]Type{clmn.Int32: Int, clmn.Int64: Long, clmn.Float64: Double, clmn.String: String}[c.Type]}
	}
	return fields
}

// CLMNColumns returns a Trevni 2 reader of a CLMN file's columns, read in
// place (clmn.Source): the columns of the Avro record AvroSchema("Row",
// CLMNFields(rd)), which its file metadata holds, so that the assembler,
// the filters and everything else that reads a format.Reader read the
// file's records as those of the Trevni 2 file NewTrevniSink would write.
// opts bounds the blocks (MaxBlockSize, BlockMemory) and may be nil;
// blockSize is about the bytes of a block (0: the default).
func CLMNColumns(rd *clmn.Reader, opts *format.ReaderOptions, blockSize int) (*format.Reader, error) {
	fields := CLMNFields(rd)
	var meta format.MetaData
	meta.SetString(layout.MetaAvroSchema, AvroSchema("Row", fields))
	so := &clmn.SourceOptions{Names: AvroNames(fields), Meta: &meta, BlockSize: blockSize}
	if opts != nil {
		so.MaxBlockSize = opts.MaxBlockSize
	}
	src, err := clmn.NewSource(rd, so)
	if err != nil {
		return nil, err
	}
	return format.NewSourceReader(src, opts)
}

// NewCLMNSource returns a Source of the rows of a CLMN file, holding the
// columns named in sel, in that order (all when sel is nil). Only those
// columns are read.
func NewCLMNSource(rd *clmn.Reader, sel []string) (Source, error) {
	all := CLMNFields(rd)
	idx, err := selectFields(all, sel)
	if err != nil {
		return nil, err
	}
	s := &clmnSource{}
	for _, i := range idx {
		cr, err := rd.Values(i)
		if err != nil {
			return nil, err
		}
		s.fields = append(s.fields, all[i])
		s.cols = append(s.cols, cr)
	}
	return s, nil
}

// selectFields returns the numbers of the fields named in sel (by column
// name or Avro name), or of all when sel is nil.
func selectFields(all []Field, sel []string) ([]int, error) {
	if sel == nil {
		idx := make([]int, len(all))
		for i := range idx {
			idx[i] = i
		}
		return idx, nil
	}
	var idx []int
	seen := map[int]bool{}
	for _, name := range sel {
		found := -1
		for i := range all {
			if all[i].Name == name || all[i].AvroName == name {
				found = i
				break
			}
		}
		if found < 0 {
			return nil, fmt.Errorf("no column %q", name)
		}
		if seen[found] {
			return nil, fmt.Errorf("column %q selected twice", name)
		}
		seen[found] = true
		idx = append(idx, found)
	}
	return idx, nil
}

func (s *clmnSource) Fields() []Field { return s.fields }

func (s *clmnSource) Next(cells []Cell) error {
	for i, cr := range s.cols {
		if !cr.Next() {
			if err := cr.Err(); err != nil {
				return err
			}
			if i == 0 {
				for _, other := range s.cols[1:] {
					if other.Next() || other.Err() != nil {
						return other.Err()
					}
				}
				return io.EOF
			}
			return fmt.Errorf("column %q ends early", s.fields[i].Name) // cannot happen: all have the file's row count
		}
		c := &cells[i]
		c.Null = false
		switch s.fields[i].Type {
		case Int, Long:
			c.I = cr.Int()
		case Double:
			c.F = cr.Float()
		default:
			c.S = append(c.S[:0], cr.Bytes()...)
		}
	}
	if len(s.cols) == 0 {
		return io.EOF
	}
	return nil
}

// clmnSink writes rows to a CLMN file.
type clmnSink struct {
	w      *clmn.Writer
	fields []Field
}

// NewCLMNSink returns a Sink writing a CLMN file to out. Fields map to
// column types: int to INT32, long to INT64, float and double to FLOAT64,
// string and enum (its symbol) to STRING; a boolean field is an error. A
// null value, or a string over 65,535 bytes, is an error naming the row and
// column.
func NewCLMNSink(out io.Writer, fields []Field, opts *clmn.WriterOptions) (Sink, error) {
	cols := make([]clmn.Column, len(fields))
	for i, f := range fields {
		cols[i].Name = f.Name
		switch f.Type {
		case Int:
			cols[i].Type = clmn.Int32
		case Long:
			cols[i].Type = clmn.Int64
		case Float, Double:
			cols[i].Type = clmn.Float64
		case String, Enum:
			cols[i].Type = clmn.String
		default:
			return nil, fmt.Errorf("column %q: CLMN has no %s type (it holds INT32, INT64, FLOAT64 and STRING)", f.Name, f.Type)
		}
	}
	w, err := clmn.NewWriter(out, cols, opts)
	if err != nil {
		return nil, err
	}
	return &clmnSink{w: w, fields: fields}, nil
}

func (s *clmnSink) Write(cells []Cell) error {
	for i := range s.fields {
		c := &cells[i]
		if c.Null {
			s.w.AbortRow()
			return &clmn.Error{Index: i, Column: s.fields[i].Name, Row: s.w.RowCount(), Offset: -1, Err: errors.New("null value: CLMN has no nulls")}
		}
		switch s.fields[i].Type {
		case Int:
			s.w.WriteInt32(i, int32(c.I))
		case Long:
			s.w.WriteInt64(i, c.I)
		case Float, Double:
			s.w.WriteFloat64(i, c.F)
		default:
			s.w.WriteString(i, c.S)
		}
	}
	return s.w.EndRow()
}

func (s *clmnSink) Close() error { return s.w.Close() }
func (s *clmnSink) Abort()       { s.w.Abort() }

// trevniSource reads rows from a Trevni file written from Avro records of
// a flat schema.
type trevniSource struct {
	fields []Field
	root   *projNode // the projected record, read in its order
	ar     *assemble.AvroReader
	buf    []byte
	row    int64
}

// NewTrevniSource returns a Source of the records of a Trevni file written
// from Avro, holding the fields named in sel, in that order (all when sel
// is nil); only their columns are read. A selected field that is not flat
// (see FieldsOf) is an error naming it. A field of a nested record is
// selected by its dotted path (address.city), also through a record that
// may be null (a union of null and a record), where it is null when the
// record is.
func NewTrevniSource(rd *format.Reader, sel []string) (Source, error) {
	// The file's schema, from its metadata: an AvroReader of the whole
	// schema would touch every column.
	text := rd.Meta().GetString(layout.MetaAvroSchema)
	if text == "" {
		return nil, fmt.Errorf("no %s in the file's metadata: not written from Avro", layout.MetaAvroSchema)
	}
	s, err := schema.Parse(text)
	if err != nil {
		return nil, fmt.Errorf("the file's %s: %w", layout.MetaAvroSchema, err)
	}
	if s.Kind != schema.Record {
		return nil, fmt.Errorf("the file's schema is a %v, not a record", s.Kind)
	}
	// The selected fields as a tree of the records they are in: the
	// projection reads them in its order, which the cells are put back
	// from into the order of sel.
	root := &projNode{}
	src := &trevniSource{}
	if sel == nil {
		for _, sf := range s.Fields {
			f, err := fieldOf(sf)
			if err != nil {
				return nil, fmt.Errorf("%w; select flat fields with --fields (a nested one by its dotted path)", err)
			}
			root.children = append(root.children, &projNode{sf: sf, leaf: len(src.fields), f: f, nullBranch: -1})
			src.fields = append(src.fields, f)
		}
	}
	for _, name := range sel {
		path, err := resolvePath(s, name)
		if err != nil {
			return nil, err
		}
		f, err := fieldOf(path[len(path)-1])
		if err != nil {
			return nil, err
		}
		if !root.add(path, len(src.fields), f) {
			return nil, fmt.Errorf("field %q selected twice", name)
		}
		if len(path) > 1 {
			// Named by the source names of its path, however typed.
			names := make([]string, len(path))
			for i, sf := range path {
				names[i] = sf.SourceName()
			}
			f.Name, f.AvroName = strings.Join(names, "."), ""
			for _, sf := range path[:len(path)-1] {
				if sf.Type.Kind == schema.Union {
					f.Nullable = true // null where its record is
				}
			}
		}
		src.fields = append(src.fields, f)
	}
	reader := root.jsonFields()
	src.root = root
	proj, err := json.Marshal(map[string]any{"type": "record", "name": s.Name, "fields": reader})
	if err != nil {
		return nil, err
	}
	src.ar, err = assemble.NewAvroReader(rd, &assemble.Options{ReaderSchema: string(proj)})
	if err != nil {
		return nil, err
	}
	return src, nil
}

func (s *trevniSource) Fields() []Field { return s.fields }

func (s *trevniSource) Next(cells []Cell) error {
	var err error
	s.buf, err = s.ar.ReadBinary(s.buf[:0])
	if err != nil {
		return err
	}
	if _, err := s.root.decode(s.buf, cells); err != nil {
		return fmt.Errorf("record %d, %w", s.row, err)
	}
	s.row++
	return nil
}

// decode decodes the values of the record n from the start of data into
// their cells, and returns the rest of data.
func (n *projNode) decode(data []byte, cells []Cell) ([]byte, error) {
	var err error
	for _, c := range n.children {
		if c.leaf >= 0 {
			if data, err = decodeAvro(data, &c.f, &cells[c.leaf]); err != nil {
				return nil, fmt.Errorf("field %q: %w", c.sf.Name, err)
			}
			continue
		}
		if c.nullBranch >= 0 {
			// A record that may be null: the union's branch, zigzag.
			if len(data) == 0 || data[0] > 2 || data[0]&1 != 0 {
				return nil, fmt.Errorf("field %q: %w", c.sf.Name, errShort)
			}
			branch := int(data[0] >> 1)
			data = data[1:]
			if branch == c.nullBranch {
				c.null(cells)
				continue
			}
		}
		if data, err = c.decode(data, cells); err != nil {
			return nil, err
		}
	}
	return data, nil
}

// null makes the cells of every field selected under n null.
func (n *projNode) null(cells []Cell) {
	for _, c := range n.children {
		if c.leaf >= 0 {
			cells[c.leaf] = Cell{Null: true, S: cells[c.leaf].S[:0]}
			continue
		}
		c.null(cells)
	}
}

// projNode is a field of the projection NewTrevniSource reads: a selected
// flat field (leaf, its index among the selected; f, its value as the
// file holds it), or a record holding some (children), which may be a
// union of null and the record (nullBranch, the null's branch, else -1).
type projNode struct {
	sf         *schema.Field
	leaf       int
	f          Field
	nullBranch int
	children   []*projNode
}

// add adds the field at path, selected as field i of value f, and reports
// whether it was not there already.
func (n *projNode) add(path []*schema.Field, i int, f Field) bool {
	for _, c := range n.children {
		if c.sf == path[0] {
			if len(path) == 1 || c.children == nil {
				return false
			}
			return c.add(path[1:], i, f)
		}
	}
	c := &projNode{sf: path[0], leaf: i, f: f, nullBranch: -1}
	n.children = append(n.children, c)
	if len(path) > 1 {
		c.leaf = -1
		if _, nb := recordOf(c.sf.Type); nb >= 0 {
			c.nullBranch = nb
		}
		c.add(path[1:], i, f)
	}
	return true
}

// recordOf returns the record of a field's type t: t itself, or the record
// of a union of null and a record with the null's branch (else -1); nil
// when t is neither.
func recordOf(t *schema.Schema) (rec *schema.Schema, nullBranch int) {
	if t.Kind == schema.Record {
		return t, -1
	}
	if t.Kind == schema.Union && len(t.Branches) == 2 {
		for i, b := range t.Branches {
			if b.Kind == schema.Null && t.Branches[1-i].Kind == schema.Record {
				return t.Branches[1-i], i
			}
		}
	}
	return nil, -1
}

// jsonFields returns the projection's fields of the record n.
func (n *projNode) jsonFields() []any {
	out := make([]any, 0, len(n.children))
	for _, c := range n.children {
		var t any = json.RawMessage(c.sf.Type.String())
		if c.leaf < 0 {
			rec, _ := recordOf(c.sf.Type)
			t = map[string]any{"type": "record", "name": rec.FullName(), "fields": c.jsonFields()}
			if c.nullBranch == 0 {
				t = []any{"null", t}
			} else if c.nullBranch == 1 {
				t = []any{t, "null"}
			}
		}
		out = append(out, map[string]any{"name": c.sf.Name, "type": t})
	}
	return out
}

// resolvePath returns the fields from the record s down to the field
// named name: a dotted path through fields of record type, or of a union
// of null and a record (a.b.c), each named by its Avro name or its source
// name (schema.ResolvePath: "log.level", "@timestamp").
func resolvePath(s *schema.Schema, name string) ([]*schema.Field, error) {
	avro, err := schema.ResolvePath(s, name)
	if err != nil {
		return nil, err
	}
	var path []*schema.Field
	rec := s
	for part := range strings.SplitSeq(avro, ".") {
		if rec == nil {
			return nil, fmt.Errorf("no field %q: %q is not a record", name, path[len(path)-1].Name)
		}
		found := rec.Field(part)
		if found == nil {
			return nil, fmt.Errorf("no field %q", name)
		}
		path = append(path, found)
		rec, _ = recordOf(found.Type)
	}
	return path, nil
}

// trevniSink writes rows as Avro records to a Trevni file.
type trevniSink struct {
	aw     *shred.AvroWriter
	fields []Field
	buf    []byte
}

// NewTrevniSink returns a Sink writing the rows as records of the schema
// AvroSchema("Row", fields) to a Trevni file. Copy from a CSV Source
// writes on opts.Workers goroutines (0 means runtime.GOMAXPROCS(0)).
func NewTrevniSink(out io.Writer, fields []Field, opts *shred.Options) (Sink, error) {
	fields = append([]Field(nil), fields...)
	aw, err := shred.NewAvroWriter(out, AvroSchema("Row", fields), opts)
	if err != nil {
		return nil, err
	}
	return &trevniSink{aw: aw, fields: fields}, nil
}

// NewTrevniSinkOf returns a Sink writing the rows as records to aw, a
// writer of records of AvroSchema("Row", fields) or of a schema FieldsOf
// gives these fields for, as NewTrevniSink's does; Close and Abort close
// and abort aw. Append from a CSV Source writes on aw's workers.
func NewTrevniSinkOf(aw *shred.AvroWriter, fields []Field) Sink {
	return &trevniSink{aw: aw, fields: append([]Field(nil), fields...)}
}

func (s *trevniSink) Write(cells []Cell) error {
	s.buf = s.buf[:0]
	for i := range s.fields {
		s.buf = appendAvro(s.buf, &s.fields[i], &cells[i])
	}
	return s.aw.WriteBinary(s.buf)
}

func (s *trevniSink) Close() error { return s.aw.Close() }
func (s *trevniSink) Abort()       { s.aw.Abort() }
