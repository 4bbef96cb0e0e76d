package trevni1

import (
	"encoding/binary"
	"fmt"
	"math"
	"math/bits"
	"slices"
	"unsafe"

	"github.com/trevni-go/trevni/format"
	"github.com/trevni-go/trevni/internal/avrobin"
)

// The direct route: a reader of a leaf's Dremel levels (package
// assemble/levels) reads the records of a version-2 column made from one
// version-1 column straight from the version-1 block, its lengths from the
// levels and its values from the values area, with no version-2 block
// made (and decoded again) between. Only the shapes the fast paths of
// Block know are read so (see Direct); the others, and the columns of a
// timestamp, go by Block.

// Direct reports whether DirectRead reads the column, its values held as
// Go values of version-2 type t (format.Null for a column of lengths with
// no values of its own): a column of values, one a record or beneath a
// top-level array whose levels are one bit each, a top-level array of
// such, or the value of a ["null", T] outside any array or optional
// record, of a type version 1 encodes as version 2 does (boolean, int,
// long, float, double, string, bytes).
func (sc *sourceColumn) Direct(t format.ValueType) bool {
	c, lc := sc.c, &sc.s.rd.cols[sc.c.leaf]
	if c.part != 0 || lc.MaxDef > 1 || lc.MaxRep > 1 {
		return false
	}
	values := c.kind == colValues || c.inline
	if !values {
		if t != format.Null {
			return false
		}
	} else if !sameType(lc.Type, t) {
		return false
	}
	if lc.MaxRep == 1 && lc.MaxDef != 1 {
		return false
	}
	switch c.kind {
	case colValues:
		return true
	case colArray:
		return lc.MaxRep == 1 && lc.MaxDef == 1 && c.ctxRep == 0 && c.rep == 1 && c.ctxDef == 0 && c.def == 1
	case colOptional:
		return lc.MaxRep == 0 && lc.MaxDef == 1 && c.inline && c.ctxDef == 0 && c.def == 1
	}
	return false
}

// sameType says whether version-1 type v holds values as version-2 type
// t does, encoded alike.
func sameType(v Type, t format.ValueType) bool {
	switch v {
	case Boolean:
		return t == format.Boolean
	case Int:
		return t == format.Int
	case Long:
		return t == format.Long
	case Float:
		return t == format.Float
	case Double:
		return t == format.Double
	case String:
		return t == format.String
	case Bytes:
		return t == format.Bytes
	}
	return false
}

// DirectSeek makes row the next record DirectRead reads.
func (sc *sourceColumn) DirectSeek(row int64) {
	cut := sc.s.cuts[sc.c.leaf]
	if b := sc.dblock; b < 0 || row < cut[b].FirstRow || row >= cut[b].FirstRow+cut[b].Rows {
		sc.dblock = -1
	}
	sc.drow = row
}

// DirectLoaded returns the version-2 blocks DirectRead entered (each once
// a pass: a seek back enters them again) and their stored bytes: what a
// reader of the blocks Block makes would have loaded.
func (sc *sourceColumn) DirectLoaded() (int, int64) { return sc.dblocks, sc.dbytes }

// DirectRead reads the next len(lens) records of a column Direct(t) said
// it reads: lens[i] is record i's length (of a column of lengths) or the
// number of its values (of a column of values: 1 a record outside
// arrays), and the values are appended to vals, a *[]bool, *[]int32,
// *[]int64, *[]float32 or *[]float64 of t, or handed one by one to a
// func([]byte) (strings and bytes, valid during the call); vals is nil
// for a column of no values. It stops early, after the records of a
// version-1 block, once it has read most values or more. The levels and
// values are checked as Block checks them, and an error says what is
// wrong where (in the file's terms). It returns the records read.
func (sc *sourceColumn) DirectRead(lens []int32, vals any, most int) (int, error) {
	if len(lens) == 0 {
		return 0, nil
	}
	s := sc.s
	if sc.drow < 0 || sc.drow+int64(len(lens)) > s.rd.rows {
		return 0, fmt.Errorf("%w: records %d to %d of %d", ErrUsage, sc.drow, sc.drow+int64(len(lens))-1, s.rd.rows)
	}
	sc.enter(sc.drow + int64(len(lens)) - 1)
	k, cr := &sc.k, sc.cr
	if err := k.seek(sc.drow); err != nil {
		return 0, err
	}
	got, read := 0, 0
	for got < len(lens) && read < most {
		n := k.entries()
		if cr.entry >= n {
			if err := k.nextBlock(); err != nil {
				return got, err
			}
			continue
		}
		if sc.shape != nil && sc.checked != cr.block {
			if err := sc.checkShape(); err != nil {
				return got, err
			}
			sc.checked = cr.block
		}
		e := cr.entry
		if cr.repBits > 0 && bitAt(cr.reps, e) != 0 {
			return got, cr.fail(fmt.Errorf("%w: a block that starts inside a record (repetition level 1)", ErrFormat))
		}
		end, recs, err := k.recordsEnd(e, int64(len(lens)-got))
		if err != nil {
			return got, err
		}
		values, err := sc.directLevels(lens[got:got+int(recs)], e, end)
		if err != nil {
			return got, err
		}
		read += int(min(values, math.MaxInt32))
		if vals != nil && values > 0 {
			if err := sc.directValues(values, vals); err != nil {
				return got, cr.fail(err)
			}
		}
		cr.entry, cr.row = cr.entry+(end-e), cr.row+(end-e)
		k.rec += recs
		got += int(recs)
		sc.drow += recs
	}
	if sc.drow == s.rd.rows {
		return got, k.end()
	}
	return got, nil
}

// enter counts the version-2 blocks holding the records from sc.drow to
// last that the reader had not entered since its last seek.
func (sc *sourceColumn) enter(last int64) {
	cut := sc.s.cuts[sc.c.leaf]
	b := max(sc.dblock, 0)
	for b < len(cut) && cut[b].FirstRow+cut[b].Rows <= sc.drow {
		b++
	}
	for ; b < len(cut) && cut[b].FirstRow <= last; b++ {
		if b > sc.dblock {
			sc.dblocks++
			sc.dbytes += int64(cut[b].CompressedSize)
			sc.dblock = b
		}
	}
}

// bitAt returns bit i of bit stream b.
func bitAt(b []byte, i int64) byte { return b[i>>3] >> (i & 7) & 1 }

// directLevels sets lens from the levels of entries e to end of the
// loaded block, which hold len(lens) records, checking them as Block's
// lengths do, and returns how many of the entries hold a value.
func (sc *sourceColumn) directLevels(lens []int32, e, end int64) (int64, error) {
	cr := sc.cr
	if cr.repBits == 0 {
		// A record an entry: its value, or an absent union's.
		if cr.defBits == 0 {
			fill32(lens, 1)
			return end - e, nil
		}
		return defBits(lens, cr.defs, e), nil
	}
	if values, ok := topLevels(lens, cr.defs, cr.reps, e, end); ok {
		return values, nil
	}
	return sc.topLevelsSlow(lens, e, end)
}

// defBits sets lens[i] to the definition bit of entry e+i, 64 at a time,
// and returns how many are set.
func defBits(lens []int32, defs []byte, e int64) int64 {
	var values int64
	for i := 0; i < len(lens); {
		w := bitWord(defs, (e+int64(i))&^63) >> ((e + int64(i)) & 63)
		k := min(len(lens)-i, 64-int((e+int64(i))&63))
		out := lens[i : i+k]
		for j := range out {
			out[j] = int32(w >> j & 1)
		}
		if k < 64 {
			w &= 1<<k - 1
		}
		values += int64(bits.OnesCount64(w))
		i += k
	}
	return values
}

// topLevels is directLevels for one-bit levels where every record is as
// it should be: an entry of definition level 0 has repetition level 0 and
// so has the entry after it (an empty array, or an absent value, alone in
// its record). The levels are looked at 64 entries at a time, as
// fastTopArray looks at them: a record's length is its entries, 0 where
// its first has definition level 0. It returns false, having set nothing
// that counts, otherwise (topLevelsSlow then says what is wrong, or counts
// the values of a column of values entry by entry).
func topLevels(lens []int32, defs, reps []byte, e, end int64) (int64, bool) {
	if end-e > math.MaxInt32 || len(lens) == 0 {
		return 0, false
	}
	if !emptiesAlone(defs, reps, e, end) {
		return 0, false
	}
	// The records start at the zero bits of the repetition levels: each
	// from s to the next, or to end.
	s, sdef := e, int32(bitAt(defs, e))
	r := 0
	for i := e &^ 63; i < end; i += 64 {
		z := ^bitWord(reps, i)
		if i <= e {
			z &= ^uint64(0) << (e + 1 - i)
		}
		if end-i < 64 {
			z &= 1<<(end-i) - 1
		}
		if z == 0 {
			continue
		}
		d := bitWord(defs, i)
		for ; z != 0; z &= z - 1 {
			if r == len(lens)-1 {
				return 0, false
			}
			b := bits.TrailingZeros64(z)
			t := i + int64(b)
			lens[r] = int32(t-s) & -sdef
			r++
			s, sdef = t, int32(d>>b&1)
		}
	}
	if r != len(lens)-1 {
		return 0, false
	}
	lens[r] = int32(end-s) & -sdef
	return onesIn(defs, e, end), true
}

// topLevelsSlow is directLevels for one-bit levels entry by entry.
func (sc *sourceColumn) topLevelsSlow(lens []int32, e, end int64) (int64, error) {
	cr, c := sc.cr, sc.c
	defs, reps := cr.defs, cr.reps
	r := -1
	var values int64
	for x := e; x < end; x++ {
		d := int32(bitAt(defs, x))
		if bitAt(reps, x) == 0 {
			r++
			lens[r] = 0
		} else if c.kind != colValues && (d == 0 || bitAt(defs, x-1) == 0) {
			if d == 0 {
				return 0, cr.fail(fmt.Errorf("%w: entry of repetition level 1 inside a value that is absent or empty", ErrFormat))
			}
			return 0, cr.fail(fmt.Errorf("%w: items after an absent or empty value", ErrFormat))
		}
		lens[r] += d
		values += int64(d)
		if lens[r] == math.MaxInt32 {
			return 0, cr.fail(fmt.Errorf("%w: an array of more than %d items", ErrFormat, math.MaxInt32-1))
		}
	}
	return values, nil
}

// fill32 sets every element of s to v.
func fill32(s []int32, v int32) {
	for i := range s {
		s[i] = v
	}
}

// directValues appends the next n values of the loaded block to vals (see
// DirectRead), checking them as readValue does.
func (sc *sourceColumn) directValues(n int64, vals any) error {
	cr := sc.cr
	t := cr.c.Type
	if n > cr.count-cr.nonNull {
		return fmt.Errorf("%w: %d values past the block's %d", ErrFormat, n, cr.count)
	}
	v := cr.values[cr.pos:]
	p := 0
	switch dst := vals.(type) {
	case *[]bool:
		if t != Boolean {
			return errDirectType(t, vals)
		}
		out := *dst
		for k := cr.nonNull; k < cr.nonNull+n; k++ {
			out = append(out, bitAt(cr.bools, k) != 0)
		}
		*dst = out
	case *[]int64:
		if t != Long {
			return errDirectType(t, vals)
		}
		var err error
		if p, err = varints(dst, v, n, t); err != nil {
			return err
		}
	case *[]int32:
		if t != Int {
			return errDirectType(t, vals)
		}
		var err error
		if p, err = varints(dst, v, n, t); err != nil {
			return err
		}
	case *[]float32:
		if t != Float || int64(len(v)) < 4*n {
			return errDirectType(t, vals)
		}
		out, at := extend(*dst, n)
		leValues(out[at:], v, 4, func(b []byte) float32 { return math.Float32frombits(binary.LittleEndian.Uint32(b)) })
		p = 4 * int(n)
		*dst = out
	case *[]float64:
		if t != Double || int64(len(v)) < 8*n {
			return errDirectType(t, vals)
		}
		out, at := extend(*dst, n)
		leValues(out[at:], v, 8, func(b []byte) float64 { return math.Float64frombits(binary.LittleEndian.Uint64(b)) })
		p = 8 * int(n)
		*dst = out
	case func([]byte):
		if t != String && t != Bytes {
			return errDirectType(t, vals)
		}
		for range n {
			if p < len(v) && v[p] < 0x80 && v[p]&1 == 0 {
				// A length of one byte, not negative.
				if l := int(v[p] >> 1); l < len(v)-p {
					dst(v[p+1 : p+1+l])
					p += 1 + l
					continue
				}
			}
			b, k := avrobin.ConsumeBytes(v[p:])
			if k < 0 {
				return fmt.Errorf("%s: %w", t, valuesErr(k))
			}
			dst(b)
			p += k
		}
	default:
		return errDirectType(t, vals)
	}
	cr.pos += p
	cr.nonNull += n
	return nil
}

// errDirectType is the error of DirectRead asked for values of a column
// of type t as vals (a caller's mistake, or a values area too short).
func errDirectType(t Type, vals any) error {
	return fmt.Errorf("%w: %s values read as %T, or too few of them", ErrFormat, t, vals)
}

// varints appends the n zig-zag varints that start values area v, of
// type t, to *dst, checking each as readValue does, and returns the bytes
// they take.
func varints[T int32 | int64](dst *[]T, v []byte, n int64, t Type) (int, error) {
	out, at := extend(*dst, n)
	p := 0
	for j := range out[at:] {
		x, k := nextLong(v[p:])
		if k < 0 {
			*dst = out[:at+j]
			return p, valuesErr(k)
		}
		if x != int64(T(x)) {
			*dst = out[:at+j]
			return p, fmt.Errorf("%w: %s value %d out of range", ErrFormat, t, x)
		}
		out[at+j] = T(x)
		p += k
	}
	*dst = out
	return p, nil
}

// extend returns s lengthened by n and its length before.
func extend[T any](s []T, n int64) ([]T, int) {
	at := len(s)
	return slices.Grow(s, int(n))[:at+int(n)], at
}

// nextLong decodes the zig-zag varint that starts v, as avrobin.ConsumeLong
// does, the varints of one byte and of up to eight without a call.
func nextLong(v []byte) (int64, int) {
	if len(v) >= 8 {
		x := binary.LittleEndian.Uint64(v)
		if x&0x80 == 0 {
			return avrobin.DecodeZigZag(x & 0x7f), 1
		}
		if stop := ^x & 0x8080808080808080; stop != 0 {
			n := bits.TrailingZeros64(stop) + 1
			x &= 0x7f7f7f7f7f7f7f7f >> (64 - n)
			// The 7-bit groups gathered: pairs of bytes, pairs of pairs,
			// then the halves.
			x = x&0x007f007f007f007f | x>>1&0x3f803f803f803f80
			x = x&0x00003fff00003fff | x>>2&0x0fffc0000fffc000
			x = x&0x000000000fffffff | x>>4&0x00fffffff0000000
			return avrobin.DecodeZigZag(x), n >> 3
		}
	}
	return avrobin.ConsumeLong(v)
}

// leValues sets out from the little-endian values of v, w bytes each: the
// bytes copied where the machine is little-endian, else each decoded by
// dec.
func leValues[T float32 | float64](out []T, v []byte, w int, dec func([]byte) T) {
	if littleEndian {
		copy(unsafe.Slice((*byte)(unsafe.Pointer(unsafe.SliceData(out))), w*len(out)), v)
		return
	}
	for j := range out {
		out[j] = dec(v[w*j:])
	}
}

// littleEndian says whether the machine stores a float as the values area
// does: the values are then the area's bytes, copied.
var littleEndian = binary.NativeEndian.Uint16([]byte{1, 0}) == 1
