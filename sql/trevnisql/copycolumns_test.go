package trevnisql

import (
	"bytes"
	"context"
	"database/sql"
	"errors"
	"fmt"
	"io"
	"math/rand/v2"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"testing"

	"github.com/trevni-go/trevni"
)

// randomDuckExpr returns a DuckDB expression over the row number i of a
// value of a random type, NULL now and then, nested up to depth more
// levels (LIST, ARRAY, STRUCT, UNION, MAP), its random parts drawn from
// hash(i, salt), salts counted by *salt. It sets *other when the value
// reads back as another type (a MAP of other keys than VARCHAR, a list of
// key-value STRUCTs). A MAP of VARCHAR keys is made by the macro qmap,
// its keys out of their byte order in most rows and 0 to 4 entries of
// them; the file has them sorted, as the macro smap, which sorts them,
// makes them (copyMacros).
func randomDuckExpr(r *rand.Rand, depth int, salt *int, other *bool) string {
	*salt++
	h := fmt.Sprintf("hash(i, %d)", *salt)
	var e string
	kinds := 28
	if depth > 0 {
		kinds += 8
	}
	switch k := r.IntN(kinds); k {
	case 0:
		e = h + " % 2 = 0"
	case 1:
		e = fmt.Sprintf("((%s %% 256)::INTEGER - 128)::TINYINT", h)
	case 2:
		e = fmt.Sprintf("((%s %% 65536)::INTEGER - 32768)::SMALLINT", h)
	case 3:
		e = fmt.Sprintf("((%s %% 4294967296)::BIGINT - 2147483648)::INTEGER", h)
	case 4:
		e = fmt.Sprintf("(%s %% 9223372036854775807)::BIGINT * (CASE WHEN i %% 2 = 0 THEN -1 ELSE 1 END)", h)
	case 5:
		e = fmt.Sprintf("(%s %% 256)::UTINYINT", h)
	case 6:
		e = fmt.Sprintf("(%s %% 65536)::USMALLINT", h)
	case 7:
		e = fmt.Sprintf("(%s %% 4294967296)::UINTEGER", h)
	case 8:
		e = fmt.Sprintf("(%s %% 9223372036854775807)::UBIGINT", h)
	case 9:
		e = fmt.Sprintf("((%s %% 2000000)::DOUBLE / 16 - 60000)::FLOAT", h)
	case 10:
		e = fmt.Sprintf("(%s %% 2000000000)::DOUBLE / 1024 - 900000", h)
	case 11:
		e = fmt.Sprintf("DATE '2000-01-01' + (%s %% 20000)::INTEGER", h)
	case 12:
		e = fmt.Sprintf("TIME '00:00:00' + INTERVAL ((%s %% 86400000000)::BIGINT) MICROSECOND", h)
	case 13:
		e = fmt.Sprintf("TIMESTAMP '1990-01-01' + INTERVAL ((%s %% 1000000000000000)::BIGINT) MICROSECOND", h)
	case 14:
		e = fmt.Sprintf("(TIMESTAMP '1990-01-01' + INTERVAL ((%s %% 1000000000)::BIGINT) SECOND)::TIMESTAMP_S", h)
	case 15:
		e = fmt.Sprintf("(TIMESTAMP '1990-01-01' + INTERVAL ((%s %% 1000000000000)::BIGINT) MILLISECOND)::TIMESTAMP_MS", h)
	case 16:
		e = fmt.Sprintf("(TIMESTAMP '1990-01-01' + INTERVAL ((%s %% 1000000000000)::BIGINT) MICROSECOND)::TIMESTAMP_NS", h)
	case 17:
		e = fmt.Sprintf("TIMESTAMPTZ '1990-01-01 00:00:00+00' + INTERVAL ((%s %% 1000000000000)::BIGINT) MICROSECOND", h)
	case 18: // short, long (past DuckDB's 12 inlined bytes) and non-ASCII
		e = fmt.Sprintf("repeat(chr((%s %% 3000)::INTEGER + 48), (%s %% 40)::INTEGER)", h, h)
	case 19:
		e = fmt.Sprintf("('b' || repeat('x', (%s %% 30)::INTEGER))::BLOB", h)
	case 20:
		e = fmt.Sprintf("md5(%s::VARCHAR)::UUID", h)
	case 21:
		e = fmt.Sprintf("(((%s %% 20000)::INTEGER - 10000) / 10)::DECIMAL(4,1)", h)
	case 22:
		e = fmt.Sprintf("(((%s %% 1000000000000)::BIGINT - 500000000000) / 1000)::DECIMAL(18,3)", h)
	case 23:
		e = fmt.Sprintf("(%s::HUGEINT * 100000000 - 900000000000000000000000000)::DECIMAL(30,2)", h)
	case 24:
		e = fmt.Sprintf("%s::HUGEINT * 12345678901 - 99999999999999999999999999", h)
	case 25:
		e = fmt.Sprintf("INTERVAL ((%s %% 1000)::INTEGER) DAY + INTERVAL ((%s %% 30)::INTEGER) MONTH + INTERVAL ((%s %% 100000)::INTEGER) MILLISECOND", h, h, h)
	case 26:
		e = fmt.Sprintf("(['sad', 'ok', 'happy'])[(%s %% 3)::INTEGER + 1]::mood", h)
	case 27:
		e = fmt.Sprintf("(['a b', 'ok', ''])[(%s %% 3)::INTEGER + 1]::freeform", h)
	case 28, 29: // LIST of 0 to 3 items
		a := randomDuckExpr(r, depth-1, salt, other)
		e = fmt.Sprintf("[%s, %s, %s][1:(%s %% 4)::INTEGER]", a, sameType(a, salt), sameType(a, salt), h)
	case 30: // ARRAY of 2 items
		a := randomDuckExpr(r, depth-1, salt, other)
		// (not in a CASE, which DuckDB 1.5 does not implement for ARRAYs)
		return fmt.Sprintf("array_value(%s, %s)", a, sameType(a, salt))
	case 31, 32:
		e = fmt.Sprintf("{'a': %s, 'b b': %s}", randomDuckExpr(r, depth-1, salt, other), randomDuckExpr(r, depth-1, salt, other))
	case 33:
		switch r.IntN(3) {
		case 0: // a MAP of INTEGER keys: a list of key-value STRUCTs
			e = fmt.Sprintf("MAP([(%s %% 5)::INTEGER, 7], [%s, NULL])", h, randomDuckExpr(r, depth-1, salt, other))
			*other = true
		case 1:
			e = varcharMap(h, randomDuckExpr(r, depth-1, salt, other), salt)
		default:
			e = fmt.Sprintf("CASE WHEN %s %% 2 = 0 THEN union_value(n := (%s %% 100)::INTEGER)::UNION(n INTEGER, s VARCHAR) ELSE union_value(s := 'u' || %s::VARCHAR)::UNION(n INTEGER, s VARCHAR) END", h, h, h)
		}
	case 34, 35:
		e = varcharMap(h, randomDuckExpr(r, depth-1, salt, other), salt)
	}
	if m := r.IntN(5); m > 0 {
		*salt++
		e = fmt.Sprintf("CASE WHEN hash(i, %d) %% %d = 0 THEN NULL ELSE %s END", *salt, m+1, e)
	}
	return e
}

// varcharMap returns a MAP of VARCHAR keys whose values are values of
// the expression v, NULL among them: the first 0 to 4 of the keys 'k2x',
// 'k0' to 'k4' (before or after 'k2x'), 'é' (after every ASCII key in
// byte order) and 'a' (before), distinct in every row, their order not
// the bytes' order in most. h is the hash of the map's salt.
func varcharMap(h, v string, salt *int) string {
	return fmt.Sprintf("qmap(['k2x', 'k' || (%s %% 5)::VARCHAR, 'é', 'a'], [%s, NULL, %s, %s], (%s %% 5)::INTEGER)",
		h, v, sameType(v, salt), sameType(v, salt), h)
}

// nestedMap returns an expression of the kind'th of four shapes with a
// MAP of VARCHAR keys within, NULL now and then: a MAP whose values
// nest further, a STRUCT holding a MAP, a LIST of MAPs, a MAP of MAPs.
func nestedMap(r *rand.Rand, kind int, salt *int, other *bool) string {
	hash := func() string {
		*salt++
		return fmt.Sprintf("hash(i, %d)", *salt)
	}
	var e string
	switch kind % 4 {
	case 0:
		e = varcharMap(hash(), randomDuckExpr(r, 1, salt, other), salt)
	case 1:
		e = fmt.Sprintf("{'a': %s, 'm': %s}", randomDuckExpr(r, 0, salt, other), varcharMap(hash(), randomDuckExpr(r, 1, salt, other), salt))
	case 2:
		m := varcharMap(hash(), randomDuckExpr(r, 0, salt, other), salt)
		e = fmt.Sprintf("[%s, %s, %s][1:(%s %% 4)::INTEGER]", m, sameType(m, salt), sameType(m, salt), hash())
	default:
		e = varcharMap(hash(), varcharMap(hash(), randomDuckExpr(r, 1, salt, other), salt), salt)
	}
	return fmt.Sprintf("CASE WHEN %s %% 5 = 0 THEN NULL ELSE %s END", hash(), e)
}

// copyMacros are the macros of randomDuckExpr's queries: qmap(k, v, n)
// makes a MAP of the first n keys k and values v in their order, smap
// the same MAP with its entries sorted by key, the order the Trevni file
// holds them in.
var copyMacros = []string{
	"CREATE MACRO qmap(k, v, n) AS MAP(k[1:n], v[1:n])",
	"CREATE MACRO smap(k, v, n) AS map_from_entries(list_sort(map_entries(MAP(k[1:n], v[1:n]))))",
}

// sameType returns e with its salts moved on: another value of its type.
func sameType(e string, salt *int) string {
	var b strings.Builder
	for {
		i := strings.Index(e, "hash(i, ")
		if i < 0 {
			b.WriteString(e)
			return b.String()
		}
		j := i + strings.IndexByte(e[i:], ')')
		*salt++
		fmt.Fprintf(&b, "%shash(i, %d)", e[:i], *salt+1000)
		e = e[j+1:]
	}
}

// TestCopyToColumnsAsRecords checks the copy function's columnar path
// over random queries (columns of every type COPY TO maps, nested LISTs,
// ARRAYs, STRUCTs, MAPs and UNIONs, NULLs at every level) and random
// options (codecs, block sizes down to 64 bytes, statistics on and off):
// the file COPY writes is byte for byte the one the Trevni writer makes
// when given its records one by one (the shredder), and DuckDB reads back
// the rows of the query (as text, EXCEPT ALL both ways, of the columns
// that read back as their type). Every query has a MAP of VARCHAR keys
// in one of four shapes, whose entries the file holds in the shredder's
// order.
func TestCopyToColumnsAsRecords(t *testing.T) {
	ctx := context.Background()
	db, err := Open(ctx, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	for _, q := range append([]string{"CREATE TYPE mood AS ENUM ('sad', 'ok', 'happy')", "CREATE TYPE freeform AS ENUM ('a b', 'ok', '')"}, copyMacros...) {
		if _, err := db.Exec(q); err != nil {
			t.Fatal(err)
		}
	}
	seeds := 12
	if os.Getenv("TREVNI_LONG_TESTS") != "" {
		seeds = 60
	}
	for seed := range uint64(seeds) {
		r := rand.New(rand.NewPCG(seed, 3535))
		salt := 0
		ncols := 1 + r.IntN(6)
		var exprs, texts []string
		for c := range ncols {
			other := false
			exprs = append(exprs, fmt.Sprintf("%s AS c%d", randomDuckExpr(r, r.IntN(3), &salt, &other), c))
			if other {
				continue
			}
			// (quotes dropped: DuckDB quotes some values in a LIST,
			// which an ARRAY is read back as, and not in an ARRAY; no
			// value drawn holds one)
			texts = append(texts, fmt.Sprintf("replace(c%d::VARCHAR, '''', '') AS c%d", c, c))
		}
		// and a MAP of VARCHAR keys in a shape of the seed's
		other := false
		exprs = append(exprs, fmt.Sprintf("%s AS c%d", nestedMap(r, int(seed), &salt, &other), ncols))
		if !other {
			texts = append(texts, fmt.Sprintf("replace(c%d::VARCHAR, '''', '') AS c%d", ncols, ncols))
		}
		ncols++
		rows := 1 + r.IntN(7000)
		query := fmt.Sprintf("SELECT %s FROM range(%d) t(i) ORDER BY i", strings.Join(exprs, ", "), rows)
		sorted := strings.ReplaceAll(query, "qmap(", "smap(") // the rows as the file holds them
		codec := []trevni.Codec{trevni.NoCodec, trevni.Deflate, trevni.Snappy, trevni.Zstd}[r.IntN(4)]
		block := 64 << r.IntN(10)
		stats := r.IntN(3) != 0
		out := filepath.Join(t.TempDir(), "copy.trv")
		if _, err := db.Exec(fmt.Sprintf("SET threads=%d", 1+r.IntN(2))); err != nil {
			t.Fatal(err)
		}
		copySQL := fmt.Sprintf("COPY (%s) TO %s (FORMAT trevni, CODEC '%s', BLOCK_SIZE %d, STATS %t)", query, quoteString(out), codec, block, stats)
		if _, err := db.Exec(copySQL); err != nil {
			t.Fatalf("seed %d: %s: %v", seed, copySQL, err)
		}
		again := filepath.Join(t.TempDir(), "again.trv")
		n := rewriteRecords(t, out, again, &trevni.WriteOptions{Codec: codec, BlockSize: block, NoStats: !stats, Workers: runtime.GOMAXPROCS(0)})
		if n != rows {
			t.Fatalf("seed %d: %d records read back, want %d", seed, n, rows)
		}
		if !sameFiles(t, out, again) {
			t.Fatalf("seed %d: %s: COPY's file (%d bytes) is not the one its records written one by one make (%d bytes)", seed, copySQL, fileSize(t, out), fileSize(t, again))
		}
		text := strings.Join(texts, ", ")
		if text == "" {
			continue
		}
		for _, diff := range []string{
			fmt.Sprintf("SELECT count(*) FROM (SELECT %s FROM (%s) EXCEPT ALL SELECT %s FROM read_trevni(%s))", text, sorted, text, quoteString(out)),
			fmt.Sprintf("SELECT count(*) FROM (SELECT %s FROM read_trevni(%s) EXCEPT ALL SELECT %s FROM (%s))", text, quoteString(out), text, sorted),
		} {
			var k int
			if err := db.QueryRow(diff).Scan(&k); err != nil {
				t.Fatalf("seed %d: %s: %v", seed, diff, err)
			}
			if k != 0 {
				t.Fatalf("seed %d: %s: %d rows differ from the query's%s", seed, copySQL, k, firstDifference(db, sorted, out, ncols))
			}
		}
	}
}

// firstDifference names the first column whose text differs between the
// rows of query and those of the Trevni file out, and the two texts.
func firstDifference(db *DB, query, out string, ncols int) string {
	for c := range ncols {
		// (a column that reads back as another type differs)
		var a, b sql.NullString
		err := db.QueryRow(fmt.Sprintf(`SELECT a.t, b.t FROM (SELECT row_number() OVER () AS n, c%d::VARCHAR AS t FROM (%s)) a
			JOIN (SELECT row_number() OVER () AS n, c%d::VARCHAR AS t FROM read_trevni(%s)) b USING (n) WHERE a.t IS DISTINCT FROM b.t LIMIT 1`, c, query, c, quoteString(out))).Scan(&a, &b)
		if err == nil {
			return fmt.Sprintf(" (column c%d: %v read back as %v)", c, a, b)
		}
	}
	return ""
}

// sameFiles reports whether the files a and b hold the same bytes.
func sameFiles(t *testing.T, a, b string) bool {
	t.Helper()
	x, err := os.ReadFile(a)
	if err != nil {
		t.Fatal(err)
	}
	y, err := os.ReadFile(b)
	if err != nil {
		t.Fatal(err)
	}
	return bytes.Equal(x, y)
}

// fileSize returns the size of the file name.
func fileSize(t *testing.T, name string) int64 {
	t.Helper()
	fi, err := os.Stat(name)
	if err != nil {
		t.Fatal(err)
	}
	return fi.Size()
}

// rewriteRecords writes the records of the Trevni file in to the file out
// one by one (WriteBinary) with opts, and returns how many.
func rewriteRecords(t *testing.T, in, out string, opts *trevni.WriteOptions) int {
	t.Helper()
	ctx := context.Background()
	ds, err := trevni.Open(ctx, in, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer ds.Close()
	rd, err := ds.NewReader(ctx, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer rd.Close()
	w, err := trevni.Create(ctx, out, ds.SchemaText(), opts)
	if err != nil {
		t.Fatal(err)
	}
	n := 0
	var rec []byte
	for ; ; n++ {
		if rec, err = rd.ReadBinary(rec[:0]); err != nil {
			break
		}
		if err := w.WriteBinary(rec); err != nil {
			t.Fatal(err)
		}
	}
	if !errors.Is(err, io.EOF) {
		t.Fatal(err)
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	return n
}
