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
// buffer for each; and all of it given back at Close.
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
					if n := rd.budget.Used(); n != 0 {
						t.Errorf("%d bytes held after Close", n)
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
