package trevniparquet_test

import (
	"context"
	"encoding/binary"
	"encoding/json"
	"fmt"
	"math"
	"math/big"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/decimal128"
	"github.com/apache/arrow-go/v18/arrow/memory"
	"github.com/apache/arrow-go/v18/parquet"
	"github.com/apache/arrow-go/v18/parquet/pqarrow"

	"github.com/trevni-go/trevni"
	"github.com/trevni-go/trevni/internal/testing/avrorand"
	"github.com/trevni-go/trevni/internal/testing/ducktest"
	"github.com/trevni-go/trevni/schema"
	"github.com/trevni-go/trevni/shred"
	"github.com/trevni-go/trevni/trevniarrow"
	"github.com/trevni-go/trevni/typemap"

	"github.com/trevni-go/trevni/trevniparquet"
)

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

// matchDuck checks that d, a value DuckDB read (decoded from its JSON with
// numbers kept as text), is v, a goavro native value of s.
func matchDuck(s *schema.Schema, v, d any) error {
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
			return matchDuck(s.Branches[i], inner, d)
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
				if err := matchDuck(b, inner, m[names[k]]); err != nil {
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
			if err := matchDuck(f.Type, rv[f.Name], m[name]); err != nil {
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
					if matchDuck(s.Items.Fields[0].Type, entry["key"], k) != nil && matchDuck(s.Items.Fields[0].Type, entry["key"], json.Number(k)) != nil {
						continue
					}
					if err := matchDuck(s.Items.Fields[1].Type, entry["value"], x); err != nil {
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
			if err := matchDuck(s.Items, va[i], a[i]); err != nil {
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
			if err := matchDuck(s.Values, x, m[k]); err != nil {
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
		// DuckDB reads a Parquet TIME adjusted to UTC as a TIMETZ.
		if w, ok := want.(string); ok && strings.Count(w, ":") == 2 && !strings.Contains(w, " ") && d == w+"+00" {
			return nil
		}
		// arrow-go reads a Parquet INT96 timestamp as an instant in
		// nanoseconds (UTC), as Spark means it; DuckDB as a TIMESTAMP
		// without a time zone: the same digits.
		// So it reads Spark's INT96 (timestamp-micros here), and
		// timestamps of the legacy converted types alone.
		utc := s.Logical == schema.LogicalTimestampNanos || s.Logical == schema.LogicalTimestampMicros || s.Logical == schema.LogicalTimestampMillis
		if w, ok := want.(string); ok && utc && d == strings.TrimSuffix(w, "+00") {
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

// checkDuck checks DuckDB's rows of a Parquet file against the records of
// the data set it was written from.
func checkDuck(t *testing.T, label string, s *schema.Schema, want []any, got ducktest.Read) {
	t.Helper()
	if err := duckDiff(s, want, got); err != nil {
		t.Fatalf("%s: %v", label, err)
	}
}

// duckDiff returns the first difference between DuckDB's rows of a Parquet
// file and the records of the data set it was written from, or nil.
func duckDiff(s *schema.Schema, want []any, got ducktest.Read) error {
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
			err = matchDuck(s, want[i], m)
		} else {
			err = matchDuck(s, want[i], m[trevniarrow.ValueField])
		}
		if err != nil {
			return fmt.Errorf("row %d: %v\nDuckDB: %s", i, err, row)
		}
	}
	return nil
}

// DuckDB reads the Parquet files toparquet writes of every interop vector
// and of random schemas: its row counts, and every value of every row,
// are the records'.
func TestDuckDBReadsParquet(t *testing.T) {
	ctx := context.Background()
	dir := t.TempDir()
	type job struct {
		label string
		s     *schema.Schema
		want  []any
	}
	jobs := map[string]job{}
	var files []string
	add := func(label, name string, codec string) {
		ds, err := trevni.Open(ctx, name, nil)
		if err != nil {
			t.Fatal(err)
		}
		var want []any
		for v, err := range ds.All(ctx, nil) {
			if err != nil {
				t.Fatal(err)
			}
			want = append(want, v)
		}
		out := filepath.Join(dir, fmt.Sprintf("%d.parquet", len(files)))
		f, err := os.Create(out)
		if err != nil {
			t.Fatal(err)
		}
		if _, err := trevniparquet.Write(ctx, f, ds, &trevniparquet.WriteOptions{Codec: codec, RowGroupRows: 100}); err != nil {
			t.Fatalf("%s: %v", label, err)
		}
		if err := f.Close(); err != nil {
			t.Fatal(err)
		}
		jobs[out] = job{label, ds.Schema(), want}
		files = append(files, out)
	}
	vectors, err := filepath.Glob("../testdata/interop/*/*.snappy.crc32.trv")
	if err != nil || len(vectors) < 8 {
		t.Fatalf("interop vectors: %v %v", vectors, err)
	}
	for i, v := range vectors {
		add(v, v, []string{"snappy", "zstd", "gzip", "none"}[i%4])
	}
	for seed := range uint64(40) {
		name, _, _ := writeRandomWith(t, 1000+seed, int(seed%7)+1, inDuckDomain)
		add(fmt.Sprintf("random seed %d", 1000+seed), name, "snappy")
	}
	// Schemas that Write writes straight from the Trevni columns.
	for seed := range uint64(20) {
		name, _, _ := writeDirectRandomWith(t, 2000+seed, int(seed%9)+1, inDuckDomain)
		add(fmt.Sprintf("direct random seed %d", 2000+seed), name, []string{"snappy", "zstd", "gzip", "none"}[seed%4])
	}
	reads := ducktest.ReadParquet(t, files...)
	for _, f := range files {
		j := jobs[f]
		checkDuck(t, j.label, j.s, j.want, reads[f])
	}
}

// inDuckDomain brings the times of day of a random value within a day,
// and its timestamps within 9e9 seconds of 1970: Avro allows any int or
// long, DuckDB's TIME only times of a day, and its timestamps a range.
func inDuckDomain(s *schema.Schema, v any) any {
	if v == nil {
		return nil
	}
	switch s.Kind {
	case schema.Union:
		i, inner, err := typemap.ResolveUnion(s, v)
		if err != nil || s.Branches[i].Kind == schema.Null {
			return v
		}
		return typemap.WrapUnion(s, i, inDuckDomain(s.Branches[i], inner))
	case schema.Record:
		m := v.(map[string]any)
		for _, f := range s.Fields {
			m[f.Name] = inDuckDomain(f.Type, m[f.Name])
		}
	case schema.Array:
		a := v.([]any)
		for i := range a {
			a[i] = inDuckDomain(s.Items, a[i])
		}
	case schema.Map:
		m := v.(map[string]any)
		for k, x := range m {
			m[k] = inDuckDomain(s.Values, x)
		}
	case schema.Int, schema.Long:
		if t, ok := v.(time.Time); ok && s.Logical != schema.LogicalDate {
			// DuckDB's TIMESTAMP_NS ends in 2262: within 9e9 s of 1970.
			t = time.Unix(t.Unix()%9e9, int64(t.Nanosecond())).In(t.Location())
			if s.Logical == schema.LogicalTimestampNanos {
				// DuckDB reads a UTC timestamp in nanoseconds as
				// TIMESTAMPTZ, in microseconds.
				t = t.Truncate(time.Microsecond)
			}
			return t
		}
		if n, ok := v.(int64); ok && logicalUnit(s.Logical) != 0 {
			per := int64(1e9) / logicalUnit(s.Logical)
			n = n/per%9e9*per + n%per
			if s.Logical == schema.LogicalTimestampNanos {
				n -= n % 1000
			}
			return n
		}
		if s.Logical == schema.LogicalTimeMillis || s.Logical == schema.LogicalTimeMicros {
			d := v.(time.Duration) % (24 * time.Hour)
			if d < 0 {
				d += 24 * time.Hour
			}
			return d
		}
	}
	return v
}

// logicalUnit is the nanoseconds of the unit of the timestamps goavro keeps
// as int64; 0 for other types.
func logicalUnit(l schema.LogicalType) int64 {
	switch l {
	case schema.LogicalLocalTimestampMillis:
		return 1e6
	case schema.LogicalLocalTimestampMicros:
		return 1e3
	case schema.LogicalTimestampNanos, schema.LogicalLocalTimestampNanos:
		return 1
	}
	return 0
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

// Parquet files DuckDB writes (nested, nullable at every level, several
// row groups, each codec) convert to Trevni, with the Avro schema
// inferred, and read back equal to what DuckDB reads from them.
func TestParquetFromDuckDB(t *testing.T) {
	ctx := context.Background()
	dir := t.TempDir()
	query := `SELECT i::INTEGER AS id,
		CASE WHEN i % 7 = 0 THEN NULL ELSE i * 1000003 END::BIGINT AS big,
		(i / 3)::DOUBLE AS d, (i / 7)::FLOAT AS f, i % 2 = 0 AS flag,
		CASE WHEN i % 5 = 0 THEN NULL ELSE 'name ' || i END AS name,
		('\x' || lpad(to_hex(i % 256), 2, '0'))::BLOB AS raw,
		(i * 12345)::DECIMAL(18, 3) AS amount, (i * 7)::DECIMAL(38, 10) AS wide,
		DATE '2000-01-01' + i::INTEGER AS day, TIMESTAMP '2000-01-01 00:00:00' + INTERVAL (i) SECOND AS at,
		TIMESTAMPTZ '2000-01-01 00:00:00+00' + INTERVAL (i * 1001) MILLISECOND AS at_utc,
		TIME '00:00:00' + INTERVAL (i) SECOND AS tod,
		CASE WHEN i % 4 = 0 THEN NULL ELSE [i, NULL, i + 1] END AS ints,
		[{'k': i, 'v': CASE WHEN i % 3 = 0 THEN NULL ELSE 'v' || i END}, NULL] AS pairs,
		CASE WHEN i % 6 = 0 THEN NULL ELSE {'a': i, 'b': {'c': [i::VARCHAR], 'd': NULL::INTEGER}} END AS nested,
		MAP {'x': i, 'y': NULL} AS m, gen_random_uuid() AS id2
		FROM range(0, 2500) t(i)`
	var args, files []string
	for _, codec := range []string{"snappy", "zstd", "gzip", "uncompressed"} {
		f := filepath.Join(dir, codec+".parquet")
		args = append(args, fmt.Sprintf("sql:COPY (%s) TO '%s' (FORMAT parquet, COMPRESSION %s, ROW_GROUP_SIZE 1000)", query, f, codec))
		files = append(files, f)
	}
	reads := ducktest.ReadParquet(t, append(args, files...)...)
	for _, f := range files {
		in, err := os.Open(f)
		if err != nil {
			t.Fatal(err)
		}
		pf, err := trevniparquet.Open(in, nil)
		if err != nil {
			t.Fatalf("%s: %v", f, err)
		}
		s, err := schema.Parse(pf.AvroSchema())
		if err != nil {
			t.Fatal(err)
		}
		out := filepath.Join(dir, filepath.Base(f)+".trv")
		w, err := trevni.Create(context.Background(), out, pf.AvroSchema(), nil)
		if err != nil {
			t.Fatal(err)
		}
		if _, err := pf.WriteTo(ctx, w); err != nil {
			t.Fatalf("%s: %v", f, err)
		}
		if err := w.Close(); err != nil {
			t.Fatal(err)
		}
		pf.Close()
		in.Close()
		checkDuck(t, f, s, readAll(t, out), reads[f])
	}
}

// A Parquet file arrow-go writes from Arrow types of its own (small and
// unsigned integers, large strings, half floats, second timestamps, nested
// nullable lists, maps and structs), in three row groups without an Avro
// schema, with each codec arrow-go offers, converts with the inferred
// schema and reads back equal to what DuckDB reads from it.
func TestParquetFromArrowGo(t *testing.T) {
	ctx := context.Background()
	sc := arrow.NewSchema([]arrow.Field{
		{Name: "i8", Type: arrow.PrimitiveTypes.Int8},
		{Name: "u16", Type: arrow.PrimitiveTypes.Uint16, Nullable: true},
		{Name: "u32", Type: arrow.PrimitiveTypes.Uint32},
		{Name: "u64", Type: arrow.PrimitiveTypes.Uint64},
		{Name: "ls", Type: arrow.BinaryTypes.LargeString, Nullable: true},
		{Name: "ts", Type: &arrow.TimestampType{Unit: arrow.Second, TimeZone: "UTC"}},
		{Name: "t32", Type: arrow.FixedWidthTypes.Time32s},
		{Name: "dec", Type: &arrow.Decimal128Type{Precision: 20, Scale: 4}, Nullable: true},
		{Name: "list", Type: arrow.ListOfField(arrow.Field{Name: "item", Type: arrow.PrimitiveTypes.Int64, Nullable: true}), Nullable: true},
		{Name: "m", Type: arrow.MapOf(arrow.BinaryTypes.String, arrow.PrimitiveTypes.Float64)},
		{Name: "st", Type: arrow.StructOf(arrow.Field{Name: "a", Type: arrow.BinaryTypes.String, Nullable: true}, arrow.Field{Name: "b", Type: arrow.FixedWidthTypes.Boolean}), Nullable: true},
	}, nil)
	b := array.NewRecordBuilder(memory.DefaultAllocator, sc)
	defer b.Release()
	for i := range 300 {
		b.Field(0).(*array.Int8Builder).Append(int8(i))
		if i%3 == 0 {
			b.Field(1).AppendNull()
		} else {
			b.Field(1).(*array.Uint16Builder).Append(uint16(i * 200))
		}
		b.Field(2).(*array.Uint32Builder).Append(uint32(i) * 14000000)
		b.Field(3).(*array.Uint64Builder).Append(uint64(i) << 50)
		if i%4 == 0 {
			b.Field(4).AppendNull()
		} else {
			b.Field(4).(*array.LargeStringBuilder).Append(fmt.Sprintf("s%d ✓", i))
		}
		b.Field(5).(*array.TimestampBuilder).Append(arrow.Timestamp(int64(i) * 86399))
		b.Field(6).(*array.Time32Builder).Append(arrow.Time32(i * 281))
		if i%5 == 0 {
			b.Field(7).AppendNull()
		} else {
			b.Field(7).(*array.Decimal128Builder).Append(decimal128.FromI64(int64(i*i) - 3000))
		}
		lb := b.Field(8).(*array.ListBuilder)
		if i%6 == 0 {
			lb.AppendNull()
		} else {
			lb.Append(true)
			for k := range i % 4 {
				if k == 1 {
					lb.ValueBuilder().AppendNull()
				} else {
					lb.ValueBuilder().(*array.Int64Builder).Append(int64(i * k))
				}
			}
		}
		mb := b.Field(9).(*array.MapBuilder)
		mb.Append(true)
		for k := range i % 3 {
			mb.KeyBuilder().(*array.StringBuilder).Append(fmt.Sprintf("k%d", k))
			mb.ItemBuilder().(*array.Float64Builder).Append(float64(i) / float64(k+1))
		}
		sb := b.Field(10).(*array.StructBuilder)
		if i%7 == 0 {
			sb.AppendNull()
		} else {
			sb.Append(true)
			if i%2 == 0 {
				sb.FieldBuilder(0).AppendNull()
			} else {
				sb.FieldBuilder(0).(*array.StringBuilder).Append(fmt.Sprint(i))
			}
			sb.FieldBuilder(1).(*array.BooleanBuilder).Append(i%2 == 0)
		}
	}
	rec := b.NewRecordBatch()
	defer rec.Release()
	dir := t.TempDir()
	var files []string
	for _, codec := range arrowGoCodecs {
		name := filepath.Join(dir, "arrowgo-"+codec.String()+".parquet")
		f, err := os.Create(name)
		if err != nil {
			t.Fatal(err)
		}
		props := parquet.NewWriterProperties(parquet.WithMaxRowGroupLength(100), parquet.WithCompression(codec))
		fw, err := pqarrow.NewFileWriter(sc, f, props, pqarrow.DefaultWriterProps())
		if err != nil {
			t.Fatal(err)
		}
		if err := fw.Write(rec); err != nil {
			t.Fatal(err)
		}
		if err := fw.Close(); err != nil {
			t.Fatal(err)
		}
		files = append(files, name)
	}
	reads := ducktest.ReadParquet(t, files...)
	for _, name := range files {
		in, err := os.Open(name)
		if err != nil {
			t.Fatal(err)
		}
		pf, err := trevniparquet.Open(in, nil)
		if err != nil {
			t.Fatal(err)
		}
		if pf.NumRows() != 300 || pf.Schema().NumFields() != sc.NumFields() {
			t.Fatalf("%s: %d rows, %d columns", name, pf.NumRows(), pf.Schema().NumFields())
		}
		s, err := schema.Parse(pf.AvroSchema())
		if err != nil {
			t.Fatal(err)
		}
		out := filepath.Join(dir, filepath.Base(name)+".trv")
		w, err := trevni.Create(context.Background(), out, pf.AvroSchema(), nil)
		if err != nil {
			t.Fatal(err)
		}
		if _, err := pf.WriteTo(ctx, w); err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		if err := w.Close(); err != nil {
			t.Fatal(err)
		}
		pf.Close()
		in.Close()
		checkDuck(t, name, s, readAll(t, out), reads[name])
	}
}

// parquetGoFile is a Parquet file written by parquet-go
// (testdata/parquetgo/README.md says how): lists of strings and of
// structs, an optional int, snappy.
const parquetGoFile = "testdata/parquetgo/large300.parquet"

// fromParquetGo converts parquetGoFile with fromparquet's code and returns
// the Avro schema and the records of the Trevni file.
func fromParquetGo(t *testing.T) (*schema.Schema, []any) {
	t.Helper()
	in, err := os.Open(parquetGoFile)
	if err != nil {
		t.Fatal(err)
	}
	defer in.Close()
	pf, err := trevniparquet.Open(in, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer pf.Close()
	s, err := schema.Parse(pf.AvroSchema())
	if err != nil {
		t.Fatal(err)
	}
	out := filepath.Join(t.TempDir(), "pqgo.trv")
	w, err := trevni.Create(context.Background(), out, pf.AvroSchema(), nil)
	if err != nil {
		t.Fatal(err)
	}
	if n, err := pf.WriteTo(context.Background(), w); err != nil || n != 300 {
		t.Fatalf("%d rows: %v", n, err)
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	return s, readAll(t, out)
}

// The parquet-go file converts into the records of the Avro file it was
// written from.
func TestParquetFromParquetGo(t *testing.T) {
	_, got := fromParquetGo(t)
	// The Avro file's records, through a Trevni file of them.
	avro, err := os.Open("testdata/parquetgo/large300.avro")
	if err != nil {
		t.Fatal(err)
	}
	defer avro.Close()
	src := filepath.Join(t.TempDir(), "src.trv")
	sf, err := os.Create(src)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := shred.FromContainer(context.Background(), sf, avro, nil); err != nil {
		t.Fatal(err)
	}
	if err := sf.Close(); err != nil {
		t.Fatal(err)
	}
	want := readAll(t, src)
	if len(got) != len(want) {
		t.Fatalf("%d records from Parquet, %d in the Avro file", len(got), len(want))
	}
	for i := range want {
		if !avrorand.EqualNative(got[i], want[i]) {
			t.Fatalf("record %d\n got %v\nwant %v", i, got[i], want[i])
		}
	}
}

// The parquet-go file converts into what DuckDB reads from it.
func TestParquetFromParquetGoDuckDB(t *testing.T) {
	s, got := fromParquetGo(t)
	reads := ducktest.ReadParquet(t, parquetGoFile)
	checkDuck(t, parquetGoFile, s, got, reads[parquetGoFile])
}
