package trevnisql

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/duckdb/duckdb-go/v2"
)

// TestInteropTables reads each Java-written file of testdata/interop as a
// table and checks its rows against Java's reading of it
// (expected.jsonl), value by value: records as STRUCTs, arrays as LISTs,
// maps as MAPs, ["null", T] as a nullable T, other unions as UNIONs,
// bytes and fixed as BLOBs, enums (in arrays too) as VARCHARs.
func TestInteropTables(t *testing.T) {
	ctx := context.Background()
	db, err := Open(ctx, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	for _, name := range []string{"booleans", "email", "empty", "enum_fixed_bytes", "maps", "nested_records", "primitives", "unions"} {
		dir := filepath.Join("..", "..", "testdata", "interop", name)
		want := readExpected(t, filepath.Join(dir, "expected.jsonl"))
		rows, err := db.QueryContext(ctx, "SELECT * FROM "+quoteString(filepath.Join(dir, name+".snappy.crc32.trv")))
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		cols, _ := rows.Columns()
		vals := make([]any, len(cols))
		ptrs := make([]any, len(cols))
		for i := range vals {
			ptrs[i] = &vals[i]
		}
		n := 0
		for rows.Next() {
			if err := rows.Scan(ptrs...); err != nil {
				t.Fatal(err)
			}
			if n >= len(want) {
				t.Fatalf("%s: more than the %d rows expected", name, len(want))
			}
			for i, c := range cols {
				if !sameValue(vals[i], want[n][c]) {
					t.Fatalf("%s: row %d, column %s: got %#v, want %#v", name, n, c, vals[i], want[n][c])
				}
			}
			n++
		}
		if err := rows.Err(); err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		rows.Close()
		if n != len(want) {
			t.Errorf("%s: %d rows, want %d", name, n, len(want))
		}
	}
}

// readExpected reads an expected.jsonl (Avro JSON, numbers kept as text).
func readExpected(t *testing.T, path string) []map[string]any {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	var out []map[string]any
	sc := bufio.NewScanner(bytes.NewReader(b))
	sc.Buffer(nil, 1<<24)
	for sc.Scan() {
		d := json.NewDecoder(strings.NewReader(sc.Text()))
		d.UseNumber()
		var m map[string]any
		if err := d.Decode(&m); err != nil {
			t.Fatal(err)
		}
		out = append(out, m)
	}
	return out
}

// sameValue reports whether got, a value DuckDB returned, is the Avro
// JSON value want.
func sameValue(got, want any) bool {
	switch w := want.(type) {
	case nil:
		return got == nil
	case map[string]any:
		if u, ok := got.(duckdb.Union); ok {
			// A union's branch {"type": value} as a DuckDB UNION,
			// tagged by the branch's name (named types by their
			// short name).
			if len(w) != 1 {
				return false
			}
			for k, v := range w {
				return u.Tag == k[strings.LastIndex(k, ".")+1:] && sameValue(u.Value, v)
			}
		}
		var keys func() []string
		var get func(string) (any, bool)
		switch g := got.(type) {
		case map[string]any:
			keys = func() []string {
				var ks []string
				for k := range g {
					ks = append(ks, k)
				}
				return ks
			}
			get = func(k string) (any, bool) { v, ok := g[k]; return v, ok }
		case duckdb.OrderedMap:
			keys = func() []string {
				var ks []string
				for _, k := range g.Keys() {
					ks = append(ks, fmt.Sprint(k))
				}
				return ks
			}
			get = func(k string) (any, bool) { return g.Get(k) }
		default:
			// A union's branch: {"type": value}.
			if len(w) != 1 {
				return false
			}
			for _, v := range w {
				return sameValue(got, v)
			}
		}
		if len(w) == 1 {
			// A union's branch, read as the branch's field of a
			// struct of branches (named types by their short name),
			// or as a nullable value.
			for k, v := range w {
				if _, ok := get(k); ok {
					break
				}
				short := k[strings.LastIndex(k, ".")+1:]
				if _, ok := get(short); ok {
					w = map[string]any{short: v}
					break
				}
				return sameValue(got, v)
			}
		}
		for k, v := range w {
			g, ok := get(k)
			if !ok || !sameValue(g, v) {
				return false
			}
		}
		for _, k := range keys() {
			if _, ok := w[k]; !ok {
				if g, _ := get(k); g != nil {
					return false
				}
			}
		}
		return true
	case []any:
		g, ok := got.([]any)
		if !ok || len(g) != len(w) {
			return false
		}
		for i := range w {
			if !sameValue(g[i], w[i]) {
				return false
			}
		}
		return true
	case string:
		switch g := got.(type) {
		case string:
			return g == w
		case []byte:
			// Avro JSON bytes: code points 0-255 are the bytes.
			rs := []rune(w)
			if len(rs) != len(g) {
				return false
			}
			for i, r := range rs {
				if r != rune(g[i]) {
					return false
				}
			}
			return true
		}
		return false
	case bool:
		return got == w
	case json.Number:
		wf, err := w.Float64()
		if err != nil {
			return false
		}
		var gf float64
		switch g := got.(type) {
		case int32:
			return w.String() == fmt.Sprint(g)
		case int64:
			return w.String() == fmt.Sprint(g)
		case float32:
			// Java printed the float's shortest text.
			return g == float32(wf) || (math.IsNaN(float64(g)) && math.IsNaN(wf))
		case float64:
			gf = g
		default:
			return false
		}
		return gf == wf || (math.IsNaN(gf) && math.IsNaN(wf)) || math.Abs(gf-wf) <= 1e-6*math.Max(math.Abs(gf), math.Abs(wf))
	}
	return false
}
