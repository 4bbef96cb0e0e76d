package csvtable

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"math"
	"runtime"
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/trevni-go/trevni/schema"
)

// Error is a problem with a CSV input, and where it is: Line is the line
// (from 1) and Column the column (from 1, with its header name in Field)
// of the cell; 0 when it does not apply.
type Error struct {
	Line   int
	Column int
	Field  string
	Err    error
}

// Error returns the problem as one line.
func (e *Error) Error() string {
	switch {
	case e.Column > 0 && e.Field != "":
		return fmt.Sprintf("line %d, column %d (%q): %v", e.Line, e.Column, e.Field, e.Err)
	case e.Column > 0:
		return fmt.Sprintf("line %d, column %d: %v", e.Line, e.Column, e.Err)
	case e.Line > 0:
		return fmt.Sprintf("line %d: %v", e.Line, e.Err)
	}
	return e.Err.Error()
}

// Unwrap returns the cause.
func (e *Error) Unwrap() error { return e.Err }

// Reader reads CSV records with RFC 4180 quoting: a header row (or
// generated names, see ReaderOptions.NoHeader), then records that must
// have as many cells as the header unless ReaderOptions.Ragged says
// otherwise.
type Reader struct {
	cr      *recordReader
	header  []string
	line    int // the line the last record started on
	ragged  Ragged
	first   []string // with NoHeader, the first record, not yet returned
	pad     []string // the record padded to the header's width
	cells   int      // the cells the last record really had
	dropped int64
	lines   int // lines before the input: a worker's range (parallel.go)
}

// Ragged says what a Reader does with a record whose number of cells is
// not the header's.
type Ragged uint8

// The ways of reading ragged CSV.
const (
	// RaggedError makes such a record an *Error wrapping ErrRagged.
	RaggedError Ragged = iota
	// RaggedPad gives a short record's missing cells as null (see
	// Reader.Cells); a long record is still an error.
	RaggedPad
	// RaggedDrop skips records of the wrong width (see Reader.Dropped).
	RaggedDrop
)

// ErrRagged is wrapped by the error about a record whose number of cells
// is not the header's.
var ErrRagged = errors.New("ragged record")

// ParseRagged parses "error", "pad" or "drop".
func ParseRagged(s string) (Ragged, error) {
	switch s {
	case "error", "":
		return RaggedError, nil
	case "pad":
		return RaggedPad, nil
	case "drop":
		return RaggedDrop, nil
	}
	return 0, fmt.Errorf("ragged mode %q: want pad, drop or error", s)
}

// checkComma checks a delimiter.
func checkComma(comma rune) error {
	if comma == '"' || comma == '\r' || comma == '\n' || comma == utf8.RuneError || !utf8.ValidRune(comma) {
		return fmt.Errorf("delimiter %q cannot be used", comma)
	}
	return nil
}

// DefaultMaxColumns is the most header columns a Reader accepts unless
// ReaderOptions.MaxColumns says otherwise: the default column limit of the
// project's schemas (layout.DefaultMaxColumns).
const DefaultMaxColumns = 1 << 16

// ReaderOptions configures reading CSV. The zero value is ready to use.
type ReaderOptions struct {
	// MaxColumns bounds the columns of the header row; 0 means
	// DefaultMaxColumns. The columns are counted as the header's bytes
	// are read: a longer header is an *Error wrapping schema.ErrTooLarge,
	// naming its line and first column past the limit, before the row is
	// split into cells.
	MaxColumns int
	// Ragged says what to do with records whose number of cells is not
	// the header's: RaggedError (the default), RaggedPad or RaggedDrop.
	Ragged Ragged
	// NoHeader says the first row is a record, not a header: the columns
	// are named by Names, or c1, c2, ... when Names is nil, as many as
	// the first record has cells.
	NoHeader bool
	// Names are the column names of a CSV without a header row; with
	// NoHeader, the first record may not have more cells than Names.
	Names []string
	// Workers is how many goroutines Infer parses the records on: 0 means
	// runtime.GOMAXPROCS(0), 1 one goroutine. With more, one goroutine
	// cuts the input into ranges of whole records (see Copy) and each
	// worker infers its ranges' types, merged in the end: the fields, the
	// count and the errors are one goroutine's. With RaggedDrop too: each
	// worker drops what its ranges hold. NewCSVSource ignores it: Copy
	// runs on the Trevni Sink's workers.
	Workers int
}

// NewReader reads the header row of the CSV in r, whose cells are
// separated by comma (0 means ','). A UTF-8 byte order mark before the
// header is skipped. As DuckDB's read_csv reads a header, the spaces and
// tabs around a name are trimmed, an empty name is made column and its
// index (from 0, with as many digits as the last index: column1,
// column01), and a name that repeats an earlier one (ignoring case) is
// renamed (a, a: a, a_1). opts may be nil.
func NewReader(r io.Reader, comma rune, opts *ReaderOptions) (*Reader, error) {
	if comma == 0 {
		comma = ','
	}
	if err := checkComma(comma); err != nil {
		return nil, err
	}
	g := &headerGuard{r: r, comma: utf8.AppendRune(nil, comma), max: DefaultMaxColumns, line: 1}
	if opts != nil && opts.MaxColumns > 0 {
		g.max = opts.MaxColumns
	}
	cr := newRecordReader(g, comma)
	rd := &Reader{cr: cr}
	if opts != nil {
		rd.ragged = opts.Ragged
	}
	rec, err := cr.Read()
	if g.err != nil {
		return nil, g.err
	}
	if opts != nil && opts.NoHeader {
		return rd, rd.noHeader(rec, err, opts.Names)
	}
	if err == io.EOF {
		return nil, &Error{Line: 1, Err: errors.New("no header row")}
	}
	if err != nil {
		return nil, csvErr(err)
	}
	rd.header = append([]string(nil), rec...)
	if len(rd.header) > 0 {
		rd.header[0] = string(bytes.TrimPrefix([]byte(rd.header[0]), []byte("\ufeff")))
	}
	for i, h := range rd.header {
		line, _ := cr.FieldPos(i)
		if !utf8.ValidString(h) {
			return nil, &Error{Line: line, Column: i + 1, Err: errors.New("header name is not valid UTF-8")}
		}
	}
	nameHeader(rd.header)
	dedupeHeader(rd.header)
	return rd, nil
}

// nameHeader trims the spaces and tabs around the header names and names
// the empty ones, as DuckDB's read_csv does: column and the column's index
// from 0, as many digits as the last index has (column1 of 4 columns,
// column01 of 12).
func nameHeader(names []string) {
	width := len(strconv.Itoa(len(names) - 1))
	for i, n := range names {
		n = strings.Trim(n, " \t")
		if n == "" {
			n = fmt.Sprintf("column%0*d", width, i)
		}
		names[i] = n
	}
}

// dedupeHeader renames the header names that repeat an earlier one,
// ignoring case, as DuckDB's read_csv names them: the second a is a_1, the
// third a_2, and a made name that is taken in its turn gets a suffix too
// (a, a_1, a: a, a_1, a_1_1).
func dedupeHeader(names []string) {
	used := make(map[string]bool, len(names))
	count := map[string]int{}
	for i, n := range names {
		for used[strings.ToLower(n)] {
			k := strings.ToLower(n)
			count[k]++
			n += "_" + strconv.Itoa(count[k])
		}
		used[strings.ToLower(n)] = true
		names[i] = n
	}
}

// noHeader names the columns of a CSV without a header row, rec (read
// with err) being its first record.
func (r *Reader) noHeader(rec []string, err error, names []string) error {
	if err != nil && err != io.EOF {
		return csvErr(err)
	}
	if err == nil {
		r.first = append([]string(nil), rec...)
		r.line, _ = r.cr.FieldPos(0)
	}
	if names != nil {
		if len(r.first) > len(names) {
			return &Error{Line: r.line, Err: fmt.Errorf("%w: %d cells, but there are %d columns", ErrRagged, len(r.first), len(names))}
		}
		r.header = append([]string(nil), names...)
		return nil
	}
	if err == io.EOF {
		return &Error{Line: 1, Err: errors.New("no record to count the columns of")}
	}
	r.header = make([]string, len(r.first))
	for i := range r.header {
		r.header[i] = "c" + strconv.Itoa(i+1)
	}
	return nil
}

// headerGuard passes the CSV through, counting the columns of its first
// record (the header) as its bytes go by, and fails once they pass max:
// encoding/csv would read the whole row and split it before its cells
// could be counted.
type headerGuard struct {
	r     io.Reader
	comma []byte // the delimiter's UTF-8 bytes
	max   int
	seps  int // delimiters of the header seen
	line  int // the line being read, from 1
	state guardState
	match int // bytes of a multi-byte delimiter matched
	err   error
}

// guardState is where the guard is in the header.
type guardState uint8

const (
	guardStart         guardState = iota // before the header: encoding/csv skips empty lines
	guardStartCR                         // a carriage return before the header: an empty line if a newline follows, else a cell's first byte
	guardFieldStart                      // at the start of a cell
	guardUnquoted                        // in a cell that does not start with a quote
	guardQuoted                          // in a quoted cell
	guardQuoteInQuoted                   // a quote in a quoted cell: its end, or the first of two
	guardDone                            // past the header
)

func (g *headerGuard) Read(p []byte) (int, error) {
	if g.err != nil {
		return 0, g.err
	}
	n, err := g.r.Read(p)
	if g.state == guardDone {
		return n, err
	}
	for i, b := range p[:n] {
		if b == '\n' {
			g.line++
		}
		if g.state != guardQuoted {
			if b == g.comma[g.match] {
				if g.match++; g.match < len(g.comma) {
					continue
				}
				g.match = 0
				if g.seps++; g.seps >= g.max {
					g.err = &Error{Line: g.line, Column: g.max + 1, Err: fmt.Errorf("%w: the header has more than %d columns (ReaderOptions.MaxColumns)", schema.ErrTooLarge, g.max)}
					return i, g.err
				}
				g.state = guardFieldStart
				continue
			}
			if g.match = 0; b == g.comma[0] {
				g.match = 1
				continue
			}
		}
		switch g.state {
		case guardStart:
			switch b {
			case '\n':
			case '\r':
				g.state = guardStartCR
			case '"':
				g.state = guardQuoted
			default:
				g.state = guardUnquoted
			}
		case guardStartCR:
			if b == '\n' {
				g.state = guardStart // "\r\n": an empty line
			} else {
				g.state = guardUnquoted // the header's first cell began with the "\r"
			}
		case guardFieldStart:
			switch b {
			case '\n':
				g.state = guardDone
			case '"':
				g.state = guardQuoted
			default:
				g.state = guardUnquoted
			}
		case guardUnquoted:
			if b == '\n' {
				g.state = guardDone
			}
		case guardQuoted:
			if b == '"' {
				g.state = guardQuoteInQuoted
			}
		case guardQuoteInQuoted:
			switch b {
			case '"':
				g.state = guardQuoted
			case '\n':
				g.state = guardDone
			case '\r':
			default:
				g.state = guardUnquoted // a quote inside a cell: encoding/csv refuses it
			}
		}
		if g.state == guardDone {
			break
		}
	}
	return n, err
}

// csvErr returns the record reader's error: an *Error naming its place,
// or the input's.
func csvErr(err error) error { return err }

// Header returns the header row's names.
func (r *Reader) Header() []string { return r.header }

// Read returns the next record, or io.EOF after the last. The slice is
// reused by the next call. A record with bad quoting is an *Error naming
// its line; so is one with the wrong number of cells, unless the Ragged
// option pads it to the header's width (Cells then tells how many cells
// it had) or drops it.
func (r *Reader) Read() ([]string, error) {
	for {
		rec, err := r.next()
		if err != nil {
			if err == io.EOF {
				return nil, err
			}
			err = csvErr(err)
			if e, ok := err.(*Error); ok && r.lines > 0 {
				e.Line += r.lines
			}
			return nil, err
		}
		r.cells = len(rec)
		n := len(r.header)
		switch {
		case len(rec) == n:
			return rec, nil
		case r.ragged == RaggedDrop:
			r.dropped++
			continue
		case r.ragged == RaggedPad && len(rec) < n:
			r.pad = append(append(r.pad[:0], rec...), make([]string, n-len(rec))...)
			return r.pad, nil
		}
		return nil, &Error{Line: r.line, Err: fmt.Errorf("%w: %d cells, but the header has %d", ErrRagged, len(rec), n)}
	}
}

// next reads the next record as it is.
func (r *Reader) next() ([]string, error) {
	if r.first != nil {
		rec := r.first
		r.first = nil
		return rec, nil
	}
	rec, err := r.cr.Read()
	if err == nil {
		r.line, _ = r.cr.FieldPos(0)
		r.line += r.lines
	}
	return rec, err
}

// Cells returns the number of cells the last record read had: fewer than
// the header's columns when RaggedPad padded it.
func (r *Reader) Cells() int { return r.cells }

// Dropped returns the number of records RaggedDrop has skipped so far.
func (r *Reader) Dropped() int64 { return r.dropped }

// cellErr returns an error about cell i of the last record.
func (r *Reader) cellErr(i int, err error) error {
	line := r.line
	if i < r.cells && r.first == nil {
		line, _ = r.cr.FieldPos(i)
		line += r.lines
	}
	return &Error{Line: line, Column: i + 1, Field: r.header[i], Err: err}
}

// inference is what the cells of one column have shown so far.
type inference struct {
	empty, boolean, int32, int64, double, bigInt, other bool
	// ISO 8601 dates, times and timestamps; the fine ones need
	// microseconds rather than milliseconds.
	date, time, timestamp, fineTime, fineTimestamp bool
	// nanoTimestamp: a timestamp had a fraction finer than microseconds
	// (DuckDB truncates it; a nanos column keeps it).
	nanoTimestamp bool
	// zoned: a timestamp had Z or an offset (a column of only timestamps
	// without one is a local timestamp, DuckDB's TIMESTAMP; one of both is
	// a UTC timestamp, those without an offset read as UTC, as DuckDB
	// reads them into a TIMESTAMPTZ).
	zoned bool
	// decimal: every double so far was a plain decimal as a decimal
	// field writes it back (decimalText), with scale digits after the
	// point and at most precision digits in all; notDecimal: one was not,
	// or had another scale.
	decimal, notDecimal bool
	scale, precision    int
}

// maxInferredPrecision is the most digits Infer gives a decimal column:
// Avro decimals beyond it (Java's BigDecimal aside) are rare in the
// tools that read them, and a double holds no more than 17 anyway.
const maxInferredPrecision = 38

// decimalText reports whether s is a decimal number as a decimal field
// writes it back (appendDecimal): an optional minus sign, digits without
// leading zeros (or a lone 0), a point and at least one digit, and not a
// negative zero; it returns the digits after the point and the digits of
// the unscaled value (the precision it needs).
func decimalText(s string) (scale, precision int, ok bool) {
	neg := s != "" && s[0] == '-'
	if neg {
		s = s[1:]
	}
	dot := strings.IndexByte(s, '.')
	if dot <= 0 || dot == len(s)-1 || dot > 1 && s[0] == '0' {
		return 0, 0, false
	}
	zero := true
	for i := 0; i < len(s); i++ {
		switch c := s[i]; {
		case i == dot:
		case c < '0' || c > '9':
			return 0, 0, false
		case c != '0':
			zero = false
		}
	}
	if neg && zero {
		return 0, 0, false // -0.00 comes back as 0.00
	}
	scale = len(s) - dot - 1
	precision = scale
	if s[:dot] != "0" {
		precision += dot
	}
	return scale, max(precision, 1), true
}

func (in *inference) add(s string) {
	if s == "" {
		in.empty = true
		return
	}
	if len(s) >= 8 && s[2] == ':' {
		if _, err := parseTemporal(TimeMillis, s); err == nil {
			in.time = true
			return
		}
		if _, err := parseTemporal(TimeMicros, s); err == nil {
			in.time, in.fineTime = true, true
			return
		}
	}
	if len(s) >= 10 && s[4] == '-' {
		if len(s) == 10 {
			if _, err := parseTemporal(Date, s); err == nil {
				in.date = true
				return
			}
		} else if _, _, offset, err := parseTimestamp(s); err == nil {
			if _, err := parseTemporal(TimestampMillis, s); err == nil {
				in.timestamp, in.zoned = true, in.zoned || offset
				return
			} else if _, err := parseTemporal(TimestampMicros, s); err == nil {
				in.timestamp, in.fineTimestamp, in.zoned = true, true, in.zoned || offset
				return
			} else if _, err := parseTemporal(TimestampNanos, s); err == nil {
				in.timestamp, in.nanoTimestamp, in.zoned = true, true, in.zoned || offset
				return
			}
		}
	}
	if isBool(s) {
		in.boolean = true
		return
	}
	if looksInteger(s) {
		v, err := strconv.ParseInt(s, 10, 64)
		switch {
		case err != nil || strconv.FormatInt(v, 10) != s && s != "-0":
			// Leading zeros, a plus sign, or too big: not an integer
			// that would come back as written (-0 is 0, as DuckDB
			// reads it).
			in.other = true
		case v >= math.MinInt32 && v <= math.MaxInt32:
			in.int32 = true
		default:
			in.int64 = true
			if v > 1<<53 || v < -(1<<53) {
				in.bigInt = true
			}
		}
		return
	}
	if _, err := parseFloat(s, 64); err == nil {
		in.double = true
		if sc, pr, ok := decimalText(s); ok && (!in.decimal || sc == in.scale) {
			in.decimal, in.scale, in.precision = true, sc, max(in.precision, pr)
		} else {
			in.notDecimal = true
		}
		return
	}
	in.other = true
}

// looksInteger reports whether s is an optional sign and digits.
func looksInteger(s string) bool {
	if s != "" && (s[0] == '-' || s[0] == '+') {
		s = s[1:]
	}
	if s == "" {
		return false
	}
	for i := 0; i < len(s); i++ {
		if s[i] < '0' || s[i] > '9' {
			return false
		}
	}
	return true
}

func (in *inference) field(name string) Field {
	f := Field{Name: name, Type: String, Nullable: in.empty}
	numeric := in.int32 || in.int64 || in.double
	kinds := 0
	for _, k := range [...]bool{in.boolean, numeric, in.date, in.time, in.timestamp} {
		if k {
			kinds++
		}
	}
	switch {
	case in.other || kinds > 1:
	case in.date:
		f.Type = Date
	case in.time && in.fineTime:
		f.Type = TimeMicros
	case in.time:
		f.Type = TimeMillis
	case in.timestamp && in.nanoTimestamp && !in.zoned:
		f.Type = LocalTimestampNanos
	case in.timestamp && in.nanoTimestamp:
		f.Type = TimestampNanos
	case in.timestamp && in.fineTimestamp && !in.zoned:
		f.Type = LocalTimestampMicros
	case in.timestamp && !in.zoned:
		f.Type = LocalTimestampMillis
	case in.timestamp && in.fineTimestamp:
		f.Type = TimestampMicros
	case in.timestamp:
		f.Type = TimestampMillis
	case in.boolean:
		f.Type = Boolean
	case in.decimal && !in.notDecimal && !in.int32 && !in.int64 && in.precision <= maxInferredPrecision:
		f.Type, f.Precision, f.Scale = Decimal, in.precision, in.scale
	case in.double && !in.bigInt:
		f.Type = Double
	case in.double:
		// A double would not hold the integers exactly.
	case in.int64:
		f.Type = Long
	case in.int32:
		f.Type = Int
	}
	return f
}

// Infer reads the whole CSV in r and returns the type of every column, and
// the number of rows. A column is int if every non-empty cell is an
// integer in 32 bits, written as Go and Java write it (no plus sign, no
// leading zeros); long if they all are integers in 64 bits; decimal
// (bytes, precision p, scale s) if they are all plain decimal numbers with
// the same s ≥ 1 digits after the point, written as a decimal is written
// back (-?(0|[1-9][0-9]*)\.[0-9]{s}, no -0.00), p being the most digits
// of their unscaled values, at most 38: so 4.10 stays 4.10; double if
// they are all decimal numbers (or NaN, Infinity, -Infinity) and any
// integers among them are within 2^53 (-0 is an integer, 0); boolean if they are all true or
// false in any case (TRUE, False); date
// if they are all dates as 2006-01-02; time-millis (time-micros when a
// fraction needs microseconds) if they are all times as 15:04:05[.fff];
// timestamp-millis (or -micros) if they are all timestamps
// (2006-01-02T15:04:05 or 2006-01-02 15:04:05, with an optional fraction)
// and any has Z or an offset (+02, +0200, +02:00), those without one
// being UTC; local-timestamp-millis (or -micros) if none has one, as
// DuckDB's read_csv_auto reads them into a TIMESTAMPTZ or a TIMESTAMP; and
// string otherwise, or when there are no non-empty cells. A column with an
// empty cell is nullable. A record with the wrong number of cells, or a
// cell that is not valid UTF-8, is an *Error naming its line; so is a
// header of more columns than opts allows (see ReaderOptions; opts may be
// nil). The records are parsed on opts.Workers goroutines
// (ReaderOptions.Workers).
func Infer(r io.Reader, comma rune, opts *ReaderOptions) ([]Field, int64, error) {
	var in Inferrer
	rows, err := in.add(r, comma, opts, inferRangeBytes)
	if err != nil {
		return nil, rows, err
	}
	return in.Fields(), rows, nil
}

// An Inferrer infers the columns of one table from the CSV files that are
// its parts (Spark's part-00000.csv, part-00001.csv...), as Infer does
// from one file, and as DuckDB's read_csv_auto with union_by_name reads
// them: the columns are matched by header name, in the order first seen
// (a column of a later file that no earlier one has comes after them);
// a column's type is inferred over the cells of every file; a column that
// one file lacks is nullable, null in that file's rows. The zero value is
// ready to use.
type Inferrer struct {
	names  []string
	byName map[string]int
	ins    []inference
	files  int
}

// Add infers the types of the CSV in r, the next file of the table, with
// comma and opts as Infer takes them, and returns its number of rows.
// After an error, the Inferrer is good for nothing.
func (f *Inferrer) Add(r io.Reader, comma rune, opts *ReaderOptions) (int64, error) {
	return f.add(r, comma, opts, inferRangeBytes)
}

// Fields returns the columns inferred from the files added so far.
func (f *Inferrer) Fields() []Field {
	fields := make([]Field, len(f.ins))
	for i := range f.ins {
		fields[i] = f.ins[i].field(f.names[i])
	}
	return fields
}

func (f *Inferrer) add(r io.Reader, comma rune, opts *ReaderOptions, rangeBytes int) (int64, error) {
	header, ins, rows, err := infer(r, comma, opts, rangeBytes)
	if err != nil {
		return rows, err
	}
	if f.byName == nil {
		f.byName = map[string]int{}
	}
	seen := make([]bool, len(f.ins))
	for j, h := range header {
		i, ok := f.byName[h]
		if !ok {
			i = len(f.names)
			f.byName[h] = i
			f.names = append(f.names, h)
			f.ins = append(f.ins, inference{empty: f.files > 0})
			seen = append(seen, false)
		}
		f.ins[i].merge(&ins[j])
		seen[i] = true
	}
	for i, ok := range seen {
		if !ok {
			f.ins[i].empty = true // a column this file lacks: null in its rows
		}
	}
	f.files++
	return rows, nil
}

// infer infers the types of the columns of the CSV in r, cutting ranges
// of about rangeBytes bytes for its workers, and returns its header too.
func infer(r io.Reader, comma rune, opts *ReaderOptions, rangeBytes int) ([]string, []inference, int64, error) {
	rec := &recorder{r: r}
	rd, err := NewReader(rec, comma, opts)
	if err != nil {
		return nil, nil, 0, err
	}
	rec.stop = true
	n := 0
	if opts != nil {
		n = opts.Workers
	}
	if n == 0 {
		n = runtime.GOMAXPROCS(0)
	}
	var ins []inference
	var rows int64
	if n > 1 {
		rest, lines := afterHeader(rd, rec.buf, opts != nil && opts.NoHeader)
		ins, rows, err = inferParallel(rd, rest, lines, r, n, rangeBytes)
	} else {
		ins = make([]inference, len(rd.header))
		rows, err = inferRecords(rd, ins)
	}
	if err != nil {
		return nil, nil, rows, err
	}
	return rd.header, ins, rows, nil
}

// inferRecords adds the cells of rd's records to ins, and returns the
// records read.
func inferRecords(rd *Reader, ins []inference) (int64, error) {
	var rows int64
	for {
		rec, err := rd.Read()
		if err == io.EOF {
			return rows, nil
		}
		if err != nil {
			return rows, err
		}
		for i, s := range rec {
			if !utf8.ValidString(s) {
				return rows, rd.cellErr(i, errors.New("cell is not valid UTF-8"))
			}
			if i >= rd.cells {
				ins[i].empty = true // padded: null
				continue
			}
			ins[i].add(s)
		}
		rows++
	}
}

// merge adds what o has shown to in.
func (in *inference) merge(o *inference) {
	in.empty = in.empty || o.empty
	in.boolean = in.boolean || o.boolean
	in.int32 = in.int32 || o.int32
	in.int64 = in.int64 || o.int64
	in.double = in.double || o.double
	in.bigInt = in.bigInt || o.bigInt
	in.other = in.other || o.other
	in.date = in.date || o.date
	in.time = in.time || o.time
	in.timestamp = in.timestamp || o.timestamp
	in.fineTime = in.fineTime || o.fineTime
	in.fineTimestamp = in.fineTimestamp || o.fineTimestamp
	in.nanoTimestamp = in.nanoTimestamp || o.nanoTimestamp
	in.zoned = in.zoned || o.zoned
	// Decimals: both ranges' plain decimals must share one scale.
	switch {
	case !o.decimal:
	case !in.decimal:
		in.decimal, in.scale, in.precision = true, o.scale, o.precision
	case in.scale != o.scale:
		in.notDecimal = true
	default:
		in.precision = max(in.precision, o.precision)
	}
	in.notDecimal = in.notDecimal || o.notDecimal
}

// ForCLMN adapts inferred fields to what CLMN holds, which has neither
// nulls nor booleans nor decimals nor dates, times or timestamps: such a
// field becomes
// a string field,
// so that its cells come back as they were (an empty cell as the empty
// string).
func ForCLMN(fields []Field) []Field {
	out := append([]Field(nil), fields...)
	for i := range out {
		if out[i].Nullable || out[i].Type == Boolean || out[i].Type == Decimal || out[i].Type.temporal() {
			out[i].Type, out[i].Nullable = String, false
		}
	}
	return out
}

// appendCSVRecord appends one CSV record of the given cells' text (cells
// holds the text of each cell back to back, ends where each ends) and a
// newline. A cell is quoted when it holds the delimiter, a quote, CR or
// LF, or starts with a space or tab; a record of one empty cell is written
// as "" so that it is not read as a blank line.
func appendCSVRecord(dst, cells []byte, ends []int, comma rune) []byte {
	start := 0
	for i, end := range ends {
		if i > 0 {
			dst = utf8.AppendRune(dst, comma)
		}
		cell := cells[start:end]
		start = end
		if needsQuotes(cell, comma) || (len(ends) == 1 && len(cell) == 0) {
			dst = append(dst, '"')
			for _, b := range cell {
				if b == '"' {
					dst = append(dst, '"')
				}
				dst = append(dst, b)
			}
			dst = append(dst, '"')
			continue
		}
		dst = append(dst, cell...)
	}
	return append(dst, '\n')
}

func needsQuotes(cell []byte, comma rune) bool {
	if len(cell) == 0 {
		return false
	}
	if cell[0] == ' ' || cell[0] == '\t' {
		return true
	}
	if comma < utf8.RuneSelf {
		for _, b := range cell {
			if b == byte(comma) || b == '"' || b == '\r' || b == '\n' {
				return true
			}
		}
		return false
	}
	return bytes.ContainsRune(cell, comma) || bytes.ContainsAny(cell, "\"\r\n")
}
