package trevni1

import (
	"bytes"
	"compress/zlib"
	"encoding/binary"
	"errors"
	"fmt"
	"runtime"
	"strings"
	"testing"

	"github.com/trevni-go/trevni/format"
)

// rawBlock is one block of a file built by rawFile: what its descriptor
// claims and its stored bytes.
type rawBlock struct {
	rows, uncompressed uint32
	data               []byte
}

// rawFile lays out a version-1 file of int columns (no levels) by hand, so
// that tests can state what no writer would: column i's block table is
// tables[tableOf[i]], so that columns can share one.
func rawFile(rows uint64, codec string, tables [][]rawBlock, tableOf []int) []byte {
	str := func(b []byte, s string) []byte {
		b = binary.AppendVarint(b, int64(len(s)))
		return append(b, s...)
	}
	b := []byte(Magic)
	b = binary.LittleEndian.AppendUint64(b, rows)
	b = binary.LittleEndian.AppendUint32(b, uint32(len(tableOf)))
	if codec == "" {
		b = append(b, 0)
	} else {
		b = binary.AppendVarint(b, 1)
		b = str(str(b, KeyCodec), codec)
	}
	for i := range tableOf {
		b = binary.AppendVarint(b, 2)
		b = str(str(b, KeyName), fmt.Sprintf("c%d", i))
		b = str(str(b, KeyType), "int")
	}
	var body []byte
	at := make([]int64, len(tables))
	for k, t := range tables {
		at[k] = int64(len(body))
		body = binary.LittleEndian.AppendUint32(body, uint32(len(t)))
		for _, bl := range t {
			body = binary.LittleEndian.AppendUint32(body, bl.rows)
			body = binary.LittleEndian.AppendUint32(body, bl.uncompressed)
			body = binary.LittleEndian.AppendUint32(body, uint32(len(bl.data)))
		}
		for _, bl := range t {
			body = append(body, bl.data...)
		}
	}
	start := int64(len(b) + 8*len(tableOf))
	for _, k := range tableOf {
		b = binary.LittleEndian.AppendUint64(b, uint64(start+at[k]))
	}
	return append(b, body...)
}

// zlibZeros returns a zlib stream of n zero bytes.
func zlibZeros(t testing.TB, n int) []byte {
	t.Helper()
	var buf bytes.Buffer
	w, err := zlib.NewWriterLevel(&buf, zlib.BestCompression)
	if err != nil {
		t.Fatal(err)
	}
	chunk := make([]byte, 1<<20)
	for ; n > 0; n -= len(chunk) {
		if _, err := w.Write(chunk[:min(n, len(chunk))]); err != nil {
			t.Fatal(err)
		}
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	return buf.Bytes()
}

// allocDuring returns the bytes allocated while f runs: an upper bound of
// the memory it held at its peak.
func allocDuring(f func()) uint64 {
	var before, after runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&before)
	f()
	runtime.ReadMemStats(&after)
	return after.TotalAlloc - before.TotalAlloc
}

func openRaw(t *testing.T, data []byte, opts *ReaderOptions) *Reader {
	t.Helper()
	rd, err := NewReader(bytes.NewReader(data), int64(len(data)), opts)
	if err != nil {
		t.Fatal(err)
	}
	return rd
}

// TestBlockSizeLimit: eight bzip2 blocks each claiming 1 GiB open (the
// header is fine), and each is refused when read, before anything is
// allocated for it, with an error naming the option that raises the limit.
func TestBlockSizeLimit(t *testing.T) {
	garbage := bytes.Repeat([]byte("BZh91AY&SY"), 60)
	tables := make([][]rawBlock, 8)
	for i := range tables {
		tables[i] = []rawBlock{{rows: 1, uncompressed: 1 << 30, data: garbage}}
	}
	data := rawFile(1, CodecBzip2, tables, []int{0, 1, 2, 3, 4, 5, 6, 7})
	rd := openRaw(t, data, nil)
	var err error
	alloc := allocDuring(func() { err = rd.Verify() })
	var errs []error
	if j, ok := err.(interface{ Unwrap() []error }); ok {
		errs = j.Unwrap()
	}
	if len(errs) != 8 {
		t.Fatalf("Verify: %d errors, want 8: %v", len(errs), err)
	}
	for i, e := range errs {
		var te *Error
		if !errors.Is(e, ErrLimit) || !errors.Is(e, format.ErrLimit) || !errors.As(e, &te) || te.Column != i || !strings.Contains(e.Error(), "MaxBlockSize") {
			t.Errorf("column %d: %v", i, e)
		}
	}
	if alloc > 1<<20 {
		t.Errorf("Verify allocated %d KiB", alloc>>10)
	}
	// The limit can be raised: then the block is decompressed (and found
	// corrupt).
	rd = openRaw(t, data, &ReaderOptions{MaxBlockSize: 2 << 30, BlockMemory: -1})
	if err := rd.Values(0).Next(); errors.Is(err, ErrLimit) || !errors.Is(err, ErrFormat) {
		t.Fatalf("with MaxBlockSize 2 GiB: %v", err)
	}
}

// TestDecompressionStopsAtSize: a deflate block stating 4 MiB that
// inflates to 256 MiB stops one byte past its stated size.
func TestDecompressionStopsAtSize(t *testing.T) {
	bomb := zlibZeros(t, 256<<20)
	data := rawFile(1, CodecDeflate, [][]rawBlock{{{rows: 1, uncompressed: 4 << 20, data: bomb}}}, []int{0})
	rd := openRaw(t, data, nil)
	var err error
	alloc := allocDuring(func() { err = rd.Verify() })
	if !errors.Is(err, ErrFormat) {
		t.Fatalf("Verify: %v", err)
	}
	if alloc > 24<<20 {
		t.Errorf("Verify allocated %d MiB for a block of 4 MiB", alloc>>20)
	}
}

// TestBlockMemory: eight columns of one 4 MiB block each, read at once
// within a budget of 16 MiB: the fourth is refused, naming the option.
// Read one after the other (Verify), they fit, each given back in turn.
func TestBlockMemory(t *testing.T) {
	const n = 4 << 20
	zeros := zlibZeros(t, n) // n int values of 0
	tables := make([][]rawBlock, 8)
	for i := range tables {
		tables[i] = []rawBlock{{rows: n, uncompressed: n, data: zeros}}
	}
	data := rawFile(n, CodecDeflate, tables, []int{0, 1, 2, 3, 4, 5, 6, 7})
	opts := &ReaderOptions{BlockMemory: 16 << 20}
	rd := openRaw(t, data, opts)
	var crs []*ColumnReader
	var err error
	alloc := allocDuring(func() {
		for i := range 8 {
			cr := rd.Values(i)
			crs = append(crs, cr)
			if err = cr.Next(); err != nil {
				break
			}
		}
	})
	var te *Error
	if !errors.Is(err, ErrLimit) || !errors.As(err, &te) || te.Column != 3 || !strings.Contains(err.Error(), "BlockMemory") {
		t.Fatalf("reading eight columns at once: %v", err)
	}
	if alloc > 20<<20 {
		t.Errorf("reading allocated %d MiB past the budget of 16 MiB", alloc>>20)
	}
	for _, cr := range crs {
		cr.Close()
	}
	if err := openRaw(t, data, opts).Verify(); err != nil {
		t.Fatalf("Verify within the budget: %v", err)
	}
	// Readers dropped without Close give their share back once garbage.
	rd = openRaw(t, data, opts)
	for range 3 {
		for i := range 8 {
			if err := rd.Values(i).Next(); err != nil {
				t.Fatalf("column %d read alone: %v", i, err)
			}
		}
	}
}

// TestSharedBlockTable: 2,000 columns all starting at one block table of
// 10,000 blocks are refused at once, without reading a table for each;
// so is a column whose blocks run into the next column's bytes.
func TestSharedBlockTable(t *testing.T) {
	table := make([]rawBlock, 10000)
	for b := range table {
		table[b] = rawBlock{rows: 1, uncompressed: 1, data: []byte{2}}
	}
	tableOf := make([]int, 2000)
	data := rawFile(uint64(len(table)), "", [][]rawBlock{table}, tableOf)
	var err error
	alloc := allocDuring(func() { _, err = NewReader(bytes.NewReader(data), int64(len(data)), nil) })
	var te *Error
	if !errors.Is(err, ErrFormat) || !errors.As(err, &te) || te.Column != 1 || !strings.Contains(err.Error(), `column 0 ("c0") starts too`) {
		t.Fatalf("shared table: %v", err)
	}
	if alloc > 4<<20 {
		t.Errorf("opening allocated %d MiB", alloc>>20)
	}
	// Two columns, the first claiming a block that takes the second's bytes.
	data = rawFile(1, "", [][]rawBlock{{{rows: 1, uncompressed: 22, data: []byte{2}}}, {{rows: 1, uncompressed: 1, data: []byte{4}}}}, []int{0, 1})
	_, err = NewReader(bytes.NewReader(data), int64(len(data)), nil)
	if !errors.Is(err, ErrFormat) || !errors.As(err, &te) || te.Column != 0 || !strings.Contains(err.Error(), "next column") {
		t.Fatalf("overlapping columns: %v", err)
	}
}

// TestWriterMaxBlockSize: the Writer writes no block its Reader refuses:
// a value larger than WriterOptions.MaxBlockSize is refused before it is
// copied, naming the column and row, and so is a row of many entries that
// passes it; a value within it is written and read back by a Reader with
// the same limit.
func TestWriterMaxBlockSize(t *testing.T) {
	const limit = 1 << 20
	write := func(f func(w *Writer)) ([]byte, error) {
		var buf bytes.Buffer
		w, err := NewWriter(&buf, []ColumnSpec{{Name: "s", Type: String, MaxDef: 1}, {Name: "r", Type: Long, MaxDef: 2, MaxRep: 1}},
			&WriterOptions{MaxBlockSize: limit, TempDir: t.TempDir()})
		if err != nil {
			t.Fatal(err)
		}
		f(w)
		if err := w.Close(); err != nil {
			return nil, err
		}
		return buf.Bytes(), nil
	}
	_, err := write(func(w *Writer) {
		w.Bytes(0, 0, []byte("a"))
		w.Int(1, 0, 1)
		w.EndRow()
		big := make([]byte, 2*limit)
		if alloc := allocDuring(func() { w.Bytes(0, 0, big) }); alloc > 64<<10 {
			t.Errorf("refusing the value allocated %d KiB", alloc>>10)
		}
	})
	if !errors.Is(err, ErrLimit) || !errors.Is(err, ErrUsage) || !strings.Contains(err.Error(), `column "s", row 1`) || !strings.Contains(err.Error(), "MaxBlockSize") {
		t.Fatalf("a value of 2 MiB: %v", err)
	}
	_, err = write(func(w *Writer) {
		w.Bytes(0, 0, []byte("a"))
		for i := range 200_000 {
			w.Int(1, min(i, 1), int64(i)<<40)
		}
		w.EndRow()
	})
	if !errors.Is(err, ErrLimit) || !strings.Contains(err.Error(), `column "r"`) {
		t.Fatalf("a row of 200,000 entries: %v", err)
	}
	data, err := write(func(w *Writer) {
		w.Bytes(0, 0, make([]byte, limit-1000))
		w.Int(1, 0, 1)
		w.EndRow()
	})
	if err != nil {
		t.Fatal(err)
	}
	if err := openRaw(t, data, &ReaderOptions{MaxBlockSize: limit}).Verify(); err != nil {
		t.Fatal(err)
	}
}

// FuzzBlockTables opens files whose column starts and data are arbitrary:
// a header of up to four int columns (the first byte picks how many), the
// starts (two bytes each, from the data's beginning), then the data, block
// tables and blocks. Opening never panics and fails with an *Error; a file
// that opens has each column's blocks inside its own bytes, at a start of
// its own, so the descriptors of all columns fit in the file; reading it
// within small limits never panics.
func FuzzBlockTables(f *testing.F) {
	one := func(blocks ...rawBlock) []byte {
		b := binary.LittleEndian.AppendUint32(nil, uint32(len(blocks)))
		for _, bl := range blocks {
			b = binary.LittleEndian.AppendUint32(b, bl.rows)
			b = binary.LittleEndian.AppendUint32(b, bl.uncompressed)
			b = binary.LittleEndian.AppendUint32(b, uint32(len(bl.data)))
		}
		for _, bl := range blocks {
			b = append(b, bl.data...)
		}
		return b
	}
	t1 := one(rawBlock{rows: 1, uncompressed: 1, data: []byte{2}})
	t2 := one(rawBlock{rows: 1, uncompressed: 1, data: []byte{4}}, rawBlock{rows: 0, uncompressed: 0})
	f.Add(append([]byte{1, 0, 0}, t1...))
	f.Add(append([]byte{2, 0, 0, byte(len(t1)), 0}, append(t1, t2...)...))
	f.Add(append([]byte{2, 0, 0, 0, 0}, t1...))
	f.Add(append([]byte{3, 0, 0, 0, 0, 40, 0}, bytes.Repeat(t1, 4)...))
	f.Fuzz(func(t *testing.T, in []byte) {
		if len(in) == 0 {
			return
		}
		ncols := int(in[0]%4) + 1
		in = in[1:]
		if len(in) < 2*ncols {
			return
		}
		rel, data := in[:2*ncols], in[2*ncols:]
		b := []byte(Magic)
		b = binary.LittleEndian.AppendUint64(b, 1)
		b = binary.LittleEndian.AppendUint32(b, uint32(ncols))
		b = append(b, 0)
		for i := range ncols {
			b = binary.AppendVarint(b, 2)
			for _, s := range []string{KeyName, fmt.Sprintf("c%d", i), KeyType, "int"} {
				b = append(binary.AppendVarint(b, int64(len(s))), s...)
			}
		}
		dataStart := len(b) + 8*ncols
		for i := range ncols {
			b = binary.LittleEndian.AppendUint64(b, uint64(dataStart+int(binary.LittleEndian.Uint16(rel[2*i:]))))
		}
		b = append(b, data...)
		rd, err := NewReader(bytes.NewReader(b), int64(len(b)), &ReaderOptions{MaxBlockSize: 1 << 16, BlockMemory: 1 << 20})
		if err != nil {
			var e *Error
			if !errors.As(err, &e) {
				t.Fatalf("not an *Error: %v", err)
			}
			return
		}
		descriptors := 0
		for i := range ncols {
			start := rd.ColumnStart(i)
			end := rd.Size()
			for j := range ncols {
				if s := rd.ColumnStart(j); j != i && s == start {
					t.Fatalf("columns %d and %d both start at %d", i, j, start)
				} else if s > start && s < end {
					end = s
				}
			}
			blocks := rd.Blocks(i)
			descriptors += len(blocks)
			for _, bl := range blocks {
				if bl.Start < start+4+12*int64(len(blocks)) || bl.Start+bl.Stored > end {
					t.Fatalf("column %d: block at %d of %d bytes outside [%d, %d)", i, bl.Start, bl.Stored, start, end)
				}
			}
		}
		if 12*descriptors > len(data) {
			t.Fatalf("%d descriptors in %d bytes of data", descriptors, len(data))
		}
		rd.Verify()
	})
}
