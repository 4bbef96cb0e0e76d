package trevniarrow

import (
	"github.com/apache/arrow-go/v18/parquet/compress"
	"github.com/klauspost/compress/s2"
)

// arrow-go compresses Parquet pages with snappy through klauspost's
// snappy package, whose Encode is s2's "better" snappy-compatible encoder:
// on the pages of a typical data set it costs about twice the instructions
// of s2's default snappy-compatible encoder (a fifth of all the work of
// writing Parquet from Trevni) for output a few percent smaller. Both write
// standard snappy blocks that every reader decodes. The package registers,
// as arrow-go's RegisterCodec intends (in an init function), the same
// codec with the faster encoder; decoding and the streaming writers are
// arrow-go's own. The registration is process-wide: every Parquet file
// written with snappy in a program that imports this package uses it.
func init() {
	if c, err := compress.GetCodec(compress.Codecs.Snappy); err == nil {
		compress.RegisterCodec(compress.Codecs.Snappy, fastSnappy{c})
	}
}

// fastSnappy is arrow-go's snappy codec with s2's default
// snappy-compatible block encoder.
type fastSnappy struct{ compress.Codec }

// Encode compresses src as a snappy block into dst (reused if large
// enough).
func (fastSnappy) Encode(dst, src []byte) []byte { return s2.EncodeSnappy(dst, src) }

// EncodeLevel is Encode: snappy has no levels.
func (fastSnappy) EncodeLevel(dst, src []byte, _ int) []byte { return s2.EncodeSnappy(dst, src) }

// DecodeWithError decodes a snappy block, reporting malformed input as an
// error (the codec wrapped implements it).
func (f fastSnappy) DecodeWithError(dst, src []byte) ([]byte, error) {
	return compress.Decode(f.Codec, dst, src)
}
