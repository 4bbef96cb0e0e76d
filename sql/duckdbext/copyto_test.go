package main

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/trevni-go/trevni"
	"github.com/trevni-go/trevni/internal/frontdoor"
)

// copyTypesQuery makes 5,000 rows (three DuckDB chunks and a part) of
// every type COPY TO maps, with NULLs, as column NAME of the type the
// read back gives (the mapping of docs/duckdb.md).
const copyTypesQuery = `SELECT
  (i % 200 - 100)::TINYINT AS "t8", (i - 2500)::SMALLINT AS s16, CASE WHEN i % 7 = 0 THEN NULL ELSE i END::INTEGER AS i32, (i * 1000003)::BIGINT AS i64,
  (i % 256)::UTINYINT AS u8, i::USMALLINT AS u16, (i * 100000)::UINTEGER AS u32, (i * 1000000007)::UBIGINT AS u64,
  (i::HUGEINT * 1000000000000000000000) AS h, (i * 1.5)::FLOAT AS f, (i / 3)::DOUBLE AS d,
  CASE WHEN i % 5 = 0 THEN NULL ELSE 'v' || i END AS s, ('b' || i)::BLOB AS bl, repeat('long text ', i % 4) AS "long text",
  DATE '2024-01-01' + i::INTEGER AS dt, TIME '01:02:03' + INTERVAL (i) SECOND AS tm,
  TIMESTAMP '2024-01-01 00:00:00.123456' + INTERVAL (i) MINUTE AS ts,
  (TIMESTAMP '2024-01-01 00:00:00' + INTERVAL (i) HOUR)::TIMESTAMP_S AS ts_s,
  (TIMESTAMP '2024-01-01 00:00:00.123' + INTERVAL (i) HOUR)::TIMESTAMP_MS AS ts_ms,
  (TIMESTAMP '2024-01-01 00:00:00.123456' + INTERVAL (i) HOUR)::TIMESTAMP_NS AS ts_ns,
  (TIMESTAMPTZ '2024-01-01 00:00:00.5+00' + INTERVAL (i) SECOND) AS tstz,
  (i / 7)::DECIMAL(4,1) AS dec4, (-i / 7)::DECIMAL(9,2) AS dec9, (i * 1234567 / 7)::DECIMAL(18,3) AS dec18,
  (i::DECIMAL(38,5) * -12345678901234567890.5)::DECIMAL(38,5) AS dec38,
  ('00000000-0000-4000-8000-' || lpad(i::VARCHAR, 12, '0'))::UUID AS id,
  CASE WHEN i % 3 = 0 THEN NULL ELSE INTERVAL (i) DAY + INTERVAL (i % 12) MONTH + INTERVAL (i) MILLISECOND END AS iv,
  (['sad', 'ok', 'happy'])[i % 3 + 1]::mood AS m,
  CASE WHEN i % 4 = 0 THEN NULL WHEN i % 4 = 1 THEN [] ELSE [i, NULL, i + 1] END::INTEGER[] AS li,
  [i, i + 1, i + 2]::INTEGER[3] AS arr,
  CASE WHEN i % 6 = 0 THEN NULL ELSE {'a': i, 'b': 'x' || i, 'c': [{'d': i::DOUBLE}]} END AS st,
  MAP {'k' || i: i, 'z': NULL} AS mp,
  CASE WHEN i % 2 = 0 THEN union_value(num := i::INTEGER)::UNION(num INTEGER, str VARCHAR)
    ELSE union_value(str := 'u' || i)::UNION(num INTEGER, str VARCHAR) END AS un,
  NULL AS nothing
FROM range(5000) t(i)`

// copyTypesRead is what DESCRIBE says of each column read back.
var copyTypesRead = map[string]string{
	"t8": "INTEGER", "s16": "INTEGER", "i32": "INTEGER", "i64": "BIGINT", "u8": "INTEGER", "u16": "INTEGER", "u32": "BIGINT",
	"u64": "BIGINT", "h": "DECIMAL(38,0)", "f": "FLOAT", "d": "DOUBLE", "s": "VARCHAR", "bl": "BLOB", "long text": "VARCHAR",
	"dt": "DATE", "tm": "TIME", "ts": "TIMESTAMP", "ts_s": "TIMESTAMP", "ts_ms": "TIMESTAMP", "ts_ns": "TIMESTAMP_NS",
	"tstz": "TIMESTAMP WITH TIME ZONE", "dec4": "DECIMAL(4,1)", "dec9": "DECIMAL(9,2)", "dec18": "DECIMAL(18,3)",
	"dec38": "DECIMAL(38,5)", "id": "UUID", "iv": "INTERVAL", "m": "VARCHAR", "li": "INTEGER[]", "arr": "INTEGER[]",
	"st": "STRUCT(a BIGINT, b VARCHAR, c STRUCT(d DOUBLE)[])", "mp": "MAP(VARCHAR, BIGINT)",
	"un": `UNION("int" INTEGER, string VARCHAR)`, "nothing": "INTEGER",
}

// TestCopyToWritesEveryType has DuckDB write a query of every type with
// COPY ... TO ... (FORMAT trevni), reads the file back with read_trevni
// and checks that the rows equal the query's (EXCEPT ALL, both ways), the
// columns have the types of the mapping, and that the Go reader reads the
// file: its fields named as the columns, its records as many.
func TestCopyToWritesEveryType(t *testing.T) {
	dir := t.TempDir()
	out := filepath.Join(dir, "types.trv")
	view := "CREATE OR REPLACE TEMP VIEW q AS " + copyTypesQuery
	rs := runDuckDB(t, step{SQLs: []string{
		load(t),
		"CREATE TYPE mood AS ENUM ('sad', 'ok', 'happy')",
		fmt.Sprintf("COPY (%s) TO %s (FORMAT trevni, CODEC 'zstd')", copyTypesQuery, quote(out)),
		fmt.Sprintf("SELECT column_name, column_type FROM (DESCRIBE SELECT * FROM read_trevni(%s))", quote(out)),
		// a temporary view lives in its connection: each statement below
		// makes it again
		view + "; SELECT count(*) FROM (SELECT * REPLACE (un::VARCHAR AS un) FROM q EXCEPT ALL SELECT * REPLACE (un::VARCHAR AS un) FROM read_trevni(" + quote(out) + "))",
		view + "; SELECT count(*) FROM (SELECT * REPLACE (un::VARCHAR AS un) FROM read_trevni(" + quote(out) + ") EXCEPT ALL SELECT * REPLACE (un::VARCHAR AS un) FROM q)",
		fmt.Sprintf("SELECT count(*), count(s), count(li), sum(len(li)), count(un) FROM read_trevni(%s)", quote(out)),
	}})
	for _, r := range rs[:3] {
		must(t, r)
	}
	got := map[string]string{}
	for _, row := range must(t, rs[3]).Rows {
		got[row[0].(string)] = row[1].(string)
	}
	for name, want := range copyTypesRead {
		if got[name] != want {
			t.Errorf("column %q read back as %q, want %q", name, got[name], want)
		}
	}
	if len(got) != len(copyTypesRead) {
		t.Errorf("read back %d columns: %v", len(got), got)
	}
	for _, r := range rs[4:6] {
		if fmt.Sprint(must(t, r).Rows) != "[[0]]" {
			t.Errorf("%s: %v rows differ", r.SQL, r.Rows)
		}
	}
	if s := fmt.Sprint(must(t, rs[6]).Rows); s != "[[5000 4000 3750 7500 5000]]" {
		t.Errorf("counts read back: %s", s)
	}

	ctx := context.Background()
	ds, err := trevni.Open(ctx, out, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer ds.Close()
	if n := ds.RowCount(); n != 5000 {
		t.Errorf("the Go reader counts %d records, want 5000", n)
	}
	var names []string
	for _, f := range frontdoor.Schema(ds).Fields {
		names = append(names, f.Name)
	}
	if s := strings.Join(names, ","); !strings.HasPrefix(s, "t8,s16,i32,i64,") || !strings.Contains(s, ",long_text,") {
		t.Errorf("the file's fields: %s", s)
	}
	f, err := ds.Parts()[0].Open(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if c := frontdoor.TrevniReader(f).Codec(); c != string(trevni.Zstd) {
		t.Errorf("codec %q, want zstd", c)
	}
	f.Close()
	i := int64(0)
	for rec, err := range ds.All(ctx, nil) {
		if err != nil {
			t.Fatal(err)
		}
		m := rec.(map[string]any)
		if v := unwrap(m["i64"]); v != i*1000003 {
			t.Fatalf("record %d: i64 %v (%T)", i, v, v)
		}
		want := any(fmt.Sprintf("v%d", i))
		if i%5 == 0 {
			want = nil
		}
		if v := unwrap(m["s"]); v != want {
			t.Fatalf("record %d: s %v, want %v", i, v, want)
		}
		i++
	}
	if i != 5000 {
		t.Errorf("the Go reader read %d records", i)
	}
}

// unwrap returns the value of a goavro union value ({"type": value}).
func unwrap(v any) any {
	if m, ok := v.(map[string]any); ok && len(m) == 1 {
		for _, x := range m {
			return x
		}
	}
	return v
}

// TestCopyToRoundTripsInterop writes every Java-written interop vector
// anew with COPY (FROM read_trevni(...)) TO ... (FORMAT trevni) and checks
// that read_trevni reads the copy as the original (EXCEPT ALL, both ways;
// the unions as text, which EXCEPT compares).
func TestCopyToRoundTripsInterop(t *testing.T) {
	dir := t.TempDir()
	sqls := []string{load(t)}
	var vectors []string
	for _, v := range []string{"primitives", "booleans", "email", "enum_fixed_bytes", "maps", "nested_records", "medium"} {
		matches, _ := filepath.Glob(interopFile(v, "*.null.none.trv"))
		if len(matches) == 0 {
			matches, _ = filepath.Glob(interopFile(v, "*.trv"))
		}
		if len(matches) == 0 {
			t.Fatalf("no interop file of %s", v)
		}
		in, out := abs(t, matches[0]), filepath.Join(dir, v+".trv")
		vectors = append(vectors, v)
		sqls = append(sqls,
			fmt.Sprintf("COPY (FROM read_trevni(%s)) TO %s (FORMAT trevni, CODEC 'deflate')", quote(in), quote(out)),
			fmt.Sprintf("SELECT count(*) FROM (FROM read_trevni(%s) EXCEPT ALL FROM read_trevni(%s))", quote(in), quote(out)),
			fmt.Sprintf("SELECT count(*) FROM (FROM read_trevni(%s) EXCEPT ALL FROM read_trevni(%s))", quote(out), quote(in)),
			fmt.Sprintf("SELECT count(*) FROM read_trevni(%s)", quote(out)),
		)
	}
	rs := runDuckDB(t, step{SQLs: sqls})
	must(t, rs[0])
	for k, v := range vectors {
		r := rs[1+4*k:]
		must(t, r[0])
		if fmt.Sprint(must(t, r[1]).Rows) != "[[0]]" || fmt.Sprint(must(t, r[2]).Rows) != "[[0]]" {
			t.Errorf("%s: the copy differs from the original: %v %v", v, r[1].Rows, r[2].Rows)
		}
		t.Logf("%s: %v records copied", v, must(t, r[3]).Rows)
	}
}

// TestCopyToFailureLeavesNoFile checks that a COPY that fails (a query
// error after the first chunks, a value Avro cannot hold, a bad option, a
// type with no Avro type) is DuckDB's error and leaves no file, and that
// one over an existing file leaves that file as it was.
func TestCopyToFailureLeavesNoFile(t *testing.T) {
	dir := t.TempDir()
	bad := filepath.Join(dir, "bad.trv")
	kept := filepath.Join(dir, "kept.trv")
	rs := runDuckDB(t, step{SQLs: []string{
		load(t),
		fmt.Sprintf("COPY (SELECT CASE WHEN i = 7000 THEN error('boom at 7000') ELSE i END AS x FROM range(10000) t(i)) TO %s (FORMAT trevni)", quote(bad)),
		fmt.Sprintf("COPY (SELECT i::UBIGINT * 100000000000000000 AS x FROM range(100) t(i)) TO %s (FORMAT trevni)", quote(bad)),
		fmt.Sprintf("COPY (SELECT 1 AS x) TO %s (FORMAT trevni, CODEC 'lzma')", quote(bad)),
		fmt.Sprintf("COPY (SELECT 1 AS x) TO %s (FORMAT trevni, COMPRESSION 'zstd')", quote(bad)),
		fmt.Sprintf("COPY (SELECT TIMETZ '01:02:03+04' AS x) TO %s (FORMAT trevni)", quote(bad)),
		fmt.Sprintf("COPY (SELECT INTERVAL 1 MICROSECOND AS x) TO %s (FORMAT trevni)", quote(bad)),
		fmt.Sprintf("COPY (SELECT i AS x FROM range(100) t(i)) TO %s (FORMAT trevni)", quote(kept)),
		fmt.Sprintf("COPY (SELECT CASE WHEN i = 5000 THEN error('boom') ELSE i END AS x FROM range(10000) t(i)) TO %s (FORMAT trevni)", quote(kept)),
		fmt.Sprintf("SELECT count(*), sum(x) FROM read_trevni(%s)", quote(kept)),
	}})
	must(t, rs[0])
	for _, c := range []struct {
		r    result
		want string
	}{
		{rs[1], "boom at 7000"},
		{rs[2], "over the largest Avro long"},
		{rs[3], "not a Trevni codec"},
		{rs[4], "unknown option COMPRESSION"},
		{rs[5], "TIME WITH TIME ZONE has no Avro type"},
		{rs[6], "whole non-negative milliseconds"},
		{rs[8], "boom"},
	} {
		if !strings.Contains(c.r.Error, c.want) {
			t.Errorf("%s: error %q, want one saying %q", c.r.SQL, c.r.Error, c.want)
		}
	}
	must(t, rs[7])
	if s := fmt.Sprint(must(t, rs[9]).Rows); s != "[[100 4950]]" {
		t.Errorf("the file a failed COPY was to replace: %s", s)
	}
	entries, err := os.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, e := range entries {
		names = append(names, e.Name())
	}
	if fmt.Sprint(names) != "[kept.trv]" {
		t.Errorf("after the failed COPYs the directory holds %v, want [kept.trv]", names)
	}
}
