package main

import (
	"bytes"
	"encoding/csv"
	"encoding/json"
	"fmt"
	"io"
	"math"
	"math/big"
	"strconv"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/duckdb/duckdb-go/v2"
)

// rowWriter prints rows in one format.
type rowWriter interface {
	row(vals []any) error
	end() error
}

// csvWriter prints RFC 4180 CSV with a header line; NULL is an empty
// field.
type csvWriter struct {
	w      *csv.Writer
	fields []string
}

func newCSVWriter(w io.Writer, cols []string) *csvWriter {
	c := &csvWriter{w: csv.NewWriter(w), fields: make([]string, len(cols))}
	c.w.Write(cols)
	return c
}

func (c *csvWriter) row(vals []any) error {
	for i, v := range vals {
		c.fields[i] = text(v, "")
	}
	return c.w.Write(c.fields)
}

func (c *csvWriter) end() error {
	c.w.Flush()
	return c.w.Error()
}

// jsonWriter prints one JSON object a row, its keys the columns in order.
type jsonWriter struct {
	w    io.Writer
	cols []string
	buf  bytes.Buffer
}

func (j *jsonWriter) row(vals []any) error {
	j.buf.Reset()
	j.buf.WriteByte('{')
	for i, v := range vals {
		if i > 0 {
			j.buf.WriteByte(',')
		}
		k, _ := json.Marshal(j.cols[i])
		j.buf.Write(k)
		j.buf.WriteByte(':')
		b, err := json.Marshal(jsonValue(v))
		if err != nil {
			return fmt.Errorf("column %s: %w", j.cols[i], err)
		}
		j.buf.Write(b)
	}
	j.buf.WriteString("}\n")
	_, err := j.w.Write(j.buf.Bytes())
	return err
}

func (j *jsonWriter) end() error { return nil }

// tableWriter prints an aligned table: it holds the rows until the end
// to size the columns (a terminal's output, not meant for millions of
// rows).
type tableWriter struct {
	w     io.Writer
	cols  []string
	cells [][]string
	right []bool // per column: numbers, aligned right
}

// maxCell bounds the width of a cell in the table; longer ones are cut.
const maxCell = 60

func (t *tableWriter) row(vals []any) error {
	if t.right == nil {
		t.right = make([]bool, len(vals))
		for i, v := range vals {
			t.right[i] = isNumber(v)
		}
	}
	r := make([]string, len(vals))
	for i, v := range vals {
		s := text(v, "NULL")
		if utf8.RuneCountInString(s) > maxCell {
			s = string([]rune(s)[:maxCell-1]) + "…"
		}
		r[i] = strings.NewReplacer("\n", `\n`, "\t", `\t`).Replace(s)
	}
	t.cells = append(t.cells, r)
	return nil
}

func (t *tableWriter) end() error {
	width := make([]int, len(t.cols))
	for i, c := range t.cols {
		width[i] = utf8.RuneCountInString(c)
	}
	for _, r := range t.cells {
		for i, c := range r {
			width[i] = max(width[i], utf8.RuneCountInString(c))
		}
	}
	var b strings.Builder
	line := func(cells []string, right []bool) {
		b.Reset()
		for i, c := range cells {
			if i > 0 {
				b.WriteString("  ")
			}
			pad := strings.Repeat(" ", width[i]-utf8.RuneCountInString(c))
			if right != nil && right[i] {
				b.WriteString(pad + c)
			} else if i < len(cells)-1 {
				b.WriteString(c + pad)
			} else {
				b.WriteString(c)
			}
		}
		b.WriteByte('\n')
		io.WriteString(t.w, b.String())
	}
	line(t.cols, nil)
	rule := make([]string, len(t.cols))
	for i := range rule {
		rule[i] = strings.Repeat("-", width[i])
	}
	line(rule, nil)
	for _, r := range t.cells {
		line(r, t.right)
	}
	_, err := fmt.Fprintf(t.w, "(%d %s)\n", len(t.cells), map[bool]string{true: "row", false: "rows"}[len(t.cells) == 1])
	return err
}

// isNumber reports whether v is a number.
func isNumber(v any) bool {
	switch v.(type) {
	case int8, int16, int32, int64, uint8, uint16, uint32, uint64, float32, float64, *big.Int, duckdb.Decimal:
		return true
	}
	return false
}

// text returns v as CSV or table text: null as the string given, nested
// values as JSON.
func text(v any, null string) string {
	switch x := v.(type) {
	case nil:
		return null
	case string:
		return x
	case []byte:
		return blobText(x)
	case bool:
		return strconv.FormatBool(x)
	case int8, int16, int32, int64, uint8, uint16, uint32, uint64:
		return fmt.Sprint(x)
	case float32:
		return strconv.FormatFloat(float64(x), 'g', -1, 32)
	case float64:
		return strconv.FormatFloat(x, 'g', -1, 64)
	case time.Time:
		return timeText(x)
	case *big.Int:
		return x.String()
	case duckdb.Decimal:
		return x.String()
	case duckdb.UUID:
		return x.String()
	case duckdb.Union:
		return text(x.Value, null)
	}
	b, err := json.Marshal(jsonValue(v))
	if err != nil {
		return fmt.Sprint(v)
	}
	return string(b)
}

// timeText prints a time: a date alone when it is midnight UTC (DATE),
// else the date and time, with the offset when not UTC.
func timeText(t time.Time) string {
	if t.Location() == time.UTC && t.Hour() == 0 && t.Minute() == 0 && t.Second() == 0 && t.Nanosecond() == 0 {
		return t.Format(time.DateOnly)
	}
	if t.Location() == time.UTC {
		return t.Format("2006-01-02 15:04:05.999999999")
	}
	return t.Format("2006-01-02 15:04:05.999999999-07:00")
}

// blobText prints bytes as DuckDB does a BLOB: printable ASCII as is,
// other bytes as \xHH.
func blobText(b []byte) string {
	var s strings.Builder
	for _, c := range b {
		if c >= 0x20 && c < 0x7f && c != '\\' {
			s.WriteByte(c)
		} else {
			fmt.Fprintf(&s, `\x%02X`, c)
		}
	}
	return s.String()
}

// orderedObject is a JSON object whose keys keep their order.
type orderedObject struct {
	keys []string
	vals []any
}

func (o orderedObject) MarshalJSON() ([]byte, error) {
	var b bytes.Buffer
	b.WriteByte('{')
	for i, k := range o.keys {
		if i > 0 {
			b.WriteByte(',')
		}
		kb, _ := json.Marshal(k)
		b.Write(kb)
		b.WriteByte(':')
		vb, err := json.Marshal(o.vals[i])
		if err != nil {
			return nil, err
		}
		b.Write(vb)
	}
	b.WriteByte('}')
	return b.Bytes(), nil
}

// jsonValue returns v as a value encoding/json prints: numbers that JSON
// cannot hold (NaN, infinities) and times and blobs as strings, maps as
// objects in their order (STRUCTs come from database/sql as Go maps:
// their fields print in name order).
func jsonValue(v any) any {
	switch x := v.(type) {
	case []byte:
		return blobText(x)
	case float32:
		return jsonValue(float64(x))
	case float64:
		if math.IsNaN(x) || math.IsInf(x, 0) {
			return strconv.FormatFloat(x, 'g', -1, 64)
		}
		return x
	case time.Time:
		return timeText(x)
	case *big.Int:
		return json.Number(x.String())
	case duckdb.Decimal:
		return json.Number(x.String())
	case duckdb.UUID:
		return x.String()
	case duckdb.Union:
		return jsonValue(x.Value)
	case duckdb.Interval:
		return fmt.Sprintf("%d months %d days %d microseconds", x.Months, x.Days, x.Micros)
	case []any:
		out := make([]any, len(x))
		for i, e := range x {
			out[i] = jsonValue(e)
		}
		return out
	case map[string]any:
		out := make(map[string]any, len(x))
		for k, e := range x {
			out[k] = jsonValue(e)
		}
		return out
	case duckdb.OrderedMap:
		o := orderedObject{}
		vals := x.Values()
		for i, k := range x.Keys() {
			o.keys = append(o.keys, text(k, "null"))
			o.vals = append(o.vals, jsonValue(vals[i]))
		}
		return o
	}
	return v
}
