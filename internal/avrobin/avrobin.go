// Package avrobin decodes and encodes the primitives of Avro's binary
// encoding: zig-zag varint ints and longs, little-endian floats and
// doubles, length-prefixed bytes and strings, and the item counts that
// start the blocks of arrays and maps. Every Avro decoder and encoder of
// the module (shred, trevni1, internal/avrostruct) builds on it, and none
// decodes a varint by hand.
//
// The Consume functions read one primitive at the start of b and return it
// with the number of bytes it took, or a negative number, an error code
// that ParseError turns into an error. They never allocate, never panic on
// any input, and alias b for bytes. Varints of up to eight bytes are
// decoded in one step, without a loop; a varint of one byte, the most
// common, in ConsumeBytes and ConsumeBlockCount without a call.
//
// The Append functions append one encoded primitive to b.
package avrobin

import (
	"encoding/binary"
	"errors"
	"math"
	"math/bits"
)

// MaxVarintLen is the most bytes a long's varint takes.
const MaxVarintLen = 10

// The error codes returned as a negative length.
const (
	errCodeTruncated  = -1 // the data ends inside the primitive
	errCodeOverlong   = -2 // a varint longer than MaxVarintLen bytes
	errCodeOverflow   = -3 // a last, tenth, varint byte above 1: more than 64 bits
	errCodeIntRange   = -4 // a long where an int is read, out of its range
	errCodeLength     = -5 // a negative length, or one past the data's end
	errCodeBlockCount = -6 // the block count MinInt64, which has no positive
	errCodeBlockSize  = -7 // a negative block size, or one past the data's end
)

// The errors of ParseError, for errors.Is.
var (
	ErrTruncated  = errors.New("truncated")
	ErrOverlong   = errors.New("varint longer than 10 bytes")
	ErrOverflow   = errors.New("varint overflows 64 bits")
	ErrIntRange   = errors.New("int out of range")
	ErrLength     = errors.New("length out of range")
	ErrBlockCount = errors.New("block count out of range")
	ErrBlockSize  = errors.New("block size out of range")
	errUnknown    = errors.New("not an avrobin error code")
)

// ParseError returns the error that a negative length n, returned by a
// Consume function, stands for; nil for n >= 0.
func ParseError(n int) error {
	if n >= 0 {
		return nil
	}
	switch n {
	case errCodeTruncated:
		return ErrTruncated
	case errCodeOverlong:
		return ErrOverlong
	case errCodeOverflow:
		return ErrOverflow
	case errCodeIntRange:
		return ErrIntRange
	case errCodeLength:
		return ErrLength
	case errCodeBlockCount:
		return ErrBlockCount
	case errCodeBlockSize:
		return ErrBlockSize
	}
	return errUnknown
}

// DecodeZigZag returns the long whose zig-zag form is u.
func DecodeZigZag(u uint64) int64 { return int64(u>>1) ^ -int64(u&1) }

// EncodeZigZag returns the zig-zag form of v: small magnitudes, negative
// or not, become small numbers.
func EncodeZigZag(v int64) uint64 { return uint64(v<<1) ^ uint64(v>>63) }

// ConsumeLong decodes a long (a zig-zag varint) at the start of b and
// returns it and its length. A callers' hot path may test for the common
// one-byte case itself (b[0] < 0x80, DecodeZigZag) before calling it.
func ConsumeLong(b []byte) (int64, int) {
	if len(b) > 0 && b[0] < 0x80 {
		return DecodeZigZag(uint64(b[0])), 1
	}
	if len(b) >= 8 {
		// Up to 8 bytes at once: the first byte without its high bit ends
		// the varint, and the 7-bit groups are gathered without a loop.
		x := binary.LittleEndian.Uint64(b)
		if stop := ^x & 0x8080808080808080; stop != 0 {
			n := bits.TrailingZeros64(stop) + 1 // bits up to the last byte's high bit
			x &= 0x7f7f7f7f7f7f7f7f >> (64 - n)
			return DecodeZigZag(gather7(x)), n >> 3
		}
	}
	var u uint64
	for i := 0; i < MaxVarintLen && i < len(b); i++ {
		c := b[i]
		if c < 0x80 {
			if i == MaxVarintLen-1 && c > 1 {
				return 0, errCodeOverflow
			}
			return DecodeZigZag(u | uint64(c)<<(7*i)), i + 1
		}
		u |= uint64(c&0x7f) << (7 * i)
	}
	return 0, unended(b)
}

// gather7 packs the low 7 bits of each byte of x, least significant byte
// first, into 56 contiguous bits: pairs of bytes, then pairs of pairs,
// then the two halves, each step closing the gaps of the one before.
func gather7(x uint64) uint64 {
	x = x&0x007f007f007f007f | x>>1&0x3f803f803f803f80
	x = x&0x00003fff00003fff | x>>2&0x0fffc0000fffc000
	return x&0x000000000fffffff | x>>4&0x00fffffff0000000
}

// unended returns the error code of a varint at the start of b whose
// bytes up to the tenth all have the high bit set.
func unended(b []byte) int {
	if len(b) > MaxVarintLen {
		return errCodeOverlong
	}
	return errCodeTruncated
}

// ConsumeInt decodes an int at the start of b: a long within int32's
// range.
func ConsumeInt(b []byte) (int32, int) {
	v, n := ConsumeLong(b)
	if n < 0 {
		return 0, n
	}
	if v < math.MinInt32 || v > math.MaxInt32 {
		return 0, errCodeIntRange
	}
	return int32(v), n
}

// SkipLong returns the length of the varint at the start of b without
// decoding it, or an error code as ConsumeLong's.
func SkipLong(b []byte) int {
	for i := 0; i < MaxVarintLen && i < len(b); i++ {
		if c := b[i]; c < 0x80 {
			if i == MaxVarintLen-1 && c > 1 {
				return errCodeOverflow
			}
			return i + 1
		}
	}
	return unended(b)
}

// ConsumeBytes decodes a length and that many bytes (Avro's bytes and
// string) at the start of b, and returns the bytes, aliasing b, and the
// length of the whole. A negative length, or one past the end of b, is an
// error before anything is sliced.
func ConsumeBytes(b []byte) ([]byte, int) {
	l, n := int64(0), 1
	if len(b) > 0 && b[0] < 0x80 { // most lengths: no call
		l = DecodeZigZag(uint64(b[0]))
	} else if l, n = ConsumeLong(b); n < 0 {
		return nil, n
	}
	if l < 0 || l > int64(len(b)-n) {
		return nil, errCodeLength
	}
	end := n + int(l)
	return b[n:end:end], end
}

// ConsumeFloat decodes a float (4 bytes, little-endian IEEE 754).
func ConsumeFloat(b []byte) (float32, int) {
	if len(b) < 4 {
		return 0, errCodeTruncated
	}
	return math.Float32frombits(binary.LittleEndian.Uint32(b)), 4
}

// ConsumeDouble decodes a double (8 bytes, little-endian IEEE 754).
func ConsumeDouble(b []byte) (float64, int) {
	if len(b) < 8 {
		return 0, errCodeTruncated
	}
	return math.Float64frombits(binary.LittleEndian.Uint64(b)), 8
}

// ConsumeBlockCount decodes the item count that starts a block of an
// array or map, and returns the number of items (0 ends the value) and
// the bytes taken. A negative count is followed by the block's size in
// bytes, which is read and checked against the bytes left, and otherwise
// ignored; the count returned is then the count's absolute value.
// MinInt64, which has none, is an error.
//
// The count is not bounded here: how many items the bytes left can hold
// depends on the items' schema, and is the caller's check to make before
// it allocates or loops.
func ConsumeBlockCount(b []byte) (int64, int) {
	c, n := int64(0), 1
	if len(b) > 0 && b[0] < 0x80 { // most counts: no call
		c = DecodeZigZag(uint64(b[0]))
	} else {
		c, n = ConsumeLong(b)
	}
	if n < 0 || c >= 0 {
		return c, n
	}
	if c == math.MinInt64 {
		return 0, errCodeBlockCount
	}
	size, k := ConsumeLong(b[n:])
	if k < 0 {
		return 0, k
	}
	n += k
	if size < 0 || size > int64(len(b)-n) {
		return 0, errCodeBlockSize
	}
	return -c, n
}

// AppendLong appends v as a zig-zag varint.
func AppendLong(b []byte, v int64) []byte {
	u := EncodeZigZag(v)
	for u >= 0x80 {
		b = append(b, byte(u)|0x80)
		u >>= 7
	}
	return append(b, byte(u))
}

// AppendBytes appends v's length and v.
func AppendBytes(b, v []byte) []byte {
	return append(AppendLong(b, int64(len(v))), v...)
}

// AppendString appends v's length and v.
func AppendString(b []byte, v string) []byte {
	return append(AppendLong(b, int64(len(v))), v...)
}

// AppendFloat appends v's 4 bytes, little-endian.
func AppendFloat(b []byte, v float32) []byte {
	return binary.LittleEndian.AppendUint32(b, math.Float32bits(v))
}

// AppendDouble appends v's 8 bytes, little-endian.
func AppendDouble(b []byte, v float64) []byte {
	return binary.LittleEndian.AppendUint64(b, math.Float64bits(v))
}
