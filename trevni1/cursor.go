package trevni1

import (
	"encoding/binary"
	"fmt"
	"math"
	"math/bits"
	"sort"

	"github.com/trevni-go/trevni/format"
)

// A column with repetition holds whole records in each block, but how many
// only its repetition levels say: the blocks of the Source's columns made
// from it are cut by rows instead (about as many as the column has
// blocks), and a reader finds the entry that starts a record by counting
// the records of the blocks before it, which the Source learns as blocks
// are read, in order, and keeps for the next seek (Source.starts). Reading
// a column from its start costs no more than reading its blocks; a seek
// past what is known reads the blocks in between once.

// cutRows returns the Source's blocks of version-1 column l, of the
// file's rows: those of its own blocks for a column without repetition,
// for one with it rows cut into about as many blocks, each estimated to
// take its share of the column's version-2 bytes.
func cutRows(rd *Reader, l int) []format.BlockInfo {
	blocks, rows := rd.blocks[l], rd.rows
	if rd.cols[l].MaxRep == 0 {
		t := make([]format.BlockInfo, len(blocks))
		var row int64
		for b, bi := range blocks {
			// What the block takes in version 2: its values re-encoded (a
			// fixed-size value may take two bytes more as a varint) and a
			// length an entry.
			size := bi.Uncompressed + 5*bi.Rows
			t[b] = format.BlockInfo{Rows: bi.Rows, FirstRow: row, UncompressedSize: int(min(size, math.MaxInt32)), CompressedSize: int(bi.Stored), Offset: bi.Start}
			row += bi.Rows
		}
		return t
	}
	if rows == 0 || len(blocks) == 0 {
		return nil
	}
	var size, stored int64
	for _, bi := range blocks {
		size += bi.Uncompressed + 5*bi.Rows
		stored += bi.Stored
	}
	k := (rows + int64(len(blocks)) - 1) / int64(len(blocks))
	t := make([]format.BlockInfo, 0, (rows+k-1)/k)
	var given int64
	for first := int64(0); first < rows; first += k {
		r := min(k, rows-first)
		end := first + r
		// Shares by rows: the estimate of what the block takes, and the
		// column's stored bytes, so that what a scan reports as read adds
		// up to the column's.
		share := int64(math.Round(float64(stored) * float64(end) / float64(rows)))
		est := int64(math.Ceil(float64(size) * float64(r) / float64(rows)))
		at := blocks[min(int64(len(blocks))-1, first*int64(len(blocks))/rows)].Start
		t = append(t, format.BlockInfo{Rows: r, FirstRow: first, UncompressedSize: int(min(est, math.MaxInt32)), CompressedSize: int(min(share-given, math.MaxInt32)), Offset: at})
		given = share
	}
	return t
}

// known returns, of version-1 column l, the last block whose first record
// is known to be at most row, and that record.
func (s *Source) known(l int, row int64) (int, int64) {
	s.mu.Lock()
	starts := s.starts[l]
	s.mu.Unlock()
	b := sort.Search(len(starts), func(i int) bool { return starts[i] > row }) - 1
	b = max(b, 0)
	if b >= len(s.rd.blocks[l]) {
		b = len(s.rd.blocks[l]) - 1 // the end is known: row is in the last
		for b > 0 && starts[b] > row {
			b--
		}
	}
	return b, starts[b]
}

// learn records that block b of version-1 column l starts at record rec
// (b the number of blocks: that the column holds rec records), learned by
// reading the blocks before it in order.
func (s *Source) learn(l, b int, rec int64) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if b == len(s.starts[l]) {
		s.starts[l] = append(s.starts[l], rec)
	}
}

// cursor reads a version-1 column of a Source record by record: its
// loaded block, the block's levels when decoded, and the record its next
// entry starts.
type cursor struct {
	s          *Source
	l          int
	cr         *ColumnReader
	reps, defs []uint16 // the loaded block's levels, when decoded
	decoded    bool
	held       int64 // their bytes, in the reader's block memory
	rec        int64 // the record entry cr.entry starts (or the next block)
	first      int64 // the record the loaded block starts
	values     bool  // the values are read: a seek reads those it skips
}

// nblocks returns the number of version-1 blocks of the column.
func (k *cursor) nblocks() int { return len(k.s.rd.blocks[k.l]) }

// entries returns the entries of the loaded block.
func (k *cursor) entries() int64 { return k.s.rd.blocks[k.l][k.cr.block].Rows }

// load loads block b, which starts record rec.
func (k *cursor) load(b int, rec int64) error {
	cr := k.cr
	if err := cr.loadBlock(b); err != nil {
		return err
	}
	cr.row = k.s.entryStarts[k.l][b]
	k.decoded, k.rec, k.first = false, rec, rec
	return nil
}

// levels decodes the loaded block's level arrays, within the reader's
// block memory.
func (k *cursor) levels() error {
	if k.decoded {
		return nil
	}
	if err := decodeLevels(k.cr, &k.reps, &k.defs, &k.held, k.entries()); err != nil {
		return err
	}
	k.decoded = true
	return nil
}

// release gives back the levels' buffers.
func (k *cursor) release() {
	k.reps, k.defs, k.held, k.decoded = nil, nil, 0, false
}

// recordsEnd returns the entry after the first most records from entry e
// of the loaded block (e starts one), and how many records those are: fewer
// than most where the block ends first.
func (k *cursor) recordsEnd(e, most int64) (end, recs int64, err error) {
	n := k.entries()
	switch {
	case k.cr.repBits == 0:
		r := min(most, n-e)
		return e + r, r, nil
	case k.cr.repBits == 1:
		end, recs = zerosEnd(k.cr.reps, e, n, most)
		return end, recs, nil
	}
	if err := k.levels(); err != nil {
		return 0, 0, err
	}
	reps := k.reps[:n]
	for end = e; end < n; end++ {
		if reps[end] == 0 {
			if recs == most {
				break
			}
			recs++
		}
	}
	return end, recs, nil
}

// skip moves past the entries up to end, reading the values they hold
// where the column's values are read.
func (k *cursor) skip(end int64) error {
	cr := k.cr
	if k.values && end > cr.entry {
		if err := k.levels(); err != nil {
			return err
		}
		max := uint16(cr.c.MaxDef)
		for e := cr.entry; e < end; e++ {
			if k.defs[e] == max {
				if err := cr.readValue(); err != nil {
					return cr.fail(err)
				}
			}
			cr.entry++
			cr.row++
		}
	}
	cr.row += end - cr.entry
	cr.entry = end
	return nil
}

// seek positions the cursor at the entry that starts record row, reading
// the blocks before it that the Source has not counted yet.
func (k *cursor) seek(row int64) error {
	cr := k.cr
	if cr.block >= 0 && k.rec == row && cr.entry < k.entries() {
		return nil
	}
	b, rec := k.s.known(k.l, row)
	if cr.block < b || k.rec > row {
		if err := k.load(b, rec); err != nil {
			return err
		}
	}
	for {
		end, recs, err := k.recordsEnd(cr.entry, row-k.rec)
		if err != nil {
			return err
		}
		if err := k.skip(end); err != nil {
			return err
		}
		k.rec += recs
		if k.rec == row && cr.entry < k.entries() {
			return nil
		}
		if err := k.nextBlock(); err != nil {
			return err
		}
	}
}

// nextBlock loads the block after the loaded one, whose entries are all
// read, having checked that the values area was used up (where values are
// read) and recorded where the next block starts.
func (k *cursor) nextBlock() error {
	cr := k.cr
	if k.values {
		if err := cr.finishBlock(); err != nil {
			return err
		}
	}
	b := cr.block + 1
	k.s.learn(k.l, b, k.rec)
	if b >= k.nblocks() {
		return cr.fail(fmt.Errorf("%w: the column's blocks hold %d records, the file %d", ErrFormat, k.rec, k.s.rd.rows))
	}
	return k.load(b, k.rec)
}

// end checks that the column ends at the file's last record, the cursor
// having read up to it: no entry left in the loaded block, none in the
// blocks after it.
func (k *cursor) end() error {
	cr := k.cr
	if n := k.entries(); cr.entry < n {
		return cr.fail(fmt.Errorf("%w: the column holds more records than the file's %d (entries left in its block)", ErrFormat, k.s.rd.rows))
	}
	if k.values {
		if err := cr.finishBlock(); err != nil {
			return err
		}
	}
	for b := cr.block + 1; b < k.nblocks(); b++ {
		if n := k.s.rd.blocks[k.l][b].Rows; n > 0 {
			return k.s.rd.colErr(k.l, b, -1, k.s.rd.blocks[k.l][b].Start, fmt.Errorf("%w: the column holds more records than the file's %d (a block of %d entries after them)", ErrFormat, k.s.rd.rows, n))
		}
	}
	k.s.learn(k.l, cr.block+1, k.rec)
	return nil
}

// countDefined returns how many entries of the loaded block from e to end
// hold a value.
func (k *cursor) countDefined(e, end int64) (int64, error) {
	cr := k.cr
	if cr.defBits == 0 {
		return end - e, nil
	}
	if cr.defBits == 1 && cr.c.MaxDef == 1 && !k.decoded {
		return onesIn(cr.defs, e, end), nil
	}
	if err := k.levels(); err != nil {
		return 0, err
	}
	max, c := uint16(cr.c.MaxDef), int64(0)
	for _, d := range k.defs[e:end] {
		if d == max {
			c++
		}
	}
	return c, nil
}

// onesIn returns how many bits from e to end of the bit stream b are set.
func onesIn(b []byte, e, end int64) int64 {
	var c int64
	for e < end && e&7 != 0 {
		c += int64(b[e>>3] >> (e & 7) & 1)
		e++
	}
	for ; e+8 <= end; e += 8 {
		c += int64(bits.OnesCount8(b[e>>3]))
	}
	for ; e < end; e++ {
		c += int64(b[e>>3] >> (e & 7) & 1)
	}
	return c
}

// zerosEnd returns, of the bit stream b, the position of the zero bit
// after the first most zero bits from position e, or n if there are no
// more before it, and how many zero bits it passed.
func zerosEnd(b []byte, e, n, most int64) (end, zeros int64) {
	for e < n {
		i, shift := e>>3, e&7
		var w uint64
		if i+8 <= int64(len(b)) {
			w = binary.LittleEndian.Uint64(b[i:])
		} else {
			var buf [8]byte
			copy(buf[:], b[i:])
			w = binary.LittleEndian.Uint64(buf[:])
		}
		avail := min(64-shift, n-e)
		z := ^(w >> shift)
		if avail < 64 {
			z &= 1<<avail - 1
		}
		c := int64(bits.OnesCount64(z))
		if zeros+c > most {
			for k := most - zeros; k > 0; k-- {
				z &= z - 1
			}
			return e + int64(bits.TrailingZeros64(z)), most
		}
		zeros += c
		e += avail
	}
	return n, zeros
}

// zeroBits finds the zero bits of a bit stream of n bits, in order: the
// entries of repetition level 0 of a one-bit level array.
type zeroBits struct {
	b    []byte
	n    int64
	base int64  // the position of bit 0 of z
	z    uint64 // the inverted bits from base, those before the last position asked for cleared
}

// next returns the position of the first zero bit after position after,
// or n if there is none.
func (it *zeroBits) next(after int64) int64 {
	for p := after + 1; p < it.n; p = it.base + 64 {
		if p < it.base || p >= it.base+64 {
			i := p >> 3
			var w uint64
			if i+8 <= int64(len(it.b)) {
				w = binary.LittleEndian.Uint64(it.b[i:])
			} else {
				var buf [8]byte
				copy(buf[:], it.b[i:])
				w = binary.LittleEndian.Uint64(buf[:])
			}
			it.base, it.z = i<<3, ^w
		}
		if z := it.z & (^uint64(0) << (p - it.base)); z != 0 {
			it.z = z
			if at := it.base + int64(bits.TrailingZeros64(z)); at < it.n {
				return at
			}
			return it.n
		}
	}
	return it.n
}
