package format

import (
	"errors"
	"fmt"
	"hash/crc32"
	"math"
	"sync"

	"github.com/trevni-go/trevni/internal/codec"
)

// A Codec compresses and decompresses whole blocks. A Codec is used by
// several goroutines at once and must be safe for concurrent use.
type Codec interface {
	// Compress appends the compressed form of src to dst.
	Compress(dst, src []byte) ([]byte, error)
	// Decompress appends the decompressed form of src to dst. size is
	// the uncompressed length the block descriptor claims; it comes from
	// the file and must not be trusted for allocation. The result must
	// hold exactly size bytes more than dst, or Decompress fails.
	Decompress(dst, src []byte, size int) ([]byte, error)
}

// Codec names understood by default. Java reads and writes all but zstd.
const (
	CodecNull    = codec.Null
	CodecDeflate = codec.Deflate // raw RFC 1951, as Java's Deflater(nowrap)
	CodecSnappy  = codec.Snappy  // raw snappy block format, no framing
	CodecBzip2   = codec.Bzip2   // one complete bzip2 stream per block
	CodecZstd    = codec.Zstd    // extension: one zstd frame per block; Java cannot read it
	// CodecZstandard is the Avro specification's name for zstd, accepted
	// as a synonym of CodecZstd when reading and writing.
	CodecZstandard = codec.Zstandard
)

// Checksum names understood by default.
const (
	ChecksumNull  = "null"
	ChecksumCRC32 = "crc32"  // CRC-32 (IEEE) of the uncompressed block, stored big-endian
	checksumCRC32 = "crc-32" // the specification's spelling, accepted as a synonym
)

// DefaultDeflateLevel is the deflate level used when none is given: Java's
// Deflater.DEFAULT_COMPRESSION.
const DefaultDeflateLevel = 6

// bzip2Level is the bzip2 level the writer uses: 900 kB blocks and the
// "BZh9" header, as Java writes.
const bzip2Level = 9

// codecSet resolves codec names for one Writer or Reader: the built-in
// codecs, created on first use, overridden by the caller's own.
type codecSet struct {
	custom       map[string]Codec
	deflateLevel int

	mu      sync.Mutex
	builtin map[string]Codec
}

func (s *codecSet) lookup(name string) (Codec, error) {
	if name == "" {
		name = CodecNull
	}
	if c, ok := s.custom[name]; ok && c != nil {
		return c, nil
	}
	name = codec.Canonical(name)
	s.mu.Lock()
	defer s.mu.Unlock()
	if c, ok := s.builtin[name]; ok {
		return c, nil
	}
	level := 0
	switch name {
	case CodecNull, CodecSnappy, CodecZstd:
	case CodecDeflate:
		level = s.deflateLevel
		if level == 0 {
			level = DefaultDeflateLevel
		}
		if level < -2 || level > 9 {
			return nil, fmt.Errorf("%w: deflate level %d out of range", ErrUsage, level)
		}
	case CodecBzip2:
		level = bzip2Level
	default:
		return nil, fmt.Errorf("%w %q", ErrCodec, name)
	}
	cc, err := codec.New(name, level)
	if err != nil {
		return nil, fmt.Errorf("%w: %w", ErrUsage, err)
	}
	// Java's bzip2 codec before Avro 1.10 compressed its whole buffer, so
	// its blocks may decompress to more than their descriptor says: the
	// data is the first bytes, as Java reads them.
	c := builtinCodec{c: cc, prefix: name == CodecBzip2}
	if s.builtin == nil {
		s.builtin = make(map[string]Codec)
	}
	s.builtin[name] = c
	return c, nil
}

// builtinCodec adapts a codec of internal/codec to the Codec interface.
type builtinCodec struct {
	c      codec.Codec
	prefix bool
}

func (b builtinCodec) Compress(dst, src []byte) ([]byte, error) { return b.c.Compress(dst, src) }

func (b builtinCodec) Decompress(dst, src []byte, size int) ([]byte, error) {
	lim := codec.ExactSize(size)
	lim.Prefix = b.prefix
	out, err := b.c.Decompress(dst, src, lim)
	if err != nil {
		return out, asFormat(err)
	}
	return out, nil
}

// maxExpansion returns the most bytes that stored bytes of codec c could
// decompress to, as far as it is known.
func maxExpansion(c Codec, stored int) int {
	if b, ok := c.(builtinCodec); ok {
		if r := codec.MaxRatio(b.c.Name()); r > 0 {
			return int(min(int64(r)*int64(stored)+64, math.MaxInt32))
		}
	}
	return math.MaxInt32
}

// isNullCodec reports whether c is the built-in null codec, which stores
// blocks as they are.
func isNullCodec(c Codec) bool {
	b, ok := c.(builtinCodec)
	return ok && b.c.Name() == codec.Null
}

// asFormat wraps err in ErrFormat unless it already is one.
func asFormat(err error) error {
	if errors.Is(err, ErrFormat) {
		return err
	}
	return fmt.Errorf("%w: %w", ErrFormat, err)
}

// checksumSize returns the number of bytes the named checksum adds to
// every block.
func checksumSize(name string) (int, error) {
	switch name {
	case "", ChecksumNull:
		return 0, nil
	case ChecksumCRC32, checksumCRC32:
		return 4, nil
	}
	return 0, fmt.Errorf("%w: unknown checksum %q", ErrCodec, name)
}

var crcTable = crc32.MakeTable(crc32.IEEE)
