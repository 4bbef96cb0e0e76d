package trevni1

// Compression goes through the project's one codec set (internal/codec),
// as version 2 does. What version 1 does differently stays here: its
// "deflate" is zlib-wrapped (RFC 1950) and "gzip" is gzip-wrapped (RFC
// 1952), both around the shared raw deflate; Impala inflated either
// wrapper under either name. bzip2 is written at Impala's block size 5.

import (
	"encoding/binary"
	"fmt"
	"hash/crc32"

	"github.com/trevni-go/trevni/internal/codec"
)

// Codec names, as Impala wrote them into trevni.codec.
const (
	CodecNone    = "none"        // no compression: the key is absent (Impala also read "" as none)
	CodecDeflate = codec.Deflate // zlib (RFC 1950), unlike version 2's raw deflate
	CodecGzip    = codec.Gzip    // gzip (RFC 1952)
	CodecBzip2   = codec.Bzip2   // one bzip2 stream per block
	CodecSnappy  = codec.Snappy  // raw snappy block format
)

// canonicalCodec returns the codec a trevni.codec value names, "" for none.
// "null", which Impala did not know, is read as none too.
func canonicalCodec(name string) (string, error) {
	switch name {
	case "", CodecNone, codec.Null:
		return "", nil
	case CodecDeflate, CodecGzip, CodecBzip2, CodecSnappy:
		return name, nil
	}
	return "", fmt.Errorf("%w %q (version 1 knows none, deflate, gzip, bzip2, snappy)", ErrCodec, name)
}

// codecs are the shared codecs a Reader or Writer uses, safe for
// concurrent use.
type codecs struct {
	null, deflate, snappy, bzip2 codec.Codec
	// skipChecksums leaves the zlib and gzip wrappers' checksums
	// unverified (ReaderOptions.SkipChecksums).
	skipChecksums bool
}

func newCodecs() (*codecs, error) {
	var c codecs
	var err error
	if c.null, err = codec.New(codec.Null, 0); err != nil {
		return nil, err
	}
	// Impala: deflateInit2 with level 6; BZ2_bzBuffToBuffCompress with
	// block size 5.
	if c.deflate, err = codec.New(codec.Deflate, 6); err != nil {
		return nil, err
	}
	if c.snappy, err = codec.New(codec.Snappy, 0); err != nil {
		return nil, err
	}
	if c.bzip2, err = codec.New(codec.Bzip2, 5); err != nil {
		return nil, err
	}
	return &c, nil
}

// zlib header of level 6 (CMF 0x78: deflate, 32 KiB window; FLG 0x9c).
const zlibHeader = "\x78\x9c"

// gzip header as Go's and zlib's writers make it at level 6: no flags, no
// time, OS unknown.
const gzipHeader = "\x1f\x8b\x08\x00\x00\x00\x00\x00\x00\xff"

// compress appends the stored form of src under the canonical codec name
// ("" for none) to dst.
func (c *codecs) compress(name string, dst, src []byte) ([]byte, error) {
	switch name {
	case "":
		return append(dst, src...), nil
	case CodecSnappy:
		return c.snappy.Compress(dst, src)
	case CodecBzip2:
		return c.bzip2.Compress(dst, src)
	case CodecDeflate:
		dst = append(dst, zlibHeader...)
		dst, err := c.deflate.Compress(dst, src)
		return binary.BigEndian.AppendUint32(dst, codec.Adler32(src)), err
	case CodecGzip:
		dst = append(dst, gzipHeader...)
		dst, err := c.deflate.Compress(dst, src)
		dst = binary.LittleEndian.AppendUint32(dst, crc32.ChecksumIEEE(src))
		return binary.LittleEndian.AppendUint32(dst, uint32(len(src))), err
	}
	return dst, fmt.Errorf("%w %q", ErrCodec, name)
}

// decompress appends exactly size bytes, the decompressed form of src, to
// dst. size comes from the file: the shared codecs bound the output by it
// and grow it only as data arrives.
func (c *codecs) decompress(name string, dst, src []byte, size int) ([]byte, error) {
	lim := codec.ExactSize(size)
	var (
		out []byte
		err error
	)
	switch name {
	case "":
		out, err = c.null.Decompress(dst, src, lim)
	case CodecSnappy:
		out, err = c.snappy.Decompress(dst, src, lim)
	case CodecBzip2:
		out, err = c.bzip2.Decompress(dst, src, lim)
	case CodecDeflate, CodecGzip:
		// Impala inflated both with windowBits 15|32: a zlib or a gzip
		// wrapper, whichever the block has.
		if len(src) >= 2 && src[0] == 0x1f && src[1] == 0x8b {
			name = CodecGzip
			out, err = c.gunzip(dst, src, lim)
		} else {
			name = "zlib"
			out, err = c.unzlib(dst, src, lim)
		}
	default:
		return dst, fmt.Errorf("%w %q", ErrCodec, name)
	}
	if err != nil {
		return out, fmt.Errorf("%w: %s: %w", ErrFormat, name, err)
	}
	return out, nil
}

// unzlib inflates a zlib stream: header, raw deflate, Adler-32 of the data.
func (c *codecs) unzlib(dst, src []byte, lim codec.Limit) ([]byte, error) {
	if len(src) < 6 {
		return dst, fmt.Errorf("%w: %d bytes", codec.ErrCorrupt, len(src))
	}
	cmf, flg := src[0], src[1]
	switch {
	case cmf&0x0f != 8 || cmf>>4 > 7 || (uint16(cmf)<<8|uint16(flg))%31 != 0:
		return dst, fmt.Errorf("%w: bad header %02x %02x", codec.ErrCorrupt, cmf, flg)
	case flg&0x20 != 0:
		return dst, fmt.Errorf("%w: a preset dictionary is required", codec.ErrCorrupt)
	}
	start := len(dst)
	out, err := c.deflate.Decompress(dst, src[2:len(src)-4], lim)
	if err != nil {
		return out, err
	}
	if c.skipChecksums {
		return out, nil
	}
	if want, got := binary.BigEndian.Uint32(src[len(src)-4:]), codec.Adler32(out[start:]); want != got {
		return out, fmt.Errorf("%w: Adler-32 %08x, data has %08x", codec.ErrCorrupt, want, got)
	}
	return out, nil
}

// gunzip inflates one gzip member: header (with its optional fields), raw
// deflate, CRC-32 and length of the data.
func (c *codecs) gunzip(dst, src []byte, lim codec.Limit) ([]byte, error) {
	bad := func(what string) error { return fmt.Errorf("%w: %s", codec.ErrCorrupt, what) }
	if len(src) < 18 || src[2] != 8 {
		return dst, bad("bad header")
	}
	flg, p := src[3], 10
	if flg&0xe0 != 0 {
		return dst, bad("reserved flags")
	}
	end := len(src) - 8
	if flg&0x04 != 0 { // FEXTRA
		if p+2 > end {
			return dst, bad("truncated header")
		}
		p += 2 + int(binary.LittleEndian.Uint16(src[p:]))
	}
	for _, f := range []byte{0x08, 0x10} { // FNAME, FCOMMENT: zero-terminated
		if flg&f == 0 {
			continue
		}
		for p < end && src[p] != 0 {
			p++
		}
		p++
	}
	if flg&0x02 != 0 { // FHCRC
		p += 2
	}
	if p > end {
		return dst, bad("truncated header")
	}
	start := len(dst)
	out, err := c.deflate.Decompress(dst, src[p:end], lim)
	if err != nil {
		return out, err
	}
	if want, got := binary.LittleEndian.Uint32(src[end:]), crc32.ChecksumIEEE(out[start:]); want != got && !c.skipChecksums {
		return out, bad(fmt.Sprintf("CRC-32 %08x, data has %08x", want, got))
	}
	if want := binary.LittleEndian.Uint32(src[end+4:]); want != uint32(len(out)-start) {
		return out, bad(fmt.Sprintf("length %d, data has %d", want, len(out)-start))
	}
	return out, nil
}

// maxExpansion returns the most bytes stored bytes of the named codec can
// decompress to that are worth allocating at once: 0 for bzip2, whose
// expansion is unbounded for practical purposes, so that its output grows
// only as it arrives.
func maxExpansion(name string, stored int64) int64 {
	var ratio int
	switch name {
	case "":
		ratio = codec.MaxRatio(codec.Null)
	case CodecDeflate, CodecGzip:
		ratio = codec.MaxRatio(codec.Deflate)
	case CodecSnappy:
		ratio = codec.MaxRatio(codec.Snappy)
	}
	return int64(ratio) * stored
}
