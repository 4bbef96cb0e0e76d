package clmn_test

import (
	"bytes"
	stdflate "compress/flate"
	"encoding/binary"
	"io"
	"math"
	"testing"

	"github.com/klauspost/compress/flate"

	"github.com/trevni-go/trevni/clmn"
	"github.com/trevni-go/trevni/internal/codec"
)

// BenchmarkInflateColumns inflates the four columns of BenchmarkSourceRows
// three ways: the CLMN file's own deflate streams with klauspost's inflater
// (the one the reader uses) and with the standard library's, and the same
// values in Trevni 2's encoding (varints, little-endian doubles, strings
// after a varint length) deflated at the default level, as a .trv file
// holds them. Instructions a byte (cachegrind of each) say whether the
// inflater or the bytes make CLMN's columns costlier to inflate.
func BenchmarkInflateColumns(b *testing.B) {
	v2 := make([][]byte, 4)
	data := benchFile(b, func(id int64, score float64, small int32, name []byte) {
		v2[0] = binary.AppendVarint(v2[0], id)
		v2[1] = binary.LittleEndian.AppendUint64(v2[1], math.Float64bits(score))
		v2[2] = binary.AppendVarint(v2[2], int64(small))
		v2[3] = append(binary.AppendVarint(v2[3], int64(len(name))), name...)
	})
	rd, err := clmn.NewReader(bytes.NewReader(data), int64(len(data)), nil)
	if err != nil {
		b.Fatal(err)
	}
	// The raw deflate of each column: its zlib stream less the 2-byte
	// header and the 4-byte Adler-32.
	var streams [][]byte
	var clmnSize, v2Size, clmnStored, v2Stored int64
	for _, c := range rd.Columns() {
		streams = append(streams, data[c.Offset+2:c.Offset+c.CompressedSize-4])
		clmnSize += c.UncompressedSize
		clmnStored += c.CompressedSize
	}
	def, err := codec.New(codec.Deflate, 0)
	if err != nil {
		b.Fatal(err)
	}
	var v2Streams [][]byte
	for _, v := range v2 {
		z, err := def.Compress(nil, v)
		if err != nil {
			b.Fatal(err)
		}
		v2Streams = append(v2Streams, z)
		v2Size += int64(len(v))
		v2Stored += int64(len(z))
	}
	b.Logf("CLMN: %d bytes deflated to %d; Trevni 2 encoding: %d to %d", clmnSize, clmnStored, v2Size, v2Stored)
	out := make([]byte, 1<<20)
	run := func(b *testing.B, streams [][]byte, size int64, newReader func(io.Reader) io.ReadCloser) {
		b.SetBytes(size)
		var src bytes.Reader
		for b.Loop() {
			for _, s := range streams {
				src.Reset(s)
				fr := newReader(&src)
				for {
					_, err := fr.Read(out)
					if err == io.EOF {
						break
					}
					if err != nil {
						b.Fatal(err)
					}
				}
			}
		}
	}
	b.Run("clmn-klauspost", func(b *testing.B) { run(b, streams, clmnSize, flate.NewReader) })
	b.Run("clmn-stdlib", func(b *testing.B) { run(b, streams, clmnSize, stdflate.NewReader) })
	b.Run("trevni2-klauspost", func(b *testing.B) { run(b, v2Streams, v2Size, flate.NewReader) })
}
