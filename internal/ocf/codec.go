package ocf

import (
	"bytes"
	"encoding/binary"
	"errors"
	"fmt"
	"hash/crc32"
	"io"
	"slices"

	"github.com/dsnet/compress/bzip2"
	"github.com/golang/snappy"
	"github.com/klauspost/compress/flate"
	"github.com/klauspost/compress/zstd"
	"github.com/ulikunitz/xz"
)

// A decompressor turns the stored bytes of one block back into records.
// Implementations keep their state between blocks so that steady-state
// reading allocates nothing.
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

// newDecompressor returns the decompressor for codec name, or nil for the
// null codec. limit bounds the decompressed size of a block.
func newDecompressor(name string, limit int64) (decompressor, error) {
	switch name {
	case CodecNull:
		return nil, nil
	case CodecDeflate:
		return &deflateDecompressor{limit: limit}, nil
	case CodecSnappy:
		return &snappyDecompressor{limit: limit}, nil
	case CodecBzip2:
		return &bzip2Decompressor{limit: limit}, nil
	case CodecXZ:
		return &xzDecompressor{limit: limit}, nil
	case CodecZstandard:
		return &zstdDecompressor{limit: limit}, nil
	}
	return nil, fmt.Errorf("%w %q", ErrUnknownCodec, name)
}

// newCompressor returns the compressor for codec name at the given level
// (0 for the codec's default), or nil for the null codec.
func newCompressor(name string, level int) (compressor, error) {
	switch name {
	case CodecNull:
		return nil, nil
	case CodecDeflate:
		if level == 0 {
			level = flate.DefaultCompression
		} else if level < flate.BestSpeed || level > flate.BestCompression {
			return nil, fmt.Errorf("ocf: deflate level %d out of range 1..9", level)
		}
		zw, err := flate.NewWriter(nil, level)
		if err != nil {
			return nil, fmt.Errorf("ocf: deflate: %w", err)
		}
		return &deflateCompressor{zw: zw}, nil
	case CodecSnappy:
		return snappyCompressor{}, nil
	case CodecBzip2:
		if level == 0 {
			level = bzip2.DefaultCompression
		} else if level < bzip2.BestSpeed || level > bzip2.BestCompression {
			return nil, fmt.Errorf("ocf: bzip2 level %d out of range 1..9", level)
		}
		zw, err := bzip2.NewWriter(nil, &bzip2.WriterConfig{Level: level})
		if err != nil {
			return nil, fmt.Errorf("ocf: bzip2: %w", err)
		}
		return &bzip2Compressor{zw: zw}, nil
	case CodecXZ:
		return &xzCompressor{}, nil
	case CodecZstandard:
		el := zstd.SpeedDefault
		if level != 0 {
			if level < 1 || level > 22 {
				return nil, fmt.Errorf("ocf: zstandard level %d out of range 1..22", level)
			}
			el = zstd.EncoderLevelFromZstd(level)
		}
		enc, err := zstd.NewWriter(nil, zstd.WithEncoderConcurrency(1), zstd.WithEncoderLevel(el))
		if err != nil {
			return nil, fmt.Errorf("ocf: zstandard: %w", err)
		}
		return &zstdCompressor{enc: enc}, nil
	}
	return nil, fmt.Errorf("ocf: %w %q", ErrUnknownCodec, name)
}

// appendWriter is an io.Writer that appends to a byte slice.
type appendWriter struct{ b []byte }

func (w *appendWriter) Write(p []byte) (int, error) {
	w.b = append(w.b, p...)
	return len(p), nil
}

// readAll reads r to its end into dst[:0]. The buffer grows only as data
// arrives, so memory follows the real output, and never beyond limit+1
// bytes: more than limit bytes of output is ErrTooLarge.
func readAll(r io.Reader, dst []byte, limit int64) ([]byte, error) {
	dst = dst[:0]
	for {
		if len(dst) == cap(dst) {
			if int64(len(dst)) > limit {
				return dst, fmt.Errorf("%w: decompressed block exceeds %d bytes", ErrTooLarge, limit)
			}
			n := max(len(dst), 4<<10)
			n = int(min(int64(n), limit+1-int64(len(dst))))
			dst = slices.Grow(dst, n)
		}
		n, err := r.Read(dst[len(dst):cap(dst)])
		dst = dst[:len(dst)+n]
		if int64(len(dst)) > limit {
			return dst, fmt.Errorf("%w: decompressed block exceeds %d bytes", ErrTooLarge, limit)
		}
		if err == io.EOF {
			return dst, nil
		}
		if err != nil {
			return dst, err
		}
	}
}

// deflate: raw RFC 1951 data, no zlib header.

type deflateDecompressor struct {
	limit int64
	src   bytes.Reader
	zr    io.ReadCloser
}

func (d *deflateDecompressor) decompress(dst, src []byte) ([]byte, error) {
	d.src.Reset(src)
	if d.zr == nil {
		d.zr = flate.NewReader(&d.src)
	} else if err := d.zr.(flate.Resetter).Reset(&d.src, nil); err != nil {
		return dst, fmt.Errorf("deflate: %w", err)
	}
	dst, err := readAll(d.zr, dst, d.limit)
	if err != nil && !errors.Is(err, ErrTooLarge) {
		err = fmt.Errorf("deflate: %w", err)
	}
	return dst, err
}

type deflateCompressor struct {
	zw  *flate.Writer
	out appendWriter
}

func (c *deflateCompressor) compress(dst, src []byte) ([]byte, error) {
	c.out.b = dst
	c.zw.Reset(&c.out)
	_, err := c.zw.Write(src)
	if err == nil {
		err = c.zw.Close()
	}
	dst, c.out.b = c.out.b, nil
	if err != nil {
		return dst, fmt.Errorf("deflate: %w", err)
	}
	return dst, nil
}

// snappy: a raw snappy block followed by the big-endian CRC-32 (IEEE) of
// the uncompressed data.

// snappyMaxRatio bounds how much a snappy block can expand: the densest
// element, a 3-byte copy, yields at most 64 bytes.
const snappyMaxRatio = 22

type snappyDecompressor struct {
	limit int64
}

func (d *snappyDecompressor) decompress(dst, src []byte) ([]byte, error) {
	if len(src) < 4 {
		return dst[:0], fmt.Errorf("snappy: %w: block of %d bytes has no room for its checksum", ErrFormat, len(src))
	}
	body, sum := src[:len(src)-4], binary.BigEndian.Uint32(src[len(src)-4:])
	n, err := snappy.DecodedLen(body)
	if err != nil {
		return dst[:0], fmt.Errorf("snappy: %w", err)
	}
	if int64(n) > d.limit {
		return dst[:0], fmt.Errorf("%w: snappy block claims %d decompressed bytes, limit %d", ErrTooLarge, n, d.limit)
	}
	if n > snappyMaxRatio*len(body) {
		return dst[:0], fmt.Errorf("snappy: %w: %d bytes cannot decompress to %d", ErrFormat, len(body), n)
	}
	dst = slices.Grow(dst[:0], n)[:n]
	out, err := snappy.Decode(dst, body)
	if err != nil {
		return dst[:0], fmt.Errorf("snappy: %w", err)
	}
	if got := crc32.ChecksumIEEE(out); got != sum {
		return out, fmt.Errorf("snappy: %w: stored %08x, computed %08x", ErrChecksum, sum, got)
	}
	return out, nil
}

type snappyCompressor struct{}

func (snappyCompressor) compress(dst, src []byte) ([]byte, error) {
	dst = slices.Grow(dst, snappy.MaxEncodedLen(len(src))+4)
	enc := snappy.Encode(dst[len(dst):cap(dst)], src)
	dst = dst[:len(dst)+len(enc)]
	return binary.BigEndian.AppendUint32(dst, crc32.ChecksumIEEE(src)), nil
}

// bzip2

type bzip2Decompressor struct {
	limit int64
	src   bytes.Reader
	zr    *bzip2.Reader
}

func (d *bzip2Decompressor) decompress(dst, src []byte) ([]byte, error) {
	d.src.Reset(src)
	if d.zr == nil {
		zr, err := bzip2.NewReader(&d.src, nil)
		if err != nil {
			return dst[:0], fmt.Errorf("bzip2: %w", err)
		}
		d.zr = zr
	} else if err := d.zr.Reset(&d.src); err != nil {
		return dst[:0], fmt.Errorf("bzip2: %w", err)
	}
	dst, err := readAll(d.zr, dst, d.limit)
	if err != nil && !errors.Is(err, ErrTooLarge) {
		err = fmt.Errorf("bzip2: %w", err)
	}
	return dst, err
}

type bzip2Compressor struct {
	zw  *bzip2.Writer
	out appendWriter
}

func (c *bzip2Compressor) compress(dst, src []byte) ([]byte, error) {
	c.out.b = dst
	err := c.zw.Reset(&c.out)
	if err == nil {
		_, err = c.zw.Write(src)
	}
	if err == nil {
		err = c.zw.Close()
	}
	dst, c.out.b = c.out.b, nil
	if err != nil {
		return dst, fmt.Errorf("bzip2: %w", err)
	}
	return dst, nil
}

// xz. The xz package has no way to reset a reader or writer, so each block
// gets a fresh one: xz costs allocations per block, sized by the
// dictionary.

type xzDecompressor struct {
	limit int64
	src   bytes.Reader
}

func (d *xzDecompressor) decompress(dst, src []byte) ([]byte, error) {
	// The reader allocates the whole dictionary that the block headers
	// ask for before it decodes anything; refuse dictionaries larger than
	// the output could ever be.
	if dict, ok := xzDictSize(src); ok && dict > uint64(max(d.limit, 4<<10)) {
		return dst[:0], fmt.Errorf("%w: xz dictionary of %d bytes exceeds limit %d", ErrTooLarge, dict, d.limit)
	}
	d.src.Reset(src)
	zr, err := xz.NewReader(&d.src)
	if err != nil {
		return dst[:0], fmt.Errorf("xz: %w", err)
	}
	dst, err = readAll(zr, dst, d.limit)
	if err != nil && !errors.Is(err, ErrTooLarge) {
		err = fmt.Errorf("xz: %w", err)
	}
	return dst, err
}

// xzDictSize returns the LZMA2 dictionary size that the first block header
// of the xz stream in b declares, if b is laid out as expected.
func xzDictSize(b []byte) (uint64, bool) {
	const streamHeaderLen = 12
	if len(b) < streamHeaderLen+2 {
		return 0, false
	}
	h := b[streamHeaderLen:]
	size := (int(h[0]) + 1) * 4 // block header size, including the size byte
	if h[0] == 0 || len(h) < size {
		return 0, false
	}
	h = h[:size-4] // drop the header CRC32
	flags := h[1]
	nfilters := int(flags&3) + 1
	h = h[2:]
	skipVarint := func() bool {
		for i, c := range h {
			if c < 0x80 {
				h = h[i+1:]
				return true
			}
		}
		return false
	}
	if flags&0x40 != 0 && !skipVarint() { // compressed size
		return 0, false
	}
	if flags&0x80 != 0 && !skipVarint() { // uncompressed size
		return 0, false
	}
	var dict uint64
	for range nfilters {
		if len(h) < 2 {
			return 0, false
		}
		id, propLen := h[0], int(h[1])
		if id >= 0x80 || propLen >= 0x80 || len(h) < 2+propLen {
			return 0, false
		}
		if id == 0x21 && propLen == 1 { // LZMA2
			p := uint64(h[2] & 0x3f)
			if p > 40 {
				return 0, false
			}
			if p == 40 {
				dict = 1<<32 - 1
			} else {
				dict = (2 | p&1) << (p/2 + 11)
			}
		}
		h = h[2+propLen:]
	}
	return dict, dict > 0
}

type xzCompressor struct {
	out appendWriter
}

func (c *xzCompressor) compress(dst, src []byte) ([]byte, error) {
	// The dictionary never needs to be larger than the block.
	dict := 1 << 12
	for dict < len(src) && dict < 64<<20 {
		dict <<= 1
	}
	c.out.b = dst
	zw, err := xz.WriterConfig{DictCap: dict}.NewWriter(&c.out)
	if err == nil {
		_, err = zw.Write(src)
		if err == nil {
			err = zw.Close()
		}
	}
	dst, c.out.b = c.out.b, nil
	if err != nil {
		return dst, fmt.Errorf("xz: %w", err)
	}
	return dst, nil
}

// zstandard

// zstdMaxRatio bounds how much a zstandard frame can expand: the densest
// element, a 4-byte RLE block, yields at most 128 KiB.
const zstdMaxRatio = 32 << 10

type zstdDecompressor struct {
	limit int64
	dec   *zstd.Decoder
	hdr   zstd.Header
}

func (d *zstdDecompressor) decompress(dst, src []byte) ([]byte, error) {
	if d.dec == nil {
		dec, err := zstd.NewReader(nil,
			zstd.WithDecoderConcurrency(1),
			zstd.WithDecoderMaxMemory(uint64(max(d.limit, 1))))
		if err != nil {
			return dst[:0], fmt.Errorf("zstandard: %w", err)
		}
		d.dec = dec
	}
	// DecodeAll allocates the frame's declared content size up front;
	// refuse a declaration the input cannot back.
	if d.hdr.Decode(src) == nil && d.hdr.HasFCS {
		if d.hdr.FrameContentSize > uint64(d.limit) {
			return dst[:0], fmt.Errorf("%w: zstandard frame claims %d decompressed bytes, limit %d", ErrTooLarge, d.hdr.FrameContentSize, d.limit)
		}
		if d.hdr.FrameContentSize > zstdMaxRatio*uint64(len(src)) {
			return dst[:0], fmt.Errorf("zstandard: %w: %d bytes cannot decompress to %d", ErrFormat, len(src), d.hdr.FrameContentSize)
		}
	}
	dst, err := d.dec.DecodeAll(src, dst[:0])
	if errors.Is(err, zstd.ErrDecoderSizeExceeded) {
		return dst, fmt.Errorf("%w: decompressed block exceeds %d bytes", ErrTooLarge, d.limit)
	}
	if err != nil {
		return dst, fmt.Errorf("zstandard: %w", err)
	}
	return dst, nil
}

type zstdCompressor struct {
	enc *zstd.Encoder
}

func (c *zstdCompressor) compress(dst, src []byte) ([]byte, error) {
	return c.enc.EncodeAll(src, dst), nil
}
