package stats

import (
	"encoding/binary"
	"errors"
	"fmt"
	"math"
)

// Version is the version byte that starts every encoding written by this
// package. Decode rejects any other.
const Version = 1

// Entry flags.
const (
	flagBounds     = 1 << 0
	flagMinInexact = 1 << 1
	flagMaxInexact = 1 << 2
	flagNoMax      = 1 << 3
	flagNaN        = 1 << 4
	flagsKnown     = flagBounds | flagMinInexact | flagMaxInexact | flagNoMax | flagNaN
)

// Header flags.
const (
	headerArray      = 1 << 0
	headerFlagsKnown = headerArray
)

// ErrCorrupt is wrapped by the errors of Decode.
var ErrCorrupt = errors.New("corrupt statistics")

func appendHeader(out []byte, t Type, array bool, blocks int) []byte {
	var f byte
	if array {
		f |= headerArray
	}
	out = append(out, Version, byte(t), f)
	return binary.AppendUvarint(out, uint64(blocks))
}

func appendBlock(out []byte, t Type, array bool, b *Block) []byte {
	var f byte
	if b.HasBounds {
		f |= flagBounds
		if b.MinInexact {
			f |= flagMinInexact
		}
		if b.MaxInexact || b.NoMax {
			f |= flagMaxInexact
		}
		if b.NoMax {
			f |= flagNoMax
		}
	}
	if b.NaN {
		f |= flagNaN
	}
	out = append(out, f)
	out = binary.AppendUvarint(out, uint64(b.Rows))
	if array {
		out = binary.AppendUvarint(out, uint64(b.Lengths))
		out = binary.AppendUvarint(out, uint64(b.NonEmpty))
	}
	out = binary.AppendUvarint(out, uint64(b.Values))
	if !b.HasBounds {
		return out
	}
	out = appendBound(out, t, b.MinInt, b.MinFloat, b.MinBytes)
	if !b.NoMax {
		out = appendBound(out, t, b.MaxInt, b.MaxFloat, b.MaxBytes)
	}
	return out
}

func appendBound(out []byte, t Type, i int64, f float64, s []byte) []byte {
	switch {
	case t == Boolean:
		return append(out, byte(i))
	case t.IsInteger():
		return binary.AppendVarint(out, i)
	case t == Float:
		return binary.LittleEndian.AppendUint32(out, math.Float32bits(float32(f)))
	case t == Double:
		return binary.LittleEndian.AppendUint64(out, math.Float64bits(f))
	case t.IsBytes():
		out = binary.AppendUvarint(out, uint64(len(s)))
		return append(out, s...)
	}
	return out
}

// Encode returns the encoding of a column's statistics, as an Accumulator
// writes it. Bounds must fit the column's type (Decode's output does).
func Encode(c *Column) []byte {
	out := appendHeader(nil, c.Type, c.Array, len(c.Blocks))
	for i := range c.Blocks {
		out = appendBlock(out, c.Type, c.Array, &c.Blocks[i])
	}
	return out
}

// decoder reads an encoding, remembering where it is for errors.
type decoder struct {
	b   []byte
	off int
}

func (d *decoder) fail(what string) error {
	return fmt.Errorf("%w: %s at byte %d", ErrCorrupt, what, d.off)
}

func (d *decoder) byte(what string) (byte, error) {
	if d.off >= len(d.b) {
		return 0, d.fail("truncated " + what)
	}
	d.off++
	return d.b[d.off-1], nil
}

func (d *decoder) count(what string) (int64, error) {
	v, n := binary.Uvarint(d.b[d.off:])
	if n <= 0 || v > math.MaxInt64 {
		return 0, d.fail("bad " + what)
	}
	d.off += n
	return int64(v), nil
}

func (d *decoder) bound(t Type, maxLen int) (int64, float64, []byte, error) {
	switch {
	case t == Boolean:
		v, err := d.byte("boolean bound")
		if err == nil && v > 1 {
			d.off--
			err = d.fail("boolean bound not 0 or 1")
		}
		return int64(v), 0, nil, err
	case t.IsInteger():
		v, n := binary.Varint(d.b[d.off:])
		if n <= 0 {
			return 0, 0, nil, d.fail("bad integer bound")
		}
		d.off += n
		if (t == Int || t == Fixed32) && (v < math.MinInt32 || v > math.MaxInt32) {
			return 0, 0, nil, d.fail("int bound out of range")
		}
		return v, 0, nil, nil
	case t == Float:
		if len(d.b)-d.off < 4 {
			return 0, 0, nil, d.fail("truncated float bound")
		}
		f := math.Float32frombits(binary.LittleEndian.Uint32(d.b[d.off:]))
		d.off += 4
		return 0, float64(f), nil, nil
	case t == Double:
		if len(d.b)-d.off < 8 {
			return 0, 0, nil, d.fail("truncated double bound")
		}
		f := math.Float64frombits(binary.LittleEndian.Uint64(d.b[d.off:]))
		d.off += 8
		return 0, f, nil, nil
	case t.IsBytes():
		n, err := d.count("bound length")
		if err != nil {
			return 0, 0, nil, err
		}
		if n > int64(len(d.b)-d.off) || n > int64(maxLen) {
			return 0, 0, nil, d.fail("bound length too large")
		}
		s := d.b[d.off : d.off+int(n) : d.off+int(n)]
		d.off += int(n)
		return 0, 0, s, nil
	}
	return 0, 0, nil, d.fail("bounds on a " + t.String() + " column")
}

// Decode reads statistics encoded by Encode or an Accumulator. The blocks'
// MinBytes and MaxBytes point into b. Any malformed input, including a
// block whose bounds are out of order or whose counts contradict each
// other, is an error wrapping ErrCorrupt that says at which byte; Decode
// never allocates more than b could describe.
func Decode(b []byte) (*Column, error) {
	d := &decoder{b: b}
	v, err := d.byte("version")
	if err != nil {
		return nil, err
	}
	if v != Version {
		d.off--
		return nil, d.fail(fmt.Sprintf("unknown version %d", v))
	}
	t, err := d.byte("type")
	if err != nil {
		return nil, err
	}
	if !Type(t).Valid() {
		d.off--
		return nil, d.fail(fmt.Sprintf("unknown type %d", t))
	}
	hf, err := d.byte("flags")
	if err != nil {
		return nil, err
	}
	if hf&^headerFlagsKnown != 0 {
		d.off--
		return nil, d.fail(fmt.Sprintf("unknown header flags %#x", hf))
	}
	n, err := d.count("block count")
	if err != nil {
		return nil, err
	}
	// An entry takes at least three bytes (four for an array column).
	minEntry := int64(3)
	if hf&headerArray != 0 {
		minEntry = 5
	}
	if n > int64(len(b)-d.off)/minEntry {
		return nil, d.fail(fmt.Sprintf("block count %d exceeds the bytes that follow", n))
	}
	c := &Column{Type: Type(t), Array: hf&headerArray != 0, Blocks: make([]Block, n)}
	for i := range c.Blocks {
		if err := d.block(c, &c.Blocks[i]); err != nil {
			return nil, fmt.Errorf("block %d: %w", i, err)
		}
	}
	if d.off != len(b) {
		return nil, d.fail(fmt.Sprintf("%d bytes after the last block", len(b)-d.off))
	}
	return c, nil
}

func (d *decoder) block(c *Column, b *Block) error {
	start := d.off
	f, err := d.byte("entry flags")
	if err != nil {
		return err
	}
	if f&^flagsKnown != 0 {
		d.off--
		return d.fail(fmt.Sprintf("unknown entry flags %#x", f))
	}
	if b.Rows, err = d.count("row count"); err != nil {
		return err
	}
	if c.Array {
		if b.Lengths, err = d.count("length count"); err != nil {
			return err
		}
		if b.NonEmpty, err = d.count("non-empty count"); err != nil {
			return err
		}
	}
	if b.Values, err = d.count("value count"); err != nil {
		return err
	}
	b.NaN = f&flagNaN != 0
	b.HasBounds = f&flagBounds != 0
	b.MinInexact = f&flagMinInexact != 0
	b.MaxInexact = f&flagMaxInexact != 0
	b.NoMax = f&flagNoMax != 0
	maxLen := 1 << 20
	switch {
	case b.NonEmpty > b.Lengths:
		return d.failAt(start, "more non-empty lengths than lengths")
	case b.NaN && !c.Type.IsFloat():
		return d.failAt(start, "NaN in a "+c.Type.String()+" column")
	case !b.HasBounds && f&(flagMinInexact|flagMaxInexact|flagNoMax) != 0:
		return d.failAt(start, "inexact flags without bounds")
	case (b.MinInexact || b.MaxInexact) && !c.Type.IsBytes():
		return d.failAt(start, "inexact bounds in a "+c.Type.String()+" column")
	case b.NoMax && !b.MaxInexact:
		return d.failAt(start, "no maximum but an exact one")
	case b.HasBounds && (b.Values == 0 || c.Type == Null):
		return d.failAt(start, "bounds without values")
	}
	if !b.HasBounds {
		return nil
	}
	if b.MinInt, b.MinFloat, b.MinBytes, err = d.bound(c.Type, maxLen); err != nil {
		return err
	}
	if !b.NoMax {
		if b.MaxInt, b.MaxFloat, b.MaxBytes, err = d.bound(c.Type, maxLen); err != nil {
			return err
		}
	}
	switch {
	case c.Type.IsInteger() && b.MinInt > b.MaxInt,
		c.Type.IsFloat() && !(b.MinFloat <= b.MaxFloat),
		c.Type.IsBytes() && !b.NoMax && string(b.MinBytes) > string(b.MaxBytes):
		return d.failAt(start, "minimum above maximum")
	}
	return nil
}

func (d *decoder) failAt(off int, what string) error {
	d.off = off
	return d.fail(what)
}
