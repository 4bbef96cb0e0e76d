package trevniparquet

import (
	"encoding/binary"
	"errors"
	"fmt"

	"github.com/apache/arrow-go/v18/parquet/compress"
	"github.com/pierrec/lz4/v4"
)

// Two codecs for reading Parquet that arrow-go (v18.8.0) lacks, added to
// the registry arrow-go offers for that purpose (compress.RegisterCodec,
// which is a plain map: it is written here, in init, before any reader
// runs), each wrapping whatever the registry held:
//
//   - snappy: a data page of version 2 whose values are all null may store
//     no compressed bytes at all (datapage_v2_empty_datapage.snappy.parquet:
//     "the zero bytes must not be attempted to be uncompressed"), which is
//     no valid snappy block; DuckDB reads it. Nothing decodes to nothing.
//   - LZ4, the deprecated codec Parquet files of Hadoop (parquet-java) and
//     of older parquet-cpp carry: arrow-go has none ("compression for LZ4
//     unimplemented"). Pages are read as Hadoop's framing (blocks of a
//     4-byte big-endian decompressed size, a 4-byte compressed size and a
//     raw LZ4 block), and when that does not account for the page exactly,
//     as one raw LZ4 block, as parquet-cpp reads them.
func init() {
	if c, err := compress.GetCodec(compress.Codecs.Snappy); err == nil {
		compress.RegisterCodec(compress.Codecs.Snappy, emptySnappy{c})
	}
	if _, err := compress.GetCodec(compress.Codecs.Lz4); err != nil {
		compress.RegisterCodec(compress.Codecs.Lz4, hadoopLZ4{})
	}
}

// emptySnappy is a snappy codec that decodes no bytes to nothing.
type emptySnappy struct{ compress.Codec }

// DecodeWithError decodes src into dst; an empty src is an empty page.
func (c emptySnappy) DecodeWithError(dst, src []byte) ([]byte, error) {
	if len(src) == 0 {
		return dst[:0], nil
	}
	return compress.Decode(c.Codec, dst, src)
}

// Decode is DecodeWithError, panicking on an error as arrow-go's codecs do.
func (c emptySnappy) Decode(dst, src []byte) []byte {
	out, err := c.DecodeWithError(dst, src)
	if err != nil {
		panic(err)
	}
	return out
}

// hadoopLZ4 is Parquet's deprecated LZ4 codec.
type hadoopLZ4 struct{}

var errLZ4 = errors.New("codec: LZ4: the page is neither Hadoop's LZ4 framing nor an LZ4 block")

// DecodeWithError decodes an LZ4 page into dst, which is sized to the
// decompressed page.
func (hadoopLZ4) DecodeWithError(dst, src []byte) ([]byte, error) {
	if out, ok := decodeHadoopLZ4(dst, src); ok {
		return out, nil
	}
	n, err := lz4.UncompressBlock(src, dst)
	if err != nil || n != len(dst) {
		return nil, errLZ4
	}
	return dst[:n], nil
}

// decodeHadoopLZ4 decodes src as Hadoop's LZ4 framing into dst, and says
// whether it is that: blocks that fill dst exactly and end with src.
func decodeHadoopLZ4(dst, src []byte) ([]byte, bool) {
	out := 0
	for len(src) > 0 {
		if len(src) < 8 {
			return nil, false
		}
		raw := binary.BigEndian.Uint32(src)
		comp := binary.BigEndian.Uint32(src[4:])
		src = src[8:]
		if uint64(comp) > uint64(len(src)) || uint64(raw) > uint64(len(dst)-out) {
			return nil, false
		}
		n, err := lz4.UncompressBlock(src[:comp], dst[out:out+int(raw)])
		if err != nil || n != int(raw) {
			return nil, false
		}
		out += n
		src = src[comp:]
	}
	return dst[:out], out == len(dst)
}

// Decode is DecodeWithError, panicking on an error as arrow-go's codecs do.
func (c hadoopLZ4) Decode(dst, src []byte) []byte {
	out, err := c.DecodeWithError(dst, src)
	if err != nil {
		panic(err)
	}
	return out
}

// Encode writes src as one block of Hadoop's framing (arrow-go writes
// Parquet's LZ4_RAW; this is for completeness of the interface).
func (hadoopLZ4) Encode(dst, src []byte) []byte {
	bound := lz4.CompressBlockBound(len(src)) + 8
	if cap(dst) < bound {
		dst = make([]byte, bound)
	}
	dst = dst[:bound]
	n, err := lz4.CompressBlock(src, dst[8:], nil)
	if err != nil {
		panic(fmt.Errorf("codec: LZ4: %w", err))
	}
	if n == 0 && len(src) > 0 {
		panic(errors.New("codec: LZ4: incompressible block"))
	}
	binary.BigEndian.PutUint32(dst, uint32(len(src)))
	binary.BigEndian.PutUint32(dst[4:], uint32(n))
	return dst[:8+n]
}

// EncodeLevel is Encode.
func (c hadoopLZ4) EncodeLevel(dst, src []byte, _ int) []byte { return c.Encode(dst, src) }

// CompressBound is the most bytes Encode writes for n.
func (hadoopLZ4) CompressBound(n int64) int64 { return int64(lz4.CompressBlockBound(int(n))) + 8 }
