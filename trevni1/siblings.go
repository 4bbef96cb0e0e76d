package trevni1

import (
	"fmt"
	"sort"
)

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
	cr         *ColumnReader // of the parent's version-1 column
	p          *sourceCol    // the parent
	block      int           // cr's block whose levels are in reps and defs, -1 for none
	reps, defs []uint16
	held       int64 // their bytes, in the reader's block memory
	e          int64 // the next entry of the block
	row        int64 // the record the next entry of level 0 starts
}

// load loads the parent's block b and decodes its levels.
func (sh *shapeCheck) load(b int) error {
	cr := sh.cr
	if err := cr.loadBlock(b); err != nil {
		return err
	}
	n := cr.rd.blocks[cr.col][b].Rows
	if err := decodeLevels(cr, &sh.reps, &sh.defs, &sh.held, n); err != nil {
		return err
	}
	sh.block, sh.e = b, 0
	return nil
}

// seek positions the check at record row, the first of a block of the
// checked column.
func (sh *shapeCheck) seek(s *Source, row int64) error {
	t, err := s.table(sh.p.leaf)
	if err != nil {
		return err
	}
	b := sort.Search(len(t), func(i int) bool { return t[i].FirstRow+t[i].Rows > row })
	if b == len(t) {
		return sh.cr.rd.colErr(sh.cr.col, -1, row, -1, fmt.Errorf("%w: no block holds record %d", ErrFormat, row))
	}
	if err := sh.load(b); err != nil {
		return err
	}
	rec := t[b].FirstRow - 1
	for ; sh.e < int64(len(sh.reps)); sh.e++ {
		if sh.reps[sh.e] == 0 {
			if rec++; rec == row {
				break
			}
		}
	}
	sh.row = row
	return nil
}

// next returns the parent's next entry of repetition level at most the
// parent's, loading its next blocks as needed; ok is false after the last.
func (sh *shapeCheck) next() (rep, def uint16, ok bool, err error) {
	max := uint16(sh.p.rep)
	for {
		for sh.e < int64(len(sh.reps)) {
			rep, def = sh.reps[sh.e], sh.defs[sh.e]
			sh.e++
			if rep <= max {
				return rep, def, true, nil
			}
		}
		if sh.block+1 >= len(sh.cr.rd.blocks[sh.cr.col]) {
			return 0, 0, false, nil
		}
		if err := sh.load(sh.block + 1); err != nil {
			return 0, 0, false, err
		}
	}
}

// checkShape checks block b of the column, just made, against its
// parent's version-1 column.
func (sc *sourceColumn) checkShape(b int) error {
	cr, sh := sc.cr, sc.shape
	t, err := sc.s.table(sc.c.leaf)
	if err != nil {
		return err
	}
	first, rows := t[b].FirstRow, t[b].Rows
	if rows == 0 {
		return nil // no entries either: an entry of level 0 starts a record
	}
	n := cr.rd.blocks[cr.col][b].Rows
	if !sc.decoded {
		if err := sc.levels(n); err != nil {
			return err
		}
	}
	if sh.block < 0 || sh.row != first {
		if err := sh.seek(sc.s, first); err != nil {
			return err
		}
	}
	p := sh.p
	maxRep, maxDef := uint16(p.rep), uint16(p.def)
	row := first - 1
	for e := range sc.reps {
		rep := sc.reps[e]
		if rep > maxRep {
			continue
		}
		if rep == 0 {
			row++
		}
		def := min(sc.defs[e], maxDef)
		pr, pd, ok, err := sh.next()
		if err != nil {
			return err
		}
		if !ok || pr != rep || min(pd, maxDef) != def {
			if ok && rep == 0 && pr != 0 {
				row-- // the parent's column goes on with the record before
			}
			return sc.disagree(b, row)
		}
	}
	// The parent's column must be at the start of the next record too.
	for ; sh.e < int64(len(sh.reps)); sh.e++ {
		if r := sh.reps[sh.e]; r <= maxRep {
			if r != 0 {
				return sc.disagree(b, first+rows-1)
			}
			break
		}
	}
	sh.row = first + rows
	return nil
}

// disagree returns the error of a record whose column disagrees with its
// parent's.
func (sc *sourceColumn) disagree(b int, row int64) error {
	rd := sc.s.rd
	p := &rd.cols[sc.shape.p.leaf]
	return rd.colErr(sc.cr.col, b, row, rd.blocks[sc.cr.col][b].Start, fmt.Errorf(
		"%w: the column's levels give %s other items in this record than column %q does (the columns under one array, map or union must agree record by record)",
		ErrFormat, sc.shape.p.meta.GetString("trevni.name"), p.Name))
}
