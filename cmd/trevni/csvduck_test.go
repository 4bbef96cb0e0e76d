package main

import (
	"fmt"
	"maps"
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
		"booleans": "upper,mixed,lower\nTRUE,True,true\nFALSE,fAlSe,false\n",
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
