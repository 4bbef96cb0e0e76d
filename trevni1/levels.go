package trevni1

import (
	"fmt"
	"math/bits"
)

// bitsAt returns the w-bit entry at bit offset pos of a little-endian bit
// stream b (Impala's IntegerArray on a little-endian machine), w at most
// 16: from the three bytes that hold it, or fewer at the end of b.
func bitsAt(b []byte, pos int64, w int) int {
	i := pos >> 3
	var v uint32
	if i+2 < int64(len(b)) {
		v = uint32(b[i]) | uint32(b[i+1])<<8 | uint32(b[i+2])<<16
	} else {
		for k := int64(0); i+k < int64(len(b)) && k < 3; k++ {
			v |= uint32(b[i+k]) << (8 * k)
		}
	}
	return int(v >> (pos & 7) & (1<<w - 1))
}

// level returns entry e's repetition and definition levels.
func (cr *ColumnReader) level(e int64) (rep, def int) {
	def = cr.c.MaxDef
	switch cr.defBits {
	case 0:
	case 1:
		def = int(cr.defs[e>>3] >> (e & 7) & 1)
	default:
		def = bitsAt(cr.defs, e*int64(cr.defBits), cr.defBits)
	}
	switch cr.repBits {
	case 0:
	case 1:
		rep = int(cr.reps[e>>3] >> (e & 7) & 1)
	default:
		rep = bitsAt(cr.reps, e*int64(cr.repBits), cr.repBits)
	}
	return rep, def
}

// checkLevels checks the level arrays of the block just loaded, of n
// entries: no level above the column's maximum, the first entry starting a
// row; and returns how many entries hold a value (definition level at the
// maximum). Arrays of one bit an entry, whose levels cannot pass a maximum
// of 1, are counted a byte at a time.
func (cr *ColumnReader) checkLevels(n int64) (int64, error) {
	nonNull := n
	switch {
	case cr.defBits == 0:
	case cr.defBits == 1 && cr.c.MaxDef == 1:
		nonNull = 0
		full := n >> 3
		for _, b := range cr.defs[:full] {
			nonNull += int64(bits.OnesCount8(b))
		}
		if r := n & 7; r > 0 {
			nonNull += int64(bits.OnesCount8(cr.defs[full] & (1<<r - 1)))
		}
	default:
		nonNull = 0
		for e := int64(0); e < n; e++ {
			d := bitsAt(cr.defs, e*int64(cr.defBits), cr.defBits)
			if d > cr.c.MaxDef {
				return 0, cr.fail(fmt.Errorf("%w: entry %d has definition level %d, above the column's %d", ErrFormat, e, d, cr.c.MaxDef))
			}
			if d == cr.c.MaxDef {
				nonNull++
			}
		}
	}
	if cr.repBits > 0 && n > 0 {
		if r := bitsAt(cr.reps, 0, cr.repBits); r != 0 {
			return 0, cr.fail(fmt.Errorf("%w: block starts inside a row (repetition level %d)", ErrFormat, r))
		}
		if cr.c.MaxRep != 1<<cr.repBits-1 {
			for e := int64(1); e < n; e++ {
				if r := bitsAt(cr.reps, e*int64(cr.repBits), cr.repBits); r > cr.c.MaxRep {
					return 0, cr.fail(fmt.Errorf("%w: entry %d has repetition level %d, above the column's %d", ErrFormat, e, r, cr.c.MaxRep))
				}
			}
		}
	}
	return nonNull, nil
}
