package codec

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"slices"
	"sync"

	"github.com/dsnet/compress/bzip2"
	"github.com/golang/snappy"
	"github.com/klauspost/compress/flate"
	"github.com/klauspost/compress/zstd"
	"github.com/ulikunitz/xz"
)

// freeList keeps coders for reuse. Unlike a sync.Pool it is not emptied
// by garbage collection, which would make a codec build its costly coders
// again and again; it keeps at most maxFree of them.
type freeList[T any] struct {
	mu    sync.Mutex
	items []T
}

const maxFree = 16

// get returns a kept coder, or the zero value when there is none.
func (f *freeList[T]) get() T {
	f.mu.Lock()
	defer f.mu.Unlock()
	var x T
	if n := len(f.items); n > 0 {
		x = f.items[n-1]
		f.items[n-1] = *new(T)
		f.items = f.items[:n-1]
	}
	return x
}

// put keeps x for reuse, unless enough are kept already.
func (f *freeList[T]) put(x T) {
	f.mu.Lock()
	defer f.mu.Unlock()
	if len(f.items) < maxFree {
		f.items = append(f.items, x)
	}
}

// appendWriter is an io.Writer that appends to a byte slice.
type appendWriter struct{ b []byte }

func (w *appendWriter) Write(p []byte) (int, error) {
	w.b = append(w.b, p...)
	return len(p), nil
}

// deflate: raw RFC 1951 data, no zlib header.

type deflateCodec struct {
	level   int
	writers freeList[*deflateWriter]
	readers freeList[*deflateReader]
}

type deflateWriter struct {
	zw  *flate.Writer
	out appendWriter
}

type deflateReader struct {
	src bytes.Reader
	zr  io.ReadCloser // implements flate.Resetter
}

func newDeflate(level int) (*deflateCodec, error) {
	if level == 0 {
		level = flate.DefaultCompression
	}
	if level < flate.HuffmanOnly || level > flate.BestCompression {
		return nil, fmt.Errorf("deflate level %d out of range", level)
	}
	return &deflateCodec{level: level}, nil
}

func (c *deflateCodec) Name() string { return Deflate }

func (c *deflateCodec) Compress(dst, src []byte) ([]byte, error) {
	w := c.writers.get()
	if w == nil {
		w = &deflateWriter{}
		zw, err := flate.NewWriter(&w.out, c.level)
		if err != nil {
			return dst, fmt.Errorf("deflate: %w", err)
		}
		w.zw = zw
	}
	w.out.b = dst
	w.zw.Reset(&w.out)
	_, err := w.zw.Write(src)
	if err == nil {
		err = w.zw.Close()
	}
	dst, w.out.b = w.out.b, nil
	if err != nil {
		return dst, fmt.Errorf("deflate: %w", err)
	}
	c.writers.put(w)
	return dst, nil
}

func (c *deflateCodec) Decompress(dst, src []byte, lim Limit) ([]byte, error) {
	r := c.readers.get()
	if r == nil {
		r = &deflateReader{}
		r.src.Reset(src)
		r.zr = flate.NewReader(&r.src)
	} else {
		r.src.Reset(src)
		if err := r.zr.(flate.Resetter).Reset(&r.src, nil); err != nil {
			return dst, fmt.Errorf("deflate: %w", corrupt(err))
		}
	}
	out, ended, err := readBounded(dst, r.zr, lim)
	r.src.Reset(nil)
	if ended {
		c.readers.put(r) // a decoder stopped early is not reused
	}
	if err != nil {
		return out, fmt.Errorf("deflate: %w", err)
	}
	return out, nil
}

// snappy: the raw block format, a length prefix then elements, no framing.

// snappyMaxRatio bounds how much snappy can expand: the densest element, a
// 3-byte copy, yields at most 64 bytes.
const snappyMaxRatio = 22

type snappyCodec struct{}

func (snappyCodec) Name() string { return Snappy }

func (snappyCodec) Compress(dst, src []byte) ([]byte, error) {
	n := snappy.MaxEncodedLen(len(src))
	if n < 0 {
		return dst, errors.New("snappy: block too large")
	}
	dst = growLen(dst, n)
	enc := snappy.Encode(dst[len(dst)-n:], src)
	return dst[:len(dst)-n+len(enc)], nil
}

func (snappyCodec) Decompress(dst, src []byte, lim Limit) ([]byte, error) {
	n, err := snappy.DecodedLen(src)
	if err != nil {
		return dst, fmt.Errorf("snappy: %w", corrupt(err))
	}
	if err := checkStated(uint64(n), len(src), snappyMaxRatio, lim); err != nil {
		return dst, fmt.Errorf("snappy: %w", err)
	}
	dst = growLen(dst, n)
	out, err := snappy.Decode(dst[len(dst)-n:], src)
	if err != nil {
		return dst[:len(dst)-n], fmt.Errorf("snappy: %w", corrupt(err))
	}
	if len(out) != n {
		return dst[:len(dst)-n], fmt.Errorf("snappy: %w: block decompresses to %d bytes, states %d", ErrCorrupt, len(out), n)
	}
	return dst, nil
}

// bzip2: one complete bzip2 stream per block.

type bzip2Codec struct {
	level   int
	writers freeList[*bzip2Writer]
	readers freeList[*bzip2Reader]
}

type bzip2Writer struct {
	zw  *bzip2.Writer
	out appendWriter
}

type bzip2Reader struct {
	src bytes.Reader
	zr  *bzip2.Reader
}

func newBzip2(level int) (*bzip2Codec, error) {
	if level == 0 {
		level = bzip2.DefaultCompression
	}
	if level < bzip2.BestSpeed || level > bzip2.BestCompression {
		return nil, fmt.Errorf("bzip2 level %d out of range", level)
	}
	return &bzip2Codec{level: level}, nil
}

func (c *bzip2Codec) Name() string { return Bzip2 }

func (c *bzip2Codec) Compress(dst, src []byte) ([]byte, error) {
	w := c.writers.get()
	if w == nil {
		w = &bzip2Writer{}
		zw, err := bzip2.NewWriter(&w.out, &bzip2.WriterConfig{Level: c.level})
		if err != nil {
			return dst, fmt.Errorf("bzip2: %w", err)
		}
		w.zw = zw
	}
	w.out.b = dst
	err := w.zw.Reset(&w.out)
	if err == nil {
		_, err = w.zw.Write(src)
	}
	if err == nil {
		err = w.zw.Close()
	}
	dst, w.out.b = w.out.b, nil
	if err != nil {
		return dst, fmt.Errorf("bzip2: %w", err)
	}
	c.writers.put(w)
	return dst, nil
}

func (c *bzip2Codec) Decompress(dst, src []byte, lim Limit) ([]byte, error) {
	r := c.readers.get()
	if r == nil {
		r = &bzip2Reader{}
		r.src.Reset(src)
		zr, err := bzip2.NewReader(&r.src, nil)
		if err != nil {
			return dst, fmt.Errorf("bzip2: %w", corrupt(err))
		}
		r.zr = zr
	} else {
		r.src.Reset(src)
		if err := r.zr.Reset(&r.src); err != nil {
			return dst, fmt.Errorf("bzip2: %w", corrupt(err))
		}
	}
	out, ended, err := readBounded(dst, r.zr, lim)
	r.src.Reset(nil)
	if ended {
		c.readers.put(r) // a decoder stopped early is not reused
	}
	if err != nil {
		return out, fmt.Errorf("bzip2: %w", err)
	}
	return out, nil
}

// xz. The xz package cannot reset a reader or writer, so each block gets a
// fresh one: xz costs allocations per block, sized by the dictionary.

type xzCodec struct{}

func (*xzCodec) Name() string { return XZ }

func (*xzCodec) Compress(dst, src []byte) ([]byte, error) {
	// The dictionary never needs to be larger than the block.
	dict := 1 << 12
	for dict < len(src) && dict < 64<<20 {
		dict <<= 1
	}
	out := appendWriter{b: dst}
	zw, err := xz.WriterConfig{DictCap: dict}.NewWriter(&out)
	if err == nil {
		_, err = zw.Write(src)
		if err == nil {
			err = zw.Close()
		}
	}
	if err != nil {
		return out.b, fmt.Errorf("xz: %w", err)
	}
	return out.b, nil
}

func (*xzCodec) Decompress(dst, src []byte, lim Limit) ([]byte, error) {
	// The reader allocates the whole dictionary that the block headers
	// ask for before it decodes anything; refuse dictionaries larger than
	// the output could ever need (writers round it up to a power of two).
	if dict, ok := XZDictSize(src); ok && dict > 2*uint64(max(lim.Max, 4<<10)) {
		return dst, fmt.Errorf("%w: xz dictionary of %d bytes exceeds limit %d", ErrTooLarge, dict, lim.Max)
	}
	zr, err := xz.NewReader(bytes.NewReader(src))
	if err != nil {
		return dst, fmt.Errorf("xz: %w", corrupt(err))
	}
	out, _, err := readBounded(dst, zr, lim)
	if err != nil {
		return out, fmt.Errorf("xz: %w", err)
	}
	return out, nil
}

// XZDictSize returns the LZMA2 dictionary size that the first block header
// of the xz stream in b declares, if b is laid out as expected.
func XZDictSize(b []byte) (uint64, bool) {
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

// zstd: one frame per block.

// zstdMaxRatio bounds how much a zstd frame can expand: the densest
// element, a 4-byte RLE block, yields at most 128 KiB.
const zstdMaxRatio = 32 << 10

type zstdCodec struct {
	level   zstd.EncoderLevel
	once    sync.Once
	enc     *zstd.Encoder
	encErr  error
	readers freeList[*zstdReader]
}

type zstdReader struct {
	src bytes.Reader
	dec *zstd.Decoder
	hdr zstd.Header
}

func newZstd(level int) (*zstdCodec, error) {
	el := zstd.SpeedDefault
	if level != 0 {
		if level < 1 || level > 22 {
			return nil, fmt.Errorf("zstd level %d out of range", level)
		}
		el = zstd.EncoderLevelFromZstd(level)
	}
	return &zstdCodec{level: el}, nil
}

func (c *zstdCodec) Name() string { return Zstd }

func (c *zstdCodec) Compress(dst, src []byte) ([]byte, error) {
	c.once.Do(func() {
		c.enc, c.encErr = zstd.NewWriter(nil, zstd.WithEncoderConcurrency(1), zstd.WithEncoderLevel(c.level))
	})
	if c.encErr != nil {
		return dst, fmt.Errorf("zstd: %w", c.encErr)
	}
	return c.enc.EncodeAll(src, dst), nil
}

func (c *zstdCodec) Decompress(dst, src []byte, lim Limit) ([]byte, error) {
	r := c.readers.get()
	if r == nil {
		r = &zstdReader{}
		dec, err := zstd.NewReader(nil, zstd.WithDecoderConcurrency(1))
		if err != nil {
			return dst, fmt.Errorf("zstd: %w", err)
		}
		r.dec = dec
	}
	// A block of one frame that states its size is decoded in one call,
	// once the size is found within the limit and within what the input
	// could produce: the decoder stops the frame at the size it states.
	// Anything else is decoded as a bounded stream.
	if r.hdr.Decode(src) != nil || !r.hdr.HasFCS || zstdFrameLen(src, &r.hdr) != len(src) {
		c.readers.put(r)
		return c.decodeStream(dst, src, lim)
	}
	if err := checkStated(r.hdr.FrameContentSize, len(src), zstdMaxRatio, lim); err != nil {
		c.readers.put(r)
		return dst, fmt.Errorf("zstd: %w", err)
	}
	start, n := len(dst), int(r.hdr.FrameContentSize)
	out, err := r.dec.DecodeAll(src, slices.Grow(dst, n))
	c.readers.put(r)
	switch {
	case err != nil:
		return dst, fmt.Errorf("zstd: %w", corrupt(err))
	case len(out)-start > n:
		return dst, fmt.Errorf("zstd: %w: frame decompresses to more than the %d bytes it states", ErrCorrupt, n)
	case lim.Exact && len(out)-start != lim.Max:
		return out, fmt.Errorf("zstd: %w: block decompresses to %d bytes, stated size %d", ErrSize, len(out)-start, lim.Max)
	}
	return out, nil
}

// decodeStream decodes src as a stream, bounded by lim.
func (c *zstdCodec) decodeStream(dst, src []byte, lim Limit) ([]byte, error) {
	r := c.readers.get()
	if r == nil {
		r = &zstdReader{}
		r.src.Reset(src)
		dec, err := zstd.NewReader(&r.src, zstd.WithDecoderConcurrency(1))
		if err != nil {
			return dst, fmt.Errorf("zstd: %w", err)
		}
		r.dec = dec
	} else {
		r.src.Reset(src)
		if err := r.dec.Reset(&r.src); err != nil {
			return dst, fmt.Errorf("zstd: %w", corrupt(err))
		}
	}
	out, ended, err := readBounded(dst, r.dec, lim)
	r.src.Reset(nil)
	if ended {
		c.readers.put(r) // a decoder stopped early is not reused
	}
	if err != nil {
		return out, fmt.Errorf("zstd: %w", err)
	}
	return out, nil
}

// zstdFrameLen returns the length of the zstd frame at the start of src
// whose header h has decoded, by walking its block headers, or -1 when the
// frame runs past src.
func zstdFrameLen(src []byte, h *zstd.Header) int {
	pos := h.HeaderSize
	for {
		if pos+3 > len(src) {
			return -1
		}
		bh := int(src[pos]) | int(src[pos+1])<<8 | int(src[pos+2])<<16
		pos += 3
		switch size := bh >> 3; (bh >> 1) & 3 {
		case 0, 2: // raw, compressed
			pos += size
		case 1: // RLE: one byte repeated
			pos++
		default:
			return -1
		}
		if pos > len(src) {
			return -1
		}
		if bh&1 != 0 { // the last block
			break
		}
	}
	if h.HasCheckSum {
		pos += 4
	}
	if pos > len(src) {
		return -1
	}
	return pos
}
