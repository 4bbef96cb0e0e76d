package trevni1

// All compression is in this file, so that the codecs can move to a shared
// package without touching the rest.

import (
	"bytes"
	"compress/bzip2"
	"errors"
	"fmt"
	"io"

	dbzip2 "github.com/dsnet/compress/bzip2"
	"github.com/golang/snappy"
	"github.com/klauspost/compress/gzip"
	"github.com/klauspost/compress/zlib"
)

// Codec names, as Impala wrote them into trevni.codec.
const (
	CodecNone    = "none"    // no compression: the key is absent (Impala also read "" as none)
	CodecDeflate = "deflate" // zlib (RFC 1950), unlike version 2's raw deflate
	CodecGzip    = "gzip"    // gzip (RFC 1952)
	CodecBzip2   = "bzip2"   // one bzip2 stream per block
	CodecSnappy  = "snappy"  // raw snappy block format
)

// canonicalCodec returns the codec a trevni.codec value names, "" for none.
// "null", which Impala did not know, is read as none too.
func canonicalCodec(name string) (string, error) {
	switch name {
	case "", CodecNone, "null":
		return "", nil
	case CodecDeflate, CodecGzip, CodecBzip2, CodecSnappy:
		return name, nil
	}
	return "", fmt.Errorf("%w %q (version 1 knows none, deflate, gzip, bzip2, snappy)", ErrCodec, name)
}

// compressor compresses blocks, reusing its zlib and gzip writers from
// block to block (each block is still a complete stream of its own).
type compressor struct {
	codec string
	buf   bytes.Buffer
	zw    *zlib.Writer
	gw    *gzip.Writer
}

// compress appends the compressed form of src to dst.
func (c *compressor) compress(dst, src []byte) ([]byte, error) {
	c.buf.Reset()
	var w io.WriteCloser
	var err error
	switch c.codec {
	case CodecDeflate:
		// Impala: deflateInit2 with level 6, window 15, memLevel 9.
		if c.zw == nil {
			c.zw, err = zlib.NewWriterLevel(&c.buf, 6)
		} else {
			c.zw.Reset(&c.buf)
		}
		w = c.zw
	case CodecGzip:
		if c.gw == nil {
			c.gw, err = gzip.NewWriterLevel(&c.buf, 6)
		} else {
			c.gw.Reset(&c.buf)
		}
		w = c.gw
	case CodecBzip2:
		// Impala: BZ2_bzBuffToBuffCompress with block size 5 (BZh5).
		w, err = dbzip2.NewWriter(&c.buf, &dbzip2.WriterConfig{Level: 5})
	case CodecSnappy:
		return append(dst, snappy.Encode(nil, src)...), nil
	default:
		return append(dst, src...), nil
	}
	if err != nil {
		return dst, err
	}
	if _, err := w.Write(src); err != nil {
		return dst, err
	}
	if err := w.Close(); err != nil {
		return dst, err
	}
	return append(dst, c.buf.Bytes()...), nil
}

// snappyMaxRatio bounds how much a snappy block can expand.
const snappyMaxRatio = 32

// decompress appends exactly size bytes, the decompressed form of src, to
// dst. size comes from the file: the output grows only as data arrives.
func decompress(codec string, dst, src []byte, size int) ([]byte, error) {
	var r io.Reader
	switch codec {
	case "":
		if len(src) != size {
			return dst, fmt.Errorf("%w: block holds %d bytes, descriptor says %d", ErrFormat, len(src), size)
		}
		return append(dst, src...), nil
	case CodecDeflate, CodecGzip:
		// Impala inflated both with windowBits 15|32: a zlib or a gzip
		// wrapper, whichever the block has.
		if len(src) >= 2 && src[0] == 0x1f && src[1] == 0x8b {
			zr, err := gzip.NewReader(bytes.NewReader(src))
			if err != nil {
				return dst, fmt.Errorf("%w: gzip: %v", ErrFormat, err)
			}
			zr.Multistream(false)
			r = zr
		} else {
			zr, err := zlib.NewReader(bytes.NewReader(src))
			if err != nil {
				return dst, fmt.Errorf("%w: zlib: %v", ErrFormat, err)
			}
			r = zr
		}
	case CodecBzip2:
		r = bzip2.NewReader(bytes.NewReader(src))
	case CodecSnappy:
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
		out, err := snappy.Decode(make([]byte, n), src)
		if err != nil {
			return dst, fmt.Errorf("%w: snappy: %v", ErrFormat, err)
		}
		return append(dst, out...), nil
	default:
		return dst, fmt.Errorf("%w %q", ErrCodec, codec)
	}
	return readFull(dst, r, size, codec)
}

// readFull appends exactly size bytes from r to dst, growing dst only as
// data arrives, and fails if r holds fewer or more.
func readFull(dst []byte, r io.Reader, size int, codec string) ([]byte, error) {
	start := len(dst)
	for len(dst)-start < size {
		if len(dst) == cap(dst) {
			grow := min(max(cap(dst)-start, 64<<10), size-(len(dst)-start))
			dst = append(dst, make([]byte, grow)...)[:len(dst)]
		}
		n, err := r.Read(dst[len(dst):min(cap(dst), start+size)])
		dst = dst[:len(dst)+n]
		if err == io.EOF {
			break
		}
		if err != nil {
			return dst, fmt.Errorf("%w: %s: %v", ErrFormat, codec, err)
		}
	}
	if got := len(dst) - start; got != size {
		return dst, fmt.Errorf("%w: %s block decompresses to %d bytes, descriptor says %d", ErrFormat, codec, got, size)
	}
	var one [1]byte
	for {
		n, err := r.Read(one[:])
		if n > 0 {
			return dst, fmt.Errorf("%w: %s block decompresses to more than the %d bytes its descriptor says", ErrFormat, codec, size)
		}
		if errors.Is(err, io.EOF) {
			return dst, nil
		}
		if err != nil {
			return dst, fmt.Errorf("%w: %s: %v", ErrFormat, codec, err)
		}
	}
}
