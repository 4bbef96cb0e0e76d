package format

import (
	"bytes"
	"encoding/binary"
	"errors"
	"io"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	dbzip2 "github.com/dsnet/compress/bzip2"
)

// rawBlock is one block of a file built by buildFile: its descriptor and
// its stored bytes (checksum included).
type rawBlock struct {
	rows, size int
	data       []byte
}

// buildFile lays out a Trevni file by hand, so that tests can state block
// descriptors that no writer would produce.
func buildFile(t testing.TB, rows int64, fileMeta MetaData, cols []ColumnMeta, blocks [][]rawBlock) []byte {
	t.Helper()
	var h encoder
	h.b = append(h.b, magic[:]...)
	h.writeFixed64(uint64(rows))
	h.writeFixed32(uint32(len(cols)))
	writeMeta(&h, &fileMeta)
	for i := range cols {
		writeColumnMeta(&h, &cols[i])
	}
	var body encoder
	start := int64(len(h.b)) + 8*int64(len(cols))
	for i := range cols {
		h.writeFixed64(uint64(start + int64(len(body.b))))
		body.writeFixed32(uint32(len(blocks[i])))
		for _, b := range blocks[i] {
			body.writeFixed32(uint32(b.rows))
			body.writeFixed32(uint32(b.size))
			body.writeFixed32(uint32(len(b.data)))
		}
		for _, b := range blocks[i] {
			body.b = append(body.b, b.data...)
		}
	}
	return append(h.b, body.b...)
}

// bzip2Zeros returns a bzip2 stream that decompresses to n zeros, n a
// multiple of 16 MiB: copies of one small stream of 16 or 32 MiB, which
// readers take as one stream, as Java's does.
func bzip2Zeros(t testing.TB, n int) []byte {
	t.Helper()
	chunk := 32 << 20
	if n%chunk != 0 {
		chunk = 16 << 20
	}
	if n%chunk != 0 {
		t.Fatalf("%d is not a multiple of 16 MiB", n)
	}
	var buf bytes.Buffer
	w, err := dbzip2.NewWriter(&buf, &dbzip2.WriterConfig{Level: 9})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := w.Write(make([]byte, chunk)); err != nil {
		t.Fatal(err)
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	return bytes.Repeat(buf.Bytes(), n/chunk)
}

// bombFile returns a file of eight int columns and one row, each column
// one bzip2 block that really decompresses to size zeros.
func bombFile(t testing.TB, size int) []byte {
	stream := bzip2Zeros(t, size)
	var meta MetaData
	meta.SetString(KeyCodec, CodecBzip2)
	cols := make([]ColumnMeta, 8)
	blocks := make([][]rawBlock, 8)
	for i := range cols {
		cols[i] = ColumnMeta{Name: string(rune('a' + i)), Type: Int}
		blocks[i] = []rawBlock{{rows: 1, size: size, data: stream}}
	}
	return buildFile(t, 1, meta, cols, blocks)
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

// TestDecompressionBomb reads a small file of eight columns whose bzip2
// blocks each inflate to 1 GiB: every block is refused, before it is
// inflated, with an error that names the option raising the limit.
func TestDecompressionBomb(t *testing.T) {
	data := bombFile(t, 1<<30)
	if len(data) > 16<<10 {
		t.Fatalf("the bomb takes %d bytes", len(data))
	}
	for _, c := range []struct {
		name   string
		opts   *ReaderOptions
		option string
	}{
		{"defaults", nil, "ReaderOptions.MaxBlockSize"},
		{"no block limit", &ReaderOptions{MaxBlockSize: 1<<31 - 1}, "ReaderOptions.BlockMemory"},
		{"read-ahead", &ReaderOptions{MaxBlockSize: 1<<31 - 1, ReadAhead: true}, "ReaderOptions.BlockMemory"},
	} {
		t.Run(c.name, func(t *testing.T) {
			start := time.Now()
			var problems []error
			alloc := allocDuring(func() {
				rd, err := NewReader(bytes.NewReader(data), int64(len(data)), c.opts)
				if err != nil {
					t.Fatal(err)
				}
				rd.Validate(func(err error) { problems = append(problems, err) })
				rows, err := rd.Rows()
				if err == nil {
					_, err = rows.Read()
				}
				problems = append(problems, err)
			})
			if len(problems) != 9 {
				t.Fatalf("%d problems: %v", len(problems), problems)
			}
			for i, err := range problems {
				var e *Error
				if !errors.Is(err, ErrLimit) || !errors.As(err, &e) || !strings.Contains(err.Error(), c.option) {
					t.Fatalf("problem %d: %v, want ErrLimit naming %s", i, err, c.option)
				}
				if e.Column == "" || e.Block != 0 || e.Offset <= 0 {
					t.Errorf("problem %d does not locate the block: %v", i, err)
				}
			}
			if alloc > 32<<20 {
				t.Errorf("reading the bomb allocated %d MiB", alloc>>20)
			}
			if d := time.Since(start); d > 60*time.Second {
				t.Errorf("reading the bomb took %v", d)
			}
		})
	}
}

// TestBlockMemoryBudget reads eight columns whose blocks each inflate to
// 32 MiB, each under the block size limit: reading all of them at once
// stops at the memory budget, with a clean error, and memory stays
// bounded by it.
func TestBlockMemoryBudget(t *testing.T) {
	const size = 32 << 20
	const budget = 100 << 20
	opts := &ReaderOptions{BlockMemory: budget}
	data := bombFile(t, size)
	var err error
	alloc := allocDuring(func() {
		var rd *Reader
		rd, err = NewReader(bytes.NewReader(data), int64(len(data)), opts)
		if err != nil {
			t.Fatal(err)
		}
		var rows *RowReader
		if rows, err = rd.Rows(); err == nil {
			_, err = rows.Read()
		}
	})
	var e *Error
	if !errors.Is(err, ErrLimit) || !errors.As(err, &e) || !strings.Contains(err.Error(), "ReaderOptions.BlockMemory") {
		t.Fatalf("err = %v, want ErrLimit naming ReaderOptions.BlockMemory", err)
	}
	if want := budget / size; e.Index != want {
		t.Errorf("the budget ran out at column %d, want %d", e.Index, want)
	}
	if alloc > budget+32<<20 {
		t.Errorf("reading allocated %d MiB, past the budget of %d MiB", alloc>>20, budget>>20)
	}

	// One column at a time, each block is read in full: a ColumnReader
	// closed, or dropped, gives its memory back.
	data = bombFile(t, 16<<20)
	rd, err := NewReader(bytes.NewReader(data), int64(len(data)), &ReaderOptions{BlockMemory: 40 << 20})
	if err != nil {
		t.Fatal(err)
	}
	for i := range rd.NumColumns() {
		c, err := rd.Values(i)
		if err != nil {
			t.Fatal(err)
		}
		if v, err := c.Next(); err != nil || v != int32(0) {
			t.Fatalf("column %d: %v, %v", i, v, err)
		}
		if i%2 == 0 {
			c.Close()
		}
	}
}

// TestWriterBlockSizeLimit checks that the writer refuses a block size
// whose files readers would refuse, that its largest block size reads with
// the reader's defaults, and that large block sizes cost no memory up
// front.
func TestWriterBlockSizeLimit(t *testing.T) {
	cols := []ColumnMeta{{Name: "b", Type: Bytes}}
	_, err := NewWriter(io.Discard, cols, &WriterOptions{BlockSize: MaxWriterBlockSize + 1})
	if !errors.Is(err, ErrUsage) || !strings.Contains(err.Error(), "BlockSize") {
		t.Fatalf("BlockSize over the limit: err = %v", err)
	}

	many := make([]ColumnMeta, 100)
	for i := range many {
		many[i] = ColumnMeta{Name: strconv.Itoa(i), Type: Long}
	}
	if alloc := allocDuring(func() {
		if _, err := NewWriter(io.Discard, many, &WriterOptions{BlockSize: MaxWriterBlockSize}); err != nil {
			t.Fatal(err)
		}
	}); alloc > 16<<20 {
		t.Errorf("NewWriter of 100 columns allocated %d MiB", alloc>>20)
	}

	// Rows of 1 MiB, so the first block is cut one row past the block size.
	var buf bytes.Buffer
	w, err := NewWriter(&buf, cols, &WriterOptions{BlockSize: MaxWriterBlockSize, Concurrency: 1})
	if err != nil {
		t.Fatal(err)
	}
	row := bytes.Repeat([]byte{7}, 1<<20)
	const rows = MaxWriterBlockSize>>20 + 3
	for range rows {
		w.WriteRow(row)
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	rd, err := NewReader(bytes.NewReader(buf.Bytes()), int64(buf.Len()), nil)
	if err != nil {
		t.Fatal(err)
	}
	blocks, err := rd.Blocks(0)
	if err != nil || len(blocks) != 2 || blocks[0].UncompressedSize <= MaxWriterBlockSize {
		t.Fatalf("blocks %+v, %v", blocks, err)
	}
	if n := rd.Validate(func(err error) { t.Error(err) }); n != 0 {
		t.Fatalf("%d problems", n)
	}
}

// runCode returns the length code of a run of k equal lengths v (0 or 1),
// k from 2 to 2^30+1.
func runCode(k int64, v int32) int32 {
	return -2*int32(k-1) + (1 - v) // -1: two 0s, -2: two 1s, -3: three 0s...
}

// runs encodes n lengths v as run codes.
func runs(n int64, v int32) []byte {
	var e encoder
	for n > 0 {
		k := min(n, 1<<30+1)
		if k == 1 {
			e.writeInt(v)
		} else {
			e.writeInt(runCode(k, v))
		}
		n -= k
	}
	return e.b
}

// TestValidateIsLinearInBytes verifies tiny files that claim vast numbers of
// rows or elements through runs of equal lengths: each must be checked in
// far less than a second, and damage to them still caught.
func TestValidateIsLinearInBytes(t *testing.T) {
	nested := []ColumnMeta{
		{Name: "a", Type: Null, Array: true},
		{Name: "a#b", Type: Null, Array: true, Parent: "a"},
		{Name: "a#b#c", Type: Null, Parent: "a#b"},
	}
	type file struct {
		rows   int64
		cols   []ColumnMeta
		blocks [][]byte // one block per column
	}
	const many = 1<<32 - 1 // rows in one block
	const elems = 1<<31 - 1
	var one encoder
	one.writeInt(elems)
	files := map[string]file{
		// No columns: nothing can be wrong, however many rows.
		"2^62 rows": {rows: 1 << 62},
		// Every row holds one element, which holds one element.
		"runs of ones": {rows: many, cols: nested, blocks: [][]byte{runs(many, 1), runs(many, 1), nil}},
		// One row of 2^31-1 elements, each holding one element.
		"2^31 null elements": {rows: 1, cols: nested, blocks: [][]byte{one.b, runs(elems, 1), nil}},
		// Many rows of no elements.
		"runs of zeros": {rows: many, cols: nested, blocks: [][]byte{runs(many, 0), nil, nil}},
	}
	for name, f := range files {
		blocks := make([][]rawBlock, len(f.cols))
		for i, b := range f.blocks {
			blocks[i] = []rawBlock{{rows: int(f.rows), size: len(b), data: b}}
		}
		data := buildFile(t, f.rows, MetaData{}, f.cols, blocks)
		if len(data) > 300 {
			t.Fatalf("%s: %d bytes", name, len(data))
		}
		check := func(data []byte, want bool) {
			t.Helper()
			start := time.Now()
			rd, err := NewReader(bytes.NewReader(data), int64(len(data)), nil)
			if err != nil {
				t.Fatalf("%s: %v", name, err)
			}
			var problems []error
			rd.Validate(func(err error) { problems = append(problems, err) })
			if d := time.Since(start); d > 30*time.Second {
				t.Errorf("%s: Validate took %v", name, d)
			}
			if (len(problems) == 0) != want {
				t.Errorf("%s: problems %v, want ok=%v", name, problems, want)
			}
		}
		check(data, true)
		if len(f.cols) == 0 {
			continue
		}
		// One element fewer in the last column that holds lengths: caught.
		for i := len(f.blocks) - 1; i >= 0; i-- {
			if len(f.blocks[i]) == 0 {
				continue
			}
			short := bytes.Clone(blocks[i][0].data)
			var d decoder
			d.reset(short)
			n, _ := d.readInt()
			var e encoder
			if n < 0 {
				e.writeInt(n + 2) // a run one shorter
			} else {
				e.writeInt(n - 1)
			}
			e.b = append(e.b, short[d.pos:]...)
			damaged := slices.Clone(blocks)
			damaged[i] = []rawBlock{{rows: int(f.rows), size: len(e.b), data: e.b}}
			check(buildFile(t, f.rows, MetaData{}, f.cols, damaged), false)
			break
		}
	}
}

// TestSharedBlockTable: 500 columns all starting at one block table of
// 10,000 blocks are refused when the file is opened, before any table is
// read (read once per column, the tables would take 500 times the file);
// so is a column whose blocks run into the next column's bytes.
func TestSharedBlockTable(t *testing.T) {
	table := make([]rawBlock, 10000)
	for b := range table {
		table[b] = rawBlock{rows: 1, size: 1, data: []byte{2}}
	}
	cols := []ColumnMeta{{Name: "a", Type: Int}}
	data := buildFile(t, int64(len(table)), MetaData{}, cols, [][]rawBlock{table})
	// Give the file 499 more columns, all starting where "a" does.
	rd, err := NewReader(bytes.NewReader(data), int64(len(data)), nil)
	if err != nil {
		t.Fatal(err)
	}
	start := rd.ColumnStart(0)
	var h encoder
	h.b = append(h.b, data[:12]...)
	h.writeFixed32(500)
	writeMeta(&h, &MetaData{})
	for i := range 500 {
		writeColumnMeta(&h, &ColumnMeta{Name: "c" + strconv.Itoa(i), Type: Int})
	}
	newStart := int64(len(h.b)) + 8*500
	for range 500 {
		h.writeFixed64(uint64(newStart))
	}
	shared := append(h.b, data[start:]...)
	alloc := allocDuring(func() { _, err = NewReader(bytes.NewReader(shared), int64(len(shared)), nil) })
	var e *Error
	if !errors.Is(err, ErrFormat) || !errors.As(err, &e) || e.Index != 1 || !strings.Contains(err.Error(), `column 0 ("c0") starts too`) {
		t.Fatalf("shared table: %v", err)
	}
	if alloc > 4<<20 {
		t.Errorf("opening allocated %d MiB", alloc>>20)
	}
	// Two columns, the first claiming a block that takes the second's bytes.
	cols = []ColumnMeta{{Name: "a", Type: Int}, {Name: "b", Type: Int}}
	data = buildFile(t, 1, MetaData{}, cols, [][]rawBlock{{{rows: 1, size: 1, data: make([]byte, 10)}}, {{rows: 1, size: 1, data: []byte{2}}}})
	// buildFile placed b after a's ten bytes: move a's claim to 20 bytes.
	rd, err = NewReader(bytes.NewReader(data), int64(len(data)), nil)
	if err != nil {
		t.Fatal(err)
	}
	binary.LittleEndian.PutUint32(data[rd.ColumnStart(0)+12:], 20)
	rd, err = NewReader(bytes.NewReader(data), int64(len(data)), nil)
	if err == nil {
		_, err = rd.Blocks(0)
	}
	if !errors.Is(err, ErrFormat) || !errors.As(err, &e) || e.Index != 0 || !strings.Contains(err.Error(), "next column") {
		t.Fatalf("overlapping columns: %v", err)
	}
}
