package format

import (
	"encoding/binary"
	"math/rand/v2"
	"testing"
)

// naiveSkipEntries is skipEntries one entry and one value at a time (as
// it was before its tight loops): the truth they are held to, positions
// after an error included.
func naiveSkipEntries(d *decoder, t ValueType, n int64) (int64, error) {
	var sum int64
	for n > 0 {
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
		if err := naiveSkipValues(d, t, int64(l)); err != nil {
			return sum, err
		}
	}
	return sum, nil
}

// naiveSkipValues is skipValues one value at a time.
func naiveSkipValues(d *decoder, t ValueType, n int64) error {
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
	for ; n > 0; n-- {
		if err := d.skip(t); err != nil {
			return err
		}
	}
	return nil
}

// randomEntries returns the encoding of random array entries of type t:
// lengths (small and large, runs among them) and values (varints of every
// length, some too long; fixed sizes), cut at a random place, or with a
// random byte changed.
func randomEntries(r *rand.Rand, t ValueType) []byte {
	var b []byte
	for range r.IntN(200) {
		switch r.IntN(10) {
		case 0: // a run of lengths: -1 two 0s, -2 two 1s, ...
			b = binary.AppendVarint(b, -int64(1+r.IntN(9)))
			if r.IntN(2) == 0 {
				continue
			}
			fallthrough
		case 1, 2, 3, 4, 5, 6:
			l := r.IntN(4)
			if r.IntN(8) == 0 {
				l = r.IntN(100)
			}
			b = binary.AppendVarint(b, int64(l))
			for range l {
				b = appendRandomValue(r, b, t)
			}
		default:
			b = appendRandomValue(r, b, t)
		}
	}
	switch r.IntN(5) {
	case 0:
		if len(b) > 0 {
			b = b[:r.IntN(len(b))]
		}
	case 2: // one byte short
		if len(b) > 0 {
			b = b[:len(b)-1]
		}
	case 1:
		if len(b) > 0 {
			b[r.IntN(len(b))] = byte(r.Uint32())
		}
	}
	return b
}

func appendRandomValue(r *rand.Rand, b []byte, t ValueType) []byte {
	switch t {
	case Int, Long:
		switch r.IntN(20) {
		case 0: // too long
			for range 4 + r.IntN(8) {
				b = append(b, 0x80|byte(r.Uint32()))
			}
			return append(b, byte(r.IntN(128)))
		case 1:
			return binary.AppendVarint(b, r.Int64())
		}
		return binary.AppendVarint(b, r.Int64N(1<<uint(1+r.IntN(34)))-1<<uint(r.IntN(20)))
	case Float:
		return append(b, 1, 2, 3, 4)
	case Double:
		return append(b, 1, 2, 3, 4, 5, 6, 7, 8)
	case String:
		l := r.IntN(20)
		b = binary.AppendVarint(b, int64(l))
		return append(b, make([]byte, l)...)
	}
	return b
}

// TestSkipEntries passes over random entries, well formed and damaged,
// of each type, as array columns and (for top-level values) as values:
// the sums, errors and positions are those of one entry and one value at
// a time.
func TestSkipEntries(t *testing.T) {
	r := rand.New(rand.NewPCG(7, 8))
	for _, typ := range []ValueType{Null, Int, Long, Float, Double, String} {
		for range 3000 {
			b := randomEntries(r, typ)
			n := r.Int64N(300)
			want, got := decoder{b: b}, decoder{b: b}
			if r.IntN(4) == 0 { // midway through a run
				want.runLength, want.runValue = r.Int64N(5), int32(r.IntN(2))
				got.runLength, got.runValue = want.runLength, want.runValue
			}
			ws, werr := naiveSkipEntries(&want, typ, n)
			gs, gerr := got.skipEntries(typ, n)
			if werr != gerr || (werr == nil && ws != gs) || !sameState(&want, &got) {
				t.Fatalf("%v, %d entries of % x: %d, %v, pos %d; want %d, %v, pos %d", typ, n, b, gs, gerr, got.pos, ws, werr, want.pos)
			}
			// The same bytes as values.
			want, got = decoder{b: b}, decoder{b: b}
			verr := naiveSkipValues(&want, typ, n)
			if gerr := got.skipValues(typ, n); gerr != verr || !sameState(&want, &got) {
				t.Fatalf("%v, %d values of % x: %v, pos %d; want %v, pos %d", typ, n, b, gerr, got.pos, verr, want.pos)
			}
		}
	}
}

// sameState reports whether two decoders of the same bytes are at the
// same place.
func sameState(a, b *decoder) bool {
	return a.pos == b.pos && a.bitCount == b.bitCount && a.runLength == b.runLength && a.runValue == b.runValue
}
