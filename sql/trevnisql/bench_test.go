package trevnisql

import (
	"context"
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strconv"
	"syscall"
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

// cpuTime returns the CPU time, user and system, the process has taken
// (its every thread's), in nanoseconds.
func cpuTime() int64 {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		return 0
	}
	return ru.Utime.Nano() + ru.Stime.Nano()
}

// BenchmarkFlatScan runs, on one thread, the GROUP BY of bench/groupby.sh
// and a filtered aggregate over the flat columns of vec.Large (id,
// score, small; 200,000 records, or TREVNI_BENCH_ROWS) through
// read_trevni from a Trevni file (snappy) and through DuckDB's own
// read_parquet from a Parquet file of the same records that DuckDB wrote
// (snappy, its default): the two scans side by side. Run under
// cachegrind with -test.benchtime=1x and 11x, the difference over 10 is
// the instructions of one query; cpu-ns/op is the CPU time of the whole
// process a query (DuckDB's threads and the scan's), which a loaded
// machine inflates less than the wall time.
func BenchmarkFlatScan(b *testing.B) {
	rows := 200_000
	if n, err := strconv.Atoi(os.Getenv("TREVNI_BENCH_ROWS")); err == nil && n > 0 {
		rows = n
	}
	dir := b.TempDir()
	trv := filepath.Join(dir, "large.trv")
	w, err := trevni.Create(context.Background(), trv, `{"type":"record","name":"Large","fields":[{"name":"id","type":"long"},{"name":"score","type":"double"},{"name":"small","type":"int"}]}`, &trevni.WriteOptions{Codec: trevni.Snappy})
	if err != nil {
		b.Fatal(err)
	}
	r := rand.New(rand.NewPCG(1, 2))
	for i := range rows {
		if err := w.Write(map[string]any{"id": int64(i), "score": r.NormFloat64(), "small": int32(r.IntN(20000) - 10000)}); err != nil {
			b.Fatal(err)
		}
	}
	if err := w.Close(); err != nil {
		b.Fatal(err)
	}
	db, err := Open(context.Background(), &Options{Threads: 1})
	if err != nil {
		b.Fatal(err)
	}
	defer db.Close()
	pq := filepath.Join(dir, "large.parquet")
	if _, err := db.Exec("COPY (FROM read_trevni(" + quoteString(trv) + ")) TO " + quoteString(pq) + " (FORMAT parquet, COMPRESSION snappy)"); err != nil {
		b.Fatal(err)
	}
	if _, err := db.Exec("SET threads=1"); err != nil {
		b.Fatal(err)
	}
	for _, q := range []struct{ name, sql string }{
		{"groupby", "SELECT small %% 100 AS k, count(*) AS n, sum(score) AS s, max(id) AS m FROM %s GROUP BY k"},
		{"filtered", "SELECT count(*), sum(score), max(id) FROM %s WHERE small < 1000"},
	} {
		for _, src := range []struct{ name, from string }{
			{"trevni", "read_trevni(" + quoteString(trv) + ")"},
			{"parquet", "read_parquet(" + quoteString(pq) + ")"},
		} {
			b.Run(q.name+"/"+src.name, func(b *testing.B) {
				query := fmt.Sprintf(q.sql, src.from)
				cpu0 := cpuTime()
				for b.Loop() {
					rs, err := db.Query(query)
					if err != nil {
						b.Fatal(err)
					}
					n := 0
					for rs.Next() {
						n++
					}
					if err := rs.Err(); err != nil {
						b.Fatal(err)
					}
					rs.Close()
					if n == 0 {
						b.Fatal("no rows")
					}
				}
				b.ReportMetric(float64(cpuTime()-cpu0)/float64(b.N), "cpu-ns/op")
			})
		}
	}
}
