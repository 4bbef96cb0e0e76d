package trevnisql

import (
	"context"
	"fmt"
	"math/rand/v2"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

// TestUnionByNameAsParquet writes random parts whose columns differ
// (some lack a column, a number is INTEGER in one part and BIGINT,
// FLOAT or DOUBLE in another, a column is nested) twice from one DuckDB
// query: as Trevni files through COPY ... (FORMAT trevni) and as Parquet
// files through DuckDB's own writer. It checks that read_trevni(...,
// union_by_name := true) gives the columns, types and rows DuckDB's
// read_parquet(..., union_by_name = true) gives, through the levels path
// (each part's records resolved to the joined schema by the plan of the
// columnar read layer) and through the Arrow path, with and without a
// projection and a filter.
func TestUnionByNameAsParquet(t *testing.T) {
	ctx := context.Background()
	seeds := 12
	if testing.Short() {
		seeds = 4
	}
	db, err := Open(ctx, &Options{Threads: 1})
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	adb, err := Open(ctx, &Options{Threads: 1, Arrow: true})
	if err != nil {
		t.Fatal(err)
	}
	defer adb.Close()
	numbers := []string{"INTEGER", "BIGINT", "FLOAT", "DOUBLE"}
	compared := 0
	for seed := range seeds {
		r := rand.New(rand.NewPCG(uint64(seed), 35))
		dir := t.TempDir()
		// The columns: id in every part, n0 and n1 numbers of a type per
		// part, s a string, l a list, st a struct, each in some parts.
		type col struct {
			name string
			expr func(typ string, part int) string
		}
		null := func(k int, e string) string {
			return fmt.Sprintf("CASE WHEN (i * %d + %d) %% 5 = 0 THEN NULL ELSE %s END", k, seed, e)
		}
		cols := []col{
			{"n0", func(typ string, p int) string { return null(3, fmt.Sprintf("((i * 7 + %d) %% 97 * 0.5)::%s", p, typ)) }},
			{"n1", func(typ string, p int) string {
				return null(7, fmt.Sprintf("((i * 13 + %d) %% 1000 - 300)::%s", p, typ))
			}},
			{"s", func(string, int) string { return null(11, "'v' || (i % 17)::VARCHAR") }},
			{"l", func(string, int) string { return null(2, "[i, i + 1, NULL][1:(i % 4)]") }},
			{"st", func(string, int) string {
				return null(9, "{'x': (i % 9)::INTEGER, 'y': CASE WHEN i % 4 = 0 THEN NULL ELSE 'y' || i::VARCHAR END}")
			}},
		}
		parts := 2 + r.IntN(3)
		for p := range parts {
			sel := []string{fmt.Sprintf("(%d * 1000 + i)::BIGINT AS id", p)}
			for _, c := range cols {
				if r.IntN(3) == 0 {
					continue // the part lacks it
				}
				typ := numbers[r.IntN(len(numbers))]
				sel = append(sel, c.expr(typ, p)+" AS "+c.name)
			}
			r.Shuffle(len(sel)-1, func(i, j int) { sel[i+1], sel[j+1] = sel[j+1], sel[i+1] })
			q := fmt.Sprintf("SELECT %s FROM range(%d) t(i)", strings.Join(sel, ", "), r.IntN(60))
			for _, to := range []string{"trv", "parquet"} {
				format := "(FORMAT trevni)"
				if to == "parquet" {
					format = "(FORMAT parquet)"
				}
				path := filepath.Join(dir, fmt.Sprintf("p%d.%s", p, to))
				if _, err := db.ExecContext(ctx, fmt.Sprintf("COPY (%s) TO %s %s", q, quoteString(path), format)); err != nil {
					t.Fatalf("seed %d: %s: %v", seed, q, err)
				}
			}
		}
		trv := fmt.Sprintf("read_trevni(%s, union_by_name := true)", quoteString(filepath.Join(dir, "*.trv")))
		pq := fmt.Sprintf("read_parquet(%s, union_by_name = true)", quoteString(filepath.Join(dir, "*.parquet")))
		describe := "SELECT column_name || ' ' || column_type FROM (DESCRIBE SELECT * FROM %s)"
		want := queryRows(t, db.DB, fmt.Sprintf(describe, pq))
		for _, d := range []*DB{db, adb} {
			if got := queryRows(t, d.DB, fmt.Sprintf(describe, trv)); !slices.Equal(got, want) {
				t.Fatalf("seed %d: columns %v, DuckDB's Parquet reader %v", seed, got, want)
			}
		}
		names := make([]string, len(want))
		for i, w := range want {
			names[i], _, _ = strings.Cut(w, " ")
		}
		pick := slices.Clone(names)
		r.Shuffle(len(pick), func(i, j int) { pick[i], pick[j] = pick[j], pick[i] })
		pick = pick[:1+r.IntN(len(pick))]
		for _, q := range []struct{ sel, where string }{
			{"*", ""},
			{strings.Join(pick, ", "), ""},
			{"*", fmt.Sprintf(" WHERE id %% 3 = %d", r.IntN(3))},
		} {
			query := "SELECT t::VARCHAR FROM (SELECT %s FROM %s%s ORDER BY id) t"
			want := queryRows(t, db.DB, fmt.Sprintf(query, q.sel, pq, q.where))
			for k, d := range []*DB{db, adb} {
				got := queryRows(t, d.DB, fmt.Sprintf(query, q.sel, trv, q.where))
				if !slices.Equal(got, want) {
					t.Errorf("seed %d, path %d: SELECT %s%s: read_trevni and DuckDB's Parquet reader differ", seed, k, q.sel, q.where)
					for i := range min(len(got), len(want)) {
						if got[i] != want[i] {
							t.Errorf("first difference, row %d:\nread_trevni %s\n    parquet %s", i, got[i], want[i])
							break
						}
					}
					if len(got) != len(want) {
						t.Errorf("read_trevni %d rows, parquet %d", len(got), len(want))
					}
					continue
				}
				compared++
			}
		}
	}
	t.Logf("%d queries compared over %d data sets", compared, seeds)
}
