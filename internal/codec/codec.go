// Package codec holds the block compressors and decompressors shared by the
// Trevni file format (package format) and Avro object container files
// (package internal/ocf), and the one rule that bounds decompression.
//
// Every codec here works on whole blocks in memory and is safe for
// concurrent use: the coders it needs are pooled and reused from block to
// block. What differs between the two file formats stays with them: Avro
// containers follow each snappy block with a CRC-32 of its data, Trevni does
// not; Trevni block descriptors state the uncompressed size, Avro containers
// only bound it.
//
// Decompression is bounded by a Limit. Output buffers grow only as data
// really arrives and never past the limit, and a size that a codec states
// up front (snappy's length prefix, a zstd frame's content size) is checked
// against the limit and against what its compressed bytes could possibly
// produce before anything is allocated for it.
package codec

import (
	"errors"
	"fmt"
	"io"
	"slices"
)

// Codec names, declared here once for the module: package format (Trevni
// version 2), package trevni1, package clmn and Avro object container
// files (internal/ocf) refer to these, and their exported Codec constants
// are aliases of them. Zstandard is the Avro specification's name for zstd;
// both are accepted wherever a codec is looked up by name (see Canonical).
const (
	Null      = "null"
	Deflate   = "deflate"
	Snappy    = "snappy"
	Bzip2     = "bzip2"
	XZ        = "xz"
	Zstd      = "zstd"
	Zstandard = "zstandard"
	// Gzip is Trevni version 1's gzip-wrapped deflate; package trevni1
	// adds and checks the wrapper around Deflate's raw stream.
	Gzip = "gzip"
)

// Canonical returns the name under which this package knows the codec
// called name: "zstandard" becomes "zstd", "" becomes "null", and every
// other name is returned unchanged.
func Canonical(name string) string {
	switch name {
	case "":
		return Null
	case Zstandard:
		return Zstd
	}
	return name
}

// Errors that callers test for with errors.Is.
var (
	// ErrUnknown reports a codec name this package does not know.
	ErrUnknown = errors.New("unknown codec")
	// ErrTooLarge reports a block that would decompress to more bytes
	// than the limit allows. Nothing past the limit is produced.
	ErrTooLarge = errors.New("decompressed block exceeds the limit")
	// ErrSize reports a block that decompresses to a size other than the
	// exact one it was expected to have.
	ErrSize = errors.New("decompressed size differs from the stated size")
	// ErrCorrupt reports compressed data that cannot be decoded.
	ErrCorrupt = errors.New("corrupt compressed data")
)

// A Limit bounds one decompression.
type Limit struct {
	// Max is the most bytes the block may decompress to. With Exact it
	// is the exact size the block must decompress to.
	Max int
	// Exact requires the output to hold exactly Max bytes: fewer or more
	// is ErrSize. Without it, more than Max is ErrTooLarge.
	Exact bool
	// Prefix, with Exact, accepts a stream that holds more than Max
	// bytes and keeps only its first Max: decoding stops one byte after
	// them and the rest of the stream is never inflated. (Trevni's Java
	// bzip2 codec before Avro 1.10 compressed its whole buffer, not just
	// its data.)
	Prefix bool
}

// AtMost returns the limit of a block of unknown size that may decompress
// to at most max bytes.
func AtMost(max int) Limit { return Limit{Max: max} }

// ExactSize returns the limit of a block that must decompress to exactly
// size bytes.
func ExactSize(size int) Limit { return Limit{Max: size, Exact: true} }

// A Codec compresses and decompresses whole blocks. It is safe for
// concurrent use.
type Codec interface {
	// Name returns the codec's canonical name.
	Name() string
	// Compress appends the compressed form of src to dst.
	Compress(dst, src []byte) ([]byte, error)
	// Decompress appends the decompressed form of src to dst, within
	// lim. On error the bytes appended so far may be left in the result.
	Decompress(dst, src []byte, lim Limit) ([]byte, error)
}

// New returns the codec called name (either spelling of zstd is accepted).
// level is the compression level, 0 for the codec's default; it is passed
// to the compressing library as is, so callers check the range they offer.
// null, snappy and xz ignore it.
func New(name string, level int) (Codec, error) {
	switch Canonical(name) {
	case Null:
		return nullCodec{}, nil
	case Deflate:
		return newDeflate(level)
	case Snappy:
		return snappyCodec{}, nil
	case Bzip2:
		return newBzip2(level)
	case XZ:
		return &xzCodec{}, nil
	case Zstd:
		return newZstd(level)
	}
	return nil, fmt.Errorf("%w %q", ErrUnknown, name)
}

type nullCodec struct{}

func (nullCodec) Name() string { return Null }

func (nullCodec) Compress(dst, src []byte) ([]byte, error) { return append(dst, src...), nil }

func (nullCodec) Decompress(dst, src []byte, lim Limit) ([]byte, error) {
	switch {
	case lim.Exact && len(src) != lim.Max:
		return dst, fmt.Errorf("%w: block holds %d bytes, stated size %d", ErrSize, len(src), lim.Max)
	case len(src) > lim.Max:
		return dst, fmt.Errorf("%w: block of %d bytes, limit %d", ErrTooLarge, len(src), lim.Max)
	}
	return append(dst, src...), nil
}

// growStep is the least a bounded read grows its buffer by.
const growStep = 64 << 10

// readBounded appends what r produces to dst within lim. It is the one
// place where decompression of a stream is bounded: the buffer grows only
// as data arrives, at most to len(dst)+lim.Max, and one byte past the
// limit is read only to tell a stream that ends there from one that does
// not. ended reports that r was read to its end, so that a decoder can be
// reused for another stream.
func readBounded(dst []byte, r io.Reader, lim Limit) (out []byte, ended bool, err error) {
	start := len(dst)
	end := start + lim.Max
	for len(dst) < end {
		if len(dst) == cap(dst) {
			// One byte more than the limit leaves room for the probe
			// below without another allocation.
			grow := min(max(cap(dst)-start, growStep), end+1-len(dst))
			dst = append(dst, make([]byte, grow)...)[:len(dst)]
		}
		n, err := r.Read(dst[len(dst):min(cap(dst), end)])
		dst = dst[:len(dst)+n]
		if err == io.EOF {
			break
		}
		if err != nil {
			return dst, false, corrupt(err)
		}
	}
	got := len(dst) - start
	if lim.Exact && got < lim.Max {
		return dst, false, fmt.Errorf("%w: block decompresses to %d bytes, stated size %d", ErrSize, got, lim.Max)
	}
	// Probe for one byte more, in the spare capacity.
	if cap(dst) == len(dst) {
		dst = append(dst, 0)[:len(dst)]
	}
	probe := dst[len(dst) : len(dst)+1]
	for {
		n, err := r.Read(probe)
		if n > 0 {
			switch {
			case lim.Exact && lim.Prefix:
				return dst, false, nil // the rest is never inflated
			case lim.Exact:
				return dst, false, fmt.Errorf("%w: block decompresses to more than the stated %d bytes", ErrSize, lim.Max)
			}
			return dst, false, fmt.Errorf("%w: block decompresses to more than %d bytes", ErrTooLarge, lim.Max)
		}
		if err == io.EOF {
			return dst, true, nil
		}
		if err != nil {
			return dst, false, corrupt(err)
		}
	}
}

// MaxRatio returns how many bytes one stored byte of the named codec can
// decompress to at most, or 0 when that is unbounded for practical
// purposes (bzip2, whose run-length stages multiply, and xz).
func MaxRatio(name string) int {
	switch Canonical(name) {
	case Null:
		return 1
	case Deflate:
		return deflateMaxRatio
	case Snappy:
		return snappyMaxRatio
	case Zstd:
		return zstdMaxRatio
	}
	return 0
}

// deflateMaxRatio bounds how much deflate can expand: a length code of a
// bit or so yields at most 258 bytes.
const deflateMaxRatio = 1032

// checkStated checks a size that a block states for itself, before
// anything is allocated for it. maxRatio bounds how many bytes one byte
// of the codec's input can produce.
func checkStated(n uint64, srcLen int, maxRatio uint64, lim Limit) error {
	switch {
	case lim.Exact && n != uint64(lim.Max) && !(lim.Prefix && n > uint64(lim.Max)):
		return fmt.Errorf("%w: block states %d decompressed bytes, expected %d", ErrSize, n, lim.Max)
	case !lim.Exact && n > uint64(lim.Max):
		return fmt.Errorf("%w: block states %d decompressed bytes, limit %d", ErrTooLarge, n, lim.Max)
	case n > maxRatio*uint64(srcLen):
		return fmt.Errorf("%w: %d bytes cannot decompress to the %d they state", ErrCorrupt, srcLen, n)
	}
	return nil
}

// corrupt marks a decoding library's error as ErrCorrupt, keeping its text.
func corrupt(err error) error {
	if errors.Is(err, ErrCorrupt) || errors.Is(err, ErrSize) || errors.Is(err, ErrTooLarge) {
		return err
	}
	if err == io.ErrUnexpectedEOF {
		return fmt.Errorf("%w: truncated", ErrCorrupt)
	}
	return fmt.Errorf("%w: %w", ErrCorrupt, err)
}

// growLen extends b by n bytes, reusing its capacity when it can and
// growing it as append does otherwise, so that buffers reused for blocks
// of growing sizes are not reallocated each time.
func growLen(b []byte, n int) []byte {
	return slices.Grow(b, n)[:len(b)+n]
}
