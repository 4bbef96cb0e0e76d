package main

import (
	"fmt"
	"maps"
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"strings"
	"testing"

	"github.com/trevni-go/trevni/internal/testing/ducktest"
)

// TestCSVAsDuckDB converts CSV files with fromcsv and toparquet, and
// checks that DuckDB reads the Parquet file as it reads the CSV with
// read_csv_auto: the same column names (duplicates renamed as DuckDB
// renames them), the same kinds of types (a timestamp without an offset a
// TIMESTAMP, with one a TIMESTAMP WITH TIME ZONE, booleans in any case,
// -0 a number; a quote inside an unquoted cell text, CR LF inside a quoted
// cell kept) and the same rows.
func TestCSVAsDuckDB(t *testing.T) {
	dir := t.TempDir()
	files := map[string]string{
		"timestamps": "space,t,utc,offset,mixed,fine\n" +
			"2024-03-10 07:00:00,2024-03-10T07:00:00,2024-03-10 07:00:00+00,2024-03-10T07:00:00+0530,2024-03-10 07:00:00,2024-03-10 07:00:00.123456\n" +
			"2024-03-10 07:00:01.5,2024-03-10T23:59:59.25,2024-03-10T07:00:00Z,2024-03-10T07:00:00-02:30,2024-03-10T08:00:00Z,1999-12-31T23:59:59.000001\n" +
			",2024-03-11T00:00:00,,,,\n",
		"booleans": "upper,mixed,lower,letters,letters2\nTRUE,True,true,T,t\nFALSE,fAlSe,false,F,f\n",
		"headers":  "a,, b ,,column1,,k,l,m,n,o,p\n1,2,3,4,5,6,7,8,9,10,11,12\n",
		"headers2": ",\n1,2\n",
		"zeros":    "i,d\n-0,-0\n5,1.5\n",
		"dupes":    "a,a,A,a_1,b\n1,2,3,4,x\n5,6,7,8,y\n",
		"quotes":   "id,name,note\n1,12\" pizza,\"a\r\nb\"\n2,\"say \"\"hi\"\"\",\"c\nd\"\n3,x,\"\"\n",
	}
	// Every file is converted first, and DuckDB reads them all in one run
	// (a start of DuckDB's Node package is about a CPU second).
	names := slices.Sorted(maps.Keys(files))
	var queries []string
	for _, name := range names {
		csv := filepath.Join(dir, name+".csv")
		writeFileT(t, csv, []byte(files[name]))
		trv, pq := filepath.Join(dir, name+".trv"), filepath.Join(dir, name+".parquet")
		if r := runBin(t, nil, "fromcsv", "--quiet", csv, trv); r.code != 0 {
			t.Fatal(name, r)
		}
		if r := runBin(t, nil, "toparquet", "--quiet", trv, pq); r.code != 0 {
			t.Fatal(name, r)
		}
		c, p := "read_csv_auto("+sqlString(csv)+")", "read_parquet("+sqlString(pq)+")"
		queries = append(queries, "select * from "+c, "select * from "+p,
			"select count(*) from (select * from "+c+" except all select * from "+p+")",
			"select count(*) from (select * from "+p+" except all select * from "+c+")")
	}
	all := ducktest.Query(t, queries...)
	for k, name := range names {
		t.Run(name, func(t *testing.T) {
			res := all[4*k : 4*k+4]
			for _, q := range res {
				if q.Error != "" {
					t.Fatal(q.Error)
				}
			}
			if !reflect.DeepEqual(res[1].Names, res[0].Names) {
				t.Errorf("columns %q, DuckDB's %q", res[1].Names, res[0].Names)
			}
			for i := range res[0].Types {
				if i < len(res[1].Types) && kindOf(res[1].Types[i]) != kindOf(res[0].Types[i]) {
					t.Errorf("column %s: %s, DuckDB's %s", res[0].Names[i], res[1].Types[i], res[0].Types[i])
				}
			}
			if fmt.Sprint(res[2].Rows, res[3].Rows) != "[[0]] [[0]]" {
				t.Errorf("rows differ: ours %v, DuckDB's %v", res[1].Rows, res[0].Rows)
			}
		})
	}
}

// kindOf groups DuckDB's types by what they hold: the integer widths
// together (our int is DuckDB's INTEGER where it infers a BIGINT), the
// timestamp units together, with or without a time zone apart.
func kindOf(duckType string) string {
	switch {
	case strings.HasPrefix(duckType, "TIMESTAMP WITH TIME ZONE"):
		return "timestamptz"
	case strings.HasPrefix(duckType, "TIMESTAMP"):
		return "timestamp"
	case duckType == "INTEGER" || duckType == "BIGINT" || duckType == "SMALLINT":
		return "integer"
	}
	return duckType
}

// TestCSVPartsAsDuckDB converts a directory of CSV parts whose headers
// differ (columns reordered, one added, one left out) and whose cells
// widen a type across files, by the directory, a quoted glob and the
// parts named one by one, and checks that DuckDB reads the result as it
// reads the parts with read_csv_auto(..., union_by_name = true): the same
// columns in the same order, the same kinds of types, the same rows.
func TestCSVPartsAsDuckDB(t *testing.T) {
	dir := t.TempDir()
	parts := filepath.Join(dir, "parts")
	if err := os.Mkdir(parts, 0o755); err != nil {
		t.Fatal(err)
	}
	files := map[string]string{
		"part-0.csv":      "id,name,ts\n1,ann,2024-03-10 07:00:00\n2,bob,2024-03-10 08:00:00\n",
		"part-1.csv":      "name,id,ts\ncy,3,2024-03-11T09:00:00\n",              // reordered
		"part-2.csv":      "id,name,score\n4.5,dee,10\n",                         // ts left out, score added, id widened
		"part-3.csv":      "ts,id,name,score\n2024-03-12 10:00:00,5,\"e, f\",\n", // all, score empty
		"_SUCCESS":        "",
		".part-0.csv.crc": "crc",
	}
	for name, text := range files {
		writeFileT(t, filepath.Join(parts, name), []byte(text))
	}
	names := []string{"part-0.csv", "part-1.csv", "part-2.csv", "part-3.csv"}
	var named []string
	for _, n := range names {
		named = append(named, filepath.Join(parts, n))
	}
	c := "read_csv_auto(" + sqlString(filepath.Join(parts, "*.csv")) + ", union_by_name = true)"
	// Each input is converted first, and DuckDB reads them all in one run.
	inputs := [][]string{{parts}, {filepath.Join(parts, "part-*.csv")}, named}
	var queries []string
	for i, in := range inputs {
		trv, pq := filepath.Join(dir, fmt.Sprint(i, ".trv")), filepath.Join(dir, fmt.Sprint(i, ".parquet"))
		if r := runBin(t, nil, append(append([]string{"fromcsv", "--quiet"}, in...), trv)...); r.code != 0 {
			t.Fatal(r)
		}
		if r := runBin(t, nil, "toparquet", "--quiet", trv, pq); r.code != 0 {
			t.Fatal(r)
		}
		p := "read_parquet(" + sqlString(pq) + ")"
		queries = append(queries, "select * from "+c, "select * from "+p,
			"select count(*) from (select * from "+c+" except all select * from "+p+")",
			"select count(*) from (select * from "+p+" except all select * from "+c+")")
	}
	all := ducktest.Query(t, queries...)
	for i, in := range inputs {
		res := all[4*i : 4*i+4]
		for _, q := range res {
			if q.Error != "" {
				t.Fatal(q.Error)
			}
		}
		if !reflect.DeepEqual(res[1].Names, res[0].Names) {
			t.Errorf("%s: columns %q, DuckDB's %q", in, res[1].Names, res[0].Names)
		}
		for j := range res[0].Types {
			if j < len(res[1].Types) && kindOf(res[1].Types[j]) != kindOf(res[0].Types[j]) {
				t.Errorf("%s: column %s: %s, DuckDB's %s", in, res[0].Names[j], res[1].Types[j], res[0].Types[j])
			}
		}
		if fmt.Sprint(res[2].Rows, res[3].Rows) != "[[0]] [[0]]" {
			t.Errorf("%s: rows differ: ours %v, DuckDB's %v", in, res[1].Rows, res[0].Rows)
		}
		if len(res[1].Rows) != 5 {
			t.Errorf("%s: %d rows, want 5", in, len(res[1].Rows))
		}
	}
}

// TestCSVNanosecondsAsDuckDB converts timestamps with more than six
// digits of fraction: DuckDB's read_csv_auto truncates them to
// microseconds (a TIMESTAMP, a TIMESTAMPTZ), fromcsv keeps them
// (timestamp-nanos, local-timestamp-nanos): tocsv gives every digit back,
// DuckDB reads toparquet's local column as a TIMESTAMP_NS of every digit
// (its zoned one as a TIMESTAMPTZ, which holds microseconds), and the
// instants truncated are DuckDB's.
func TestCSVNanosecondsAsDuckDB(t *testing.T) {
	dir := t.TempDir()
	csv, trv, pq := filepath.Join(dir, "ns.csv"), filepath.Join(dir, "ns.trv"), filepath.Join(dir, "ns.parquet")
	writeFileT(t, csv, []byte("ts,tz\n2024-03-10 07:00:00.123456789,2024-03-10T07:00:00.9999999+02\n1969-12-31 23:59:59.000000001,\n"))
	if r := runBin(t, nil, "fromcsv", "--quiet", csv, trv); r.code != 0 {
		t.Fatal(r)
	}
	if r := runBin(t, nil, "toparquet", "--quiet", trv, pq); r.code != 0 {
		t.Fatal(r)
	}
	want := "ts,tz\n2024-03-10T07:00:00.123456789,2024-03-10T05:00:00.9999999Z\n1969-12-31T23:59:59.000000001,\n"
	if r := runBin(t, nil, "tocsv", trv); r.code != 0 || r.stdout != want {
		t.Errorf("tocsv: %+v, want %q", r, want)
	}
	c, p := "read_csv_auto("+sqlString(csv)+")", "read_parquet("+sqlString(pq)+")"
	res := ducktest.Query(t, "select * from "+c, "select * from "+p,
		"select epoch_ns(ts)::varchar from "+p,
		"select epoch_us(ts), epoch_us(tz) from "+c,
		"select epoch_us(tz) from "+p)
	for _, q := range res {
		if q.Error != "" {
			t.Fatal(q.Error)
		}
	}
	if fmt.Sprint(res[0].Types) != "[TIMESTAMP TIMESTAMP WITH TIME ZONE]" || fmt.Sprint(res[1].Types) != "[TIMESTAMP_NS TIMESTAMP WITH TIME ZONE]" {
		t.Errorf("types: DuckDB's %v, ours %v", res[0].Types, res[1].Types)
	}
	if got := fmt.Sprint(res[2].Rows); got != "[[1710054000123456789] [-999999999]]" {
		t.Errorf("nanoseconds %s", got)
	}
	// DuckDB's text truncation: the microseconds below, toward the past.
	if got := fmt.Sprint(res[3].Rows); got != "[[1710054000123456 1710046800999999] [-1000000 <nil>]]" {
		t.Errorf("DuckDB's microseconds %s", got)
	}
	if got := fmt.Sprint(res[4].Rows); got != "[[1710046800999999] [<nil>]]" {
		t.Errorf("our zoned column, as DuckDB reads it: %s", got)
	}
}
