package format

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"math"
	"math/rand/v2"
	"reflect"
	"testing"
)

// batchTypes are the types the batch reads read.
var batchTypes = []ValueType{Boolean, Int, Long, Float, Double, String, Bytes}

// batchValue returns a random value of type t whose encoding takes one,
// two or more bytes, often few.
func batchValue(r *rand.Rand, t ValueType) any {
	switch t {
	case Int:
		v := int32(r.Uint32()) >> r.IntN(32)
		return v
	case Long:
		v := int64(r.Uint64()) >> r.IntN(64)
		return v
	case Float:
		if r.IntN(30) == 0 {
			return float32(math.NaN())
		}
	case Double:
		if r.IntN(30) == 0 {
			return math.NaN()
		}
	case String:
		if r.IntN(5) == 0 {
			return string(bytes.Repeat([]byte{'x'}, r.IntN(300)))
		}
	}
	return randomValue(r, t)
}

// writeBatchFile writes rows random rows of one top-level column of each
// batch type, with random block sizes, codecs and checksums.
func writeBatchFile(t testing.TB, r *rand.Rand, rows int) ([]byte, [][]any) {
	var cols []ColumnMeta
	for _, typ := range batchTypes {
		c := ColumnMeta{Name: typ.String(), Type: typ}
		if r.IntN(3) == 0 {
			c.Meta.SetString(KeyCodec, []string{"null", "deflate", "snappy", "zstd"}[r.IntN(4)])
		}
		cols = append(cols, c)
	}
	var buf bytes.Buffer
	w, err := NewWriter(&buf, cols, &WriterOptions{
		Codec:     []string{"null", "deflate", "snappy"}[r.IntN(3)],
		Checksum:  []string{"null", "crc32"}[r.IntN(2)],
		BlockSize: []int{16, 64, 300, 4096, 1 << 16}[r.IntN(5)],
	})
	if err != nil {
		t.Fatal(err)
	}
	vals := make([][]any, len(cols))
	for i := 0; i < rows; i++ {
		row := make([]any, len(cols))
		for k, c := range cols {
			row[k] = batchValue(r, c.Type)
			vals[k] = append(vals[k], row[k])
		}
		if err := w.WriteRow(row...); err != nil {
			t.Fatal(err)
		}
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	return buf.Bytes(), vals
}

// norm makes a value comparable with reflect.DeepEqual: floats by their
// bits (NaN), bytes and strings as strings.
func norm(v any) any {
	switch v := v.(type) {
	case float32:
		return math.Float32bits(v)
	case float64:
		return math.Float64bits(v)
	case []byte:
		return string(v)
	}
	return v
}

// readOne reads the next row's value by StartRow and the single-value read.
func readOne(c *ColumnReader) (any, error) {
	if err := c.StartRow(); err != nil {
		return nil, err
	}
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
	return norm(v), err
}

// readBatch reads up to n rows by the batch read of c's type.
func readBatch(c *ColumnReader, n int) ([]any, error) {
	var k int
	var err error
	var out []any
	switch c.typ {
	case Boolean:
		d := make([]bool, n)
		k, err = c.ReadBools(d)
		for _, v := range d[:k] {
			out = append(out, v)
		}
	case Int:
		d := make([]int32, n)
		k, err = c.ReadInts(d)
		for _, v := range d[:k] {
			out = append(out, v)
		}
	case Long:
		d := make([]int64, n)
		k, err = c.ReadLongs(d)
		for _, v := range d[:k] {
			out = append(out, v)
		}
	case Float:
		d := make([]float32, n)
		k, err = c.ReadFloats(d)
		for _, v := range d[:k] {
			out = append(out, norm(v))
		}
	case Double:
		d := make([]float64, n)
		k, err = c.ReadDoubles(d)
		for _, v := range d[:k] {
			out = append(out, norm(v))
		}
	case String, Bytes:
		next := 0
		k, err = c.ReadBytesTo(n, func(i int, b []byte) {
			if i != next {
				panic(fmt.Sprintf("ReadBytesTo called fn for row %d, want %d", i, next))
			}
			next++
			out = append(out, string(b))
		})
	}
	if k != len(out) {
		return out, fmt.Errorf("batch read returned %d, gave %d values", k, len(out))
	}
	return out, err
}

// batchSize returns a random batch size from 1 to 5000, often small.
func batchSize(r *rand.Rand) int {
	switch r.IntN(4) {
	case 0:
		return 1 + r.IntN(8)
	case 1:
		return 1 + r.IntN(5000)
	}
	return 1 + r.IntN(200)
}

// TestBatchReadsMatchSingleReads reads random files of every batch type
// both by the batch reads, in random batch sizes mixed with single-value
// reads and seeks, and by StartRow and the single-value reads, and checks
// that they give the written values, the same counts, and io.EOF at the
// same row.
func TestBatchReadsMatchSingleReads(t *testing.T) {
	t.Parallel()
	iterations := 60
	if testing.Short() {
		iterations = 15
	}
	for it := 0; it < iterations; it++ {
		r := rand.New(rand.NewPCG(uint64(it), 25))
		rows := []int{0, 1, 7, 500, 3000, 12000}[r.IntN(6)]
		data, vals := writeBatchFile(t, r, rows)
		rd, err := NewReader(bytes.NewReader(data), int64(len(data)), &ReaderOptions{ReadAhead: r.IntN(2) == 0})
		if err != nil {
			t.Fatal(err)
		}
		for col := range batchTypes {
			want := make([]any, len(vals[col]))
			for i, v := range vals[col] {
				want[i] = norm(v)
			}
			b, err := rd.Values(col)
			if err != nil {
				t.Fatal(err)
			}
			one, err := rd.Values(col)
			if err != nil {
				t.Fatal(err)
			}
			what := fmt.Sprintf("iteration %d column %s", it, batchTypes[col])
			row := int64(0) // the next row to read
			for step := 0; step < 60; step++ {
				switch op := r.IntN(10); {
				case op == 0: // seek both
					row = r.Int64N(int64(rows) + 1)
					if err := b.SeekRow(row); err != nil {
						t.Fatalf("%s: SeekRow(%d): %v", what, row, err)
					}
					if err := one.SeekRow(row); err != nil {
						t.Fatalf("%s: SeekRow(%d): %v", what, row, err)
					}
				case op == 1: // one row by the single read on the batch reader
					v, err := readOne(b)
					if row == int64(rows) {
						if err != io.EOF {
							t.Fatalf("%s: at the end, single read: %v, want io.EOF", what, err)
						}
						continue
					}
					if err != nil || !reflect.DeepEqual(v, want[row]) {
						t.Fatalf("%s row %d: single read %v, %v; want %v", what, row, v, err, want[row])
					}
					if _, err := readOne(one); err != nil {
						t.Fatal(err)
					}
					row++
				default:
					n := batchSize(r)
					got, err := readBatch(b, n)
					left := int(int64(rows) - row)
					if left == 0 {
						if err != io.EOF || len(got) != 0 {
							t.Fatalf("%s: at the end, batch read gave %d, %v; want 0, io.EOF", what, len(got), err)
						}
						continue
					}
					if err != nil {
						t.Fatalf("%s row %d: batch of %d: %v", what, row, n, err)
					}
					if len(got) != min(n, left) {
						t.Fatalf("%s row %d: batch of %d read %d, want %d", what, row, n, len(got), min(n, left))
					}
					for i, v := range got {
						w, err := readOne(one)
						if err != nil {
							t.Fatal(err)
						}
						if !reflect.DeepEqual(v, w) || !reflect.DeepEqual(v, want[row+int64(i)]) {
							t.Fatalf("%s row %d: batch read %v, single read %v, written %v", what, row+int64(i), v, w, want[row+int64(i)])
						}
					}
					if b.Row() != one.Row() || b.Row() != row+int64(len(got))-1 {
						t.Fatalf("%s: after the batch, Row %d, single reader's %d, want %d", what, b.Row(), one.Row(), row+int64(len(got))-1)
					}
					row += int64(len(got))
				}
			}
			b.Close()
			one.Close()
		}
	}
}

// TestBatchReadsUsage checks that a batch read of the wrong type, or of a
// column that is an array or has a parent, is an ErrUsage naming the
// column.
func TestBatchReadsUsage(t *testing.T) {
	cols := []ColumnMeta{{Name: "l", Type: Long}, {Name: "a", Type: Long, Array: true}}
	var buf bytes.Buffer
	w, err := NewWriter(&buf, cols, nil)
	if err != nil {
		t.Fatal(err)
	}
	if err := w.StartRow(); err != nil {
		t.Fatal(err)
	}
	w.WriteLong(0, 1)
	w.WriteLength(1, 1)
	w.WriteLong(1, 2)
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
	l, _ := rd.Values(0)
	a, _ := rd.Values(1)
	for what, err := range map[string]error{
		"ints of a long column":  func() error { _, err := l.ReadInts(make([]int32, 1)); return err }(),
		"bytes of a long column": func() error { _, err := l.ReadBytesTo(1, func(int, []byte) {}); return err }(),
		"longs of an array":      func() error { _, err := a.ReadLongs(make([]int64, 1)); return err }(),
	} {
		var e *Error
		if !errors.Is(err, ErrUsage) || !errors.As(err, &e) || e.Column == "" {
			t.Errorf("%s: %v, want an ErrUsage naming the column", what, err)
		}
	}
	if n, err := l.ReadLongs(nil); n != 0 || err != nil {
		t.Errorf("ReadLongs(nil) = %d, %v; want 0, nil", n, err)
	}
}

// readAllBoth reads every row of column col of data by the batch reads
// (batch sizes from r) and by the single-value reads, and returns both
// series of values and the errors that ended them.
func readAllBoth(data []byte, col int, r *rand.Rand) (batch, single []any, berr, serr error) {
	opts := &ReaderOptions{MaxBlockSize: 1 << 20, BlockMemory: 8 << 20}
	rd, err := NewReader(bytes.NewReader(data), int64(len(data)), opts)
	if err != nil {
		return nil, nil, err, err
	}
	if col >= rd.NumColumns() {
		return
	}
	m, _ := rd.Column(col)
	if m == nil || m.Array || m.Parent != "" || !m.Type.batchable() {
		return
	}
	b, err := rd.Values(col)
	if err != nil {
		return nil, nil, err, err
	}
	defer b.Close()
	one, err := rd.Values(col)
	if err != nil {
		return nil, nil, err, err
	}
	defer one.Close()
	for len(single) < maxCompared {
		v, err := readOne(one)
		if err != nil {
			serr = err
			break
		}
		single = append(single, v)
	}
	for {
		got, err := readBatch(b, batchSize(r))
		batch = append(batch, got...)
		if err != nil {
			berr = err
			break
		}
		if len(batch) >= maxCompared {
			break
		}
	}
	if len(batch) >= maxCompared || len(single) >= maxCompared {
		// Only the first values are compared.
		batch, single = batch[:min(len(batch), maxCompared)], single[:min(len(single), maxCompared)]
		berr, serr = nil, nil
	}
	return
}

// maxCompared bounds the values readAllBoth compares, so that a damaged
// file claiming millions of rows is quick.
const maxCompared = 1 << 14

// batchable reports whether the batch reads read type t.
func (t ValueType) batchable() bool {
	for _, b := range batchTypes {
		if t == b {
			return true
		}
	}
	return false
}

// TestBatchReadsOfDamagedBlocks damages random bytes of the blocks of
// random files and checks that the batch reads give the same values and
// the same error (column, block, row) as the single-value reads.
func TestBatchReadsOfDamagedBlocks(t *testing.T) {
	t.Parallel()
	iterations := 150
	if testing.Short() {
		iterations = 30
	}
	damaged := 0 // reads that ended in an error other than io.EOF
	for it := 0; it < iterations; it++ {
		r := rand.New(rand.NewPCG(uint64(it), 27))
		data, _ := writeBatchFile(t, r, 1+r.IntN(800))
		rd, err := NewReader(bytes.NewReader(data), int64(len(data)), nil)
		if err != nil {
			t.Fatal(err)
		}
		col := r.IntN(len(batchTypes))
		off, size := rd.ColumnRange(col)
		if size == 0 {
			continue
		}
		bad := bytes.Clone(data)
		for k := 0; k < 1+r.IntN(3); k++ {
			bad[off+r.Int64N(size)] = byte(r.Uint32())
		}
		batch, single, berr, serr := readAllBoth(bad, col, r)
		what := fmt.Sprintf("iteration %d column %s", it, batchTypes[col])
		if !reflect.DeepEqual(batch, single) {
			t.Fatalf("%s: batch read %d values, single reads %d, or they differ", what, len(batch), len(single))
		}
		if fmt.Sprint(berr) != fmt.Sprint(serr) {
			t.Fatalf("%s: batch read ended with %v, single reads with %v", what, berr, serr)
		}
		if berr != nil && berr != io.EOF {
			damaged++
		}
	}
	if damaged < iterations/10 {
		t.Errorf("only %d of %d damaged files gave an error: the damage misses the blocks", damaged, iterations)
	}
	t.Logf("%d of %d damaged files gave an error", damaged, iterations)
}

// FuzzBatchReads reads every top-level column of damaged files by the
// batch reads and by the single-value reads: neither panics, and both
// give the same values and errors.
func FuzzBatchReads(f *testing.F) {
	for seed := range 6 {
		r := rand.New(rand.NewPCG(uint64(seed), 3))
		data, _ := writeBatchFile(f, r, 1+r.IntN(300))
		f.Add(data, uint64(seed))
	}
	f.Fuzz(func(t *testing.T, data []byte, seed uint64) {
		for col := range batchTypes {
			r := rand.New(rand.NewPCG(seed, 1))
			batch, single, berr, serr := readAllBoth(data, col, r)
			if !reflect.DeepEqual(batch, single) || fmt.Sprint(berr) != fmt.Sprint(serr) {
				t.Fatalf("column %d: batch read %d values and %v, single reads %d and %v", col, len(batch), berr, len(single), serr)
			}
		}
	})
}

// After a block fails to load, seeking to its first row fails again
// rather than reading the block held before as if it were that one, and
// seeking back into the block before reads on into the damaged block's
// error again.
func TestSeekAfterFailedBlock(t *testing.T) {
	var buf bytes.Buffer
	w, err := NewWriter(&buf, []ColumnMeta{{Name: "n", Type: Long}}, &WriterOptions{Checksum: "crc32", BlockSize: 64})
	if err != nil {
		t.Fatal(err)
	}
	for i := range 2000 {
		if err := w.WriteRow(int64(i)); err != nil {
			t.Fatal(err)
		}
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	data := buf.Bytes()
	rd, err := NewReader(bytes.NewReader(data), int64(len(data)), nil)
	if err != nil {
		t.Fatal(err)
	}
	blocks, err := rd.Blocks(0)
	if err != nil || len(blocks) < 4 {
		t.Fatalf("%d blocks, %v", len(blocks), err)
	}
	for _, b := range []int{1, len(blocks) / 2} {
		bad := bytes.Clone(data)
		bad[blocks[b].Offset+int64(blocks[b].CompressedSize)/2] ^= 0x55
		rd, err := NewReader(bytes.NewReader(bad), int64(len(bad)), nil)
		if err != nil {
			t.Fatal(err)
		}
		c, err := rd.Values(0)
		if err != nil {
			t.Fatal(err)
		}
		first := blocks[b].FirstRow
		vals := make([]int64, 2000)
		if n, err := c.ReadLongs(vals); int64(n) != first || !errors.Is(err, ErrChecksum) {
			t.Fatalf("block %d: %d values, %v", b, n, err)
		}
		if err := c.SeekRow(first); !errors.Is(err, ErrChecksum) {
			t.Fatalf("block %d: seek to its first row: %v", b, err)
		}
		from := blocks[b-1].FirstRow + 1
		if err := c.SeekRow(from); err != nil {
			t.Fatalf("block %d: seek to row %d: %v", b, from, err)
		}
		n, err := c.ReadLongs(vals)
		if int64(n) != first-from || !errors.Is(err, ErrChecksum) {
			t.Fatalf("block %d: after the seek back, %d values, %v", b, n, err)
		}
		for i, v := range vals[:n] {
			if v != from+int64(i) {
				t.Fatalf("block %d: value %d is %d", b, i, v)
			}
		}
	}
}
