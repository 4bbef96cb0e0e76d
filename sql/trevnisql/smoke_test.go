package trevnisql

import (
	"context"
	"testing"
)

func TestSmoke(t *testing.T) {
	ctx := context.Background()
	db, err := Open(ctx, &Options{Tables: []Table{{"p", "../../testdata/interop/primitives/primitives.snappy.crc32.trv"}}})
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	for _, q := range []string{
		"SELECT count(*) FROM p",
		"SELECT count(*), sum(length(s)) FROM (SELECT * FROM p) t(a,b,c,d,e,s)",
		"DESCRIBE p",
		"SELECT count(*) FROM '../../testdata/interop/*/*.snappy.crc32.trv'",
		"DESCRIBE SELECT * FROM '../../testdata/interop/unions/unions.snappy.crc32.trv'",
		"DESCRIBE SELECT * FROM '../../testdata/interop/maps/maps.snappy.crc32.trv'",
		"SELECT * FROM '../../testdata/interop/unions/unions.snappy.crc32.trv' LIMIT 2",
		"SELECT * FROM '../../testdata/interop/maps/maps.snappy.crc32.trv' LIMIT 1",
		"SELECT * FROM 'nope.trv'",
		"SELECT nope FROM p",
	} {
		rows, err := db.QueryContext(ctx, q)
		if err != nil {
			t.Logf("%s: error %v", q, err)
			continue
		}
		cols, _ := rows.Columns()
		for rows.Next() {
			vals := make([]any, len(cols))
			ptrs := make([]any, len(cols))
			for i := range vals {
				ptrs[i] = &vals[i]
			}
			rows.Scan(ptrs...)
			t.Logf("%s: %v", q, vals)
		}
		if err := rows.Err(); err != nil {
			t.Logf("%s: rows error %v", q, err)
		}
		rows.Close()
	}
	t.Log(db.Reports())
}
