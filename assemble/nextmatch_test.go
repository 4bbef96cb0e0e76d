package assemble

import (
	"io"
	"math/rand/v2"
	"testing"

	"github.com/trevni-go/trevni/format"
	"github.com/trevni-go/trevni/predicate"
	"github.com/trevni-go/trevni/schema/layout"
	"github.com/trevni-go/trevni/shred"
)

// schemaLessRows returns the rows of rd as JSON, read schema-less
// (format.RowReader) from the columns cols (every column when nil).
func schemaLessRows(t *testing.T, rd *format.Reader, cols []int) []string {
	t.Helper()
	rr, err := rd.RowsOf(&format.RowsOptions{Columns: cols})
	if err != nil {
		t.Fatal(err)
	}
	defer rr.Close()
	var out []string
	for {
		row, err := rr.Read()
		if err == io.EOF {
			return out
		}
		if err != nil {
			t.Fatal(err)
		}
		out = append(out, string(row.AppendJSON(nil)))
	}
}

// The property behind trevni dump --where: NextMatch, with the matching
// rows then read schema-less from a random selection of columns by
// seeking a format.RowReader (read-ahead off), yields exactly the rows a
// brute-force filter of every record keeps, over random schemas, data and
// expressions, with statistics, without, and inexact. The generators are
// TestPropertyFilterNeverDropsAMatch's.
func TestPropertyNextMatchRows(t *testing.T) {
	nschemas, nrecs := propertyScale()
	nschemas /= 2
	var tally filterTally
	for i := range nschemas {
		seed := uint64(9000 + i)
		r := rand.New(rand.NewPCG(seed, 3))
		f := newFixture(t, i, seed, r, 4*nrecs)
		for _, mode := range []string{"stats", "none", "inexact"} {
			opts := &shred.Options{WriterOptions: format.WriterOptions{
				Codec:     []string{"null", "deflate", "snappy"}[r.IntN(3)],
				BlockSize: []int{1, 16, 64, 256}[r.IntN(4)],
			}}
			switch mode {
			case "none":
				opts.DisableStats = true
			case "inexact":
				opts.StatsMaxLen = 1
			}
			file := shredFast(t, f, opts)
			rd := openBytes(t, file)
			g := &exprGen{r: rand.New(rand.NewPCG(seed, 5)), s: f.schema, recs: f.recs}
			var err error
			if g.l, err = layout.New(g.s, nil); err != nil {
				t.Fatal(err)
			}
			if g.paths = fieldPaths(g.s); len(g.paths) == 0 {
				continue
			}
			var cols []int
			for c := range rd.NumColumns() {
				if r.IntN(2) == 0 {
					cols = append(cols, c)
				}
			}
			if cols == nil {
				cols = []int{}
			}
			all := schemaLessRows(t, rd, cols)
			if len(all) != len(f.recs) {
				t.Fatalf("%d rows, %d records", len(all), len(f.recs))
			}
			for range 4 {
				src := g.expr(2)
				p, err := predicate.Compile(src, g.s, g.l)
				if err != nil {
					t.Fatalf("%s: %v", src, err)
				}
				var want []string
				for k, rec := range f.recs {
					if ok, err := p.Match(rec); err != nil {
						t.Fatalf("%s: record %d: %v", src, k, err)
					} else if ok {
						want = append(want, all[k])
					}
				}
				// The output fields do not matter to NextMatch; trevni dump
				// names the filter's own (fewer block tables to read), which a
				// path through a union may not allow.
				ar, err := NewAvroReader(rd, &Options{Fields: p.Fields(), Filter: src})
				if err != nil {
					ar, err = NewAvroReader(rd, &Options{Filter: src})
				}
				if err != nil {
					t.Fatalf("%s: %v", src, err)
				}
				rr, err := rd.RowsOf(&format.RowsOptions{Columns: cols})
				if err != nil {
					t.Fatal(err)
				}
				for _, c := range rr.Columns() {
					rr.Column(c).SetReadAhead(false)
				}
				var got []string
				for {
					row, err := ar.NextMatch()
					if err == io.EOF {
						break
					}
					if err != nil {
						t.Fatalf("%s: %v", src, err)
					}
					if err := rr.SeekRow(row); err != nil {
						t.Fatalf("%s: seek to %d: %v", src, row, err)
					}
					v, err := rr.Read()
					if err != nil {
						t.Fatalf("%s: row %d: %v", src, row, err)
					}
					got = append(got, string(v.AppendJSON(nil)))
				}
				if len(got) != len(want) {
					t.Fatalf("%s (%s): %d rows, brute force %d", src, mode, len(got), len(want))
				}
				for k := range got {
					if got[k] != want[k] {
						t.Fatalf("%s (%s): match %d:\n got %s\nwant %s", src, mode, k, got[k], want[k])
					}
				}
				rep := ar.Report()
				if rep.RowsMatched != int64(len(want)) || rep.RowsScanned < rep.RowsMatched {
					t.Fatalf("%s: report %+v, want %d matched", src, rep, len(want))
				}
				for _, c := range rr.Columns() {
					n, _ := rr.Column(c).Loaded()
					blocks, _ := rd.Blocks(c)
					tally.skipped += max(0, len(blocks)-n)
				}
				rr.Close()
				if rep.RowsScanned < int64(len(f.recs)) {
					tally.pruned++
				}
				tally.exprs++
				tally.matched += len(want)
				tally.dropped += len(f.recs) - len(want)
			}
		}
	}
	t.Logf("%+v", tally)
	if tally.matched == 0 || tally.dropped == 0 || tally.skipped == 0 || tally.pruned == 0 {
		t.Fatalf("the filters never kept, dropped or skipped: %+v", tally)
	}
}

func TestNextMatchWithoutFilter(t *testing.T) {
	f := newFixture(t, 0, 1, rand.New(rand.NewPCG(1, 1)), 3)
	ar, err := NewAvroReader(openBytes(t, shredFast(t, f, nil)), nil)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := ar.NextMatch(); err == nil {
		t.Fatal("NextMatch without a filter: no error")
	}
}
