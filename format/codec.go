package format

import (
	"bytes"
	"compress/bzip2"
	"errors"
	"fmt"
	"hash/crc32"
	"io"
	"sync"

	dbzip2 "github.com/dsnet/compress/bzip2"
	"github.com/golang/snappy"
	"github.com/klauspost/compress/flate"
	"github.com/klauspost/compress/zstd"
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
	CodecNull    = "null"
	CodecDeflate = "deflate" // raw RFC 1951, as Java's Deflater(nowrap)
	CodecSnappy  = "snappy"  // raw snappy block format, no framing
	CodecBzip2   = "bzip2"   // one complete bzip2 stream per block
	CodecZstd    = "zstd"    // extension: one zstd frame per block; Java cannot read it
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
	s.mu.Lock()
	defer s.mu.Unlock()
	if c, ok := s.builtin[name]; ok {
		return c, nil
	}
	var c Codec
	switch name {
	case CodecNull:
		c = nullCodec{}
	case CodecDeflate:
		level := s.deflateLevel
		if level == 0 {
			level = DefaultDeflateLevel
		}
		if level < flate.HuffmanOnly || level > flate.BestCompression {
			return nil, fmt.Errorf("%w: deflate level %d out of range", ErrUsage, level)
		}
		c = &deflateCodec{level: level}
	case CodecSnappy:
		c = snappyCodec{}
	case CodecBzip2:
		c = &bzip2Codec{}
	case CodecZstd:
		c = &zstdCodec{}
	default:
		return nil, fmt.Errorf("%w %q", ErrCodec, name)
	}
	if s.builtin == nil {
		s.builtin = make(map[string]Codec)
	}
	s.builtin[name] = c
	return c, nil
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

type nullCodec struct{}

func (nullCodec) Compress(dst, src []byte) ([]byte, error) { return append(dst, src...), nil }

func (nullCodec) Decompress(dst, src []byte, size int) ([]byte, error) {
	if len(src) != size {
		return dst, fmt.Errorf("%w: null codec block holds %d bytes, descriptor says %d", ErrFormat, len(src), size)
	}
	return append(dst, src...), nil
}

// readFull appends exactly size bytes from r to dst, growing dst only as
// data arrives, and fails if r holds fewer or more bytes.
func readFull(dst []byte, r io.Reader, size int) ([]byte, error) {
	start := len(dst)
	for len(dst)-start < size {
		if len(dst) == cap(dst) {
			grow := min(max(cap(dst)-start, 64<<10), size-(len(dst)-start))
			dst = append(dst, make([]byte, grow)...)[:len(dst)]
		}
		want := min(cap(dst), start+size)
		n, err := r.Read(dst[len(dst):want])
		dst = dst[:len(dst)+n]
		if err == io.EOF {
			break
		}
		if err != nil {
			return dst, err
		}
	}
	if got := len(dst) - start; got != size {
		return dst, fmt.Errorf("%w: block decompresses to %d bytes, descriptor says %d", ErrFormat, got, size)
	}
	var one [1]byte
	for {
		n, err := r.Read(one[:])
		if n > 0 {
			return dst, fmt.Errorf("%w: block decompresses to more than the %d bytes its descriptor says", ErrFormat, size)
		}
		if err == io.EOF {
			return dst, nil
		}
		if err != nil {
			return dst, err
		}
	}
}

type deflateCodec struct {
	level   int
	writers sync.Pool // *flate.Writer
	readers sync.Pool // io.ReadCloser implementing flate.Resetter
}

func (c *deflateCodec) Compress(dst, src []byte) ([]byte, error) {
	buf := bytes.NewBuffer(dst)
	w, _ := c.writers.Get().(*flate.Writer)
	if w == nil {
		var err error
		if w, err = flate.NewWriter(buf, c.level); err != nil {
			return dst, err
		}
	} else {
		w.Reset(buf)
	}
	if _, err := w.Write(src); err != nil {
		return dst, err
	}
	if err := w.Close(); err != nil {
		return dst, err
	}
	c.writers.Put(w)
	return buf.Bytes(), nil
}

func (c *deflateCodec) Decompress(dst, src []byte, size int) ([]byte, error) {
	br := bytes.NewReader(src)
	r, _ := c.readers.Get().(io.ReadCloser)
	if r == nil {
		r = flate.NewReader(br)
	} else if err := r.(flate.Resetter).Reset(br, nil); err != nil {
		return dst, err
	}
	out, err := readFull(dst, r, size)
	if err != nil {
		return out, fmt.Errorf("deflate: %w", err)
	}
	c.readers.Put(r)
	return out, nil
}

type snappyCodec struct{}

func (snappyCodec) Compress(dst, src []byte) ([]byte, error) {
	n := snappy.MaxEncodedLen(len(src))
	if n < 0 {
		return dst, errors.New("snappy: block too large")
	}
	dst = growLen(dst, n)
	enc := snappy.Encode(dst[len(dst)-n:], src)
	return dst[:len(dst)-n+len(enc)], nil
}

// snappyMaxRatio bounds how much a snappy block can expand: no element
// produces more than 64 bytes from fewer than 2.
const snappyMaxRatio = 32

func (snappyCodec) Decompress(dst, src []byte, size int) ([]byte, error) {
	n, err := snappy.DecodedLen(src)
	if err != nil {
		return dst, fmt.Errorf("%w: snappy: %v", ErrFormat, err)
	}
	if n != size {
		return dst, fmt.Errorf("%w: snappy block decompresses to %d bytes, descriptor says %d", ErrFormat, n, size)
	}
	if n > snappyMaxRatio*len(src)+64 {
		return dst, fmt.Errorf("%w: snappy block claims %d bytes from %d", ErrFormat, n, len(src))
	}
	dst = growLen(dst, n)
	out, err := snappy.Decode(dst[len(dst)-n:], src)
	if err != nil {
		return dst[:len(dst)-n], fmt.Errorf("%w: snappy: %v", ErrFormat, err)
	}
	if len(out) != n {
		return dst[:len(dst)-n], fmt.Errorf("%w: snappy block decompresses to %d bytes, descriptor says %d", ErrFormat, len(out), n)
	}
	return dst, nil
}

// growLen extends b by n bytes, reusing its capacity when it can.
func growLen(b []byte, n int) []byte {
	if cap(b)-len(b) < n {
		nb := make([]byte, len(b), len(b)+n)
		copy(nb, b)
		b = nb
	}
	return b[:len(b)+n]
}

type bzip2Codec struct {
	writers sync.Pool // *dbzip2.Writer
}

func (c *bzip2Codec) Compress(dst, src []byte) ([]byte, error) {
	buf := bytes.NewBuffer(dst)
	w, _ := c.writers.Get().(*dbzip2.Writer)
	if w == nil {
		var err error
		// Level 9 gives 900 kB blocks and the "BZh9" header, as Java writes.
		if w, err = dbzip2.NewWriter(buf, &dbzip2.WriterConfig{Level: 9}); err != nil {
			return dst, err
		}
	} else if err := w.Reset(buf); err != nil {
		return dst, err
	}
	if _, err := w.Write(src); err != nil {
		return dst, err
	}
	if err := w.Close(); err != nil {
		return dst, err
	}
	c.writers.Put(w)
	return buf.Bytes(), nil
}

func (c *bzip2Codec) Decompress(dst, src []byte, size int) (out []byte, err error) {
	out, err = readFull(dst, bzip2.NewReader(bytes.NewReader(src)), size)
	if err != nil {
		return out, fmt.Errorf("bzip2: %w", err)
	}
	return out, nil
}

type zstdCodec struct {
	once    sync.Once
	enc     *zstd.Encoder
	err     error
	readers sync.Pool // *zstd.Decoder
}

func (c *zstdCodec) Compress(dst, src []byte) ([]byte, error) {
	c.once.Do(func() {
		c.enc, c.err = zstd.NewWriter(nil, zstd.WithEncoderConcurrency(1))
	})
	if c.err != nil {
		return dst, c.err
	}
	return c.enc.EncodeAll(src, dst), nil
}

func (c *zstdCodec) Decompress(dst, src []byte, size int) ([]byte, error) {
	d, _ := c.readers.Get().(*zstd.Decoder)
	br := bytes.NewReader(src)
	if d == nil {
		var err error
		if d, err = zstd.NewReader(br, zstd.WithDecoderConcurrency(1), zstd.WithDecoderLowmem(true)); err != nil {
			return dst, err
		}
	} else if err := d.Reset(br); err != nil {
		return dst, err
	}
	out, err := readFull(dst, d, size)
	if err != nil {
		return out, fmt.Errorf("zstd: %w", err)
	}
	c.readers.Put(d)
	return out, nil
}
