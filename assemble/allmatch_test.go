package assemble

import (
	"bytes"
	"slices"
	"testing"

	"github.com/trevni-go/trevni/format"
	"github.com/trevni-go/trevni/shred"
)

// provenFile writes 10,000 records of small blocks: id from -100 up, opt
// equal to the row's number but NULL in row 7777, s a string.
func provenFile(t *testing.T) (*format.Reader, []map[string]any) {
	t.Helper()
	text := `{"type":"record","name":"R","fields":[{"name":"id","type":"long"},
		{"name":"opt","type":["null","long"]},{"name":"s","type":"string"}]}`
	var buf bytes.Buffer
	w, err := shred.NewAvroWriter(&buf, text, &shred.Options{WriterOptions: format.WriterOptions{BlockSize: 256}})
	if err != nil {
		t.Fatal(err)
	}
	var recs []map[string]any
	for i := range 10000 {
		rec := map[string]any{"id": int64(i - 100), "opt": map[string]any{"long": int64(i)}, "s": "x"}
		if i == 7777 {
			rec["opt"] = nil
		}
		recs = append(recs, rec)
		if err := w.Write(rec); err != nil {
			t.Fatal(err)
		}
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	return openBytes(t, buf.Bytes()), recs
}

// blocksHolding returns the blocks of column col that hold a row keep
// selects.
func blocksHolding(t *testing.T, rd *format.Reader, col int, rows int64, keep func(row int64) bool) int {
	t.Helper()
	bs, err := rd.Blocks(col)
	if err != nil {
		t.Fatal(err)
	}
	n := 0
	for _, b := range bs {
		for r := b.FirstRow; r < b.FirstRow+b.Rows && r < rows; r++ {
			if keep(r) {
				n++
				break
			}
		}
	}
	return n
}

// Where the block statistics prove a filter on every row, the filter's
// column is not read there: a count, and a read, decode only the blocks
// holding a row the statistics leave in doubt (a negative id, the NULL of
// opt), and return the records a brute-force filter keeps.
func TestFilterProvenBlocksUnread(t *testing.T) {
	rd, recs := provenFile(t)
	id := func(r int64) int64 { return recs[r]["id"].(int64) }
	null := func(r int64) bool { return recs[r]["opt"] == nil }
	for _, c := range []struct {
		where  string
		col    int              // the filter's column whose blocks are counted
		match  func(int64) bool // the filter, by brute force
		doubt  func(int64) bool // the rows whose blocks must be read
		fields []string         // the fields read
	}{
		{"id >= 0", 0, func(r int64) bool { return id(r) >= 0 }, func(r int64) bool { return id(r) < 0 }, []string{"s"}},
		{"NOT (id < 0)", 0, func(r int64) bool { return id(r) >= 0 }, func(r int64) bool { return id(r) < 0 }, []string{"s"}},
		{"id >= 0", 0, func(r int64) bool { return id(r) >= 0 }, func(r int64) bool { return id(r) < 0 }, []string{"id", "s"}},
		{"opt >= 0", 1, func(r int64) bool { return !null(r) }, null, []string{"s"}},
		{"opt >= 0 OR id < -1000", 1, func(r int64) bool { return !null(r) }, null, []string{"s"}},
		{"id >= 0 OR opt >= 0", 1, func(r int64) bool { return true }, func(r int64) bool { return id(r) < 0 && null(r) }, []string{"s"}},
	} {
		var want []int64
		for r := range int64(len(recs)) {
			if c.match(r) {
				want = append(want, r)
			}
		}
		doubt := blocksHolding(t, rd, c.col, int64(len(recs)), c.doubt)
		blocks, err := rd.Blocks(c.col)
		if err != nil {
			t.Fatal(err)
		}
		if len(blocks) < 20 {
			t.Fatalf("column %d has %d blocks: too few to tell", c.col, len(blocks))
		}
		for _, count := range []bool{true, false} {
			ar, err := NewAvroReader(rd, &Options{Filter: c.where, Fields: c.fields})
			if err != nil {
				t.Fatal(err)
			}
			var got []int64
			if count {
				n, err := ar.Count(t.Context())
				if err != nil || n != int64(len(want)) {
					t.Fatalf("%s: Count = %d, %v; brute force %d", c.where, n, err, len(want))
				}
			} else {
				for _, err := range ar.All() {
					if err != nil {
						t.Fatal(err)
					}
					got = append(got, ar.Row()-1)
				}
				if !slices.Equal(got, want) {
					t.Fatalf("%s: %d records, brute force %d", c.where, len(got), len(want))
				}
			}
			rep := ar.Report()
			var read int
			for _, cs := range rep.Columns {
				if cs.Column == c.col {
					read = cs.BlocksRead
				}
			}
			wantRead := doubt
			if !count && c.col == 0 && slices.Contains(c.fields, "id") {
				wantRead = len(blocks) // read for output, and once only
			}
			if read != wantRead {
				t.Errorf("%s (count %v): the filter's column read %d of %d blocks, want %d (%d hold a row in doubt)", c.where, count, read, len(blocks), wantRead, doubt)
			}
			if rep.RowsProven < int64(len(recs))/2 || rep.RowsScanned < rep.RowsMatched || rep.RowsMatched != int64(len(want)) {
				t.Errorf("%s (count %v): report %+v", c.where, count, rep)
			}
		}
	}
}
