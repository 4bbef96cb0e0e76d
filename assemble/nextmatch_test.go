package assemble

import (
	"bytes"
	"io"
	"math/rand/v2"
	"os"
	"path/filepath"
	"testing"

	"github.com/trevni-go/trevni/format"
	"github.com/trevni-go/trevni/predicate"
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

// checkNextMatchRows checks the path of trevni dump --where: for a few
// random expressions over the records recs of rd (drawn on r), the rows NextMatch
// finds, read schema-less from a random selection of columns by seeking a
// format.RowReader (read-ahead off), must be exactly the rows a
// brute-force filter of recs keeps. The property tests of Filter run it
// (TestPropertyFilterNeverDropsAMatch, TestFilterJavaFiles).
func checkNextMatchRows(t *testing.T, rd *format.Reader, recs []any, mode string, r *rand.Rand, tally *filterTally) {
	t.Helper()
	ar0, err := NewAvroReader(rd, nil)
	if err != nil {
		t.Fatal(err)
	}
	g, l := newExprs(t, r, ar0.fileSchema, recs)
	if len(g.Paths()) == 0 {
		return
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
	if len(all) != len(recs) {
		t.Fatalf("%d rows, %d records", len(all), len(recs))
	}
	for range 4 {
		src := g.Expr(2)
		p, err := predicate.Compile(src, ar0.fileSchema, l)
		if err != nil {
			t.Fatalf("%s: %v", src, err)
		}
		var want []string
		for k, rec := range recs {
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
			v, err := rr.ReadJSON(nil)
			if err != nil {
				t.Fatalf("%s: row %d: %v", src, row, err)
			}
			got = append(got, string(v))
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
		if rep.RowsScanned < int64(len(recs)) {
			tally.pruned++
		}
		tally.exprs++
		tally.matched += len(want)
		tally.dropped += len(recs) - len(want)
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

// BenchmarkNextMatchRows is trevni dump --where on the medium vector
// (30,000 rows) written with 4 KiB blocks and statistics: NextMatch finds
// the rows, a format.RowReader of every column seeks to each and writes it
// as JSON. "none" matches no row (every block of the output is skipped),
// "some" about one row in five, "all" every row. MB/s counts the file's
// bytes.
func BenchmarkNextMatchRows(b *testing.B) {
	in, err := os.Open(filepath.Join(interopDir, "medium", "input.avro"))
	if err != nil {
		b.Fatal(err)
	}
	defer in.Close()
	var file bytes.Buffer
	if _, err := shred.FromContainer(b.Context(), &file, in, &shred.Options{WriterOptions: format.WriterOptions{BlockSize: 4096}}); err != nil {
		b.Fatal(err)
	}
	data := file.Bytes()
	for _, c := range []struct{ name, expr string }{
		{"none", "name = 'zzz'"},
		{"some", "small > 50 AND opt IS NOT NULL"},
		{"all", "id IS NOT NULL"},
	} {
		b.Run(c.name, func(b *testing.B) {
			b.SetBytes(int64(len(data)))
			b.ReportAllocs()
			var buf []byte
			for i := 0; i < b.N; i++ {
				rd, err := format.NewReader(bytes.NewReader(data), int64(len(data)), nil)
				if err != nil {
					b.Fatal(err)
				}
				ar, err := NewAvroReader(rd, &Options{Filter: c.expr})
				if err != nil {
					b.Fatal(err)
				}
				rr, err := rd.RowsOf(nil)
				if err != nil {
					b.Fatal(err)
				}
				for {
					row, err := ar.NextMatch()
					if err == io.EOF {
						break
					}
					if err != nil {
						b.Fatal(err)
					}
					if row != rr.Row() {
						if err := rr.SeekRow(row); err != nil {
							b.Fatal(err)
						}
					}
					if buf, err = rr.ReadJSON(buf[:0]); err != nil {
						b.Fatal(err)
					}
				}
				rr.Close()
			}
		})
	}
}
