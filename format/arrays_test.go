package format

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"math/rand/v2"
	"reflect"
	"testing"
)

// arrayFile is a random file of array columns: for each batch type a
// top-level array column of it ("a:TYPE", lengths and items) and a column
// of it beneath a top-level array column of nulls ("p", lengths only), and
// the lengths and items written.
type arrayFile struct {
	data  []byte
	cols  []ColumnMeta
	lens  map[string][]int32 // each top-level array column's row lengths
	items map[string][]any   // each column's items, normalized
}

// arrayLength returns a random array length: often 0 or 1 (which the
// writer codes as runs), sometimes many.
func arrayLen(r *rand.Rand) int {
	switch r.IntN(6) {
	case 0, 1:
		return 0
	case 2, 3:
		return 1
	case 4:
		return r.IntN(6)
	}
	return r.IntN(40)
}

func writeArrayFile(t testing.TB, r *rand.Rand, rows int) *arrayFile {
	f := &arrayFile{lens: map[string][]int32{}, items: map[string][]any{}}
	for _, typ := range batchTypes {
		f.cols = append(f.cols, ColumnMeta{Name: "a:" + typ.String(), Type: typ, Array: true})
	}
	parent := len(f.cols)
	f.cols = append(f.cols, ColumnMeta{Name: "p", Type: Null, Array: true})
	for _, typ := range batchTypes {
		f.cols = append(f.cols, ColumnMeta{Name: "p:" + typ.String(), Type: typ, Parent: "p"})
	}
	var buf bytes.Buffer
	w, err := NewWriter(&buf, f.cols, &WriterOptions{
		Codec:     []string{"null", "deflate", "snappy"}[r.IntN(3)],
		Checksum:  []string{"null", "crc32"}[r.IntN(2)],
		BlockSize: []int{16, 64, 300, 4096, 1 << 16}[r.IntN(5)],
	})
	if err != nil {
		t.Fatal(err)
	}
	for range rows {
		if err := w.StartRow(); err != nil {
			t.Fatal(err)
		}
		for i, typ := range batchTypes {
			name := f.cols[i].Name
			n := arrayLen(r)
			w.WriteLength(i, n)
			f.lens[name] = append(f.lens[name], int32(n))
			for range n {
				v := batchValue(r, typ)
				w.WriteValue(i, v)
				f.items[name] = append(f.items[name], norm(v))
			}
		}
		n := arrayLen(r)
		w.WriteLength(parent, n)
		f.lens["p"] = append(f.lens["p"], int32(n))
		for j, typ := range batchTypes {
			col := parent + 1 + j
			for range n {
				v := batchValue(r, typ)
				w.WriteValue(col, v)
				f.items[f.cols[col].Name] = append(f.items[f.cols[col].Name], norm(v))
			}
		}
		if err := w.EndRow(); err != nil {
			t.Fatal(err)
		}
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	f.data = buf.Bytes()
	return f
}

// readArrayBatch reads up to len(lens) rows of a top-level array column by
// the batch reads, returning the rows read and their items, normalized.
func readArrayBatch(c *ColumnReader, lens []int32) (int, []any, error) {
	var out []any
	add := func(v any) { out = append(out, norm(v)) }
	var n int
	var err error
	switch c.typ {
	case Boolean:
		var v []bool
		n, v, err = ReadArrays(c, lens, v)
		for _, x := range v {
			add(x)
		}
	case Int:
		var v []int32
		n, v, err = ReadArrays(c, lens, v)
		for _, x := range v {
			add(x)
		}
	case Long:
		var v []int64
		n, v, err = ReadArrays(c, lens, v)
		for _, x := range v {
			add(x)
		}
	case Float:
		var v []float32
		n, v, err = ReadArrays(c, lens, v)
		for _, x := range v {
			add(x)
		}
	case Double:
		var v []float64
		n, v, err = ReadArrays(c, lens, v)
		for _, x := range v {
			add(x)
		}
	case String, Bytes:
		n, err = c.ReadArrayBytesTo(lens, func(b []byte) { add(b) })
	case Null:
		n, err = c.ReadLengths(lens)
	}
	return n, out, err
}

// readItemBatch reads the items of len(counts) rows of a column beneath an
// array by the batch reads, normalized.
func readItemBatch(c *ColumnReader, counts []int32) ([]any, error) {
	var out []any
	add := func(v any) { out = append(out, norm(v)) }
	var err error
	switch c.typ {
	case Boolean:
		var v []bool
		v, err = ReadItems(c, counts, v)
		for _, x := range v {
			add(x)
		}
	case Int:
		var v []int32
		v, err = ReadItems(c, counts, v)
		for _, x := range v {
			add(x)
		}
	case Long:
		var v []int64
		v, err = ReadItems(c, counts, v)
		for _, x := range v {
			add(x)
		}
	case Float:
		var v []float32
		v, err = ReadItems(c, counts, v)
		for _, x := range v {
			add(x)
		}
	case Double:
		var v []float64
		v, err = ReadItems(c, counts, v)
		for _, x := range v {
			add(x)
		}
	case String, Bytes:
		err = c.ReadItemBytesTo(counts, func(b []byte) { add(b) })
	}
	return out, err
}

// readItemsOne reads k items of c one by one, normalized.
func readItemsOne(c *ColumnReader, k int) ([]any, error) {
	var out []any
	for range k {
		var v any
		var err error
		switch c.typ {
		case Boolean:
			v, err = c.ReadBool()
		case Int:
			v, err = c.ReadInt()
		case Long:
			v, err = c.ReadLong()
		case Float:
			v, err = c.ReadFloat()
		case Double:
			v, err = c.ReadDouble()
		case String, Bytes:
			v, err = c.ReadBytes()
		}
		if err != nil {
			return out, err
		}
		out = append(out, norm(v))
	}
	return out, nil
}

// TestArrayBatchReads reads random files of array columns by the batch
// reads of arrays, in random batch sizes mixed with rows read by StartRow,
// NextLength and the single-value reads, and checks that every column
// gives the lengths and items written, that each read leaves the reader on
// the last row it read, and that io.EOF comes after the last row.
func TestArrayBatchReads(t *testing.T) {
	iterations := 40
	if testing.Short() {
		iterations = 10
	}
	for it := range iterations {
		r := rand.New(rand.NewPCG(uint64(it), 24))
		rows := []int{0, 1, 7, 500, 3000}[r.IntN(5)]
		f := writeArrayFile(t, r, rows)
		rd, err := NewReader(bytes.NewReader(f.data), int64(len(f.data)), &ReaderOptions{ReadAhead: r.IntN(2) == 0})
		if err != nil {
			t.Fatal(err)
		}
		parent := len(batchTypes)
		for i, cm := range f.cols {
			name := fmt.Sprintf("iteration %d, column %s", it, cm.Name)
			c, err := rd.Values(i)
			if err != nil {
				t.Fatal(err)
			}
			// A column beneath "p" takes its counts from p's lengths.
			lensOf := f.lens[cm.Name]
			if cm.Parent != "" {
				lensOf = f.lens["p"]
			}
			var gotLens []int32
			var gotItems []any
			row := 0
			for row < rows {
				k := batchSize(r)
				if r.IntN(4) == 0 { // one row by the single reads
					if err := c.StartRow(); err != nil {
						t.Fatalf("%s: StartRow at row %d: %v", name, row, err)
					}
					n := int(lensOf[row])
					if cm.Array {
						l, err := c.NextLength()
						if err != nil {
							t.Fatalf("%s: NextLength at row %d: %v", name, row, err)
						}
						n = l
						gotLens = append(gotLens, int32(l))
					}
					if cm.Type != Null {
						items, err := readItemsOne(c, n)
						if err != nil {
							t.Fatalf("%s: row %d: %v", name, row, err)
						}
						gotItems = append(gotItems, items...)
					}
					row++
					continue
				}
				if cm.Parent != "" {
					k = min(k, rows-row)
					items, err := readItemBatch(c, lensOf[row:row+k])
					if err != nil {
						t.Fatalf("%s: items of rows %d to %d: %v", name, row, row+k-1, err)
					}
					gotItems = append(gotItems, items...)
					row += k
				} else {
					lens := make([]int32, k)
					n, items, err := readArrayBatch(c, lens)
					if err != nil {
						t.Fatalf("%s: %d rows from row %d: %v", name, k, row, err)
					}
					if n != min(k, rows-row) {
						t.Fatalf("%s: %d rows from row %d read %d", name, k, row, n)
					}
					gotLens = append(gotLens, lens[:n]...)
					gotItems = append(gotItems, items...)
					row += n
				}
				if c.Row() != int64(row-1) {
					t.Fatalf("%s: after row %d the reader is on row %d", name, row-1, c.Row())
				}
			}
			if cm.Parent == "" {
				if !reflect.DeepEqual(gotLens, f.lens[cm.Name]) && (len(gotLens) > 0 || len(f.lens[cm.Name]) > 0) {
					t.Fatalf("%s: lengths differ", name)
				}
				if _, _, err := readArrayBatch(c, make([]int32, 3)); err != io.EOF {
					t.Fatalf("%s: a batch read after the last row: %v, want io.EOF", name, err)
				}
			} else if _, err := readItemBatch(c, []int32{1}); !errors.Is(err, ErrUsage) {
				t.Fatalf("%s: items past the last row: %v, want ErrUsage", name, err)
			}
			if i != parent && !reflect.DeepEqual(gotItems, f.items[cm.Name]) && (len(gotItems) > 0 || len(f.items[cm.Name]) > 0) {
				t.Fatalf("%s: items differ", name)
			}
		}
	}
}

// TestArrayBatchReadsRefuse checks that the batch reads of arrays refuse
// columns of another shape or type, and lengths the block cannot hold.
func TestArrayBatchReadsRefuse(t *testing.T) {
	r := rand.New(rand.NewPCG(1, 24))
	f := writeArrayFile(t, r, 50)
	rd, err := NewReader(bytes.NewReader(f.data), int64(len(f.data)), nil)
	if err != nil {
		t.Fatal(err)
	}
	col := func(name string) *ColumnReader {
		for i, c := range f.cols {
			if c.Name == name {
				cr, err := rd.Values(i)
				if err != nil {
					t.Fatal(err)
				}
				return cr
			}
		}
		t.Fatalf("no column %s", name)
		return nil
	}
	lens := make([]int32, 4)
	if _, _, err := ReadArrays(col("a:long"), lens, []int32(nil)); !errors.Is(err, ErrUsage) {
		t.Errorf("ReadArrays of int32 from a long column: %v", err)
	}
	if _, _, err := ReadArrays(col("p:int"), lens, []int32(nil)); !errors.Is(err, ErrUsage) {
		t.Errorf("ReadArrays from a column beneath an array: %v", err)
	}
	if _, err := ReadItems(col("a:int"), lens, []int32(nil)); !errors.Is(err, ErrUsage) {
		t.Errorf("ReadItems from an array column: %v", err)
	}
	if _, err := col("a:int").ReadLengths(lens); !errors.Is(err, ErrUsage) {
		t.Errorf("ReadLengths from an array column of ints: %v", err)
	}
	if err := col("p:int").ReadItemBytesTo(lens, func([]byte) {}); !errors.Is(err, ErrUsage) {
		t.Errorf("ReadItemBytesTo from a column of ints: %v", err)
	}
	// Counts that claim more items than the block holds.
	if _, err := ReadItems(col("p:double"), []int32{1 << 30}, []float64(nil)); !errors.Is(err, ErrFormat) {
		t.Errorf("ReadItems of more doubles than the block holds: %v", err)
	}
	if err := col("p:string").ReadItemBytesTo([]int32{1 << 30}, func([]byte) {}); !errors.Is(err, ErrFormat) {
		t.Errorf("ReadItemBytesTo of more strings than the block holds: %v", err)
	}
	if _, err := ReadItems(col("p:long"), []int32{-1}, []int64(nil)); !errors.Is(err, ErrFormat) {
		t.Errorf("ReadItems of a negative count: %v", err)
	}
}

// TestArrayBatchHostileLength checks that an array length the rest of the
// block cannot hold is refused by ReadArrays, as by NextLength, naming the
// row.
func TestArrayBatchHostileLength(t *testing.T) {
	var buf bytes.Buffer
	w, err := NewWriter(&buf, []ColumnMeta{{Name: "a", Type: Double, Array: true}}, nil)
	if err != nil {
		t.Fatal(err)
	}
	for i := range 3 {
		w.StartRow()
		w.WriteLength(0, i)
		for range i {
			w.WriteDouble(0, 1.5)
		}
		if err := w.EndRow(); err != nil {
			t.Fatal(err)
		}
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	data := buf.Bytes()
	// The third row's length, 2 (zig-zag 4), before its 16 bytes of
	// doubles, becomes 60 (zig-zag 120): more than the block holds.
	at := bytes.Index(data, append([]byte{4}, bytes.Repeat([]byte{0, 0, 0, 0, 0, 0, 0xf8, 0x3f}, 2)...))
	if at < 0 {
		t.Fatal("the third row's length is not in the file")
	}
	data[at] = 120
	rd, err := NewReader(bytes.NewReader(data), int64(len(data)), nil)
	if err != nil {
		t.Fatal(err)
	}
	c, err := rd.Values(0)
	if err != nil {
		t.Fatal(err)
	}
	lens := make([]int32, 3)
	n, items, err := ReadArrays(c, lens, []float64(nil))
	if !errors.Is(err, ErrFormat) || n != 2 || len(items) != 1 {
		t.Fatalf("ReadArrays of a length past the block: %d rows, %d items, %v", n, len(items), err)
	}
	var fe *Error
	if !errors.As(err, &fe) || fe.Row != 2 {
		t.Fatalf("the error does not name row 2: %#v", err)
	}
}

// TestArrayBatchReadsStopAtMaxItems checks that a batch read of arrays
// stops after the row that brings its items to MaxArrayItems, on that row,
// and that the next read goes on from the row after it.
func TestArrayBatchReadsStopAtMaxItems(t *testing.T) {
	const rows, per = 1500, 1000
	var buf bytes.Buffer
	w, err := NewWriter(&buf, []ColumnMeta{{Name: "i", Type: Int, Array: true}, {Name: "s", Type: String, Array: true}}, nil)
	if err != nil {
		t.Fatal(err)
	}
	for r := range rows {
		w.StartRow()
		w.WriteLength(0, per)
		w.WriteLength(1, per)
		for j := range per {
			w.WriteInt(0, int32(r*per+j))
			w.WriteString(1, "")
		}
		if err := w.EndRow(); err != nil {
			t.Fatal(err)
		}
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	rd, err := NewReader(bytes.NewReader(buf.Bytes()), int64(buf.Len()), nil)
	if err != nil {
		t.Fatal(err)
	}
	first := (MaxArrayItems + per - 1) / per // the row that reaches MaxArrayItems, counted from 1
	ci, err := rd.Values(0)
	if err != nil {
		t.Fatal(err)
	}
	lens := make([]int32, rows)
	n, items, err := ReadArrays(ci, lens, []int32(nil))
	if err != nil || n != first || len(items) != n*per || ci.Row() != int64(n-1) {
		t.Fatalf("ReadArrays: %d rows, %d items, on row %d, %v; want %d rows", n, len(items), ci.Row(), err, first)
	}
	n2, items, err := ReadArrays(ci, lens, items[:0])
	if err != nil || n2 != rows-first || len(items) != n2*per || items[0] != int32(first*per) {
		t.Fatalf("ReadArrays after the stop: %d rows, %d items, %v", n2, len(items), err)
	}
	cs, err := rd.Values(1)
	if err != nil {
		t.Fatal(err)
	}
	count := 0
	n, err = cs.ReadArrayBytesTo(lens, func([]byte) { count++ })
	if err != nil || n != first || count != n*per || cs.Row() != int64(n-1) {
		t.Fatalf("ReadArrayBytesTo: %d rows, %d items, on row %d, %v; want %d rows", n, count, cs.Row(), err, first)
	}
}
