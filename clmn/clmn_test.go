package clmn

import (
	"bytes"
	"encoding/binary"
	"encoding/csv"
	"errors"
	"io"
	"math"
	"math/rand/v2"
	"os"
	"runtime"
	"strconv"
	"strings"
	"sync"
	"testing"

	"github.com/klauspost/compress/zlib"
)

// value is one cell of a test table: i for INT32 and INT64, f for FLOAT64,
// s for STRING.
type value struct {
	i int64
	f float64
	s string
}

// writeRows writes rows (one []value per row) with w, without closing it.
func writeRows(t testing.TB, w *Writer, cols []Column, rows [][]value) {
	t.Helper()
	for _, row := range rows {
		for j, c := range cols {
			switch c.Type {
			case Int32:
				w.WriteInt32(j, int32(row[j].i))
			case Int64:
				w.WriteInt64(j, row[j].i)
			case Float64:
				w.WriteFloat64(j, row[j].f)
			case String:
				w.WriteString(j, []byte(row[j].s))
			}
		}
		if err := w.EndRow(); err != nil {
			t.Fatal(err)
		}
	}
}

// writeTable writes rows (one []value per row) with the Writer.
func writeTable(t testing.TB, cols []Column, rows [][]value, opts *WriterOptions) []byte {
	t.Helper()
	var buf bytes.Buffer
	w, err := NewWriter(&buf, cols, opts)
	if err != nil {
		t.Fatal(err)
	}
	writeRows(t, w, cols, rows)
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	return buf.Bytes()
}

// readColumn reads every value of column i.
func readColumn(rd *Reader, i int) ([]value, error) {
	cr, err := rd.Values(i)
	if err != nil {
		return nil, err
	}
	var out []value
	for cr.Next() {
		out = append(out, value{i: cr.Int(), f: cr.Float(), s: string(cr.Bytes())})
	}
	return out, cr.Err()
}

func randomTable(r *rand.Rand, ncols, nrows int) ([]Column, [][]value) {
	cols := make([]Column, ncols)
	for j := range cols {
		cols[j] = Column{Name: "c" + strconv.Itoa(j) + strings.Repeat("é", r.IntN(3)), Type: Type(r.IntN(4))}
	}
	strs := []string{"", ",", "\"", "a\nb", "日本語", "x", strings.Repeat("z", 300), "\x00"}
	rows := make([][]value, nrows)
	for i := range rows {
		row := make([]value, ncols)
		for j, c := range cols {
			switch c.Type {
			case Int32:
				row[j].i = int64([]int32{0, -1, math.MinInt32, math.MaxInt32, int32(r.Uint32())}[r.IntN(5)])
			case Int64:
				row[j].i = []int64{0, math.MinInt64, math.MaxInt64, int64(r.Uint64())}[r.IntN(4)]
			case Float64:
				row[j].f = []float64{0, math.Copysign(0, -1), math.MaxFloat64, math.SmallestNonzeroFloat64, math.Inf(-1), r.NormFloat64() * 1e6}[r.IntN(6)]
			case String:
				row[j].s = strs[r.IntN(len(strs))]
			}
		}
		rows[i] = row
	}
	return cols, rows
}

func sameValue(t Type, a, b value) bool {
	switch t {
	case Float64:
		return math.Float64bits(a.f) == math.Float64bits(b.f)
	case String:
		return a.s == b.s
	}
	return a.i == b.i
}

func TestRoundTripRandom(t *testing.T) {
	r := rand.New(rand.NewPCG(1, 2))
	for iter := 0; iter < 60; iter++ {
		nrows := []int{0, 1, 7, 5000}[iter%4]
		cols, rows := randomTable(r, 1+r.IntN(6), nrows)
		// A tiny spill size makes every column go through the temporary file.
		// A budget of 1 byte makes the compression stateless.
		data := writeTable(t, cols, rows, &WriterOptions{SpillSize: 1 + r.IntN(64), TempDir: t.TempDir(), MemoryBudget: int64(r.IntN(2))})
		rd, err := NewReader(bytes.NewReader(data), int64(len(data)), nil)
		if err != nil {
			t.Fatalf("iter %d: %v", iter, err)
		}
		if rd.RowCount() != int64(nrows) || rd.NumColumns() != len(cols) {
			t.Fatalf("iter %d: %d rows %d columns, want %d and %d", iter, rd.RowCount(), rd.NumColumns(), nrows, len(cols))
		}
		for j, c := range cols {
			got, err := readColumn(rd, j)
			if err != nil {
				t.Fatalf("iter %d column %d: %v", iter, j, err)
			}
			if len(got) != nrows {
				t.Fatalf("iter %d column %d: %d values, want %d", iter, j, len(got), nrows)
			}
			for i := range got {
				if !sameValue(c.Type, got[i], rows[i][j]) {
					t.Fatalf("iter %d column %d row %d: got %+v, want %+v", iter, j, i, got[i], rows[i][j])
				}
			}
		}
	}
}

// The reference implementation's own sample, read to exactly the values of
// the CSV it was made from.
func TestReferenceSample(t *testing.T) {
	data, err := os.ReadFile("../testdata/clmn/sample.clmn")
	if err != nil {
		t.Fatal(err)
	}
	f, err := os.Open("../testdata/clmn/sample.csv")
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	records, err := csv.NewReader(f).ReadAll()
	if err != nil {
		t.Fatal(err)
	}
	rd, err := NewReader(bytes.NewReader(data), int64(len(data)), nil)
	if err != nil {
		t.Fatal(err)
	}
	wantTypes := []Type{Int32, String, Int32, Float64, String, String}
	if rd.NumColumns() != len(records[0]) || rd.RowCount() != int64(len(records)-1) {
		t.Fatalf("%d columns %d rows, want %d and %d", rd.NumColumns(), rd.RowCount(), len(records[0]), len(records)-1)
	}
	for j := 0; j < rd.NumColumns(); j++ {
		c := rd.Column(j)
		if c.Name != records[0][j] || c.Type != wantTypes[j] {
			t.Fatalf("column %d is %q %v, want %q %v", j, c.Name, c.Type, records[0][j], wantTypes[j])
		}
		got, err := readColumn(rd, j)
		if err != nil {
			t.Fatal(err)
		}
		for i, v := range got {
			cell := records[i+1][j]
			switch c.Type {
			case Int32:
				if strconv.FormatInt(v.i, 10) != cell {
					t.Fatalf("%s row %d: %d, want %s", c.Name, i, v.i, cell)
				}
			case Float64:
				want, err := strconv.ParseFloat(cell, 64)
				if err != nil || v.f != want {
					t.Fatalf("%s row %d: %v, want %s", c.Name, i, v.f, cell)
				}
			case String:
				if v.s != cell {
					t.Fatalf("%s row %d: %q, want %q", c.Name, i, v.s, cell)
				}
			}
		}
	}
}

// recordingReaderAt records the byte ranges read.
type recordingReaderAt struct {
	r      *bytes.Reader
	mu     sync.Mutex
	ranges [][2]int64
}

func (r *recordingReaderAt) ReadAt(p []byte, off int64) (int, error) {
	n, err := r.r.ReadAt(p, off)
	r.mu.Lock()
	r.ranges = append(r.ranges, [2]int64{off, off + int64(n)})
	r.mu.Unlock()
	return n, err
}

func TestSelectiveReadTouchesOnlyItsColumn(t *testing.T) {
	data, err := os.ReadFile("../testdata/clmn/sample.clmn")
	if err != nil {
		t.Fatal(err)
	}
	ra := &recordingReaderAt{r: bytes.NewReader(data)}
	rd, err := NewReader(ra, int64(len(data)), nil)
	if err != nil {
		t.Fatal(err)
	}
	for _, rg := range ra.ranges {
		if rg[0] >= rd.HeaderSize() {
			t.Fatalf("opening read %v, past the %d-byte header", rg, rd.HeaderSize())
		}
	}
	ra.ranges = nil
	i := rd.Lookup("salary")
	if i < 0 {
		t.Fatal("no column salary")
	}
	if _, err := readColumn(rd, i); err != nil {
		t.Fatal(err)
	}
	c := rd.Column(i)
	if len(ra.ranges) == 0 {
		t.Fatal("nothing read")
	}
	for _, rg := range ra.ranges {
		if rg[0] < c.Offset || rg[1] > c.Offset+c.CompressedSize {
			t.Fatalf("read %v outside the column's block [%d, %d)", rg, c.Offset, c.Offset+c.CompressedSize)
		}
	}
}

// small returns a valid file of two columns and three rows, and its header
// entries' offsets.
func small(t *testing.T) []byte {
	cols := []Column{{Name: "n", Type: Int32}, {Name: "s", Type: String}}
	rows := [][]value{{{i: 1}, {s: "ab"}}, {{i: 2}, {s: ""}}, {{i: 3}, {s: "héllo"}}}
	return writeTable(t, cols, rows, nil)
}

// Entry field offsets in small's header: column "n" entry at 18, "s" at 38.
const (
	nType, nUsize, nCsize, nOff = 21, 22, 26, 30
	sType, sUsize, sCsize, sOff = 41, 42, 46, 50
)

func TestSection91(t *testing.T) {
	good := small(t)
	rd, err := NewReader(bytes.NewReader(good), int64(len(good)), nil)
	if err != nil {
		t.Fatal(err)
	}
	sCol := rd.Column(1)
	be32 := func(b []byte, at int, v uint32) { binary.BigEndian.PutUint32(b[at:], v) }
	be64 := func(b []byte, at int, v uint64) { binary.BigEndian.PutUint64(b[at:], v) }
	// A zlib stream of the "s" column's data with its string lengths
	// changed, recompressed so that only the content is wrong.
	recompressS := func(t *testing.T, raw []byte) []byte {
		b := append([]byte(nil), good[:sCol.Offset]...)
		var zb bytes.Buffer
		zw := newZlib(&zb)
		zw.Write(raw)
		zw.Close()
		b = append(b, zb.Bytes()...)
		be32(b, sCsize, uint32(zb.Len()))
		be32(b, sUsize, uint32(len(raw)))
		return b
	}
	tests := []struct {
		name   string
		mutate func(b []byte) []byte
		column string // "" for the header
		want   string
	}{
		{"magic", func(b []byte) []byte { b[0] = 'X'; return b }, "", "bad magic"},
		{"version", func(b []byte) []byte { b[5] = 2; return b }, "", "unsupported version 2"},
		{"no columns", func(b []byte) []byte { be32(b, 6, 0); return b }, "", "column count is 0"},
		{"huge column count", func(b []byte) []byte { be32(b, 6, math.MaxUint32); return b }, "", "can hold at most"},
		{"negative rows", func(b []byte) []byte { be64(b, 10, 1<<63); return b }, "", "negative row count"},
		{"rows vs size", func(b []byte) []byte { be64(b, 10, 4); return b }, "n", "4 rows"},
		{"type code", func(b []byte) []byte { b[nType] = 7; return b }, "n", "unknown type code 0x07"},
		{"int size", func(b []byte) []byte { be32(b, nUsize, 16); return b }, "n", "uncompressed size 16"},
		{"string size small", func(b []byte) []byte { be32(b, sUsize, 5); return b }, "s", "too small"},
		{"offset past end", func(b []byte) []byte { be64(b, sOff, uint64(len(b))+1); return b }, "s", "not inside"},
		{"offset huge", func(b []byte) []byte { be64(b, sOff, math.MaxUint64); return b }, "s", "not inside"},
		{"size past end", func(b []byte) []byte { be32(b, sCsize, uint32(len(b))); return b }, "s", "not inside"},
		{"offset in header", func(b []byte) []byte { be64(b, nOff, 20); return b }, "n", "inside the header"},
		{"overlap", func(b []byte) []byte {
			be64(b, sOff, uint64(sCol.Offset-1))
			be32(b, sCsize, uint32(sCol.CompressedSize+1))
			return b
		}, "s", "inside column #0's block"},
		{"truncated file", func(b []byte) []byte { return b[:len(b)-1] }, "s", "not inside"},
		{"name past end", func(b []byte) []byte { b[38], b[39] = 0xff, 0xff; return b }, "", "runs past the end"},
		{"name utf8", func(b []byte) []byte { b[20] = 0xff; return b }, "\xff", "not valid UTF-8"},
		{"duplicate name", func(b []byte) []byte { b[40] = 'n'; return b }, "n", "also used by column #0"},
		{"compressed size short", func(b []byte) []byte { be32(b, sCsize, uint32(sCol.CompressedSize-1)); return b }, "s", "zlib"},
		{"compressed size long", func(b []byte) []byte { b = append(b, 0); be32(b, sCsize, uint32(sCol.CompressedSize+1)); return b }, "s", "ends after"},
		{"bad zlib", func(b []byte) []byte { b[sCol.Offset+3] ^= 0xff; return b }, "s", ""},
		{"checksum", func(b []byte) []byte { b[len(b)-1] ^= 1; return b }, "s", "checksum"},
		{"string past column", func(b []byte) []byte {
			return recompressS(t, []byte{0, 2, 'a', 'b', 0, 0, 0, 9, 'h', 'e', 'l', 'l', 'o', 'x'})
		}, "s", "runs past the end"},
		{"string utf8", func(b []byte) []byte {
			return recompressS(t, []byte{0, 2, 'a', 0xff, 0, 0, 0, 1, 'h'})
		}, "s", "not valid UTF-8"},
		{"data after rows", func(b []byte) []byte {
			return recompressS(t, []byte{0, 1, 'a', 0, 0, 0, 1, 'h', 0, 0})
		}, "s", "continues after"},
		{"inflates past claim", func(b []byte) []byte {
			b = recompressS(t, []byte{0, 1, 'a', 0, 0, 0, 1, 'h', 0, 0})
			be32(b, sUsize, 8)
			return b
		}, "s", "past the column's uncompressed size"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			b := tc.mutate(append([]byte(nil), good...))
			rd, err := NewReader(bytes.NewReader(b), int64(len(b)), nil)
			if err == nil {
				for j := 0; j < rd.NumColumns() && err == nil; j++ {
					_, err = readColumn(rd, j)
				}
			}
			if err == nil {
				t.Fatal("no error")
			}
			var ce *Error
			if !errors.As(err, &ce) {
				t.Fatalf("%v: not an *Error", err)
			}
			if ce.Column != tc.column {
				t.Errorf("error names column %q, want %q: %v", ce.Column, tc.column, err)
			}
			if ce.Offset < 0 {
				t.Errorf("error names no offset: %v", err)
			}
			if !strings.Contains(err.Error(), tc.want) {
				t.Errorf("error %q does not say %q", err, tc.want)
			}
		})
	}
}

func TestWriterRejects(t *testing.T) {
	var buf bytes.Buffer
	w, err := NewWriter(&buf, []Column{{Name: "a", Type: Int32}, {Name: "b", Type: String}}, nil)
	if err != nil {
		t.Fatal(err)
	}
	w.WriteInt32(0, 1)
	w.WriteString(1, make([]byte, MaxString+1))
	err = w.EndRow()
	var ce *Error
	if !errors.As(err, &ce) || ce.Column != "b" || ce.Row != 0 || !strings.Contains(err.Error(), "longer than 65535") {
		t.Fatalf("got %v", err)
	}
	w.WriteInt32(0, 1)
	if err := w.EndRow(); err == nil || !strings.Contains(err.Error(), `"b"`) {
		t.Fatalf("missing value: got %v", err)
	}
	w.WriteInt64(0, 1)
	w.WriteString(1, []byte("x"))
	if err := w.EndRow(); err == nil || !strings.Contains(err.Error(), "INT64 value for a INT32 column") {
		t.Fatalf("wrong type: got %v", err)
	}
	w.WriteInt32(0, 5)
	w.WriteString(1, []byte("ok"))
	if err := w.EndRow(); err != nil {
		t.Fatal(err)
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	rd, err := NewReader(bytes.NewReader(buf.Bytes()), int64(buf.Len()), nil)
	if err != nil {
		t.Fatal(err)
	}
	if rd.RowCount() != 1 {
		t.Fatalf("%d rows, want only the good one", rd.RowCount())
	}
	if _, err := NewWriter(&buf, []Column{{Name: "a"}, {Name: "a"}}, nil); err == nil {
		t.Fatal("duplicate names accepted")
	}
}

// Zero rows: the reference writes an empty block (compressed size 0),
// which must read; our writer writes an empty zlib stream.
func TestZeroRows(t *testing.T) {
	ours := writeTable(t, []Column{{Name: "a", Type: String}}, nil, nil)
	hdr := append([]byte(nil), ours[:18+19+1]...)
	binary.BigEndian.PutUint32(hdr[18+2+1+1+4:], 0) // compressed size 0
	for _, b := range [][]byte{ours, hdr} {
		rd, err := NewReader(bytes.NewReader(b), int64(len(b)), nil)
		if err != nil {
			t.Fatal(err)
		}
		if v, err := readColumn(rd, 0); err != nil || len(v) != 0 {
			t.Fatalf("%v %v", v, err)
		}
	}
}

// The temporary file is gone once the Writer is closed or aborted, and is
// really used: a small spill size puts the columns there.
func TestWriterLeavesNoTemporaryFile(t *testing.T) {
	for _, abort := range []bool{false, true} {
		dir := t.TempDir()
		cols, rows := randomTable(rand.New(rand.NewPCG(5, 6)), 3, 30000)
		var buf bytes.Buffer
		w, err := NewWriter(&buf, cols, &WriterOptions{TempDir: dir, SpillSize: 512})
		if err != nil {
			t.Fatal(err)
		}
		writeRows(t, w, cols, rows)
		if w.tmp == nil || w.tmpSize == 0 {
			t.Fatal("nothing spilled")
		}
		if abort {
			w.Abort()
		} else if err := w.Close(); err != nil {
			t.Fatal(err)
		}
		if ents, _ := os.ReadDir(dir); len(ents) != 0 {
			t.Fatalf("left behind: %v", ents)
		}
	}
}

// A file the reference's jar made from a CSV whose last string is empty: it
// cannot read it back itself (it fails at the last, empty string); we read
// it.
func TestReferenceLastEmptyString(t *testing.T) {
	data, err := os.ReadFile("../testdata/clmn/last-empty.clmn")
	if err != nil {
		t.Fatal(err)
	}
	rd, err := NewReader(bytes.NewReader(data), int64(len(data)), nil)
	if err != nil {
		t.Fatal(err)
	}
	ids, err := readColumn(rd, rd.Lookup("id"))
	if err != nil {
		t.Fatal(err)
	}
	ss, err := readColumn(rd, rd.Lookup("s"))
	if err != nil {
		t.Fatal(err)
	}
	if len(ids) != 2 || ids[0].i != 1 || ids[1].i != 2 || len(ss) != 2 || ss[0].s != "x" || ss[1].s != "" {
		t.Fatalf("got %+v %+v", ids, ss)
	}
}

// manyColumns returns a CLMN file of n INT32 columns of rows rows, all 7,
// built by hand: the Writer refuses more than DefaultMaxColumns.
func manyColumns(t *testing.T, n, rows int) []byte {
	t.Helper()
	var stream bytes.Buffer
	z := zlib.NewWriter(&stream)
	z.Write(bytes.Repeat([]byte{0, 0, 0, 7}, rows))
	z.Close()
	h := binary.BigEndian.AppendUint16([]byte(Magic), Version)
	h = binary.BigEndian.AppendUint32(h, uint32(n))
	h = binary.BigEndian.AppendUint64(h, uint64(rows))
	size := len(h)
	for i := range n {
		size += entryFixedSize + len(strconv.Itoa(i))
	}
	for i := range n {
		name := strconv.Itoa(i)
		h = binary.BigEndian.AppendUint16(h, uint16(len(name)))
		h = append(h, name...)
		h = append(h, byte(Int32))
		h = binary.BigEndian.AppendUint32(h, uint32(4*rows))
		h = binary.BigEndian.AppendUint32(h, uint32(stream.Len()))
		h = binary.BigEndian.AppendUint64(h, uint64(size+i*stream.Len()))
	}
	for range n {
		h = append(h, stream.Bytes()...)
	}
	return h
}

// TestMaxColumns: a file of more columns than ReaderOptions.MaxColumns is
// refused from its column count, before the header entries are read, with
// an error naming the option; the default is DefaultMaxColumns, and the
// Writer writes no file the default Reader refuses.
func TestMaxColumns(t *testing.T) {
	data := manyColumns(t, 1000, 1)
	rd, err := NewReader(bytes.NewReader(data), int64(len(data)), nil)
	if err != nil {
		t.Fatal(err)
	}
	if v, err := readColumn(rd, 999); err != nil || v[0].i != 7 {
		t.Fatalf("column 999: %v, %v", v, err)
	}
	var alloc uint64
	for _, max := range []int{999, 10} {
		var before, after runtime.MemStats
		runtime.ReadMemStats(&before)
		_, err = NewReader(bytes.NewReader(data), int64(len(data)), &ReaderOptions{MaxColumns: max})
		runtime.ReadMemStats(&after)
		alloc = after.TotalAlloc - before.TotalAlloc
		var e *Error
		if !errors.Is(err, ErrLimit) || !errors.As(err, &e) || e.Offset != 6 || !strings.Contains(err.Error(), "MaxColumns") {
			t.Fatalf("MaxColumns %d: %v", max, err)
		}
		if alloc > 16<<10 {
			t.Errorf("MaxColumns %d: refusing allocated %d bytes", max, alloc)
		}
	}
	data = manyColumns(t, DefaultMaxColumns+1, 1)
	if _, err := NewReader(bytes.NewReader(data), int64(len(data)), nil); !errors.Is(err, ErrLimit) {
		t.Fatalf("%d columns by default: %v", DefaultMaxColumns+1, err)
	}
	cols := make([]Column, DefaultMaxColumns+1)
	for i := range cols {
		cols[i] = Column{Name: strconv.Itoa(i), Type: Int32}
	}
	if _, err := NewWriter(io.Discard, cols, nil); !errors.Is(err, ErrLimit) {
		t.Fatalf("writing %d columns: %v", len(cols), err)
	}
	if w, err := NewWriter(io.Discard, cols[:DefaultMaxColumns], &WriterOptions{TempDir: t.TempDir()}); err != nil {
		t.Fatalf("writing %d columns: %v", DefaultMaxColumns, err)
	} else {
		w.Abort()
	}
}

// TestColumnMemory: columns read side by side hold an inflater each only
// when they are large (past 4 KiB), within ReaderOptions.ColumnMemory: 100
// columns of 4,100 bytes do not fit in 1 MiB (the twentieth is refused,
// naming the option), but read one after the other they do, and 1,000
// one-row columns read side by side do too.
func TestColumnMemory(t *testing.T) {
	opts := &ReaderOptions{ColumnMemory: 1 << 20}
	sideBySide := func(data []byte) error {
		rd, err := NewReader(bytes.NewReader(data), int64(len(data)), opts)
		if err != nil {
			return err
		}
		crs := make([]*ColumnReader, rd.NumColumns())
		for j := range crs {
			crs[j], _ = rd.Values(j)
		}
		for {
			for _, cr := range crs {
				if !cr.Next() {
					if cr.Err() != nil {
						return cr.Err()
					}
					if cr.Row() != rd.RowCount() {
						return errors.New("ended early")
					}
				} else if cr.Int() != 7 {
					return errors.New("wrong value")
				}
			}
			if crs[0].Row() >= rd.RowCount() {
				return nil
			}
		}
	}
	large := manyColumns(t, 100, 1025)
	err := sideBySide(large)
	var e *Error
	if !errors.Is(err, ErrLimit) || !errors.As(err, &e) || e.Index < 10 || e.Index > 30 || !strings.Contains(err.Error(), "ColumnMemory") {
		t.Fatalf("100 large columns side by side: %v", err)
	}
	rd, err := NewReader(bytes.NewReader(large), int64(len(large)), opts)
	if err != nil {
		t.Fatal(err)
	}
	for j := range rd.NumColumns() {
		if v, err := readColumn(rd, j); err != nil || len(v) != 1025 {
			t.Fatalf("column %d alone: %d values, %v", j, len(v), err)
		}
	}
	if err := sideBySide(manyColumns(t, 1000, 1)); err != nil {
		t.Fatalf("1,000 small columns side by side: %v", err)
	}
}
