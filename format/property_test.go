package format

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"math"
	"math/rand/v2"
	"os"
	"strings"
	"testing"
)

// randomLayout returns random columns: every type, arrays, and parent
// chains up to three deep.
func randomLayout(r *rand.Rand) []ColumnMeta {
	n := 1 + r.IntN(8)
	var cols []ColumnMeta
	for i := 0; i < n; i++ {
		c := ColumnMeta{Name: fmt.Sprintf("c%d", i), Type: ValueType(r.IntN(int(Bytes) + 1))}
		var arrays []int
		for j, p := range cols {
			if p.Array {
				arrays = append(arrays, j)
			}
		}
		if len(arrays) > 0 && r.IntN(2) == 0 {
			c.Parent = cols[arrays[r.IntN(len(arrays))]].Name
		}
		c.Array = r.IntN(3) == 0
		if c.Array && r.IntN(2) == 0 {
			c.Type = Null // a parent-like column, as the Avro layer makes
		}
		if !c.Array && c.Parent == "" && r.IntN(4) == 0 {
			c.Values = true
		}
		switch r.IntN(6) {
		case 0:
			c.Meta.SetString(KeyCodec, []string{"null", "deflate", "snappy", "bzip2", "zstd"}[r.IntN(5)])
		case 1:
			c.Meta.SetString(KeyChecksum, []string{"null", "crc32"}[r.IntN(2)])
		case 2:
			c.Meta.SetString("user.key", "v")
		}
		cols = append(cols, c)
	}
	return cols
}

func randomValue(r *rand.Rand, t ValueType) any {
	switch t {
	case Null:
		return nil
	case Boolean:
		return r.IntN(2) == 0
	case Int, Fixed32:
		switch r.IntN(4) {
		case 0:
			return int32(r.IntN(3) - 1)
		case 1:
			return []int32{math.MinInt32, math.MaxInt32}[r.IntN(2)]
		}
		return int32(r.Uint32())
	case Long, Fixed64:
		switch r.IntN(4) {
		case 0:
			return int64(r.IntN(3) - 1)
		case 1:
			return []int64{math.MinInt64, math.MaxInt64}[r.IntN(2)]
		}
		return int64(r.Uint64())
	case Float:
		if r.IntN(20) == 0 {
			return float32(math.Inf(1))
		}
		return float32(r.NormFloat64() * 1e6)
	case Double:
		if r.IntN(20) == 0 {
			return math.Inf(-1)
		}
		return r.NormFloat64() * 1e100
	case String:
		s := []string{"", "a", "café", "中文", "😀 emoji", "tab\there"}[r.IntN(6)]
		return s + string(make([]byte, 0))
	case Bytes:
		b := make([]byte, r.IntN(20))
		for i := range b {
			b[i] = byte(r.Uint32())
		}
		return b
	}
	panic("bad type")
}

// randomRow builds a row of the layout as RowReader returns it.
func randomRow(r *rand.Rand, cols []ColumnMeta, children [][]int, roots []int) Row {
	var entry func(i int) any
	length := func() int {
		switch r.IntN(5) {
		case 0, 1:
			return 0
		case 2:
			return 1
		}
		return r.IntN(6)
	}
	entry = func(i int) any {
		c := cols[i]
		if !c.Array {
			return randomValue(r, c.Type)
		}
		n := length()
		if len(children[i]) == 0 {
			vals := []any{}
			for k := 0; k < n; k++ {
				vals = append(vals, randomValue(r, c.Type))
			}
			return vals
		}
		elems := []Element{}
		for k := 0; k < n; k++ {
			el := Element{Value: randomValue(r, c.Type), Fields: []Field{}}
			for _, kid := range children[i] {
				el.Fields = append(el.Fields, Field{Column: kid, Name: cols[kid].Name, Value: entry(kid)})
			}
			elems = append(elems, el)
		}
		return elems
	}
	row := Row{}
	for _, i := range roots {
		row = append(row, Field{Column: i, Name: cols[i].Name, Value: entry(i)})
	}
	return row
}

// writeRow writes a row through the Writer's streaming methods.
func writeRow(w *Writer, cols []ColumnMeta, row Row) error {
	if err := w.StartRow(); err != nil {
		return err
	}
	writeFields(w, cols, row)
	return w.EndRow()
}

// writeFields writes the entries of fields without starting or ending a row.
func writeFields(w *Writer, cols []ColumnMeta, row Row) {
	var put func(f Field)
	put = func(f Field) {
		c := cols[f.Column]
		switch v := f.Value.(type) {
		case []any:
			w.WriteLength(f.Column, len(v))
			for _, e := range v {
				w.WriteValue(f.Column, e)
			}
		case []Element:
			w.WriteLength(f.Column, len(v))
			for _, e := range v {
				if c.Type != Null || e.Value != nil {
					w.WriteValue(f.Column, e.Value)
				}
				for _, kf := range e.Fields {
					put(kf)
				}
			}
		default:
			w.WriteValue(f.Column, v)
		}
	}
	for _, f := range row {
		put(f)
	}
}

func layoutTree(cols []ColumnMeta) (children [][]int, roots []int) {
	index := map[string]int{}
	children = make([][]int, len(cols))
	for i, c := range cols {
		index[c.Name] = i
		if c.Parent == "" {
			roots = append(roots, i)
		} else {
			p := index[c.Parent]
			children[p] = append(children[p], i)
		}
	}
	return children, roots
}

// TestRoundTripRandomLayouts writes random layouts and rows with random
// options and checks that every row reads back, and that every column can
// seek to any row.
func TestRoundTripRandomLayouts(t *testing.T) {
	t.Parallel()
	iterations := 150
	if testing.Short() {
		iterations = 30
	}
	for it := 0; it < iterations; it++ {
		r := rand.New(rand.NewPCG(uint64(it), 99))
		cols := randomLayout(r)
		children, roots := layoutTree(cols)
		opts := &WriterOptions{
			Codec:        []string{"", "null", "deflate", "snappy", "bzip2", "zstd"}[r.IntN(6)],
			Checksum:     []string{"", "null", "crc32", "crc-32"}[r.IntN(4)],
			BlockSize:    []int{16, 200, 4096, DefaultBlockSize}[r.IntN(4)],
			MemoryBudget: []int64{0, 1, 5000}[r.IntN(3)],
			Concurrency:  1 + r.IntN(3),
			TempDir:      t.TempDir(),
		}
		nrows := []int{0, 1, 10, 500}[r.IntN(4)]
		rows := make([]Row, nrows)
		for i := range rows {
			rows[i] = randomRow(r, cols, children, roots)
		}
		// Values columns must be sorted for seeking by value; sort is not
		// needed for reading, so only check reading here.
		var buf bytes.Buffer
		w, err := NewWriter(&buf, cols, opts)
		if err != nil {
			t.Fatalf("iteration %d: %v", it, err)
		}
		for i, row := range rows {
			if err := writeRow(w, cols, row); err != nil {
				t.Fatalf("iteration %d row %d: %v", it, i, err)
			}
		}
		if err := w.Close(); err != nil {
			t.Fatalf("iteration %d: %v", it, err)
		}
		rd, err := NewReader(bytes.NewReader(buf.Bytes()), int64(buf.Len()), &ReaderOptions{ReadAhead: it%2 == 0})
		if err != nil {
			t.Fatalf("iteration %d: %v", it, err)
		}
		if rd.RowCount() != int64(nrows) {
			t.Fatalf("iteration %d: %d rows, want %d", it, rd.RowCount(), nrows)
		}
		rr, err := rd.Rows()
		if err != nil {
			t.Fatal(err)
		}
		want := make([]string, nrows)
		for i, row := range rows {
			want[i] = string(row.AppendJSON(nil))
		}
		checkRows(t, rr, want, fmt.Sprintf("iteration %d (%+v)", it, opts))
		checkSeeks(t, rd, r, want, roots)
	}
}

// checkRows reads every row of rr and compares each, as JSON, with want;
// what says which file it is in a failure.
func checkRows(t *testing.T, rr *RowReader, want []string, what string) {
	t.Helper()
	for i := range want {
		got, err := rr.Read()
		if err != nil {
			t.Fatalf("%s row %d: %v", what, i, err)
		}
		if g := string(got.AppendJSON(nil)); g != want[i] {
			t.Fatalf("%s row %d:\n got %s\nwant %s", what, i, g, want[i])
		}
	}
	if _, err := rr.Read(); err != io.EOF {
		t.Fatalf("%s: after the last row: %v", what, err)
	}
}

// checkSeeks seeks every top-level column's reader (and, through them, the
// children) to random rows and compares with the rows read in order.
func checkSeeks(t *testing.T, rd *Reader, r *rand.Rand, want []string, roots []int) {
	if len(want) == 0 {
		return
	}
	rr, err := rd.Rows()
	if err != nil {
		t.Fatal(err)
	}
	for k := 0; k < 10; k++ {
		row := r.Int64N(int64(len(want)))
		for _, c := range rr.cols {
			if err := c.SeekRow(row); err != nil {
				t.Fatalf("seek column %s to %d: %v", c.meta.Name, row, err)
			}
		}
		rr.rowNumber = row
		got, err := rr.Read()
		if err != nil {
			t.Fatalf("row %d after seek: %v", row, err)
		}
		if g := string(got.AppendJSON(nil)); g != want[row] {
			t.Fatalf("row %d after seek:\n got %s\nwant %s", row, g, want[row])
		}
	}
}

// TestSpillBoundsMemory writes more than the memory budget and checks that
// the spill file was used and removed, and that the output is identical to
// an unspilled write.
func TestSpillBoundsMemory(t *testing.T) {
	cols := []ColumnMeta{{Name: "a", Type: Long}, {Name: "s", Type: String, Array: true}}
	write := func(budget int64, dir string) []byte {
		var buf bytes.Buffer
		w, err := NewWriter(&buf, cols, &WriterOptions{Codec: "deflate", Checksum: "crc32", MemoryBudget: budget, TempDir: dir, BlockSize: 4096})
		if err != nil {
			t.Fatal(err)
		}
		r := rand.New(rand.NewPCG(1, 2))
		for i := 0; i < 20000; i++ {
			w.StartRow()
			w.WriteLong(0, r.Int64())
			n := r.IntN(4)
			w.WriteLength(1, n)
			for k := 0; k < n; k++ {
				w.WriteString(1, fmt.Sprint(r.Int64()))
			}
			if err := w.EndRow(); err != nil {
				t.Fatal(err)
			}
		}
		if budget > 0 && w.spill == nil {
			t.Fatal("expected a spill file")
		}
		if err := w.Close(); err != nil {
			t.Fatal(err)
		}
		return buf.Bytes()
	}
	dir := t.TempDir()
	spilled := write(10000, dir)
	plain := write(-1, t.TempDir())
	if !bytes.Equal(spilled, plain) {
		t.Fatal("spilled output differs")
	}
	if left, _ := os.ReadDir(dir); len(left) != 0 {
		t.Fatalf("spill file left behind: %v", left)
	}
	// Abort right after a spill was started (its batch may still be being
	// written by its goroutine) waits for it and removes the file.
	abortDir := t.TempDir()
	var buf bytes.Buffer
	w, err := NewWriter(&buf, cols, &WriterOptions{Codec: "null", MemoryBudget: 20000, TempDir: abortDir, BlockSize: 1024})
	if err != nil {
		t.Fatal(err)
	}
	for i := 0; w.spilling == nil; i++ {
		w.StartRow()
		w.WriteLong(0, int64(i))
		w.WriteLength(1, 1)
		w.WriteString(1, "a string of some length to fill blocks")
		if err := w.EndRow(); err != nil {
			t.Fatal(err)
		}
	}
	w.Abort()
	if left, _ := os.ReadDir(abortDir); len(left) != 0 {
		t.Fatalf("Abort during a spill left %v", left)
	}
}

// TestWriterRejectsMisuse checks the row protocol checks.
func TestWriterRejectsMisuse(t *testing.T) {
	cols := []ColumnMeta{{Name: "p", Type: Null, Array: true}, {Name: "p#x", Type: Int, Parent: "p"}}
	cases := map[string]func(w *Writer){
		"missing child value": func(w *Writer) { w.WriteLength(0, 2); w.WriteInt(1, 1) },
		"extra child value":   func(w *Writer) { w.WriteLength(0, 0); w.WriteInt(1, 1) },
		"wrong type":          func(w *Writer) { w.WriteLength(0, 1); w.WriteLong(1, 1) },
		"no length":           func(w *Writer) {},
		"length on non-array": func(w *Writer) { w.WriteLength(1, 1) },
		"negative length":     func(w *Writer) { w.WriteLength(0, -1) },
	}
	for name, f := range cases {
		w, err := NewWriter(io.Discard, cols, nil)
		if err != nil {
			t.Fatal(err)
		}
		w.StartRow()
		f(w)
		if err := w.EndRow(); err == nil {
			t.Errorf("%s: EndRow accepted the row", name)
		}
		w.Abort()
	}
	bad := [][]ColumnMeta{
		{{Name: "a", Type: Int}, {Name: "a", Type: Int}},
		{{Name: "c", Type: Int, Parent: "p"}, {Name: "p", Type: Null, Array: true}},
		{{Name: "p", Type: Null}, {Name: "c", Type: Int, Parent: "p"}},
		{{Name: "v", Type: Int, Array: true, Values: true}},
		{{Name: "x", Type: Int, Meta: func() MetaData { var m MetaData; m.SetString(KeyCodec, "lz4"); return m }()}},
	}
	for i, cols := range bad {
		if _, err := NewWriter(io.Discard, cols, nil); err == nil {
			t.Errorf("layout %d accepted", i)
		}
	}
}

// TestAbortRow writes rows, some of them aborted halfway, and checks the
// file equals one written without the aborted rows.
func TestAbortRow(t *testing.T) {
	for it := 0; it < 40; it++ {
		r := rand.New(rand.NewPCG(uint64(it), 5))
		cols := randomLayout(r)
		children, roots := layoutTree(cols)
		opts := &WriterOptions{BlockSize: 64, Concurrency: 1}
		var clean, aborted bytes.Buffer
		wc, err := NewWriter(&clean, cols, opts)
		if err != nil {
			t.Fatal(err)
		}
		wa, err := NewWriter(&aborted, cols, opts)
		if err != nil {
			t.Fatal(err)
		}
		for i := 0; i < 60; i++ {
			if r.IntN(3) == 0 {
				junk := randomRow(r, cols, children, roots)
				wa.StartRow()
				writeFields(wa, cols, junk[:1+r.IntN(len(junk))]) // some or all of a row
				wa.WriteValue(0, struct{}{})
				wa.AbortRow()
			}
			row := randomRow(r, cols, children, roots)
			if err := writeRow(wc, cols, row); err != nil {
				t.Fatal(err)
			}
			if err := writeRow(wa, cols, row); err != nil {
				t.Fatalf("iteration %d row %d after an abort: %v", it, i, err)
			}
		}
		if err := wc.Close(); err != nil {
			t.Fatal(err)
		}
		if err := wa.Close(); err != nil {
			t.Fatal(err)
		}
		if !bytes.Equal(clean.Bytes(), aborted.Bytes()) {
			t.Fatalf("iteration %d: aborted rows left traces", it)
		}
	}
}

// TestWriterRejectsInvalidUTF8 checks that a string column refuses bytes
// that are not UTF-8, which no reader would accept, and that the row can be
// discarded and writing go on.
func TestWriterRejectsInvalidUTF8(t *testing.T) {
	var buf bytes.Buffer
	w, err := NewWriter(&buf, []ColumnMeta{{Name: "s", Type: String}}, nil)
	if err != nil {
		t.Fatal(err)
	}
	for _, bad := range []func(){
		func() { w.WriteString(0, "ok\xff") },
		func() { w.WriteStringBytes(0, []byte{0xc3}) },
		func() { w.WriteValue(0, "\xed\xa0\x80") }, // a surrogate
	} {
		w.StartRow()
		bad()
		if err := w.EndRow(); !errors.Is(err, ErrUsage) || !strings.Contains(err.Error(), "UTF-8") {
			t.Fatalf("invalid UTF-8 accepted: %v", err)
		}
		w.AbortRow()
	}
	if err := w.WriteRow("café"); err != nil {
		t.Fatal(err)
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
}

// TestCheckRowsOff writes random layouts and rows with row checks on and
// off, switching between rows, and checks that the files are the same.
func TestCheckRowsOff(t *testing.T) {
	for it := 0; it < 60; it++ {
		r := rand.New(rand.NewPCG(uint64(it), 17))
		cols := randomLayout(r)
		children, roots := layoutTree(cols)
		opts := &WriterOptions{BlockSize: []int{16, 200, 4096}[r.IntN(3)], Codec: "deflate", Concurrency: 1 + r.IntN(2)}
		var checked, unchecked bytes.Buffer
		wc, err := NewWriter(&checked, cols, opts)
		if err != nil {
			t.Fatal(err)
		}
		wu, err := NewWriter(&unchecked, cols, opts)
		if err != nil {
			t.Fatal(err)
		}
		if err := wu.CheckRows(false); err != nil {
			t.Fatal(err)
		}
		for i := 0; i < 200; i++ {
			if r.IntN(20) == 0 {
				if err := wu.CheckRows(r.IntN(2) == 0); err != nil {
					t.Fatal(err)
				}
			}
			row := randomRow(r, cols, children, roots)
			if err := writeRow(wc, cols, row); err != nil {
				t.Fatal(err)
			}
			if err := writeRow(wu, cols, row); err != nil {
				t.Fatalf("iteration %d row %d: %v", it, i, err)
			}
		}
		if err := wc.Close(); err != nil {
			t.Fatal(err)
		}
		if err := wu.Close(); err != nil {
			t.Fatalf("iteration %d: %v", it, err)
		}
		if !bytes.Equal(checked.Bytes(), unchecked.Bytes()) {
			t.Fatalf("iteration %d: the files differ", it)
		}
	}
}

// TestCheckRowsOffMisuse checks that with row checks off a row of the wrong
// shape is caught at Close, naming the column, and that AbortRow ends the
// file rather than leaving half a row in it.
func TestCheckRowsOffMisuse(t *testing.T) {
	cols := []ColumnMeta{{Name: "p", Type: Null, Array: true}, {Name: "p#x", Type: Int, Parent: "p"}, {Name: "n", Type: Long}}
	cases := map[string]struct {
		row  func(w *Writer)
		want string
	}{
		"missing child value": {func(w *Writer) { w.WriteLength(0, 2); w.WriteInt(1, 1); w.WriteLong(2, 1) }, `"p#x"`},
		"extra child value":   {func(w *Writer) { w.WriteLength(0, 0); w.WriteInt(1, 1); w.WriteLong(2, 1) }, `"p#x"`},
		"no length":           {func(w *Writer) { w.WriteLong(2, 1) }, `"p"`},
		"no value":            {func(w *Writer) { w.WriteLength(0, 0) }, `"n"`},
		"two values":          {func(w *Writer) { w.WriteLength(0, 0); w.WriteLong(2, 1); w.WriteLong(2, 2) }, `"n"`},
	}
	for name, c := range cases {
		w, err := NewWriter(io.Discard, cols, nil)
		if err != nil {
			t.Fatal(err)
		}
		w.CheckRows(false)
		good := func() { w.StartRow(); w.WriteLength(0, 1); w.WriteInt(1, 1); w.WriteLong(2, 1); w.EndRow() }
		good()
		w.StartRow()
		c.row(w)
		if err := w.EndRow(); err != nil {
			t.Fatalf("%s: EndRow with checks off: %v", name, err)
		}
		good()
		err = w.Close()
		if !errors.Is(err, ErrUsage) || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s: Close gave %v, want a usage error naming %s", name, err, c.want)
		}
	}
	w, err := NewWriter(io.Discard, cols, nil)
	if err != nil {
		t.Fatal(err)
	}
	w.CheckRows(false)
	w.StartRow()
	w.WriteLength(0, 1)
	if err := w.CheckRows(true); err == nil {
		t.Error("CheckRows inside a row was accepted")
	}
	w.AbortRow()
	if err := w.StartRow(); err == nil {
		t.Error("StartRow after AbortRow with checks off was accepted")
	}
	if err := w.Close(); !errors.Is(err, ErrUsage) {
		t.Errorf("Close after AbortRow with checks off: %v", err)
	}
}
