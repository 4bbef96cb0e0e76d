package trevni1

import "fmt"

// shapeCheck checks, as each block of a version-2 column is made, that
// the version-1 column it is made from describes the occurrences of its
// version-2 parent (an array, a map, a union's branch) as the version-1
// column the parent's lengths come from does, record by record. Sibling
// columns that disagree record by record but hold as many values per
// block would otherwise read as values shifted from one record to another.
//
// Two version-1 columns under a node agree on the node when their entries
// that start an item of it or of an ancestor (repetition level at most the
// node's) have the same repetition levels and the same definition levels
// up to the node's: the entries deeper down are each column's own.
type shapeCheck struct {
	k cursor     // of the parent's version-1 column
	p *sourceCol // the parent
}

// next returns the parent's next entry of repetition level at most the
// parent's, loading its next blocks as needed; ok is false after the last.
func (sh *shapeCheck) next() (rep, def uint16, ok bool, err error) {
	k, max := &sh.k, uint16(sh.p.rep)
	for {
		if err := k.levels(); err != nil {
			return 0, 0, false, err
		}
		for cr := k.cr; cr.entry < int64(len(k.reps)); {
			rep, def = k.reps[cr.entry], k.defs[cr.entry]
			cr.entry++
			if rep <= max {
				return rep, def, true, nil
			}
		}
		b := k.cr.block + 1
		if b >= k.nblocks() {
			return 0, 0, false, nil
		}
		// The record the block starts is not counted here: the cursor is
		// put at a record by seek, which counts from a known block.
		if err := k.load(b, -1); err != nil {
			return 0, 0, false, err
		}
	}
}

// checkShape checks the loaded block of the column against its parent's
// version-1 column, record by record, from the record the block starts.
func (sc *sourceColumn) checkShape() error {
	cr, sh, k := sc.cr, sc.shape, &sc.k
	n := k.entries()
	if n == 0 {
		return nil
	}
	first := k.first
	if err := sh.k.seek(first); err != nil {
		return err
	}
	p := sh.p
	maxRep, maxDef := uint16(p.rep), uint16(p.def)
	if recs, ok := sc.sameLevels(); ok {
		// The parent's block starts at the same record and has the same
		// levels: it agrees entry by entry.
		sh.k.cr.entry = n
		sh.k.rec = first + recs
		return nil
	}
	if err := k.levels(); err != nil {
		return err
	}
	row := first - 1
	for e := range k.reps[:n] {
		rep := k.reps[e]
		if rep > maxRep {
			continue
		}
		if rep == 0 {
			row++
		}
		def := min(k.defs[e], maxDef)
		pr, pd, ok, err := sh.next()
		if err != nil {
			return err
		}
		if !ok || pr != rep || min(pd, maxDef) != def {
			if ok && rep == 0 && pr != 0 {
				row-- // the parent's column goes on with the record before
			}
			return sc.disagree(cr.block, row)
		}
	}
	// The parent's column must be at the start of the next record too.
	pk := &sh.k
	if err := pk.levels(); err != nil {
		return err
	}
	e := pk.cr.entry
	for ; e < int64(len(pk.reps)); e++ {
		if r := pk.reps[e]; r <= maxRep {
			if r != 0 {
				return sc.disagree(cr.block, row)
			}
			break
		}
	}
	pk.cr.entry, pk.rec = e, row+1
	return nil
}

// sameLevels reports whether the parent's column, at the start of its
// loaded block, has the very level arrays of the column's loaded block,
// where both hold every level the check compares (their repetition and
// definition levels are the parent's, at most), and returns the block's
// records. Then every entry agrees, without decoding a level.
func (sc *sourceColumn) sameLevels() (int64, bool) {
	cr, pcr, p := sc.cr, sc.shape.k.cr, sc.shape.p
	if pcr.entry != 0 || cr.c.MaxRep != p.rep || pcr.c.MaxRep != p.rep || cr.c.MaxDef != p.def || pcr.c.MaxDef != p.def || cr.repBits != 1 {
		return 0, false
	}
	n := sc.k.entries()
	if sc.shape.k.entries() != n || !sameBits(cr.reps, pcr.reps, n*int64(cr.repBits)) || !sameBits(cr.defs, pcr.defs, n*int64(cr.defBits)) {
		return 0, false
	}
	return n - onesIn(cr.reps, 0, n), true
}

// sameBits reports whether the first n bits of a and b are the same.
func sameBits(a, b []byte, n int64) bool {
	full := n >> 3
	if int64(len(a)) < (n+7)>>3 || int64(len(b)) < (n+7)>>3 || string(a[:full]) != string(b[:full]) {
		return false
	}
	if r := n & 7; r > 0 {
		mask := byte(1)<<r - 1
		return a[full]&mask == b[full]&mask
	}
	return true
}

// disagree returns the error of a record whose column disagrees with its
// parent's.
func (sc *sourceColumn) disagree(b int, row int64) error {
	rd := sc.s.rd
	p := &rd.cols[sc.shape.k.l]
	return rd.colErr(sc.cr.col, b, row, rd.blocks[sc.cr.col][b].Start, fmt.Errorf(
		"%w: the column's levels give %s other items in this record than column %q does (the columns under one array, map or union must agree record by record)",
		ErrFormat, sc.shape.p.meta.GetString("trevni.name"), p.Name))
}
