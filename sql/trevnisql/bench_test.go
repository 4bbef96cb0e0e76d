package trevnisql

import (
	"context"
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"runtime"
	"strconv"
	"syscall"
	"testing"

	"github.com/trevni-go/trevni"
	"github.com/trevni-go/trevni/internal/frontdoor"
	"github.com/trevni-go/trevni/trevniparquet"
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

// BenchmarkCopyTo runs COPY (FROM 'large.parquet') TO 'copy.trv' (FORMAT
// trevni, CODEC 'snappy') over 200,000 records (or TREVNI_BENCH_ROWS) of
// the shape of vec.Large (numbers, a string, a nullable int, a list of
// strings, a list of structs) that DuckDB wrote as Parquet, with 1 and 2
// DuckDB threads, a copy of as many records of maps of VARCHAR keys
// (copymap, one thread), and beside it the path of trevni fromparquet over the
// same file in the same process (trevniparquet's reader into a Trevni
// writer of fromparquet's options: snappy, a compressing goroutine a
// core, map entries in their order): the copy function's path (its
// encoders and column writers, the writer's blocks), to profile
// with -test.cpuprofile and to set against fromparquet's with -count and
// benchstat (the sub-benchmarks alternate within each count).
// bench/duckext.sh sets the copy beside the trevni command itself.
func BenchmarkCopyTo(b *testing.B) {
	rows := 200_000
	if n, err := strconv.Atoi(os.Getenv("TREVNI_BENCH_ROWS")); err == nil && n > 0 {
		rows = n
	}
	dir := b.TempDir()
	db, err := Open(context.Background(), &Options{Threads: 1})
	if err != nil {
		b.Fatal(err)
	}
	defer db.Close()
	pq := filepath.Join(dir, "large.parquet")
	if _, err := db.Exec(fmt.Sprintf(`COPY (SELECT i AS id, i %% 2 = 0 AS flag, hash(i) %% 100000 / 7.0 AS score, (i %% 20000 - 10000)::INTEGER AS small,
		'name-' || (i * 7919 %% 100003)::VARCHAR AS name, CASE WHEN i %% 3 = 0 THEN NULL ELSE (i %% 1000)::INTEGER END AS opt,
		['t' || (i %% 7)::VARCHAR, 'u' || (i %% 11)::VARCHAR][1:(i %% 3)] AS tags,
		[{'x': (i %% 5)::DOUBLE, 'y': (i %% 9)::DOUBLE}, {'x': 1.5, 'y': 2.5}][1:(i %% 3)] AS pts
		FROM range(%d) t(i)) TO %s (FORMAT parquet, COMPRESSION snappy)`, rows, quoteString(pq))); err != nil {
		b.Fatal(err)
	}
	out := filepath.Join(dir, "copy.trv")
	query := "COPY (FROM " + quoteString(pq) + ") TO " + quoteString(out) + " (FORMAT trevni, CODEC 'snappy')"
	for _, threads := range []int{1, 2} {
		b.Run(fmt.Sprintf("copy/threads=%d", threads), func(b *testing.B) {
			if _, err := db.Exec(fmt.Sprintf("SET threads=%d", threads)); err != nil {
				b.Fatal(err)
			}
			cpu0 := cpuTime()
			for b.Loop() {
				if _, err := db.Exec(query); err != nil {
					b.Fatal(err)
				}
			}
			b.ReportMetric(float64(cpuTime()-cpu0)/float64(b.N), "cpu-ns/op")
		})
	}
	// Maps of VARCHAR keys (out of their order), at the top and in a
	// STRUCT, whose entries the copy sorts as the shredder does.
	var mq string
	b.Run("copymap/threads=1", func(b *testing.B) {
		if mq == "" {
			mq = filepath.Join(dir, "maps.parquet")
			if _, err := db.Exec(fmt.Sprintf(`COPY (SELECT i AS id,
				MAP(['k' || (i %% 7)::VARCHAR, 'a' || (i %% 5)::VARCHAR, 'z'][1:(i %% 4)], [i, i * 2, NULL][1:(i %% 4)]) AS m,
				{'n': (i %% 3)::INTEGER, 'tags': MAP(['y', 'b'][1:(i %% 3)], ['v' || i::VARCHAR, 'w'][1:(i %% 3)])} AS s
				FROM range(%d) t(i)) TO %s (FORMAT parquet, COMPRESSION snappy)`, rows, quoteString(mq))); err != nil {
				b.Fatal(err)
			}
		}
		if _, err := db.Exec("SET threads=1"); err != nil {
			b.Fatal(err)
		}
		q := "COPY (FROM " + quoteString(mq) + ") TO " + quoteString(filepath.Join(dir, "maps.trv")) + " (FORMAT trevni, CODEC 'snappy')"
		cpu0 := cpuTime()
		for b.Loop() {
			if _, err := db.Exec(q); err != nil {
				b.Fatal(err)
			}
		}
		b.ReportMetric(float64(cpuTime()-cpu0)/float64(b.N), "cpu-ns/op")
	})
	b.Run("fromparquet", func(b *testing.B) {
		cpu0 := cpuTime()
		for b.Loop() {
			if n := fromParquet(b, pq, filepath.Join(dir, "fromparquet.trv")); n != int64(rows) {
				b.Fatalf("%d records, want %d", n, rows)
			}
		}
		b.ReportMetric(float64(cpuTime()-cpu0)/float64(b.N), "cpu-ns/op")
	})
}

// fromParquet writes the Parquet file in as the Trevni file out as trevni
// fromparquet --codec snappy does, and returns the records written.
func fromParquet(tb testing.TB, in, out string) int64 {
	f, err := os.Open(in)
	if err != nil {
		tb.Fatal(err)
	}
	defer f.Close()
	pf, err := trevniparquet.Open(f, &trevniparquet.ReadOptions{BatchRows: 8192}) // fromparquet's --batch-rows
	if err != nil {
		tb.Fatal(err)
	}
	defer pf.Close()
	wo := &trevni.WriteOptions{Codec: trevni.Snappy, Workers: runtime.GOMAXPROCS(0), Replace: true}
	frontdoor.KeepMapOrder(wo) // as fromparquet writes maps
	w, err := trevni.Create(context.Background(), out, pf.AvroSchema(), wo)
	if err != nil {
		tb.Fatal(err)
	}
	defer w.Abort()
	n, err := pf.WriteTo(context.Background(), w)
	if err != nil {
		tb.Fatal(err)
	}
	if err := w.Close(); err != nil {
		tb.Fatal(err)
	}
	return n
}
