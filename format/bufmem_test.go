package format

import (
	"bytes"
	"errors"
	"io"
	"math/rand/v2"
	"strings"
	"testing"
)

// growingFile writes a file of one string column whose blocks grow a little
// from one to the next (each block holds one row, each row's string a few
// bytes longer than the one before), as codec and checksum say, and returns
// it with its rows.
func growingFile(t *testing.T, codec, checksum string) ([]byte, []string) {
	t.Helper()
	var file bytes.Buffer
	w, err := NewWriter(&file, []ColumnMeta{{Name: "s", Type: String}}, &WriterOptions{BlockSize: 1 << 10, Codec: codec, Checksum: checksum})
	if err != nil {
		t.Fatal(err)
	}
	var rows []string
	r := rand.New(rand.NewPCG(3, 4))
	for i := range 200 {
		// Random letters, which the codecs store in about as many
		// bytes as they are given.
		b := make([]byte, 1100+3*i)
		for k := range b {
			b[k] = byte('a' + r.IntN(26))
		}
		rows = append(rows, string(b))
		if err := w.WriteRow(rows[i]); err != nil {
			t.Fatal(err)
		}
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	return file.Bytes(), rows
}

// TestBlockBuffers reads a column whose blocks keep growing, with and
// without read-ahead, for each kind of codec, and checks the values and
// what the reader holds and allocates: one buffer of stored bytes (none
// for the null codec, whose blocks are read straight into place) and one
// decompressed block, two with read-ahead; buffers that grow take room
// for the next blocks, so that reading the blocks does not allocate a
// buffer for each; and all of it given back at Close but the reader's
// buffer of stored bytes, kept for the next column.
func TestBlockBuffers(t *testing.T) {
	for _, codec := range []string{"null", "snappy", "deflate"} {
		for _, checksum := range []string{"null", "crc32"} {
			data, want := growingFile(t, codec, checksum)
			for _, ahead := range []bool{false, true} {
				name := codec + "/" + checksum
				if ahead {
					name += "/read-ahead"
				}
				t.Run(name, func(t *testing.T) {
					rd, err := NewReader(bytes.NewReader(data), int64(len(data)), &ReaderOptions{ReadAhead: ahead})
					if err != nil {
						t.Fatal(err)
					}
					blocks, _ := rd.Blocks(0)
					if len(blocks) < 20 {
						t.Fatalf("only %d blocks", len(blocks))
					}
					var largest int
					for _, b := range blocks {
						largest = max(largest, b.UncompressedSize, b.CompressedSize+4)
					}
					c, err := rd.Values(0)
					if err != nil {
						t.Fatal(err)
					}
					var held int64
					alloc := allocDuring(func() {
						for i := 0; ; i++ {
							if err := c.StartRow(); err == io.EOF {
								if i != len(want) {
									t.Fatalf("%d rows, want %d", i, len(want))
								}
								break
							} else if err != nil {
								t.Fatal(err)
							}
							s, err := c.ReadBytes() // no copy to allocate
							if err != nil || string(s) != want[i] {
								t.Fatalf("row %d: %.20q, %v; want %.20q", i, s, err, want[i])
							}
							held = max(held, rd.budget.Used())
						}
					})
					buffers := int64(1) // the block read
					if ahead {
						buffers++ // the next, read ahead
					}
					if codec != "null" {
						buffers++ // the stored bytes
					}
					if limit := buffers * int64(roomy(largest+blockSlack)); held > limit {
						t.Errorf("the reader held %d bytes of buffers, more than %d buffers of %d", held, buffers, roomy(largest+blockSlack))
					}
					// Growing by an eighth, and to whole pages, the buffers
					// grow a few times over blocks that grow by half (a
					// buffer a block would be 200 of them). Deflate's
					// reader allocates for each block of its own.
					if limit := 6 * buffers * int64(roomy(largest+blockSlack)); codec != "deflate" && alloc > uint64(limit) {
						t.Errorf("reading %d blocks allocated %d bytes, more than %d", len(blocks), alloc, limit)
					}
					c.Close()
					// What is left is the reader's buffer of stored
					// bytes, free for the next block read.
					if n, raw := rd.budget.Used(), rd.rawHeld(); n != raw || raw > int64(roomy(largest+blockSlack)) {
						t.Errorf("%d bytes held after Close, %d of them the free buffers of stored bytes", n, raw)
					}
				})
			}
		}
	}
}

// TestNullCodecSizes reads a null codec block whose stated uncompressed
// size is not its stored size: the codec's error, located.
func TestNullCodecSizes(t *testing.T) {
	data, _ := growingFile(t, "null", "crc32")
	rd, err := NewReader(bytes.NewReader(data), int64(len(data)), nil)
	if err != nil {
		t.Fatal(err)
	}
	c, err := rd.Values(0)
	if err != nil {
		t.Fatal(err)
	}
	c.table.blocks[3].UncompressedSize++
	var e *Error
	for {
		if err = c.StartRow(); err != nil {
			break
		}
	}
	if !errors.As(err, &e) || e.Block != 3 || !strings.Contains(err.Error(), "stated size") {
		t.Fatalf("err = %v, want the size error of block 3", err)
	}
}

// TestStoredBuffersShared reads eight snappy columns side by side: their
// blocks' stored bytes pass through one buffer of the reader's, not one a
// column, and the budget counts it.
func TestStoredBuffersShared(t *testing.T) {
	cols := make([]ColumnMeta, 8)
	for i := range cols {
		cols[i] = ColumnMeta{Name: string(rune('a' + i)), Type: Long}
	}
	var file bytes.Buffer
	w, err := NewWriter(&file, cols, &WriterOptions{BlockSize: 4 << 10, Codec: "snappy", Checksum: "crc32"})
	if err != nil {
		t.Fatal(err)
	}
	r := rand.New(rand.NewPCG(5, 6))
	row := make([]any, len(cols))
	for range 5000 {
		for i := range row {
			row[i] = r.Int64()
		}
		if err := w.WriteRow(row...); err != nil {
			t.Fatal(err)
		}
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	rd, err := NewReader(bytes.NewReader(file.Bytes()), int64(file.Len()), nil)
	if err != nil {
		t.Fatal(err)
	}
	var crs []*ColumnReader
	var largest int
	for i := range cols {
		c, err := rd.Values(i)
		if err != nil {
			t.Fatal(err)
		}
		crs = append(crs, c)
		blocks, _ := rd.Blocks(i)
		for _, b := range blocks {
			largest = max(largest, b.UncompressedSize+blockSlack, b.CompressedSize+4)
		}
	}
	for k := 0; ; k++ {
		done := false
		for _, c := range crs {
			if err := c.StartRow(); err == io.EOF {
				done = true
				break
			} else if err != nil {
				t.Fatal(err)
			}
			if _, err := c.ReadLong(); err != nil {
				t.Fatal(err)
			}
		}
		if done {
			break
		}
		// Each column's block, and one buffer of stored bytes.
		if held, limit := rd.budget.Used(), int64(len(cols)+1)*int64(roomy(largest)); held > limit {
			t.Fatalf("row %d: %d bytes held, more than %d buffers of %d", k, held, len(cols)+1, roomy(largest))
		}
	}
	if raw := rd.rawHeld(); raw == 0 || raw > int64(roomy(largest)) {
		t.Errorf("%d bytes of free buffers of stored bytes, want one of at most %d", raw, roomy(largest))
	}
}
