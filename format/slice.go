package format

import (
	"fmt"

	"github.com/trevni-go/trevni/format/stats"
)

// BlockEnds returns, in increasing order, the rows at which a block of
// every column ends: the rows where the file can be cut into parts made of
// its own blocks (Slice). The last is the row count; a file of no rows, or
// of no columns, has none. It reads every column's block table.
func (rd *Reader) BlockEnds() ([]int64, error) {
	if rd.rowCount == 0 || len(rd.cols) == 0 {
		return nil, nil
	}
	// count[r] would be a map of every row; instead walk the columns'
	// block ends together, keeping those every column has.
	var ends []int64
	for i := range rd.cols {
		t, err := rd.table(i)
		if err != nil {
			return nil, err
		}
		var mine []int64
		for _, b := range t.blocks {
			if b.Rows > 0 {
				mine = append(mine, b.FirstRow+b.Rows)
			}
		}
		if i == 0 {
			ends = mine
			continue
		}
		// Both lists are increasing: keep their common rows.
		k, j := 0, 0
		out := ends[:0]
		for k < len(ends) && j < len(mine) {
			switch {
			case ends[k] < mine[j]:
				k++
			case ends[k] > mine[j]:
				j++
			default:
				out = append(out, ends[k])
				k++
				j++
			}
		}
		ends = out
	}
	return ends, nil
}

// Slice returns a Reader of the rows first to first+rows-1 of rd, which
// must start and end where a block of every column ends (at 0, or at rows
// BlockEnds returns). Its columns hold rd's blocks of those rows, as
// stored, and their statistics, so that Concat of it writes a file of
// those rows by copying the blocks; its file and column metadata are rd's
// (a column's statistics cut to its blocks, or left out when rd's do not
// agree with its blocks). It reads from rd's input and has its own block
// memory budget; rd stays usable.
func (rd *Reader) Slice(first, rows int64) (*Reader, error) {
	if first < 0 || rows < 0 || first > rd.rowCount || rows > rd.rowCount-first {
		return nil, fmt.Errorf("%w: Slice of rows [%d, %d) of a file of %d", ErrUsage, first, first+rows, rd.rowCount)
	}
	if rd.src != nil {
		return nil, errSourceFile("Slice")
	}
	end := first + rows
	s := &Reader{
		ra: rd.ra, size: rd.size, opts: rd.opts, rowCount: rows, meta: rd.meta,
		cols: rd.cols, starts: rd.starts, dataAt: rd.dataAt, ends: rd.ends,
		parents: rd.parents, children: rd.children, byName: rd.byName,
		codecs:  codecSet{custom: rd.codecs.custom, deflateLevel: rd.codecs.deflateLevel},
		rawMeta: make([]MetaData, len(rd.rawMeta)),
		tables:  make([]*blockTable, len(rd.cols)),
	}
	s.budget.Limit = rd.budget.Limit
	s.opts.Tables = nil // its tables are its own, made below
	for i := range rd.cols {
		t, err := rd.table(i)
		if err != nil {
			return nil, err
		}
		lo, hi := -1, -1
		var got int64
		for b := range t.blocks {
			bi := &t.blocks[b]
			// A block belongs to the slice its first row is in; one of no
			// rows at the file's end belongs to the last.
			if bi.FirstRow >= first && (bi.FirstRow < end || bi.Rows == 0 && bi.FirstRow == end && end == rd.rowCount) {
				if lo < 0 {
					lo = b
				}
				hi = b + 1
				got += bi.Rows
			}
		}
		if got != rows || rows > 0 && t.blocks[lo].FirstRow != first {
			return nil, fmt.Errorf("%w: rows [%d, %d) do not start and end at block ends of column %q", ErrUsage, first, end, rd.cols[i].Name)
		}
		st := &blockTable{codec: t.codec, codecName: t.codecName, checksum: t.checksum, end: t.end}
		if lo >= 0 {
			st.blocks = make([]BlockInfo, hi-lo)
			copy(st.blocks, t.blocks[lo:hi])
			for b := range st.blocks {
				st.blocks[b].FirstRow -= first
			}
			last := &st.blocks[len(st.blocks)-1]
			st.end = last.Offset + int64(last.CompressedSize) + int64(t.checksum)
		}
		s.tables[i] = st
		s.rawMeta[i] = rd.rawMeta[i]
		if rd.rawMeta[i].Has(stats.MetaKey) {
			m := rd.rawMeta[i].Clone()
			m.Delete(stats.MetaKey)
			if c, err := rd.BlockStats(i); err == nil && c != nil && lo >= 0 {
				m.Set(stats.MetaKey, stats.Encode(&stats.Column{Type: c.Type, Array: c.Array, Blocks: c.Blocks[lo:hi]}))
			}
			s.rawMeta[i] = m
		}
	}
	return s, nil
}
