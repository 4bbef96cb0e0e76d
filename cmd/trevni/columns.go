package main

import (
	"encoding/csv"
	"encoding/hex"
	"flag"
	"fmt"
	"io"
	"slices"
	"strconv"
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/trevni-go/trevni"
	"github.com/trevni-go/trevni/format"
	"github.com/trevni-go/trevni/format/stats"
	"github.com/trevni-go/trevni/internal/frontdoor"
	"github.com/trevni-go/trevni/schema/layout"
)

const columnsHelp = `
Columns prints one row per column of each Trevni file: its name as stored
(received[]#host), type, effective codec, number of blocks, compressed
(stored) and uncompressed bytes summed over its blocks and their ratio,
and from the block statistics the file stores (merged over the blocks):
its number of values, nulls, minimum and maximum. It reads the header, the
block descriptors and the statistics, never the blocks.

values counts the column's values (for an array column, its elements; for
a column of type null, which stores none, 0). nulls is, for the column of
a union branch, the number of rows (or parent elements) in which the
union held null; for a column of type null, its rows (blank when it is
nested in an array, whose elements the statistics do not count); 0 for
the other columns. min and max bound every value other than NaN. The
statistics keep at most 64 bytes of a string or bytes bound: a longer
minimum is cut to a prefix, a longer maximum rounded up, and the bound is
then not exact (in the table, ">=" before such a minimum and "<=" before
such a maximum; "none" when no upper bound was kept). A column without
statistics (files written by Java, or with --stats=false) has these cells
blank.

--format table (the default) prints, for each file, a line naming it with
its rows, columns and size (and "no statistics stored" when no column has
any), then an aligned table: long column names are cut in the middle,
strings quoted and cut, bytes in hex after 0x, floats in their shortest
form. --format json prints one JSON object per column per line, with the
full values; --format csv prints a header and one record per column. Both
name the file in "part" and also give the rows the column's blocks cover,
its array flag, the array lengths and how many are not zero, whether a
float column holds NaN, and whether each bound is exact. Where stored
statistics disagree with the column's blocks, a warning says so on
standard error and the JSON form's statsError says why.

Only Trevni 2 files have these statistics: a Trevni 1 or CLMN input is an
error (meta describes their columns). The rows go to OUT if given,
otherwise to standard output.

Examples (the file names stand for your own):

	trevni columns weather.trv
	trevni columns --format csv 'parts/*.trv' columns.csv
	trevni columns --format json weather.trv | jq 'select(.nulls > 0)'
`

// columnsCommand sets up "trevni columns".
func columnsCommand(fs *flag.FlagSet) runFunc {
	form := fs.String("format", "table", "print `FORM`: table, json (one object per line) or csv")
	return func(e *env, ins []string, out *output) error {
		if !slices.Contains(columnsForms(), *form) {
			return e.usagef("--format %q: want table, json or csv", *form)
		}
		var cw *csv.Writer
		if *form == "csv" {
			cw = csv.NewWriter(out)
			if err := cw.Write(columnsCSVHeader()); err != nil {
				return err
			}
		}
		first := true
		err := e.eachFile(ins, e.openOptions("", false), func(f *trevni.File) error {
			name := f.Part().Name()
			switch f.Format() {
			case trevni.Trevni1:
				return fmt.Errorf("%s: a Trevni 1 file: columns reports Trevni 2 files, whose block statistics it shows (meta describes this one's columns)", name)
			case trevni.CLMN:
				return fmt.Errorf("%s: a CLMN file: columns reports Trevni 2 files, whose block statistics it shows (meta describes this one's columns)", name)
			case trevni.Avro, trevni.Parquet:
				return fmt.Errorf("%s: %s: columns reports Trevni 2 files, whose block statistics it shows (schema shows this one's fields; fromavro or fromparquet makes a Trevni file of it)", name, formatArticle(f.Format()))
			}
			rows, err := e.columnRows(frontdoor.TrevniReader(f), name)
			if err != nil {
				return fmt.Errorf("%s: %w", name, err)
			}
			switch *form {
			case "json":
				var w jsonWriter
				for _, r := range rows {
					w.b, w.comma = w.b[:0], false
					r.writeJSON(&w)
					w.b = append(w.b, '\n')
					if _, err := out.Write(w.b); err != nil {
						return err
					}
				}
			case "csv":
				for _, r := range rows {
					if err := cw.Write(r.csvRecord()); err != nil {
						return err
					}
				}
				cw.Flush()
				return cw.Error()
			default:
				if !first {
					if _, err := io.WriteString(out, "\n"); err != nil {
						return err
					}
				}
				rd := frontdoor.TrevniReader(f)
				heading := fmt.Sprintf("%s: %s, %s, %s", printable(name), pluralCount(rd.RowCount(), "row"),
					pluralCount(int64(rd.NumColumns()), "column"), pluralCount(rd.Size(), "byte"))
				if !slices.ContainsFunc(rows, func(r columnRow) bool { return r.st != nil }) && len(rows) > 0 {
					heading += ", no statistics stored"
				}
				heading += "\n"
				if _, err := io.WriteString(out, heading); err != nil {
					return err
				}
				if err := writeColumnsTable(out, rows); err != nil {
					return err
				}
			}
			first = false
			return nil
		})
		if cw != nil {
			cw.Flush()
			if err == nil {
				err = cw.Error()
			}
		}
		return err
	}
}

// columnRow is what columns shows of one column.
type columnRow struct {
	part       string
	number     int
	name, typ  string
	t          stats.Type
	array      bool
	codec      string
	blocks     int
	rows       int64 // top-level rows its blocks cover
	compressed int64
	uncompr    int64
	st         *stats.Block // merged over the blocks; nil without statistics
	statsErr   string       // why the stored statistics are not used
	nulls      int64
	hasNulls   bool
}

// columnRows gathers the rows of a file's columns. Statistics that cannot
// be used are reported on standard error and left out.
func (e *env) columnRows(rd *format.Reader, part string) ([]columnRow, error) {
	n := rd.NumColumns()
	rows := make([]columnRow, n)
	for i := range n {
		if err := e.interrupted(); err != nil {
			return nil, err
		}
		c, err := rd.Column(i)
		if err != nil {
			return nil, err
		}
		bl, err := rd.Blocks(i)
		if err != nil {
			return nil, fmt.Errorf("column %q: %w", c.Name, err)
		}
		r := &rows[i]
		*r = columnRow{
			part: part, number: i, name: c.Name, typ: c.Type.String(), t: stats.Type(c.Type), array: c.Array,
			codec: rd.ColumnCodec(i), blocks: len(bl),
		}
		for _, b := range bl {
			r.rows += b.Rows
			r.compressed += int64(b.CompressedSize)
			r.uncompr += int64(b.UncompressedSize)
		}
		sc, err := rd.BlockStats(i)
		if err != nil {
			r.statsErr = err.Error()
			e.report(fmt.Errorf("%s: statistics ignored: %w", part, err))
			continue
		}
		if sc == nil {
			continue
		}
		var m stats.Block
		for j, b := range sc.Blocks {
			if j == 0 {
				m = b
			} else {
				m = stats.Merge(r.t, m, b)
			}
		}
		r.st = &m
	}
	e.countNulls(rd, rows)
	return rows, nil
}

// countNulls sets the nulls of the columns that have statistics. The
// columns of a union's branches, known from the Avro schema the file
// stores, count the rows (or parent elements) in which no branch was
// taken: the union's lengths less the branches' taken ones, when every
// branch has statistics.
func (e *env) countNulls(rd *format.Reader, rows []columnRow) {
	var cols []layout.Column
	if text := rd.Meta().GetString(layout.MetaAvroSchema); text != "" {
		if s, err := layout.ParseStored(text, e.limits.layout()); err == nil {
			if l, err := layout.New(s, e.limits.layout()); err == nil && len(l.Columns) == len(rows) {
				cols = l.Columns
				for i := range cols {
					if cols[i].Name != rows[i].name {
						cols = nil // not the layout of these columns
						break
					}
				}
			}
		}
	}
	// taken sums the taken lengths of each union's branches; broken marks
	// a union with a branch whose statistics are missing.
	taken := map[string]int64{}
	broken := map[string]bool{}
	union := func(i int) string {
		name := rows[i].name
		return cols[i].ParentName + "\x00" + name[:strings.LastIndexByte(name, '/')+1]
	}
	for i := range cols {
		if cols[i].Role != layout.RoleBranch {
			continue
		}
		if rows[i].st == nil {
			broken[union(i)] = true
		} else {
			taken[union(i)] += rows[i].st.NonEmpty
		}
	}
	for i := range rows {
		r := &rows[i]
		if r.st == nil {
			continue
		}
		switch {
		case cols != nil && cols[i].Role == layout.RoleBranch:
			if u := union(i); !broken[u] {
				r.nulls, r.hasNulls = r.st.Lengths-taken[u], true
			}
		case r.t == stats.Null && !r.array:
			// A null field holds a null per row when it is not nested;
			// its nested ones are not counted anywhere.
			if rd.Parent(i) < 0 {
				r.nulls, r.hasNulls = r.rows, true
			}
		default:
			r.hasNulls = true
		}
	}
}

// ratio is the uncompressed size over the compressed one, or "" when
// nothing is stored.
func (r *columnRow) ratio() string {
	if r.compressed == 0 {
		return ""
	}
	return strconv.FormatFloat(float64(r.uncompr)/float64(r.compressed), 'f', 2, 64)
}

// bound returns a bound of the statistics as a Go value of the column's
// kind (bool, int64, float32, float64, string or []byte), or nil when
// there is none.
func bound(t stats.Type, s *stats.Block, upper bool) any {
	if s == nil || !s.HasBounds || upper && s.NoMax {
		return nil
	}
	i, f, b := s.MinInt, s.MinFloat, s.MinBytes
	if upper {
		i, f, b = s.MaxInt, s.MaxFloat, s.MaxBytes
	}
	switch t {
	case stats.Boolean:
		return i != 0
	case stats.Int, stats.Long, stats.Fixed32, stats.Fixed64:
		return i
	case stats.Float:
		return float32(f)
	case stats.Double:
		return f
	case stats.String:
		return string(b)
	case stats.Bytes:
		return b
	}
	return nil
}

// boundText writes a bound for CSV: strings as they are (bytes that are
// not UTF-8 as U+FFFD), bytes in hex, floats in their shortest form.
func boundText(v any) string {
	switch v := v.(type) {
	case nil:
		return ""
	case bool:
		return strconv.FormatBool(v)
	case int64:
		return strconv.FormatInt(v, 10)
	case float32:
		return strconv.FormatFloat(float64(v), 'g', -1, 32)
	case float64:
		return strconv.FormatFloat(v, 'g', -1, 64)
	case string:
		return strings.ToValidUTF8(v, "\uFFFD")
	case []byte:
		return hex.EncodeToString(v)
	}
	return ""
}

// columnsMaxValue is the most characters of a string or bytes bound the
// table shows.
const columnsMaxValue = 24

// boundCell writes a bound for the table: strings quoted and cut, bytes
// in hex after 0x and cut, a bound that is not exact marked.
func boundCell(v any, s *stats.Block, upper bool) string {
	if s == nil || !s.HasBounds {
		return ""
	}
	if upper && s.NoMax {
		return "none"
	}
	var text string
	switch v := v.(type) {
	case string:
		cut := ""
		if utf8.RuneCountInString(v) > columnsMaxValue {
			v, cut = string([]rune(v)[:columnsMaxValue]), "…"
		}
		text = strconv.QuoteToGraphic(v) + cut
	case []byte:
		cut := ""
		if len(v) > columnsMaxValue/2 {
			v, cut = v[:columnsMaxValue/2], "…"
		}
		text = "0x" + hex.EncodeToString(v) + cut
	default:
		text = boundText(v)
	}
	switch {
	case upper && s.MaxInexact:
		return "<=" + text
	case !upper && s.MinInexact:
		return ">=" + text
	}
	return text
}

// columnsForms lists the values of columns' --format.
func columnsForms() []string { return []string{"table", "json", "csv"} }

// columnsCSVHeader names the fields of the CSV form, in the order of the
// JSON form's keys.
func columnsCSVHeader() []string {
	return []string{
		"part", "number", "column", "type", "array", "codec", "blocks", "rows", "compressed", "uncompressed", "ratio",
		"values", "nulls", "lengths", "nonEmpty", "nan", "min", "minExact", "max", "maxExact",
	}
}

// csvRecord returns the row as a CSV record of columnsCSVHeader's fields;
// an unknown value is an empty cell.
func (r *columnRow) csvRecord() []string {
	rec := []string{
		r.part, strconv.Itoa(r.number), r.name, r.typ, strconv.FormatBool(r.array), r.codec,
		strconv.Itoa(r.blocks), strconv.FormatInt(r.rows, 10),
		strconv.FormatInt(r.compressed, 10), strconv.FormatInt(r.uncompr, 10), r.ratio(),
	}
	for i := range rec {
		rec[i] = strings.ToValidUTF8(rec[i], "\uFFFD")
	}
	s := r.st
	if s == nil {
		return append(rec, make([]string, 9)...)
	}
	cell := func(ok bool, v int64) string {
		if !ok {
			return ""
		}
		return strconv.FormatInt(v, 10)
	}
	rec = append(rec, strconv.FormatInt(s.Values, 10), cell(r.hasNulls, r.nulls),
		cell(r.array, s.Lengths), cell(r.array, s.NonEmpty), "")
	if r.t.IsFloat() {
		rec[len(rec)-1] = strconv.FormatBool(s.NaN)
	}
	lo, hi := bound(r.t, s, false), bound(r.t, s, true)
	exact := func(v any, inexact bool) string {
		if v == nil {
			return ""
		}
		return strconv.FormatBool(!inexact)
	}
	return append(rec, boundText(lo), exact(lo, s.MinInexact), boundText(hi), exact(hi, s.MaxInexact))
}

// writeJSON writes the row as one JSON object with columnsCSVHeader's
// keys; an unknown value is null, and statsError says why stored
// statistics were not used.
func (r *columnRow) writeJSON(w *jsonWriter) {
	w.beginObject()
	w.key("part")
	w.str(r.part)
	w.key("number")
	w.int(int64(r.number))
	w.key("column")
	w.str(r.name)
	w.key("type")
	w.str(r.typ)
	w.key("array")
	w.bool(r.array)
	w.key("codec")
	w.str(r.codec)
	w.key("blocks")
	w.int(int64(r.blocks))
	w.key("rows")
	w.int(r.rows)
	w.key("compressed")
	w.int(r.compressed)
	w.key("uncompressed")
	w.int(r.uncompr)
	w.key("ratio")
	if ratio := r.ratio(); ratio != "" {
		w.sep()
		w.b = append(w.b, ratio...)
	} else {
		w.null()
	}
	w.key("values")
	if r.st != nil {
		w.int(r.st.Values)
	} else {
		w.null()
	}
	w.key("nulls")
	if r.hasNulls {
		w.int(r.nulls)
	} else {
		w.null()
	}
	writeStatsFields(w, r.t, r.array, r.st)
	if r.statsErr != "" {
		w.key("statsError")
		w.str(r.statsErr)
	}
	w.endObject()
}

// writeStatsFields writes the keys lengths, nonEmpty, nan, min, minExact,
// max and maxExact of statistics s of a column of type t (nil: none), each
// null where it does not apply: the counts of lengths to array columns,
// nan to float and double columns, the bounds to a block holding a value
// other than NaN, max to one with an upper bound. Bounds are written as
// dump writes values.
func writeStatsFields(w *jsonWriter, t stats.Type, array bool, s *stats.Block) {
	w.key("lengths")
	if s != nil && array {
		w.int(s.Lengths)
	} else {
		w.null()
	}
	w.key("nonEmpty")
	if s != nil && array {
		w.int(s.NonEmpty)
	} else {
		w.null()
	}
	w.key("nan")
	if s != nil && t.IsFloat() {
		w.bool(s.NaN)
	} else {
		w.null()
	}
	lo, hi := bound(t, s, false), bound(t, s, true)
	w.key("min")
	w.value(lo)
	w.key("minExact")
	if lo != nil {
		w.bool(!s.MinInexact)
	} else {
		w.null()
	}
	w.key("max")
	w.value(hi)
	w.key("maxExact")
	if hi != nil {
		w.bool(!s.MaxInexact)
	} else {
		w.null()
	}
}

// columnsMaxName is the most characters of a column name the table shows.
const columnsMaxName = 40

// writeColumnsTable prints rows as an aligned table: text columns to the
// left, numbers to the right.
func writeColumnsTable(out io.Writer, rows []columnRow) error {
	header := []string{"column", "type", "codec", "blocks", "compressed", "uncompressed", "ratio", "values", "nulls", "min", "max"}
	right := []bool{false, false, false, true, true, true, true, true, true, false, false}
	cells := [][]string{header}
	for i := range rows {
		r := &rows[i]
		row := []string{
			middleCut(printable(r.name), columnsMaxName), printable(r.typ), middleCut(printable(r.codec), 16),
			formatCount(int64(r.blocks)), formatCount(r.compressed), formatCount(r.uncompr), r.ratio(), "", "",
			boundCell(bound(r.t, r.st, false), r.st, false), boundCell(bound(r.t, r.st, true), r.st, true),
		}
		if r.st != nil {
			row[7] = formatCount(r.st.Values)
		}
		if r.hasNulls {
			row[8] = formatCount(r.nulls)
		}
		cells = append(cells, row)
	}
	width := make([]int, len(header))
	for _, row := range cells {
		for j, c := range row {
			width[j] = max(width[j], utf8.RuneCountInString(c))
		}
	}
	var b []byte
	for _, row := range cells {
		b = b[:0]
		for j, c := range row {
			pad := strings.Repeat(" ", width[j]-utf8.RuneCountInString(c))
			if j > 0 {
				b = append(b, "  "...)
			}
			if right[j] {
				b = append(b, pad...)
				b = append(b, c...)
			} else {
				b = append(b, c...)
				if j < len(row)-1 {
					b = append(b, pad...)
				}
			}
		}
		if _, err := io.WriteString(out, strings.TrimRight(string(b), " ")+"\n"); err != nil {
			return err
		}
	}
	return nil
}

// printable returns s for a terminal: as it is when it is valid UTF-8 of
// printable characters, otherwise with the others escaped as Go escapes
// them in a string literal.
func printable(s string) string {
	for _, r := range s {
		if r == utf8.RuneError || !unicode.IsGraphic(r) {
			q := strconv.QuoteToGraphic(s)
			return q[1 : len(q)-1]
		}
	}
	return s
}

// columnsSpec is the command "trevni columns".
func columnsSpec() *command {
	return &command{
		name: "columns", output: optionalOutput, dataset: true, stdin: true, args: "IN.trv... [OUT]", minArgs: 1, maxArgs: -1,
		summary: "print each column's sizes, codec, value and null counts, minimum and maximum",
		help:    columnsHelp,
		setup:   columnsCommand,
	}
}
