package ducktest

// The comparison of DuckDB's rows (ReadParquet's to_json text) with the
// records a Parquet file was written from or converted into: the
// renderings of DuckDB's types as its to_json prints them, and the
// matching of one value against an Avro schema's goavro native value.

import (
	"encoding/binary"
	"encoding/json"
	"fmt"
	"math"
	"math/big"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/trevni-go/trevni/schema"
	"github.com/trevni-go/trevni/typemap"
)

// valueField is the column that holds a record of a schema that is not a
// record (trevniarrow.ValueField, which this package does not import so
// that the tests of every package can use it without linking Arrow).
const valueField = "value"

// duckBlob renders bytes as DuckDB renders a BLOB as text: printable ASCII
// but for the backslash and quotes as is, other bytes as \xHH.
func duckBlob(b []byte) string {
	var sb strings.Builder
	for _, c := range b {
		if c >= 32 && c <= 126 && c != '\\' && c != '\'' && c != '"' {
			sb.WriteByte(c)
		} else {
			fmt.Fprintf(&sb, "\\x%02X", c)
		}
	}
	return sb.String()
}

// duckDate renders days since 1970-01-01 as DuckDB renders a DATE.
func duckDate(days int64) string {
	t := time.Unix(days*86400, 0).UTC()
	y := t.Year()
	if y <= 0 {
		return fmt.Sprintf("%04d-%02d-%02d (BC)", 1-y, t.Month(), t.Day())
	}
	return fmt.Sprintf("%04d-%02d-%02d", y, t.Month(), t.Day())
}

// duckTime renders a time of day in microseconds as DuckDB renders TIME.
func duckTime(us int64) string {
	s := fmt.Sprintf("%02d:%02d:%02d", us/3600e6, us/60e6%60, us/1e6%60)
	if f := us % 1e6; f != 0 {
		s += strings.TrimRight(fmt.Sprintf(".%06d", f), "0")
	}
	return s
}

// duckInterval renders an Avro duration (a Parquet INTERVAL) as DuckDB
// renders an INTERVAL: years, months and days named, then the time of day,
// which is left out when it is zero and the rest is not. DuckDB's INTERVAL
// holds months and days as signed 32-bit counts: it reads the bytes of a
// count of 2^31 or more as a negative one (the same 32 bits).
func duckInterval(months, days, millis uint32) string {
	var parts []string
	unit := func(n int32, name string) {
		switch {
		case n == 1 || n == -1:
			parts = append(parts, fmt.Sprintf("%d %s", n, name))
		case n != 0:
			parts = append(parts, fmt.Sprintf("%d %ss", n, name))
		}
	}
	unit(int32(months)/12, "year")
	unit(int32(months)%12, "month")
	unit(int32(days), "day")
	if millis != 0 || len(parts) == 0 {
		parts = append(parts, duckTime(int64(millis)*1000))
	}
	return strings.Join(parts, " ")
}

// duckTimestamp renders a timestamp in units of unit nanoseconds as DuckDB
// renders TIMESTAMP (local) or TIMESTAMPTZ (utc, in a UTC session).
func duckTimestamp(v, unit int64, utc bool) string {
	per := int64(1e9) / unit
	sec, frac := v/per, v%per
	if frac < 0 {
		sec, frac = sec-1, frac+per
	}
	t := time.Unix(sec, 0).UTC()
	y := t.Year()
	bc := ""
	if y <= 0 {
		y, bc = 1-y, " (BC)"
	}
	s := fmt.Sprintf("%04d-%02d-%02d %02d:%02d:%02d", y, t.Month(), t.Day(), t.Hour(), t.Minute(), t.Second())
	if frac != 0 {
		digits := len(strconv.FormatInt(per, 10)) - 1
		s += strings.TrimRight(fmt.Sprintf(".%0*d", digits, frac), "0")
	}
	if utc {
		s += "+00"
	}
	return s + bc
}

// branchNames names a union's branches as the Parquet mapping does.
func branchNames(u *schema.Schema) []string {
	names := make([]string, len(u.Branches))
	seen := map[string]int{}
	for i, b := range u.Branches {
		n := b.Kind.String()
		if b.Kind.IsNamed() {
			n = b.ShortName()
		}
		names[i] = n
		seen[n]++
	}
	for i, n := range names {
		if seen[n] > 1 {
			names[i] = "member" + strconv.Itoa(i)
		}
	}
	return names
}

// Match checks that d, a value DuckDB read (decoded from its JSON with
// numbers kept as text), is v, a goavro native value of s.
func Match(s *schema.Schema, v, d any) error {
	if s.Kind == schema.Union {
		if v == nil {
			if d != nil {
				return fmt.Errorf("null read as %v", d)
			}
			return nil
		}
		i, inner, err := typemap.ResolveUnion(s, v)
		if err != nil {
			return err
		}
		if len(s.Branches) == 2 && (s.Branches[0].Kind == schema.Null || s.Branches[1].Kind == schema.Null) {
			return Match(s.Branches[i], inner, d)
		}
		m, ok := d.(map[string]any)
		if !ok {
			return fmt.Errorf("union read as %T", d)
		}
		names := branchNames(s)
		for k, b := range s.Branches {
			if b.Kind == schema.Null {
				continue
			}
			if k == i {
				if err := Match(b, inner, m[names[k]]); err != nil {
					return fmt.Errorf("%s: %w", names[k], err)
				}
			} else if m[names[k]] != nil {
				return fmt.Errorf("union branch %s not taken read as %v", names[k], m[names[k]])
			}
		}
		return nil
	}
	switch s.Kind {
	case schema.Record:
		m, ok := d.(map[string]any)
		if !ok {
			return fmt.Errorf("record read as %T", d)
		}
		rv := v.(map[string]any)
		for _, f := range s.Fields {
			// A column whose name is not an Avro name keeps it in
			// "arrow.name".
			name := f.Name
			if p, ok := f.Prop("arrow.name"); ok {
				name = p.(string)
			}
			if _, ok := m[name]; !ok {
				return fmt.Errorf("field %s missing from %v", name, d)
			}
			if err := Match(f.Type, rv[f.Name], m[name]); err != nil {
				return fmt.Errorf("%s: %w", f.Name, err)
			}
		}
		return nil
	case schema.Array:
		if m, ok := d.(map[string]any); ok && isEntries(s.Items) {
			// A Parquet map of keys other than strings, inferred as an
			// array of key-value records; DuckDB's to_json renders it
			// as an object of the keys as text.
			va := v.([]any)
			if len(m) != len(va) {
				return fmt.Errorf("map of %d read as %v", len(va), d)
			}
			for _, e := range va {
				entry := e.(map[string]any)
				found := false
				for k, x := range m {
					if Match(s.Items.Fields[0].Type, entry["key"], k) != nil && Match(s.Items.Fields[0].Type, entry["key"], json.Number(k)) != nil {
						continue
					}
					if err := Match(s.Items.Fields[1].Type, entry["value"], x); err != nil {
						return fmt.Errorf("[%s]: %w", k, err)
					}
					found = true
					break
				}
				if !found {
					return fmt.Errorf("map key %v missing from %v", entry["key"], d)
				}
			}
			return nil
		}
		a, ok := d.([]any)
		va := v.([]any)
		if !ok || len(a) != len(va) {
			return fmt.Errorf("array of %d read as %v", len(va), d)
		}
		for i := range va {
			if err := Match(s.Items, va[i], a[i]); err != nil {
				return fmt.Errorf("[%d]: %w", i, err)
			}
		}
		return nil
	case schema.Map:
		m, ok := d.(map[string]any)
		vm := v.(map[string]any)
		if !ok || len(m) != len(vm) {
			return fmt.Errorf("map of %d read as %v", len(vm), d)
		}
		for k, x := range vm {
			if err := Match(s.Values, x, m[k]); err != nil {
				return fmt.Errorf("[%q]: %w", k, err)
			}
		}
		return nil
	case schema.Enum:
		if d != v {
			return fmt.Errorf("%v read as %v", v, d)
		}
		return nil
	}
	stored, err := typemap.ToStored(s, v)
	if err != nil {
		return err
	}
	var want any
	if p, _ := s.Prop("arrow.type"); p == "time64[ns]" {
		// A Parquet TIME in nanoseconds, an Avro long; DuckDB's TIME
		// keeps microseconds.
		want = duckTime(stored.(int64) / 1000)
	}
	switch s.Logical {
	case schema.LogicalDate:
		want = duckDate(int64(stored.(int32)))
	case schema.LogicalTimeMillis:
		want = duckTime(int64(stored.(int32)) * 1000)
	case schema.LogicalTimeMicros:
		want = duckTime(stored.(int64))
	case schema.LogicalTimestampMillis, schema.LogicalLocalTimestampMillis:
		want = duckTimestamp(stored.(int64), 1e6, s.Logical == schema.LogicalTimestampMillis)
	case schema.LogicalTimestampMicros, schema.LogicalLocalTimestampMicros:
		want = duckTimestamp(stored.(int64), 1e3, s.Logical == schema.LogicalTimestampMicros)
	case schema.LogicalTimestampNanos, schema.LogicalLocalTimestampNanos:
		want = duckTimestamp(stored.(int64), 1, s.Logical == schema.LogicalTimestampNanos)
	case schema.LogicalUUID:
		if b, ok := stored.([]byte); ok {
			stored = fmt.Sprintf("%x-%x-%x-%x-%x", b[:4], b[4:6], b[6:8], b[8:10], b[10:])
		}
		want = strings.ToLower(stored.(string))
	case schema.LogicalDuration:
		// Read as a Parquet INTERVAL (never as a BLOB of its bytes).
		b := stored.([]byte)
		want = duckInterval(binary.LittleEndian.Uint32(b), binary.LittleEndian.Uint32(b[4:]), binary.LittleEndian.Uint32(b[8:]))
	case schema.LogicalDecimal:
		n, ok := d.(json.Number)
		if !ok {
			return fmt.Errorf("decimal read as %T %v", d, d)
		}
		got, ok := new(big.Rat).SetString(string(n))
		if !ok {
			return fmt.Errorf("decimal read as %q", n)
		}
		b := stored.([]byte)
		x := new(big.Int).SetBytes(b)
		if len(b) > 0 && b[0]&0x80 != 0 {
			x.Sub(x, new(big.Int).Lsh(big.NewInt(1), uint(8*len(b))))
		}
		w := new(big.Rat).SetFrac(x, new(big.Int).Exp(big.NewInt(10), big.NewInt(int64(s.Scale)), nil))
		if got.Cmp(w) != 0 {
			return fmt.Errorf("decimal %s read as %s", w.FloatString(s.Scale), n)
		}
		return nil
	}
	if want == nil {
		switch x := stored.(type) {
		case nil:
			want = nil
		case bool, string:
			want = x
		case int32:
			want = json.Number(strconv.FormatInt(int64(x), 10))
		case int64:
			want = json.Number(strconv.FormatInt(x, 10))
			if p, _ := s.Prop("arrow.type"); p == "uint64" {
				// A Parquet UINT_64 (DuckDB's UBIGINT): the long
				// holds its 64 bits.
				want = json.Number(strconv.FormatUint(uint64(x), 10))
			}
		case []byte:
			want = duckBlob(x)
		case float32:
			return matchFloat(float64(x), d, 32)
		case float64:
			return matchFloat(x, d, 64)
		default:
			return fmt.Errorf("no comparison for %T", stored)
		}
	}
	if d != want {
		// DuckDB reads a Parquet TIME adjusted to UTC, which the
		// inferred schema marks so, as a TIMETZ.
		if w, ok := want.(string); ok && utcTime(s) && strings.Count(w, ":") == 2 && !strings.Contains(w, " ") && d == w+"+00" {
			return nil
		}
		return fmt.Errorf("%v (%s) read as %v", want, s.Kind, d)
	}
	return nil
}

// isEntries says whether s is the record of an entry of a Parquet map
// whose keys are not strings, as AvroSchema infers it: fields key, of a
// primitive type, and value.
func isEntries(s *schema.Schema) bool {
	if s.Kind != schema.Record || len(s.Fields) != 2 || s.Fields[0].Name != "key" || s.Fields[1].Name != "value" {
		return false
	}
	switch s.Fields[0].Type.Kind {
	case schema.Int, schema.Long, schema.Bytes, schema.Fixed, schema.String, schema.Float, schema.Double, schema.Boolean:
		return true
	}
	return false
}

// matchFloat compares a float to DuckDB's rendering of it.
func matchFloat(x float64, d any, bits int) error {
	var text string
	switch t := d.(type) {
	case json.Number:
		text = string(t)
	case string:
		text = t
	default:
		return fmt.Errorf("%v read as %T %v", x, d, d)
	}
	var got float64
	switch strings.ToLower(text) {
	case "nan", "-nan":
		got = math.NaN()
	case "inf", "infinity":
		got = math.Inf(1)
	case "-inf", "-infinity":
		got = math.Inf(-1)
	default:
		var err error
		if got, err = strconv.ParseFloat(text, bits); err != nil {
			return fmt.Errorf("%v read as %q", x, text)
		}
	}
	if math.IsNaN(x) && math.IsNaN(got) || got == x && math.Signbit(got) == math.Signbit(x) {
		return nil
	}
	return fmt.Errorf("%v read as %s", x, text)
}

// Check checks DuckDB's rows of a Parquet file against the records of
// the data set it was written from.
func Check(t testing.TB, label string, s *schema.Schema, want []any, got Read) {
	t.Helper()
	if err := Diff(s, want, got); err != nil {
		t.Fatalf("%s: %v", label, err)
	}
}

// Diff returns the first difference between DuckDB's rows of a Parquet
// file and the records of the data set it was written from, or nil.
func Diff(s *schema.Schema, want []any, got Read) error {
	if got.Count != int64(len(want)) || len(got.Rows) != len(want) {
		return fmt.Errorf("DuckDB counts %d rows (%d read), want %d", got.Count, len(got.Rows), len(want))
	}
	for i, row := range got.Rows {
		dec := json.NewDecoder(strings.NewReader(quoteNonFinite(row)))
		dec.UseNumber()
		var m map[string]any
		if err := dec.Decode(&m); err != nil {
			return fmt.Errorf("row %d: %v\nDuckDB: %s", i, err, row)
		}
		var err error
		if s.Kind == schema.Record {
			err = Match(s, want[i], m)
		} else {
			err = Match(s, want[i], m[valueField])
		}
		if err != nil {
			return fmt.Errorf("row %d: %v\nDuckDB: %s", i, err, row)
		}
	}
	return nil
}

// quoteNonFinite quotes the NaN, Infinity and -Infinity DuckDB's to_json
// writes bare, and gives the decimals it writes without a leading zero
// (-.5, of a DECIMAL whose scale is its precision) their zero, making its
// text JSON.
func quoteNonFinite(row string) string {
	var sb strings.Builder
	in := false
	for i := 0; i < len(row); i++ {
		c := row[i]
		switch {
		case !in && c == '.' && (i == 0 || row[i-1] < '0' || row[i-1] > '9'):
			sb.WriteByte('0')
		case in && c == '\\':
			sb.WriteByte(c)
			i++
			if i < len(row) {
				sb.WriteByte(row[i])
			}
			continue
		case c == '"':
			in = !in
		case !in:
			for _, w := range []string{"NaN", "-Infinity", "Infinity", "-nan", "nan", "-inf", "inf"} {
				if strings.HasPrefix(row[i:], w) {
					sb.WriteString(`"` + w + `"`)
					i += len(w) - 1
					c = 0
					break
				}
			}
			if c == 0 {
				continue
			}
		}
		sb.WriteByte(c)
	}
	return sb.String()
}

// utcTime says whether s is a time the inferred schema marks adjusted to
// UTC (trevniarrow.PropParquetUTC).
func utcTime(s *schema.Schema) bool {
	v, _ := s.Prop("parquet.adjustedToUTC")
	return v == true
}
