package trevnisql

import (
	"context"
	"fmt"
	"math/rand/v2"
	"path/filepath"
	"strings"
	"testing"

	"github.com/trevni-go/trevni"
)

// TestRangesOfAPartWithFilters scans a local part of several ranges of
// rows (64 Ki rows or more each) with 1, 2 and 3 threads, with filters
// (filter :=) that match runs, scattered rows, whole blocks the
// statistics prove, and nothing, and without: a thread that takes the
// next range of the part it reads goes on with the same column readers
// (levelReader.moveTo), and every count and sum is the one computed here
// from the records written.
func TestRangesOfAPartWithFilters(t *testing.T) {
	ctx := context.Background()
	path := filepath.Join(t.TempDir(), "ranges.trv")
	const rows = 280_000
	w, err := trevni.Create(ctx, path, `{"type":"record","name":"R","fields":[{"name":"id","type":"long"},{"name":"s","type":"string"},{"name":"v","type":["null","double"]},{"name":"k","type":"int"}]}`,
		&trevni.WriteOptions{Codec: trevni.Snappy, BlockSize: 8192})
	if err != nil {
		t.Fatal(err)
	}
	type rec struct {
		id   int64
		s    string
		v    float64
		null bool
		k    int32
	}
	recs := make([]rec, rows)
	r := rand.New(rand.NewPCG(35, 46))
	for i := range recs {
		x := rec{id: int64(i), s: fmt.Sprintf("s%d", r.IntN(1000)), k: int32(r.IntN(100))}
		var v any
		if r.IntN(4) != 0 {
			x.v = float64(r.IntN(1 << 20))
			v = map[string]any{"double": x.v}
		} else {
			x.null = true
		}
		recs[i] = x
		if err := w.Write(map[string]any{"id": x.id, "s": x.s, "v": v, "k": x.k}); err != nil {
			t.Fatal(err)
		}
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		filter string
		keep   func(rec) bool
	}{
		{"", func(rec) bool { return true }},
		{"id >= 0", func(rec) bool { return true }},                                                // every block proven
		{"id < 70000 OR id >= 200000", func(x rec) bool { return x.id < 70000 || x.id >= 200000 }}, // runs across ranges
		{"k == 7", func(x rec) bool { return x.k == 7 }},                                           // scattered rows
		{"s LIKE 's1%' AND v IS NOT NULL", func(x rec) bool { return strings.HasPrefix(x.s, "s1") && !x.null }},
		{"id > 1000000", func(rec) bool { return false }},
	} {
		var n, sumID, sumLen, sumK int64
		var sumV float64
		for _, x := range recs {
			if c.keep(x) {
				n++
				sumID += x.id
				sumLen += int64(len(x.s))
				sumK += int64(x.k)
				sumV += x.v
			}
		}
		want := fmt.Sprintf("%d %d %d %d %.0f", n, sumID, sumLen, sumK, sumV)
		args := quoteString(path)
		if c.filter != "" {
			args += ", filter := " + quoteString(c.filter)
		}
		for threads := 1; threads <= 3; threads++ {
			db, err := Open(ctx, &Options{Threads: threads})
			if err != nil {
				t.Fatal(err)
			}
			var gn, gid, glen, gk int64
			var gv float64
			q := fmt.Sprintf("SELECT count(*), coalesce(sum(id), 0), coalesce(sum(length(s)), 0), coalesce(sum(k), 0), coalesce(sum(v), 0) FROM read_trevni(%s)", args)
			err = db.QueryRow(q).Scan(&gn, &gid, &glen, &gk, &gv)
			db.Close()
			if err != nil {
				t.Fatalf("%d threads: %s: %v", threads, q, err)
			}
			if got := fmt.Sprintf("%d %d %d %d %.0f", gn, gid, glen, gk, gv); got != want {
				t.Errorf("%d threads, filter %q: count and sums %s, want %s", threads, c.filter, got, want)
			}
		}
	}
}
