package main

import (
	"encoding/json"
	"fmt"
	"path/filepath"
	"strings"
	"testing"

	"github.com/trevni-go/trevni/internal/testing/ducktest"
)

// TestJSONTimesAsDuckDB infers the schema of JSON lines whose strings are
// dates, times of day and timestamps in the forms ISO 8601 and DuckDB
// write (T or a space, fractions of 0 to 9 digits, Z, +02:00, +0200, +02
// or no zone), converts them with fromjson --infer and toparquet, and
// checks each column against DuckDB: where read_json_auto makes a
// column DATE, TIME or TIMESTAMP, ours is the same kind (a zoned one
// TIMESTAMP WITH TIME ZONE: DuckDB reads the offsets and keeps UTC in a
// TIMESTAMP) with the same instants; where DuckDB keeps the strings (its
// detection tries one format per column), ours holds what DuckDB's cast
// of the strings gives; a column mixing zones and no zones, or
// timestamps and other text, stays a string, as in DuckDB.
func TestJSONTimesAsDuckDB(t *testing.T) {
	type col struct {
		values [2]string
		kind   string // our Parquet column as DuckDB types it
		cast   string // DuckDB's cast of the strings to compare with
	}
	cols := map[string]col{
		"z":     {[2]string{"2024-03-10T07:00:00Z", "1969-12-31T23:59:59.5Z"}, "TIMESTAMP WITH TIME ZONE", "timestamptz"},
		"zf":    {[2]string{"2024-03-10T07:00:00.5Z", "2024-03-10T07:00:00.25Z"}, "TIMESTAMP WITH TIME ZONE", "timestamptz"},
		"sp":    {[2]string{"2024-03-10 07:00:00", "2024-03-11 08:00:00"}, "TIMESTAMP", "timestamp"},
		"spf":   {[2]string{"2024-03-10 07:00:00.25", "2024-03-10 07:00:00.125"}, "TIMESTAMP", "timestamp"},
		"t":     {[2]string{"2024-03-10T07:00:00", "2024-03-10T07:00:01"}, "TIMESTAMP", "timestamp"},
		"tf":    {[2]string{"2024-03-10T07:00:00.123", "2024-03-10T07:00:00"}, "TIMESTAMP", "timestamp"},
		"us":    {[2]string{"2024-03-10T07:00:00.123456", "0001-01-01T00:00:00"}, "TIMESTAMP", "timestamp"},
		"off":   {[2]string{"2024-03-10T07:00:00+02:00", "2024-03-10T07:00:00-05:30"}, "TIMESTAMP WITH TIME ZONE", "timestamptz"},
		"offf":  {[2]string{"2024-03-10T07:00:00.5+02:00", "2024-03-10T07:00:00.000001Z"}, "TIMESTAMP WITH TIME ZONE", "timestamptz"},
		"off4":  {[2]string{"2024-03-10T07:00:00+0200", "2024-03-10T07:00:00-0000"}, "TIMESTAMP WITH TIME ZONE", "timestamptz"},
		"off2":  {[2]string{"2024-03-10T07:00:00+02", "2024-03-10 07:00:00-11"}, "TIMESTAMP WITH TIME ZONE", "timestamptz"},
		"spz":   {[2]string{"2024-03-10 07:00:00Z", "2024-03-10 07:00:00+02:00"}, "TIMESTAMP WITH TIME ZONE", "timestamptz"},
		"date":  {[2]string{"2024-03-10", "1900-02-28"}, "DATE", "date"},
		"time":  {[2]string{"07:00:00", "23:59:59"}, "TIME", "time"},
		"timef": {[2]string{"07:00:00.123", "07:00:00.123456"}, "TIME", "time"},
		"mixed": {[2]string{"2024-03-10T07:00:00+02:00", "2024-03-10T07:00:00"}, "VARCHAR", ""},
		"text":  {[2]string{"2024-03-10T07:00:00", "soon"}, "VARCHAR", ""},
		"dt":    {[2]string{"2024-03-10", "2024-03-10T07:00:00"}, "VARCHAR", ""},
	}
	var names []string
	for k := range cols {
		names = append(names, k)
	}
	var lines strings.Builder
	for i := range 2 {
		line := map[string]string{}
		for k, c := range cols {
			line[k] = c.values[i]
		}
		b, _ := json.Marshal(line)
		lines.Write(append(b, '\n'))
	}
	dir := t.TempDir()
	jsonl, trv, pq := filepath.Join(dir, "t.jsonl"), filepath.Join(dir, "t.trv"), filepath.Join(dir, "t.parquet")
	writeFileT(t, jsonl, []byte(lines.String()))
	if r := runBin(t, nil, "fromjson", "--quiet", "--infer", jsonl, trv); r.code != 0 {
		t.Fatal(r)
	}
	if r := runBin(t, nil, "toparquet", "--quiet", trv, pq); r.code != 0 {
		t.Fatal(r)
	}
	j, p := "read_json_auto("+sqlString(jsonl)+")", "read_parquet("+sqlString(pq)+")"
	queries := []string{"set TimeZone = 'UTC'", "select * from " + j + " limit 0", "select * from " + p + " limit 0"}
	for _, k := range names {
		c := cols[k]
		switch {
		case c.cast == "":
			queries = append(queries, fmt.Sprintf("select count(*) from (select %s from %s except all select %s from %s)", k, j, k, p))
		case c.cast == "date" || c.cast == "time":
			queries = append(queries, fmt.Sprintf("select count(*) from (select %s::varchar::%s from %s except all select %s from %s)", k, c.cast, j, k, p))
		default:
			// Instants as microseconds: DuckDB's own column, or its cast
			// of the strings it kept.
			queries = append(queries, fmt.Sprintf("select count(*) from (select epoch_us(%s::varchar::%s) from %s except all select epoch_us(%s) from %s)", k, c.cast, j, k, p))
		}
	}
	res := ducktest.Query(t, queries...)
	for _, q := range res[1:] {
		if q.Error != "" {
			t.Fatal(q.Error)
		}
	}
	duckTypes, ourTypes := map[string]string{}, map[string]string{}
	for i, n := range res[1].Names {
		duckTypes[n] = res[1].Types[i]
	}
	for i, n := range res[2].Names {
		ourTypes[n] = res[2].Types[i]
	}
	for i, k := range names {
		c := cols[k]
		if ourTypes[k] != c.kind {
			t.Errorf("%s %q: ours %s, want %s", k, c.values, ourTypes[k], c.kind)
		}
		if d := duckTypes[k]; d != "VARCHAR" && d != strings.TrimSuffix(c.kind, " WITH TIME ZONE") {
			t.Errorf("%s %q: DuckDB's %s, ours %s", k, c.values, d, ourTypes[k])
		}
		if got := fmt.Sprint(res[3+i].Rows); got != "[[0]]" {
			t.Errorf("%s %q: values differ from DuckDB's (%s)", k, c.values, got)
		}
	}
}
