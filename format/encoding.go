package format

import (
	"encoding/binary"
	"errors"
	"math"
	"math/bits"

	"github.com/trevni-go/trevni/internal/utf8check"
)

// encoder appends Trevni-encoded values to a byte slice. It carries the bit
// position for packed booleans: bitCount is the number of bits already used
// in the last byte, and 0 means the next boolean starts a new byte.
type encoder struct {
	b        []byte
	bitCount uint8
}

func (e *encoder) reset(b []byte) {
	e.b = b[:0]
	e.bitCount = 0
}

// writeInt and writeLong write Avro's zig-zag varints (Go's signed
// varints), zig-zag coded without a branch: random signs would defeat
// branch prediction in binary.AppendVarint.
func (e *encoder) writeInt(v int32) { e.writeUvarint(uint64(uint32((v << 1) ^ (v >> 31)))) }

func (e *encoder) writeLong(v int64) { e.writeUvarint(uint64((v << 1) ^ (v >> 63))) }

// The encoder's writes append to e.b in the form e.b = append(e.b, ...),
// which the compiler turns into a store of the length alone unless the
// buffer grows: a slice returned by a function (binary.AppendUvarint)
// is stored whole, pointer and all, through the garbage collector's write
// barrier, which costs much while a collection is marking.

// writeUvarint writes u as a varint, a code of one byte without a call.
func (e *encoder) writeUvarint(u uint64) {
	if u < 0x80 {
		e.b = append(e.b, byte(u))
		return
	}
	e.writeUvarintLong(u)
}

// writeUvarintLong is writeUvarint for a code of two bytes or more.
func (e *encoder) writeUvarintLong(u uint64) {
	for u >= 0x80 {
		e.b = append(e.b, byte(u)|0x80)
		u >>= 7
	}
	e.b = append(e.b, byte(u))
}

// writeLength writes an array length or run code. Like Java, every length
// written restarts boolean packing on a fresh byte.
func (e *encoder) writeLength(n int32) {
	e.bitCount = 0
	e.writeInt(n)
}

func (e *encoder) writeBool(v bool) {
	if e.bitCount == 0 {
		e.b = append(e.b, 0)
	}
	if v {
		e.b[len(e.b)-1] |= 1 << e.bitCount
	}
	e.bitCount = (e.bitCount + 1) & 7
}

func (e *encoder) writeFixed32(v uint32) {
	e.b = append(e.b, byte(v), byte(v>>8), byte(v>>16), byte(v>>24))
}

func (e *encoder) writeFixed64(v uint64) {
	e.b = append(e.b, byte(v), byte(v>>8), byte(v>>16), byte(v>>24), byte(v>>32), byte(v>>40), byte(v>>48), byte(v>>56))
}

func (e *encoder) writeBytes(v []byte) {
	e.writeInt(int32(len(v)))
	e.b = append(e.b, v...)
}

func (e *encoder) writeString(v string) {
	e.writeInt(int32(len(v)))
	e.b = append(e.b, v...)
}

// decoder reads Trevni-encoded values from a block. Besides the boolean bit
// position it carries the state of a run of 0 or 1 lengths being served.
type decoder struct {
	b         []byte
	pos       int
	bitCount  uint8
	runLength int64 // lengths still to serve from the current run
	runValue  int32
}

var (
	errTruncated  = errors.New("unexpected end of block data")
	errIntVarint  = errors.New("invalid int encoding: more than 5 bytes")
	errLongVarint = errors.New("invalid long encoding: more than 10 bytes")
	errNegLen     = errors.New("negative length")
	errBadUTF8    = errors.New("string is not valid UTF-8")
)

func (d *decoder) reset(b []byte) {
	*d = decoder{b: b}
}

func (d *decoder) remaining() int { return len(d.b) - d.pos }

func (d *decoder) readUvarint(max int) (uint64, bool, error) {
	if d.pos <= len(d.b)-8 {
		// Up to 8 bytes at once: the first byte without its high bit
		// ends the varint, and the 7-bit groups are packed without a
		// loop, pairs of bytes, then pairs of pairs, then the halves.
		x := binary.LittleEndian.Uint64(d.b[d.pos:])
		if stop := ^x & 0x8080808080808080; stop != 0 {
			n := bits.TrailingZeros64(stop) + 1 // bits up to the last byte's high bit
			if k := n >> 3; k <= max {
				d.pos += k
				x &= 0x7f7f7f7f7f7f7f7f >> (64 - n)
				x = x&0x007f007f007f007f | x>>1&0x3f803f803f803f80
				x = x&0x00003fff00003fff | x>>2&0x0fffc0000fffc000
				return x&0x000000000fffffff | x>>4&0x00fffffff0000000, true, nil
			}
		}
	}
	var u uint64
	for i := 0; i < max; i++ {
		if d.pos >= len(d.b) {
			return 0, false, errTruncated
		}
		c := d.b[d.pos]
		d.pos++
		u |= uint64(c&0x7f) << (7 * i)
		if c < 0x80 {
			return u, true, nil
		}
	}
	return u, false, nil
}

func (d *decoder) readInt() (int32, error) {
	if d.pos < len(d.b) && d.b[d.pos] < 0x80 { // one-byte fast path
		c := uint32(d.b[d.pos])
		d.pos++
		return int32(c>>1) ^ -int32(c&1), nil
	}
	u, ok, err := d.readUvarint(5)
	if err != nil {
		return 0, err
	}
	if !ok {
		return 0, errIntVarint
	}
	n := uint32(u)
	return int32(n>>1) ^ -int32(n&1), nil
}

func (d *decoder) readLong() (int64, error) {
	u, ok, err := d.readUvarint(10)
	if err != nil {
		return 0, err
	}
	if !ok {
		return 0, errLongVarint
	}
	return int64(u>>1) ^ -int64(u&1), nil
}

// readLength reads an array length, decoding runs: -1 is two 0s, -2 two
// 1s, -3 three 0s, -4 three 1s, and so on. Every length read, physical or
// from a run, restarts boolean packing, as in Java.
func (d *decoder) readLength() (int32, error) {
	d.bitCount = 0
	if d.runLength > 0 {
		d.runLength--
		return d.runValue, nil
	}
	n, err := d.readInt()
	if err != nil {
		return 0, err
	}
	if n >= 0 {
		return n, nil
	}
	d.runLength = (1 - int64(n)) >> 1
	d.runValue = (n + 1) & 1
	return d.runValue, nil
}

func (d *decoder) readBool() (bool, error) {
	if d.bitCount == 0 {
		if d.pos >= len(d.b) {
			return false, errTruncated
		}
		d.pos++
	}
	v := d.b[d.pos-1]>>d.bitCount&1 != 0
	d.bitCount = (d.bitCount + 1) & 7
	return v, nil
}

func (d *decoder) readFixed32() (uint32, error) {
	if d.remaining() < 4 {
		return 0, errTruncated
	}
	v := binary.LittleEndian.Uint32(d.b[d.pos:])
	d.pos += 4
	return v, nil
}

func (d *decoder) readFixed64() (uint64, error) {
	if d.remaining() < 8 {
		return 0, errTruncated
	}
	v := binary.LittleEndian.Uint64(d.b[d.pos:])
	d.pos += 8
	return v, nil
}

// readBytes returns the next length-prefixed bytes, aliasing the block.
func (d *decoder) readBytes() ([]byte, error) {
	n, err := d.readInt()
	if err != nil {
		return nil, err
	}
	if n < 0 {
		return nil, errNegLen
	}
	if int(n) > d.remaining() {
		return nil, errTruncated
	}
	v := d.b[d.pos : d.pos+int(n) : d.pos+int(n)]
	d.pos += int(n)
	return v, nil
}

// skip skips one value of type t.
func (d *decoder) skip(t ValueType) error {
	switch t {
	case Null:
		return nil
	case Boolean:
		_, err := d.readBool()
		return err
	case Int:
		_, err := d.readInt()
		return err
	case Long:
		_, err := d.readLong()
		return err
	case String, Bytes:
		_, err := d.readBytes()
		return err
	}
	n := t.fixedSize()
	if d.remaining() < n {
		return errTruncated
	}
	d.pos += n
	return nil
}

// readValue reads one value of type t as a Go value: nil, bool, int32,
// int64, float32, float64, string, or []byte (a copy). Fixed32 and fixed64
// values are returned as int32 and int64, as Java returns them.
func (d *decoder) readValue(t ValueType) (any, error) {
	switch t {
	case Null:
		return nil, nil
	case Boolean:
		return d.readBool()
	case Int:
		return d.readInt()
	case Long:
		return d.readLong()
	case Fixed32:
		v, err := d.readFixed32()
		return int32(v), err
	case Fixed64:
		v, err := d.readFixed64()
		return int64(v), err
	case Float:
		v, err := d.readFixed32()
		return math.Float32frombits(v), err
	case Double:
		v, err := d.readFixed64()
		return math.Float64frombits(v), err
	case String:
		b, err := d.readBytes()
		if err != nil {
			return nil, err
		}
		if !utf8check.Valid(b) {
			return nil, errBadUTF8
		}
		return string(b), nil
	case Bytes:
		b, err := d.readBytes()
		if err != nil {
			return nil, err
		}
		return append([]byte{}, b...), nil
	}
	return nil, errors.New("unknown value type")
}

// skipBools skips n packed booleans.
func (d *decoder) skipBools(n int64) error {
	if n <= 0 {
		return nil
	}
	// Bits still unread in the current byte.
	avail := int64(0)
	if d.bitCount != 0 {
		avail = int64(8 - d.bitCount)
	}
	if n <= avail {
		d.bitCount = uint8((int64(d.bitCount) + n) & 7)
		return nil
	}
	n -= avail
	bytes := (n + 7) / 8
	if bytes > int64(d.remaining()) {
		return errTruncated
	}
	d.pos += int(bytes)
	d.bitCount = uint8(n & 7)
	return nil
}

// skipValues skips n values of type t.
func (d *decoder) skipValues(t ValueType, n int64) error {
	switch t {
	case Null:
		return nil
	case Boolean:
		return d.skipBools(n)
	}
	if size := t.fixedSize(); size > 0 {
		if n > int64(d.remaining())/int64(size) {
			return errTruncated
		}
		d.pos += int(n) * size
		return nil
	}
	if m := varintBytes(t); m > 0 && n > 8 {
		// Eight bytes at a time while they hold whole varints of at
		// most m bytes; the rest, errors included, one at a time.
		n = d.skipVarintWords(n, m)
	}
	for ; n > 0; n-- {
		if err := d.skip(t); err != nil {
			return err
		}
	}
	return nil
}

// varintBytes returns the most bytes a value of type t takes as a varint,
// or 0 for a type not stored as one.
func varintBytes(t ValueType) int {
	switch t {
	case Int:
		return 5
	case Long:
		return 10
	}
	return 0
}

// passVarints returns the position after the l varints of at most m bytes
// each that start at b[pos], or false if they are not all there whole.
func passVarints(b []byte, pos, l, m int) (int, bool) {
	for ; l > 0; l-- {
		end := min(pos+m, len(b))
		for pos < end && b[pos] >= 0x80 {
			pos++
		}
		if pos == end {
			return 0, false
		}
		pos++
	}
	return pos, true
}

// skipVarintWords passes over varints of at most m bytes, eight bytes at a
// time, while at least eight of the n wanted remain and each word read
// holds only varints (or their parts) of at most m bytes. It returns how
// many of the n are left, d.pos at the first of them.
func (d *decoder) skipVarintWords(n int64, m int) int64 {
	const high = 0x8080808080808080
	b, pos := d.b, d.pos
	run := 0 // bytes of an unfinished varint before pos
	for n >= 8 && len(b)-pos >= 8 {
		w := binary.LittleEndian.Uint64(b[pos:])
		last := ^w & high // the last byte of each varint
		if last == 0 {
			break
		}
		if run+bits.TrailingZeros64(last)>>3 >= m {
			break // the varint is too long
		}
		if m < 8 {
			// Five bytes in a row that all continue: too long for m
			// of 5 (and taken as too long for 6 or 7, which then go
			// one at a time).
			c := w & high
			if c&(c<<8)&(c<<16)&(c<<24)&(c<<32) != 0 {
				break
			}
		}
		n -= int64(bits.OnesCount64(last))
		run = bits.LeadingZeros64(last) >> 3
		pos += 8
	}
	d.pos = pos - run
	return n
}

// skipEntries skips n array entries (a length and its values) of an array
// column of type t and returns the sum of their lengths. Runs of lengths
// whose values take no bytes are consumed whole, so that a run claiming
// billions of entries costs nothing.
func (d *decoder) skipEntries(t ValueType, n int64) (int64, error) {
	var sum int64
	size, varint := t.fixedSize(), varintBytes(t)
	if t == Boolean {
		size = -1 // bits: the entries one at a time
	}
	for n > 0 {
		if (size >= 0 || varint > 0) && d.runLength == 0 {
			// Values that take no bytes, a fixed number or a varint
			// each, after lengths of one byte (up to 63): passed over
			// in a tight loop; anything else (an error included), one
			// entry at a time below.
			b, pos, k := d.b, d.pos, n
			for k > 0 && pos < len(b) {
				c := b[pos]
				if c&0x81 != 0 { // more bytes, or a run
					break
				}
				l := int(c >> 1)
				if size >= 0 {
					if l*size > len(b)-pos-1 {
						break
					}
					pos += 1 + l*size
				} else if p, ok := passVarints(b, pos+1, l, varint); ok {
					pos = p
				} else {
					break
				}
				sum += int64(l)
				k--
			}
			if k < n {
				d.pos, n, d.bitCount = pos, k, 0
				continue
			}
		}
		if d.runLength > 0 && (d.runValue == 0 || t == Null) {
			k := min(n, d.runLength)
			d.runLength -= k
			n -= k
			sum += k * int64(d.runValue)
			d.bitCount = 0
			continue
		}
		l, err := d.readLength()
		if err != nil {
			return sum, err
		}
		if l < 0 {
			return sum, errNegLen
		}
		n--
		sum += int64(l)
		if err := d.skipValues(t, int64(l)); err != nil {
			return sum, err
		}
	}
	return sum, nil
}
