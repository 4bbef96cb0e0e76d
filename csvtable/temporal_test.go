package csvtable

import (
	"errors"
	"io"
	"math/rand/v2"
	"strings"
	"testing"
	"time"

	"github.com/trevni-go/trevni/schema"
)

// TestTemporalRoundTrip writes random dates, times and timestamps as Go's
// time package formats them, infers their types, and checks the values
// (against time's own arithmetic) and the text after a Trevni round trip.
func TestTemporalRoundTrip(t *testing.T) {
	rng := rand.New(rand.NewPCG(7, 8))
	var b strings.Builder
	b.WriteString("d,tm,tu,sm,su\n")
	type row struct{ d, tm, tu, sm, su time.Time }
	var rows []row
	for i := 0; i < 300; i++ {
		// From 1600 to 2400, seconds, then milli- and microseconds.
		sec := rng.Int64N(800*365*86400) - 370*365*86400
		ms := time.Unix(sec, rng.Int64N(1000)*1e6).UTC()
		us := time.Unix(sec, rng.Int64N(1e6)*1e3).UTC()
		r := row{d: time.Unix(sec, 0).UTC().Truncate(24 * time.Hour), tm: ms.Truncate(time.Second), tu: us, sm: ms, su: us}
		rows = append(rows, r)
		// Timestamps in other zones, and a time without a fraction.
		zone := time.FixedZone("", (rng.IntN(48)-24)*1800)
		b.WriteString(r.d.Format("2006-01-02") + "," + r.tm.Format("15:04:05") + "," + r.tu.Format("15:04:05.000000") + "," +
			r.sm.In(zone).Format(time.RFC3339Nano) + "," + r.su.In(zone).Format(time.RFC3339Nano) + "\n")
	}
	text := b.String()
	fields, n, err := Infer(strings.NewReader(text), ',', nil)
	if err != nil || n != int64(len(rows)) {
		t.Fatalf("Infer: %d rows, %v", n, err)
	}
	want := []Type{Date, TimeMillis, TimeMicros, TimestampMillis, TimestampMicros}
	for i, f := range fields {
		if f.Type != want[i] {
			t.Fatalf("column %s inferred as %v, want %v", f.Name, f.Type, want[i])
		}
	}
	// The values, as Avro holds them.
	src, err := NewCSVSource(strings.NewReader(text), fields, ',', nil)
	if err != nil {
		t.Fatal(err)
	}
	cells := make([]Cell, len(fields))
	for i, r := range rows {
		if err := src.Next(cells); err != nil {
			t.Fatal(err)
		}
		midnight := func(x time.Time) time.Duration { return x.Sub(x.Truncate(24 * time.Hour)) }
		got := [5]int64{cells[0].I, cells[1].I, cells[2].I, cells[3].I, cells[4].I}
		exp := [5]int64{r.d.Unix() / 86400, midnight(r.tm).Milliseconds(), midnight(r.tu).Microseconds(), r.sm.UnixMilli(), r.su.UnixMicro()}
		if got != exp {
			t.Fatalf("row %d: %v, want %v", i+1, got, exp)
		}
	}
	if err := src.Next(cells); err != io.EOF {
		t.Fatalf("after the last row: %v", err)
	}
	// Back to text: ISO 8601, timestamps in UTC, fractions trimmed.
	out, err := trevniToCSV(t, toTrevni(t, text, fields), nil)
	if err != nil {
		t.Fatal(err)
	}
	recs := parseAll(t, out)
	for i, r := range rows {
		exp := []string{r.d.Format("2006-01-02"), r.tm.Format("15:04:05.999999"), r.tu.Format("15:04:05.999999"),
			r.sm.Format("2006-01-02T15:04:05.999999Z07:00"), r.su.Format("2006-01-02T15:04:05.999999Z07:00")}
		if strings.Join(recs[i+1], ",") != strings.Join(exp, ",") {
			t.Fatalf("row %d: %q, want %q", i+1, recs[i+1], exp)
		}
	}
	// The schema names the logical types, and reads back as the same fields.
	s, err := schema.Parse(AvroSchema("R", fields))
	if err != nil {
		t.Fatal(err)
	}
	back, err := FieldsOf(s)
	if err != nil {
		t.Fatal(err)
	}
	for i := range back {
		if back[i].Type != fields[i].Type {
			t.Errorf("field %d: %v after the schema, want %v", i, back[i].Type, fields[i].Type)
		}
	}
}

func TestTemporalInferAndErrors(t *testing.T) {
	for _, tc := range []struct {
		cells string
		want  Type
	}{
		{"2004-03-05|2024-02-29", Date},
		{"2004-03-05|2023-02-29", String}, // no such day
		{"2004-03-05|12:00:00", String},   // mixed kinds
		{"2004-03-05|1", String},
		{"23:59:59|00:00:00.5", TimeMillis},
		{"24:00:00", String},
		{"10:00:00.1234567", String}, // finer than microseconds
		{"2004-03-05T10:00:00Z|2004-03-05T10:00:00.123456+05:30", TimestampMicros},
		// As DuckDB's read_csv_auto: without an offset a local timestamp
		// (TIMESTAMP), with one a timestamp (TIMESTAMPTZ), a space for
		// the T, offsets of hours alone.
		{"2004-03-05T10:00:00", LocalTimestampMillis},
		{"2004-03-05 10:00:00|2004-03-05 10:00:00.000001", LocalTimestampMicros},
		{"2004-03-05 10:00:00Z", TimestampMillis},
		{"2004-03-05 10:00:00+00|2004-03-05 10:00:00-0230", TimestampMillis},
		{"2004-03-05 10:00:00|2004-03-05 10:00:00+01:00", TimestampMillis}, // those without an offset in UTC
		{"2004-03-05 10:00:00+1", String},
		{"2004-03-05 10:00:00+24", String},
		{"2004-03-05 10:00:00 Z", String},
		{"2004-03-05x10:00:00", String},
		// Finer than microseconds: nanoseconds (DuckDB truncates them to
		// microseconds).
		{"2004-03-05 10:00:00.1234567", LocalTimestampNanos},
		{"2004-03-05 10:00:00.123456789Z|2004-03-05 10:00:00", TimestampNanos},
		{"2262-04-11 23:47:16.854775808", String}, // past int64 nanoseconds
		{"10:00:00.1234567", String},              // no time-nanos in Avro
	} {
		text := "a\n" + strings.ReplaceAll(tc.cells, "|", "\n") + "\n"
		fields, _, err := Infer(strings.NewReader(text), ',', nil)
		if err != nil {
			t.Fatal(err)
		}
		if fields[0].Type != tc.want {
			t.Errorf("%q: %v, want %v", tc.cells, fields[0].Type, tc.want)
		}
	}
	// With a schema: the error names the line, the column and the form.
	for _, tc := range []struct {
		typ  Type
		cell string
		want string
	}{
		{Date, "2004-3-5", `"2004-3-5" is not a valid date: not a date as 2006-01-02`},
		{TimeMillis, "10:00:00.0001", "more precise than the type holds"},
		{TimestampMillis, "2004-03-05T10:00:00.0001Z", "more precise than the type holds"},
		{TimestampMicros, "2004-03-05", "not a timestamp"},
		{LocalTimestampMicros, "2004-03-05T10:00:00Z", "a local timestamp has no offset"},
	} {
		f := []Field{{Name: "a", Type: tc.typ}}
		src, err := NewCSVSource(strings.NewReader("a\n"+tc.cell+"\n"), f, ',', nil)
		if err != nil {
			t.Fatal(err)
		}
		err = src.Next(make([]Cell, 1))
		var ce *Error
		if !errors.As(err, &ce) || ce.Line != 2 || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%v %q: %v, want line 2 and %q", tc.typ, tc.cell, err, tc.want)
		}
	}
}

// TestTimestampValues checks the values read from the timestamp forms
// against time.Parse of the same instants, and that a local timestamp
// reads its wall-clock time as UTC.
func TestTimestampValues(t *testing.T) {
	for _, tc := range []struct {
		typ        Type
		cell, want string // want for time.RFC3339Nano
	}{
		{TimestampMicros, "2024-03-10 07:00:00+00", "2024-03-10T07:00:00Z"},
		{TimestampMicros, "2024-03-10T07:00:00.5+0530", "2024-03-10T07:00:00.5+05:30"},
		{TimestampMicros, "2024-03-10T07:00:00-02:30", "2024-03-10T07:00:00-02:30"},
		{TimestampMillis, "2024-03-10 07:00:00", "2024-03-10T07:00:00Z"},
		{LocalTimestampMicros, "1969-12-31 23:59:59.999999", "1969-12-31T23:59:59.999999Z"},
		{LocalTimestampMillis, "0001-01-01T00:00:00", "0001-01-01T00:00:00Z"},
	} {
		f := &Field{Name: "a", Type: tc.typ}
		var c Cell
		if err := parseText(f, tc.cell, &c); err != nil {
			t.Errorf("%q: %v", tc.cell, err)
			continue
		}
		want, _ := time.Parse(time.RFC3339Nano, tc.want)
		w := want.UnixMicro()
		if tc.typ == TimestampMillis || tc.typ == LocalTimestampMillis {
			w = want.UnixMilli()
		}
		if c.I != w {
			t.Errorf("%v %q: %d, want %d", tc.typ, tc.cell, c.I, w)
		}
	}
}
