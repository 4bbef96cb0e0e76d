package trevnisql

import (
	"context"
	"fmt"
	"math/rand/v2"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/trevni-go/trevni"
	"github.com/trevni-go/trevni/internal/testing/avrorand"
	"github.com/trevni-go/trevni/schema"
)

// TestScanMatchesRecordReader reads random data sets of random schemas
// (every Avro type, nested records, arrays, maps, unions of many
// branches, every logical type) through the scan, which writes DuckDB's
// vectors from the columns' levels (package assemble/levels), and
// through the same scan made to read Arrow batches (Options.Arrow:
// trevniarrow's RecordReader, which builds its arrays its own way), and
// checks the two read
// the same rows in the same order: every column, a projection of some
// columns, and the rows of a filter.
func TestScanMatchesRecordReader(t *testing.T) {
	ctx := context.Background()
	schemas := 40
	if testing.Short() {
		schemas = 10
	}
	compared := 0
	for seed := range schemas {
		g := avrorand.New(uint64(seed), avrorand.Options{MaxDepth: 3, MaxFields: 4, MaxBranches: 4, MaxLen: 4})
		text := g.Schema()
		s, err := schema.Parse(text)
		if err != nil {
			t.Fatalf("seed %d: %v", seed, err)
		}
		r := rand.New(rand.NewPCG(uint64(seed), 33))
		// A record of an id to filter by and a field of the random type.
		top := `{"type":"record","name":"PropTop","fields":[{"name":"id","type":"long"},{"name":"v","type":` + text + `}]}`
		wrap := func(v any, id int) any { return map[string]any{"id": int64(id), "v": v} }
		dir := t.TempDir()
		path := filepath.Join(dir, "data.trv")
		w, err := trevni.Create(ctx, path, top, &trevni.WriteOptions{BlockSize: 1 << 10})
		if err != nil {
			t.Fatalf("seed %d: %v\n%s", seed, err, top)
		}
		rows := []int{0, 1, 3, 50, 700, 3000}[r.IntN(6)]
		for i := range rows {
			if err := w.Write(wrap(g.Value(s), i)); err != nil {
				t.Fatalf("seed %d: %v", seed, err)
			}
		}
		if err := w.Close(); err != nil {
			t.Fatal(err)
		}
		db, err := Open(ctx, &Options{Threads: 1})
		if err != nil {
			t.Fatal(err)
		}
		adb, err := Open(ctx, &Options{Threads: 1, Arrow: true})
		if err != nil {
			t.Fatal(err)
		}
		src := quoteString(path)
		cols := queryRows(t, db.DB, "SELECT column_name FROM (DESCRIBE SELECT * FROM read_trevni("+src+"))")
		pick := slices.Clone(cols)
		r.Shuffle(len(pick), func(i, j int) { pick[i], pick[j] = pick[j], pick[i] })
		pick = pick[:1+r.IntN(len(pick))]
		for i := range pick {
			pick[i] = `"` + strings.ReplaceAll(pick[i], `"`, `""`) + `"`
		}
		filter := fmt.Sprintf("id < %d OR id >= %d OR id IN (%d, %d)", r.IntN(rows+1), r.IntN(rows+1), r.IntN(rows+1), r.IntN(rows+1))
		for _, q := range []struct{ sel, params string }{
			{"*", ""},
			{strings.Join(pick, ", "), ""},
			{"*", ", filter := " + quoteString(filter)},
		} {
			levels := fmt.Sprintf("SELECT t::VARCHAR FROM (SELECT %s FROM read_trevni(%s%s)) t", q.sel, src, q.params)
			got, err := tryRows(db, levels)
			want, werr := tryRows(adb, levels)
			if err != nil || werr != nil {
				if werr == nil || err == nil {
					t.Errorf("seed %d: %s\n levels: %v\nrecords: %v\nschema %s", seed, q.sel, err, werr, top)
				}
				t.Logf("seed %d: both fail: %.200v", seed, err)
				continue
			}
			if !slices.Equal(got, want) {
				t.Errorf("seed %d (%d rows): %s%s: the levels path and the records differ\nschema %s", seed, rows, q.sel, q.params, top)
				for i := range min(len(got), len(want)) {
					if got[i] != want[i] {
						t.Errorf("first difference, row %d:\n levels %s\nrecords %s", i, got[i], want[i])
						break
					}
				}
				if len(got) != len(want) {
					t.Errorf("levels %d rows, records %d", len(got), len(want))
				}
				continue
			}
			compared++
		}
		db.Close()
		adb.Close()
	}
	t.Logf("%d queries compared over %d schemas", compared, schemas)
}

// tryRows returns the rows of q, each printed, or its error.
func tryRows(db *DB, q string) ([]string, error) {
	rows, err := db.Query(q)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	var out []string
	for rows.Next() {
		var s *string
		if err := rows.Scan(&s); err != nil {
			return nil, err
		}
		if s == nil {
			out = append(out, "<nil>")
		} else {
			out = append(out, *s)
		}
	}
	return out, rows.Err()
}
