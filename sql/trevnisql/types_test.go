package trevnisql

import (
	"context"
	"math/big"
	"path/filepath"
	"testing"
	"time"

	"github.com/trevni-go/trevni"
)

// TestTypes writes a record of every kind of field, reads it as a table,
// and checks the DuckDB type of each column and its value as DuckDB sees
// it (by SQL literals of the expected values).
func TestTypes(t *testing.T) {
	const schemaText = `{"type":"record","name":"T","fields":[
		{"name":"d","type":{"type":"int","logicalType":"date"}},
		{"name":"ts","type":{"type":"long","logicalType":"timestamp-micros"}},
		{"name":"tsm","type":{"type":"long","logicalType":"timestamp-millis"}},
		{"name":"lts","type":{"type":"long","logicalType":"local-timestamp-micros"}},
		{"name":"dec","type":{"type":"bytes","logicalType":"decimal","precision":10,"scale":2}},
		{"name":"rec","type":{"type":"record","name":"R","fields":[{"name":"x","type":"int"},{"name":"y","type":"string"}]}},
		{"name":"arr","type":{"type":"array","items":"long"}},
		{"name":"map","type":{"type":"map","values":"double"}},
		{"name":"opt","type":["null","string"]},
		{"name":"un","type":["int","string"]},
		{"name":"e","type":{"type":"enum","name":"E","symbols":["A","B"]}},
		{"name":"b","type":"bytes"},
		{"name":"f","type":"float"}
	]}`
	path := filepath.Join(t.TempDir(), "types.trv")
	w, err := trevni.Create(context.Background(), path, schemaText, nil)
	if err != nil {
		t.Fatal(err)
	}
	ts := time.Date(2021, 3, 4, 5, 6, 7, 123456000, time.UTC)
	rec := map[string]any{
		"d": time.Date(2020, 1, 2, 0, 0, 0, 0, time.UTC), "ts": ts, "tsm": ts.Truncate(time.Millisecond), "lts": ts,
		"dec": big.NewRat(-12345, 100), "rec": map[string]any{"x": int32(7), "y": "why"},
		"arr": []any{int64(1), int64(2), int64(3)}, "map": map[string]any{"k": 1.5},
		"opt": nil, "un": map[string]any{"string": "s"}, "e": "B", "b": []byte{0, 255}, "f": float32(0.5),
	}
	if err := w.Write(rec); err != nil {
		t.Fatal(err)
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	db, err := Open(context.Background(), &Options{Tables: []Table{{"t", path}}})
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	for _, c := range []struct{ col, typ, eq string }{
		{"d", "DATE", "DATE '2020-01-02'"},
		{"ts", "TIMESTAMP WITH TIME ZONE", "TIMESTAMPTZ '2021-03-04 05:06:07.123456+00'"},
		{"tsm", "TIMESTAMP WITH TIME ZONE", "TIMESTAMPTZ '2021-03-04 05:06:07.123+00'"},
		{"lts", "TIMESTAMP", "TIMESTAMP '2021-03-04 05:06:07.123456'"},
		{"dec", "DECIMAL(10,2)", "-123.45"},
		{"rec", "STRUCT(x INTEGER, y VARCHAR)", "{'x': 7, 'y': 'why'}"},
		{"arr", "BIGINT[]", "[1, 2, 3]"},
		{"map", "MAP(VARCHAR, DOUBLE)", "MAP {'k': 1.5}"},
		{"un", `UNION("int" INTEGER, string VARCHAR)`, "union_value(string := 's')"},
		{"e", "VARCHAR", "'B'"},
		{"b", "BLOB", `'\x00\xFF'::BLOB`},
		{"f", "FLOAT", "0.5"},
	} {
		var typ string
		var same bool
		if err := db.QueryRow("SELECT typeof("+quoteIdent(c.col)+"), "+quoteIdent(c.col)+" = "+c.eq+" FROM t").Scan(&typ, &same); err != nil {
			t.Errorf("%s: %v", c.col, err)
			continue
		}
		if typ != c.typ || !same {
			t.Errorf("%s: type %s (want %s), equal to %s: %v", c.col, typ, c.typ, c.eq, same)
		}
	}
	var optNull bool
	if err := db.QueryRow("SELECT opt IS NULL FROM t").Scan(&optNull); err != nil || !optNull {
		t.Errorf(`["null","string"] null: %v, %v`, optNull, err)
	}
}
