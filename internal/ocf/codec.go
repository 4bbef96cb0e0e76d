package ocf

import (
	"encoding/binary"
	"errors"
	"fmt"
	"hash/crc32"

	"github.com/trevni-go/trevni/internal/codec"
)

// A decompressor turns the stored bytes of one block back into records.
type decompressor interface {
	// decompress stores the decompressed form of src in dst[:0], growing
	// dst as needed, and returns it. It fails with ErrTooLarge rather than
	// produce more than the configured limit.
	decompress(dst, src []byte) ([]byte, error)
}

// A compressor turns the records of one block into stored bytes.
type compressor interface {
	// compress appends the compressed form of src to dst.
	compress(dst, src []byte) ([]byte, error)
}

// canonicalCodec returns the name a container stores for codec name: the
// Avro specification's, so "zstd" becomes "zstandard".
func canonicalCodec(name string) string {
	if name == codec.Zstd {
		return codec.Zstandard
	}
	return name
}

// newDecompressor returns the decompressor for codec name, or nil for the
// null codec. limit bounds the decompressed size of a block.
func newDecompressor(name string, limit int64) (decompressor, error) {
	name = canonicalCodec(name)
	switch name {
	case codec.Null:
		return nil, nil
	case codec.Deflate, codec.Snappy, codec.Bzip2, codec.XZ, codec.Zstandard:
	default:
		return nil, fmt.Errorf("%w %q", ErrUnknownCodec, name)
	}
	c, err := codec.New(name, 0)
	if err != nil {
		return nil, err
	}
	d := &blockDecompressor{c: c, limit: codec.AtMost(int(min(limit, int64(maxInt))))}
	if name == codec.Snappy {
		return &snappyDecompressor{d}, nil
	}
	return d, nil
}

const maxInt = int(^uint(0) >> 1)

// newCompressor returns the compressor for codec name at the given level
// (0 for the codec's default), or nil for the null codec.
func newCompressor(name string, level int) (compressor, error) {
	name = canonicalCodec(name)
	switch name {
	case codec.Null:
		return nil, nil
	case codec.Snappy, codec.XZ:
		level = 0 // ignored
	case codec.Deflate, codec.Bzip2:
		if level != 0 && (level < 1 || level > 9) {
			return nil, fmt.Errorf("ocf: %s level %d out of range 1..9", name, level)
		}
	case codec.Zstandard:
		if level != 0 && (level < 1 || level > 22) {
			return nil, fmt.Errorf("ocf: zstandard level %d out of range 1..22", level)
		}
	default:
		return nil, fmt.Errorf("ocf: %w %q", ErrUnknownCodec, name)
	}
	c, err := codec.New(name, level)
	if err != nil {
		return nil, fmt.Errorf("ocf: %w", err)
	}
	if name == codec.Snappy {
		return snappyCompressor{c}, nil
	}
	return blockCompressor{c}, nil
}

// blockDecompressor decompresses blocks with a shared codec, bounded by
// the reader's limit.
type blockDecompressor struct {
	c     codec.Codec
	limit codec.Limit
}

func (d *blockDecompressor) decompress(dst, src []byte) ([]byte, error) {
	out, err := d.c.Decompress(dst[:0], src, d.limit)
	return out, containerError(err)
}

// containerError maps the codec package's errors to this package's.
func containerError(err error) error {
	switch {
	case err == nil:
		return nil
	case errors.Is(err, codec.ErrTooLarge):
		return fmt.Errorf("%w: %w", ErrTooLarge, err)
	case errors.Is(err, codec.ErrCorrupt), errors.Is(err, codec.ErrSize):
		return fmt.Errorf("%w: %w", ErrFormat, err)
	}
	return err
}

type blockCompressor struct{ c codec.Codec }

func (c blockCompressor) compress(dst, src []byte) ([]byte, error) { return c.c.Compress(dst, src) }

// snappy in a container: a raw snappy block followed by the big-endian
// CRC-32 (IEEE) of the uncompressed data.

type snappyDecompressor struct{ *blockDecompressor }

func (d *snappyDecompressor) decompress(dst, src []byte) ([]byte, error) {
	if len(src) < 4 {
		return dst[:0], fmt.Errorf("snappy: %w: block of %d bytes has no room for its checksum", ErrFormat, len(src))
	}
	body, sum := src[:len(src)-4], binary.BigEndian.Uint32(src[len(src)-4:])
	out, err := d.blockDecompressor.decompress(dst, body)
	if err != nil {
		return out, err
	}
	if got := crc32.ChecksumIEEE(out); got != sum {
		return out, fmt.Errorf("snappy: %w: stored %08x, computed %08x", ErrChecksum, sum, got)
	}
	return out, nil
}

type snappyCompressor struct{ c codec.Codec }

func (c snappyCompressor) compress(dst, src []byte) ([]byte, error) {
	dst, err := c.c.Compress(dst, src)
	if err != nil {
		return dst, err
	}
	return binary.BigEndian.AppendUint32(dst, crc32.ChecksumIEEE(src)), nil
}
