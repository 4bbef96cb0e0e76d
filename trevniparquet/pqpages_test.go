package trevniparquet

import (
	"bytes"
	"encoding/binary"
	"math/rand/v2"
	"testing"

	"github.com/pierrec/lz4/v4"
)

// hadoopFrame returns data in Hadoop's LZ4 framing, cut into blocks of
// the sizes cuts says, each compressed on its own (a block that does not
// compress as one sequence of literals, as an LZ4 block may be).
func hadoopFrame(t *testing.T, data []byte, cuts []int) []byte {
	t.Helper()
	var out []byte
	for _, n := range cuts {
		block := make([]byte, lz4.CompressBlockBound(n))
		k, err := lz4.CompressBlock(data[:n], block, nil)
		if err != nil {
			t.Fatal(err)
		}
		if k == 0 { // incompressible
			block = appendLZ4Sequence(nil, data[:n], nil)
		} else {
			block = block[:k]
		}
		out = binary.BigEndian.AppendUint32(out, uint32(n))
		out = binary.BigEndian.AppendUint32(out, uint32(len(block)))
		out = append(out, block...)
		data = data[n:]
	}
	return out
}

// Pages in Hadoop's LZ4 framing, of random data (runs, repeats, noise) cut
// into random blocks, read as one raw LZ4 block: it decompresses (with the
// LZ4 decoder arrow-go's LZ4_RAW uses) to the page's bytes, and is 8 bytes
// a block shorter at least, so that the page's header always has room
// for its pad.
func TestHadoopLZ4AsOneBlock(t *testing.T) {
	r := rand.New(rand.NewPCG(7, 9))
	for round := range 400 {
		size := r.IntN(1 << (4 + round%15))
		data := make([]byte, 0, size)
		for len(data) < size {
			n := min(size-len(data), 1+r.IntN(300))
			switch r.IntN(3) {
			case 0:
				data = append(data, bytes.Repeat([]byte{byte(r.IntN(4))}, n)...)
			case 1:
				if len(data) > 0 {
					at := r.IntN(len(data))
					data = append(data, data[at:at+min(n, len(data)-at)]...)
					continue
				}
				fallthrough
			default:
				for range n {
					data = append(data, byte(r.Uint32()))
				}
			}
		}
		var cuts []int
		for left := len(data); left > 0; {
			n := min(left, 1+r.IntN(max(len(data)/3, 1)))
			cuts, left = append(cuts, n), left-n
		}
		framed := hadoopFrame(t, data, cuts)
		raw, ok := hadoopToRawLZ4(framed, int64(len(data)))
		if len(data) == 0 {
			// No block: the empty framing is no LZ4 page of Hadoop's.
			continue
		}
		if !ok {
			t.Fatalf("round %d: %d bytes in %d blocks: not read as Hadoop's framing", round, len(data), len(cuts))
		}
		if len(raw) > len(framed)-8*len(cuts) {
			t.Errorf("round %d: joined block of %d bytes from %d framed in %d blocks", round, len(raw), len(framed), len(cuts))
		}
		got := make([]byte, len(data))
		n, err := lz4.UncompressBlock(raw, got)
		if err != nil || n != len(data) || !bytes.Equal(got, data) {
			t.Fatalf("round %d: %d bytes in %d blocks: decompressed %d bytes (%v), equal %v", round, len(data), len(cuts), n, err, bytes.Equal(got[:max(n, 0)], data))
		}
		// A raw block (older parquet-cpp's pages), or sizes that do not
		// add up, is not Hadoop's framing.
		if _, ok := hadoopToRawLZ4(raw, int64(len(data))); ok && len(raw) >= 8 && binary.BigEndian.Uint32(raw) != uint32(len(data)) {
			t.Errorf("round %d: a raw block read as Hadoop's framing", round)
		}
		if _, ok := hadoopToRawLZ4(framed, int64(len(data))+1); ok {
			t.Errorf("round %d: framing of %d bytes read as %d", round, len(data), len(data)+1)
		}
	}
}

// A rewritten page header fills exactly the room it is given (8 bytes
// more than it needs, or more), keeps every field but the CRC, and says
// the new compressed size.
func TestPadHeaderFillsRoom(t *testing.T) {
	// type DATA_PAGE, uncompressed 1000, compressed 900, crc, a
	// data_page_header {num_values 10, encoding 0, 3, 3}.
	var h []byte
	h = append(h, 0x15, 0x00, 0x15)
	h = binary.AppendUvarint(h, zigzag(1000))
	h = append(h, 0x15)
	h = binary.AppendUvarint(h, zigzag(900))
	h = append(h, 0x15)
	h = binary.AppendUvarint(h, zigzag(-123456))
	h = append(h, 0x1c, 0x15, 0x14, 0x15, 0x00, 0x15, 0x06, 0x15, 0x06, 0x00, 0x00)
	fields, n, err := readStruct(h, 0, 0)
	if err != nil || n != len(h) {
		t.Fatal(n, err)
	}
	hdr := pageHeaderBytes{b: h, fields: fields}
	for extra := -3; extra < 300; extra++ {
		base := len(appendStructWith(nil, h, fields, map[int][]byte{pageCompressed: binary.AppendUvarint(nil, zigzag(700))}, map[int]bool{pageCRC: true}))
		room := base + extra
		out := padHeader(hdr, 700, room)
		if extra < 0 || extra > 0 && extra < 8 {
			if out != nil {
				t.Errorf("room %d (%d over): a header of %d bytes", room, extra, len(out))
			}
			continue
		}
		if len(out) != room {
			t.Fatalf("room %d: %d bytes", room, len(out))
		}
		got, used, err := readStruct(out, 0, 0)
		if err != nil || used != room {
			t.Fatalf("room %d: %v (%d bytes read)", room, err, used)
		}
		info := parsePageHeader(pageHeaderBytes{b: out, fields: got})
		if info.compressed != 700 || info.uncompressed != 1000 || info.typ != 0 {
			t.Errorf("room %d: %+v", room, info)
		}
		for _, f := range got {
			if f.id == pageCRC {
				t.Errorf("room %d: the CRC kept", room)
			}
		}
	}
}
