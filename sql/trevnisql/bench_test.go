package trevnisql

import (
	"context"
	"os"
	"testing"
)

// BenchmarkGroupBy runs the GROUP BY of bench/groupby.sh over the Trevni
// file $TREVNI_SQL_BENCH (made by that script), on one thread.
func BenchmarkGroupBy(b *testing.B) {
	path := os.Getenv("TREVNI_SQL_BENCH")
	if path == "" {
		b.Skip("TREVNI_SQL_BENCH names no file (see bench/groupby.sh)")
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
		for rows.Next() {
		}
		if err := rows.Err(); err != nil {
			b.Fatal(err)
		}
		rows.Close()
	}
}
