package format

import (
	"bytes"
	"errors"
	"testing"

	"github.com/trevni-go/trevni/internal/codec"
)

// oldJavaBzip2 compresses blocks as Trevni's Java bzip2 codec did before
// Avro 1.10 (AVRO-2589): it compressed the whole array behind its
// ByteBuffer, not just the block's bytes. That array was a fresh
// ByteArrayOutputStream per block: 32 KiB at first (Java's initial
// capacity, (64 KiB + 64 KiB) >> 2, before AVRO-3657), doubling as it
// filled, so zeros follow the data. The descriptor and the CRC-32 cover
// only the block's bytes.
type oldJavaBzip2 struct{ c codec.Codec }

func (o oldJavaBzip2) Compress(dst, src []byte) ([]byte, error) {
	capacity := 32 << 10
	for capacity < len(src) {
		capacity = max(2*capacity, len(src))
	}
	whole := append(bytes.Clone(src), make([]byte, capacity-len(src))...)
	return o.c.Compress(dst, whole)
}

func (o oldJavaBzip2) Decompress(dst, src []byte, size int) ([]byte, error) {
	panic("not used to read")
}

// TestOldJavaBzip2 reads a file laid out as Java wrote bzip2 blocks before
// Avro 1.10: each block decompresses to more bytes than its descriptor
// says, and the data is the first of them, as Java reads it.
func TestOldJavaBzip2(t *testing.T) {
	bz, err := codec.New(codec.Bzip2, 9)
	if err != nil {
		t.Fatal(err)
	}
	cols := []ColumnMeta{{Name: "n", Type: Long}, {Name: "s", Type: String}}
	var buf bytes.Buffer
	w, err := NewWriter(&buf, cols, &WriterOptions{Codec: CodecBzip2, Checksum: ChecksumCRC32, Concurrency: 1,
		Codecs: map[string]Codec{CodecBzip2: oldJavaBzip2{bz}}})
	if err != nil {
		t.Fatal(err)
	}
	const rows = 20000 // several blocks per column, of sizes that land between capacities
	for i := range rows {
		if err := w.WriteRow(int64(i*i), "row "+string(rune('a'+i%26))); err != nil {
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
	// The layout is the old one: every block holds more than it says.
	for i := range cols {
		blocks, err := rd.Blocks(i)
		if err != nil {
			t.Fatal(err)
		}
		longer := 0
		for b, bi := range blocks {
			raw := data[bi.Offset : bi.Offset+int64(bi.CompressedSize)]
			out, err := bz.Decompress(nil, raw, codec.AtMost(1<<30))
			if err != nil || len(out) < bi.UncompressedSize {
				t.Fatalf("column %d block %d: %d bytes (%v), descriptor says %d", i, b, len(out), err, bi.UncompressedSize)
			}
			if len(out) > bi.UncompressedSize {
				longer++
			}
		}
		if len(blocks) < 2 || longer == 0 {
			t.Fatalf("column %d: %d of %d blocks hold more than they say", i, longer, len(blocks))
		}
	}
	if n := rd.Validate(func(err error) { t.Error(err) }); n != 0 {
		t.Fatalf("%d problems", n)
	}
	rows2, err := rd.Rows()
	if err != nil {
		t.Fatal(err)
	}
	for i := range rows {
		row, err := rows2.Read()
		if err != nil {
			t.Fatalf("row %d: %v", i, err)
		}
		if row[0].Value != int64(i*i) || row[1].Value != "row "+string(rune('a'+i%26)) {
			t.Fatalf("row %d: %v", i, row)
		}
	}

	// A block that decompresses to fewer bytes than its descriptor says
	// is still refused.
	blocks, _ := rd.Blocks(0)
	bi := blocks[0]
	whole, _ := bz.Decompress(nil, data[bi.Offset:bi.Offset+int64(bi.CompressedSize)], codec.AtMost(1<<30))
	for _, size := range []int{len(whole) + 1, 1 << 20} {
		bad := bytes.Clone(data)
		desc := rd.ColumnStart(0) + 4 + 4 // the first descriptor's uncompressed size
		bad[desc], bad[desc+1], bad[desc+2], bad[desc+3] = byte(size), byte(size>>8), byte(size>>16), byte(size>>24)
		rd2, err := NewReader(bytes.NewReader(bad), int64(len(bad)), nil)
		if err != nil {
			t.Fatal(err)
		}
		c, _ := rd2.Values(0)
		if _, err := c.Next(); !errors.Is(err, ErrFormat) {
			t.Errorf("block of %d bytes claiming %d: err = %v, want ErrFormat", bi.UncompressedSize, size, err)
		}
	}
}
