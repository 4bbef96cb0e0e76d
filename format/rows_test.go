package format

import (
	"bytes"
	"fmt"
	"io"
	"math/rand/v2"
	"testing"
)

// projectRow keeps of row the fields of the columns in keep, as a
// RowReader selecting them returns it: arrays whose file column has
// children stay lists of elements even when none of them is kept.
func projectRow(row Row, keep []bool) Row {
	out := Row{}
	for _, f := range row {
		if !keep[f.Column] {
			continue
		}
		if els, ok := f.Value.([]Element); ok {
			kept := []Element{}
			for _, e := range els {
				kept = append(kept, Element{Value: e.Value, Fields: projectRow(e.Fields, keep)})
			}
			f.Value = kept
		}
		out = append(out, f)
	}
	return out
}

// TestRowsOfRandom writes random layouts and rows, selects random
// columns, and checks the rows read against the full rows projected on
// the selection and its ancestors; that seeking (near, far, backwards)
// lands on the right rows; and that no byte of a column not selected is
// read, nor, with read-ahead off, a block that holds none of the rows read.
func TestRowsOfRandom(t *testing.T) {
	iterations := 200
	if testing.Short() {
		iterations = 40
	}
	for it := 0; it < iterations; it++ {
		r := rand.New(rand.NewPCG(uint64(it), 7))
		cols := randomLayout(r)
		children, roots := layoutTree(cols)
		nrows := []int{0, 1, 30, 400}[r.IntN(4)]
		rows := make([]Row, nrows)
		for i := range rows {
			rows[i] = randomRow(r, cols, children, roots)
		}
		var buf bytes.Buffer
		w, err := NewWriter(&buf, cols, &WriterOptions{
			Codec:     []string{"null", "deflate", "snappy"}[r.IntN(3)],
			BlockSize: []int{16, 100, 4096}[r.IntN(3)],
		})
		if err != nil {
			t.Fatal(err)
		}
		for i, row := range rows {
			if err := writeRow(w, cols, row); err != nil {
				t.Fatalf("iteration %d row %d: %v", it, i, err)
			}
		}
		if err := w.Close(); err != nil {
			t.Fatal(err)
		}
		sr := &spanReader{ra: bytes.NewReader(buf.Bytes())}
		rd, err := NewReader(sr, int64(buf.Len()), &ReaderOptions{ReadAhead: it%3 == 0})
		if err != nil {
			t.Fatal(err)
		}
		var sel []int
		keep := make([]bool, len(cols))
		for i := range cols {
			if r.IntN(3) == 0 {
				sel = append(sel, i)
				for p := i; p >= 0 && !keep[p]; p = rd.Parent(p) {
					keep[p] = true
				}
			}
		}
		if sel == nil {
			sel = []int{} // not nil: nil selects every column
		}
		want := make([]string, nrows)
		for i, row := range rows {
			want[i] = string(projectRow(row, keep).AppendJSON(nil))
		}
		sr.take()
		rr, err := rd.RowsOf(&RowsOptions{Columns: sel})
		if err != nil {
			t.Fatal(err)
		}
		checkRows(t, rr, want, fmt.Sprintf("iteration %d, columns %v", it, sel))
		// ReadJSON writes the same text without building rows.
		jr, err := rd.RowsOf(&RowsOptions{Columns: sel})
		if err != nil {
			t.Fatal(err)
		}
		var text []byte
		for i := range rows {
			if text, err = jr.ReadJSON(text[:0]); err != nil {
				t.Fatalf("iteration %d row %d: ReadJSON: %v", it, i, err)
			}
			if string(text) != want[i] {
				t.Fatalf("iteration %d row %d, columns %v: ReadJSON\n got %s\nwant %s", it, i, sel, text, want[i])
			}
		}
		if _, err := jr.ReadJSON(nil); err != io.EOF {
			t.Fatalf("iteration %d: ReadJSON after the last row: %v", it, err)
		}
		jr.Close()
		// Seeks: a few rows ahead (passed over within a block), far
		// ahead, back, and to the end.
		for k := 0; k < 30 && nrows > 0; k++ {
			var row int64
			switch r.IntN(4) {
			case 0, 1:
				row = min(int64(nrows), rr.Row()+r.Int64N(4))
			case 2:
				row = r.Int64N(int64(nrows))
			default:
				row = int64(nrows)
			}
			if err := rr.SeekRow(row); err != nil {
				t.Fatalf("iteration %d: seek to %d: %v", it, row, err)
			}
			g, err := readText(rr, k%2 == 1)
			if row == int64(nrows) {
				if err != io.EOF {
					t.Fatalf("iteration %d: read after seeking to the end: %v", it, err)
				}
				continue
			}
			if err != nil {
				t.Fatalf("iteration %d: row %d after seek: %v", it, row, err)
			}
			if g != want[row] {
				t.Fatalf("iteration %d: row %d after seek:\n got %s\nwant %s", it, row, g, want[row])
			}
		}
		rr.Close()
		for _, sp := range sr.take() {
			for i := range cols {
				off, n := rd.ColumnRange(i)
				if !keep[i] && sp[0] < off+n && sp[1] > off {
					t.Fatalf("iteration %d: column %d, not selected (%v), read at %d to %d", it, i, sel, sp[0], sp[1])
				}
			}
		}
		checkSeekLoads(t, rd, r, keep)
	}
}

// readText reads the next row as JSON text, through ReadJSON or through
// Read and Row.AppendJSON.
func readText(rr *RowReader, streaming bool) (string, error) {
	if streaming {
		b, err := rr.ReadJSON(nil)
		return string(b), err
	}
	row, err := rr.Read()
	return string(row.AppendJSON(nil)), err
}

// checkSeekLoads seeks a reader of the selected columns, read-ahead off,
// to a random row and reads a few rows: each column loads only blocks
// holding rows read.
func checkSeekLoads(t *testing.T, rd *Reader, r *rand.Rand, keep []bool) {
	if rd.RowCount() == 0 {
		return
	}
	var sel []int
	for i, k := range keep {
		if k {
			sel = append(sel, i)
		}
	}
	rr, err := rd.RowsOf(&RowsOptions{Columns: sel})
	if err != nil {
		t.Fatal(err)
	}
	defer rr.Close()
	for _, i := range rr.Columns() {
		rr.Column(i).SetReadAhead(false)
	}
	a := r.Int64N(rd.RowCount())
	b := min(rd.RowCount(), a+1+r.Int64N(5))
	if err := rr.SeekRow(a); err != nil {
		t.Fatal(err)
	}
	for rr.Row() < b {
		if _, err := rr.Read(); err != nil {
			t.Fatal(err)
		}
	}
	for _, i := range rr.Columns() {
		blocks, err := rd.Blocks(i)
		if err != nil {
			t.Fatal(err)
		}
		holding := 0
		for _, bi := range blocks {
			if bi.FirstRow < b && bi.FirstRow+bi.Rows > a {
				holding++
			}
		}
		if n, _ := rr.Column(i).Loaded(); n > holding {
			t.Fatalf("column %d: rows %d to %d are in %d blocks, %d loaded", i, a, b, holding, n)
		}
	}
}

func TestRowsOfBadColumn(t *testing.T) {
	var buf bytes.Buffer
	w, err := NewWriter(&buf, []ColumnMeta{{Name: "a", Type: Int}}, nil)
	if err != nil {
		t.Fatal(err)
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	rd, err := NewReader(bytes.NewReader(buf.Bytes()), int64(buf.Len()), nil)
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range []int{-1, 1} {
		if _, err := rd.RowsOf(&RowsOptions{Columns: []int{c}}); err == nil {
			t.Errorf("column %d: no error", c)
		}
	}
}
