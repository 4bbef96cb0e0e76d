package trevnisql

import (
	"context"
	"math/rand/v2"
	"path/filepath"
	"testing"

	"github.com/trevni-go/trevni"
)

// BenchmarkGroupBy runs the GROUP BY of bench/groupby.sh, on one thread,
// over 200,000 records of the columns it reads (bench/groupby.sh runs it
// over 1M vec.Large records beside DuckDB's Parquet reader).
func BenchmarkGroupBy(b *testing.B) {
	path := filepath.Join(b.TempDir(), "large.trv")
	w, err := trevni.Create(context.Background(), path, `{"type":"record","name":"Large","fields":[{"name":"id","type":"long"},{"name":"score","type":"double"},{"name":"small","type":"int"}]}`, nil)
	if err != nil {
		b.Fatal(err)
	}
	r := rand.New(rand.NewPCG(1, 2))
	for range 200_000 {
		if err := w.Write(map[string]any{"id": r.Int64(), "score": r.NormFloat64(), "small": int32(r.IntN(20000) - 10000)}); err != nil {
			b.Fatal(err)
		}
	}
	if err := w.Close(); err != nil {
		b.Fatal(err)
	}
	db, err := Open(context.Background(), nil)
	if err != nil {
		b.Fatal(err)
	}
	defer db.Close()
	if _, err := db.Exec("SET threads=1"); err != nil {
		b.Fatal(err)
	}
	for b.Loop() {
		rows, err := db.Query("SELECT small % 100 AS k, count(*) AS n, sum(score) AS s, max(id) AS m FROM trevni_scan(" + quoteString(path) + ") GROUP BY k")
		if err != nil {
			b.Fatal(err)
		}
		n := 0
		for rows.Next() {
			n++
		}
		if err := rows.Err(); err != nil {
			b.Fatal(err)
		}
		rows.Close()
		if n != 199 {
			b.Fatalf("%d groups, want 199", n)
		}
	}
}
