// Package ocf reads and writes Avro Object Container Files (Avro
// specification 1.11, "Object Container Files") at the block level.
//
// A container is a header (magic, metadata map, sync marker) followed by
// blocks. Each block holds a record count, the byte size of its serialized
// and possibly compressed records, the records themselves and a copy of the
// sync marker. This package does not decode records: a Reader hands out the
// decompressed bytes of each block, and a Writer takes records that are
// already binary encoded.
//
// Supported codecs are null, deflate, snappy, bzip2, xz and zstandard
// ("zstd" is accepted as a name of zstandard; writers store the
// specification's name). The codecs themselves are those of
// internal/codec, shared with the Trevni format; the CRC-32 that follows
// each snappy block in a container is added and checked here.
// Readers and Writers reuse their buffers and (de)compressors from block to
// block, so that in steady state they allocate nothing; the exceptions are
// bzip2, whose library allocates small scratch slices per block, and xz,
// whose library cannot reset a coder and so builds a new one per block.
//
// Reading is safe on hostile input: sizes are checked against limits
// before anything is allocated for them, decompression stops at a
// configurable output limit, and buffers grow only as data really arrives.
package ocf

import (
	"errors"
	"fmt"
	"io"

	"github.com/trevni-go/trevni/internal/avrobin"
)

// Reserved metadata keys.
const (
	MetaSchema = "avro.schema"
	MetaCodec  = "avro.codec"
)

// SyncSize is the length in bytes of the sync marker.
const SyncSize = 16

// Default limits.
const (
	// DefaultMaxBlockSize is the default limit on the stored (compressed)
	// size of a block, and on the size of each header metadata entry.
	DefaultMaxBlockSize = 256 << 20
	// DefaultMaxDecompressedSize is the default limit on the decompressed
	// size of a block.
	DefaultMaxDecompressedSize = 256 << 20
	// DefaultBlockSize is the default number of uncompressed record bytes
	// after which a Writer cuts a block.
	DefaultBlockSize = 64 << 10
)

// magic starts every object container file.
const magic = "Obj\x01"

// maxMetaEntries bounds the number of header metadata entries. Real files
// carry a handful; the bound keeps a hostile header from costing far more
// memory in map entries than it occupies on disk.
const maxMetaEntries = 1 << 16

// Errors that callers may test for with errors.Is. Reader errors arrive
// wrapped in an *Error that says where the problem is.
var (
	// ErrNotContainer means the input does not start with the container magic.
	ErrNotContainer = errors.New("not an Avro object container file")
	// ErrFormat means the input violates the container format.
	ErrFormat = errors.New("malformed container")
	// ErrSyncMarker means a block is not followed by the file's sync marker.
	ErrSyncMarker = errors.New("sync marker mismatch")
	// ErrChecksum means a block's checksum does not match its contents.
	ErrChecksum = errors.New("checksum mismatch")
	// ErrTooLarge means a size exceeds a configured limit.
	ErrTooLarge = errors.New("size exceeds limit")
	// ErrUnknownCodec means the avro.codec value is not a supported codec.
	ErrUnknownCodec = errors.New("unknown codec")
	// ErrClosed means a Writer was used after Close.
	ErrClosed = errors.New("ocf: writer is closed")
)

// Error reports a Reader failure and where it happened. Err is the cause;
// it wraps io.ErrUnexpectedEOF when the input is truncated.
type Error struct {
	// Block is the index of the failing block, counting from 0, or -1
	// when the header is at fault.
	Block int64
	// Offset is the byte offset in the input of the failing block, or
	// of the failing header field.
	Offset int64
	// Err is the underlying error.
	Err error
}

// Error formats the error as "ocf: block N at offset M: cause", or
// "ocf: header at offset M: cause".
func (e *Error) Error() string {
	if e.Block < 0 {
		return fmt.Sprintf("ocf: header at offset %d: %v", e.Offset, e.Err)
	}
	return fmt.Sprintf("ocf: block %d at offset %d: %v", e.Block, e.Offset, e.Err)
}

// Unwrap returns the underlying error.
func (e *Error) Unwrap() error { return e.Err }

// readLong reads one Avro long from r. It returns io.EOF only when r ends
// before the first byte, and io.ErrUnexpectedEOF when it ends inside the
// encoding. n is the number of bytes consumed.
func readLong(r io.ByteReader) (v int64, n int, err error) {
	var u uint64
	for shift := uint(0); ; shift += 7 {
		c, err := r.ReadByte()
		if err != nil {
			if err == io.EOF && n > 0 {
				err = io.ErrUnexpectedEOF
			}
			return 0, n, err
		}
		n++
		if n == avrobin.MaxVarintLen && c > 1 {
			return 0, n, fmt.Errorf("%w: varint overflows 64 bits", ErrFormat)
		}
		u |= uint64(c&0x7f) << shift
		if c < 0x80 {
			break
		}
	}
	return avrobin.DecodeZigZag(u), n, nil
}
